#!/usr/bin/env bash
# The fuzzer's long run (docs/fuzzing.md): generated programs, mutated programs and mutated
# designs through the whole pipeline, in chunks of the `long_run` test of tests/fuzz.rs built
# in release, until a number of inputs or a time is reached. Prints what every chunk ran and
# the total.
#
#   scripts/fuzz.sh [--inputs N] [--time SECONDS] [--seed S] [--chunk N]
#                   [--schedule SHARE] [--rtl SHARE]
#
# --inputs: stop after N inputs (default 1000000 unless --time is given); --time: stop
# starting chunks after SECONDS; --seed: the first chunk's seed (chunk k uses S+k);
# --chunk: inputs per chunk (default 20000); --schedule / --rtl: the share of generated
# programs scheduled and simulated (default 0.05), and of those whose Verilog Icarus
# simulates (default 0.02).
#
# A failing chunk's minimal input is written to target/fuzz/crashes/fuzz_SEED.seq (or .st,
# with its program as .program.seq); a chunk that crashes the process (abort, stack
# overflow, time or memory bound) leaves the input it was running there as crash_SEED.*.
# The run goes on with the next chunk (the total counts completed chunks only); the exit
# status is 1 if any chunk failed.
set -euo pipefail
cd "$(dirname "$0")/.."

inputs="" secs="" seed=1 chunk=20000 schedule=0.05 rtl=0.02
while [ $# -gt 0 ]; do
  case "$1" in
    --inputs) inputs="$2"; shift 2 ;;
    --time) secs="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --chunk) chunk="$2"; shift 2 ;;
    --schedule) schedule="$2"; shift 2 ;;
    --rtl) rtl="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ -z "$inputs" ] && [ -z "$secs" ]; then inputs=1000000; fi

out=target/fuzz
mkdir -p "$out/current" "$out/crashes"
# Built once: later chunks run this binary even if the sources change meanwhile.
bin=$(cargo test --release --test fuzz --no-run --message-format=json 2>/dev/null \
  | grep -o '"executable":"[^"]*"' | tail -1 | sed 's/"executable":"//; s/"$//')
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
  echo "fuzz.sh: could not build the fuzz test (cargo test --release --test fuzz --no-run)" >&2
  exit 2
fi

start=$(date +%s)
done_inputs=0 failed=0 chunks=0
totals=""
while :; do
  if [ -n "$inputs" ] && [ "$done_inputs" -ge "$inputs" ]; then break; fi
  if [ -n "$secs" ] && [ $(( $(date +%s) - start )) -ge "$secs" ]; then break; fi
  n=$chunk
  if [ -n "$inputs" ] && [ $(( inputs - done_inputs )) -lt "$n" ]; then n=$(( inputs - done_inputs )); fi
  log="$out/chunk_$seed.log"
  rm -f "$out/current"/input.*
  set +e
  FUZZ_SEED=$seed FUZZ_CASES=$n FUZZ_SCHEDULE=$schedule FUZZ_RTL=$rtl \
    FUZZ_CURRENT="$out/current" FUZZ_CRASHES="$out/crashes" \
    "$bin" long_run --exact --ignored --nocapture >"$log" 2>&1
  status=$?
  set -e
  chunks=$(( chunks + 1 ))
  line=$(grep '^fuzz: seed' "$log" || true)
  if [ $status -eq 0 ] && [ -n "$line" ]; then
    echo "$line"
    done_inputs=$(( done_inputs + n ))
    # Sum the numbers of the summary lines position by position.
    nums=$(echo "$line" | sed 's/^fuzz: seed [0-9]*: //; s/ in [0-9.]* s$//' | grep -o '[0-9]\+' | tr '\n' ' ')
    if [ -z "$totals" ]; then totals="$nums"; else
      totals=$(paste -d' ' <(echo "$totals" | tr ' ' '\n' | sed '/^$/d') <(echo "$nums" | tr ' ' '\n' | sed '/^$/d') | awk '{print $1+$2}' | tr '\n' ' ')
    fi
  else
    failed=$(( failed + 1 ))
    if grep -q '^fuzz seed' "$log"; then
      echo "fuzz: seed $seed FAILED (minimal input in $out/crashes/fuzz_$seed.*; log $log):"
      grep -A3 '^fuzz seed' "$log" | head -4
    else
      for f in "$out/current"/input.*; do
        [ -e "$f" ] || continue
        cp "$f" "$out/crashes/crash_$seed.${f#"$out/current/input."}"
      done
      echo "fuzz: seed $seed CRASHED with status $status (input in $out/crashes/crash_$seed.*; log $log):"
      grep -m3 'fuzz: an input\|overflow\|panicked\|memory' "$log" || tail -3 "$log"
    fi
  fi
  seed=$(( seed + 1 ))
done

elapsed=$(( $(date +%s) - start ))
read -r -a t <<<"${totals:-0 0 0 0 0 0 0 0 0 0}"
echo "fuzz: ran $done_inputs inputs in $chunks chunks in ${elapsed} s:" \
  "${t[1]:-0} malformed .seq, ${t[2]:-0} malformed .st, ${t[3]:-0} generated;" \
  "${t[4]:-0} rejected with a diagnostic, ${t[5]:-0} checked, ${t[6]:-0} evaluated," \
  "${t[7]:-0} scheduled, ${t[8]:-0} simulated, ${t[9]:-0} RTL-simulated; $failed chunk(s) failed"
[ "$failed" -eq 0 ]
