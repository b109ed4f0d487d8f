#!/usr/bin/env bash
# Regenerates docs/gallery/ (the pictures of docs/gallery.md) from real runs:
#
#   scripts/gallery.sh [APP ...]
#
# For each 1920x1080 app it schedules the design at one pixel per clock (slowdown
# 2073600), simulates its Verilog in Verilator on the synthetic test scene (`tessera
# test-image`: its luma for the gray apps, its G R / B G mosaic for demosaic and camera),
# compares every output pixel with the interpreter and writes the RTL's output image; then
# the interpreter writes its own image of the same program and input, and the two files
# must be byte-identical. APPs are names of examples/*.seq (default: the five below).
# demosaic and camera take about 2.5 minutes each (most of it scheduling); the whole run
# takes about 7 minutes on 2 cores. Needs Verilator (apt-get install -y verilator).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/tessera"
command -v verilator >/dev/null || { echo "gallery.sh: verilator not found (apt-get install -y verilator)" >&2; exit 2; }

out=docs/gallery
mkdir -p "$out"
"$bin" test-image --kind gray -o "$out/scene_gray.png"
"$bin" test-image --kind bayer-grbg -o "$out/scene_bayer.png"
"$bin" test-image --kind rgb -o "$out/scene_rgb.png"

apps=(big_real_32_conv2d big_real_32_conv2d_b2b big_real_32_sharpen demosaic camera)
if [ $# -gt 0 ]; then apps=("$@"); fi
log="$out/gallery.log"
# A run of some apps adds to the log of the last full run.
if [ $# -eq 0 ]; then : > "$log"; fi
for app in "${apps[@]}"; do
  case "$app" in
    demosaic|camera) input="$out/scene_bayer.png" ;;
    *) input="$out/scene_gray.png" ;;
  esac
  echo "== $app" | tee -a "$log"
  start=$SECONDS
  "$bin" verify "examples/$app.seq" --slowdown 2073600 --frames 1 \
    --image "$input" -o "$out/${app}_rtl.png" | tee -a "$log"
  echo "  verify took $((SECONDS - start)) s" | tee -a "$log"
  "$bin" eval "examples/$app.seq" --image "$input" -o "$out/${app}_interp.png" | tee -a "$log"
  cmp "$out/${app}_rtl.png" "$out/${app}_interp.png"
  echo "  the RTL's image and the interpreter's are byte-identical" | tee -a "$log"
  rm "$out/${app}_interp.png"
done
