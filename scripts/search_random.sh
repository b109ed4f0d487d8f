#!/usr/bin/env bash
# The e-graph scheduler against the Aetherling baseline on random well-typed programs
# (issue 16; docs/scheduling.md, "Random programs against the baseline"): the ignored test
# `more_programs` of tests/search_random.rs, built in release, under `nice`. Prints every
# point, then the counts (e-graph smaller / equal / larger, baseline refusals, e-graph
# failures, simulation mismatches), the time taken and each loss.
#
#   scripts/search_random.sh [--programs N] [--first SEED] [--minimise]
#
# --programs: how many programs (default 200), each at three of its default slowdowns;
# --first: the first seed (default 0); --minimise: also shrink each losing program and
# print it.
set -euo pipefail
cd "$(dirname "$0")/.."

programs=200 first=0 minimise=0
while [ $# -gt 0 ]; do
  case "$1" in
    --programs) programs="$2"; shift 2 ;;
    --first) first="$2"; shift 2 ;;
    --minimise) minimise=1; shift ;;
    *) echo "search_random.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

SEARCH_RANDOM_PROGRAMS="$programs" SEARCH_RANDOM_FIRST="$first" SEARCH_RANDOM_MINIMISE="$minimise" \
  nice cargo test --release --test search_random more_programs -- --ignored --nocapture
