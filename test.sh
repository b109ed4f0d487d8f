#!/usr/bin/env bash
# Runs every check of the project: formatting, lints and all tests.
#
# On a fresh Debian machine it first installs what the tests need and is missing:
# Icarus Verilog (RTL simulation), Verilator (lint, fast simulation), Yosys (synthesis area),
# nextpnr-ice40 (place-and-route: measured Fmax) and CBC (the exact ILP extractor). Run it from anywhere: ./test.sh
set -euo pipefail
cd "$(dirname "$0")"

missing=()
command -v iverilog >/dev/null 2>&1 || missing+=(iverilog)
command -v verilator >/dev/null 2>&1 || missing+=(verilator)
command -v yosys >/dev/null 2>&1 || missing+=(yosys)
command -v nextpnr-ice40 >/dev/null 2>&1 || missing+=(nextpnr-ice40)
if ! pkg-config --exists cbc 2>/dev/null && [ ! -e /usr/include/coin/CbcModel.hpp ]; then
  missing+=(coinor-libcbc-dev)
fi
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if [ ${#missing[@]} -gt 0 ]; then
  echo "test.sh: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; then
  rustup component add rustfmt clippy
fi

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy (also with the lp feature: the ILP extractor)"
cargo clippy --all-targets -- -D warnings
cargo clippy --features lp --all-targets -- -D warnings
# The tests are built once, with the lp feature: the ILP extractor's own tests (the greedy
# extraction reaches CBC's optimum; CBC's time limit) run beside the others, and nothing
# else changes with it (exact extraction is only used when asked for); clippy above checks
# the code both with and without it.
# cargo-nextest (on this project's machines and CI) runs the tests of every test binary in
# one pool, slowest first (.config/nextest.toml), so a binary with one long test does not
# leave the other core idle the way `cargo test`'s one-binary-at-a-time order does; it does
# not run doctests, so those follow. Without nextest, `cargo test` runs the same tests.
if cargo nextest --version >/dev/null 2>&1; then
  echo "== cargo nextest run --features lp (every test), then cargo test --doc"
  cargo nextest run --features lp --no-fail-fast
  cargo test --features lp --doc
else
  echo "== cargo test --features lp (cargo-nextest not found: one test binary at a time)"
  cargo test --features lp
fi
