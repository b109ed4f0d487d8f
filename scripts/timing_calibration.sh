#!/usr/bin/env bash
# Measures how well the delay model predicts place-and-route (docs/timing.md):
#
#   scripts/timing_calibration.sh [OUT_DIR] [CLOCKS]
#
# schedules every small paper app (map, conv2d, conv2d_b2b, conv2d_b2b_3x3_repeat, sharpen)
# at each of its paper slowdowns for each clock target in CLOCKS (default "0 150 225": 0 is
# no pipelining), measures each design with `tessera fmax --json` (synth_ice40,
# nextpnr-ice40, register harness), writes OUT_DIR/calibration.csv (app, slowdown, clock
# target, modelled MHz, measured MHz, logic cells) and prints the Spearman rank correlation
# and the median and largest relative error of the model. Designs are kept in OUT_DIR
# (default target/timing-calibration). Needs yosys, nextpnr-ice40 and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/timing-calibration}"
clocks="${2:-0 150 225}"
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/tessera"
mkdir -p "$out"
csv="$out/calibration.csv"
echo "app,slowdown,clock,model_mhz,fmax_mhz,logic_cells" > "$csv"
declare -A slowdowns=(
  [map]="5 10 20 25 40 50 100 200"
  [conv2d]="1 2 4 8 16 48 144"
  [conv2d_b2b]="1 2 4 8 16 48 144"
  [conv2d_b2b_3x3_repeat]="1 2 4 8 16 48 144"
  [sharpen]="1 2 4 8 16 48 144"
)
for clock in $clocks; do
  for app in map conv2d conv2d_b2b conv2d_b2b_3x3_repeat sharpen; do
    for s in ${slowdowns[$app]}; do
      st="$out/${app}_s${s}_c${clock}.st"
      "$bin" schedule "examples/$app.seq" --slowdown "$s" --clock-mhz "$clock" -o "$st" 2>/dev/null
      row="$("$bin" fmax "$st" --json | python3 -c '
import json, sys
v = json.load(sys.stdin)
print(v["model_mhz"], v["fmax_mhz"], v["logic_cells"], sep=",")')"
      echo "$app,$s,$clock,$row" >> "$csv"
      echo "timing_calibration: $app s=$s clock=$clock: $row" >&2
    done
  done
done
python3 - "$csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
model = [float(r["model_mhz"]) for r in rows]
meas = [float(r["fmax_mhz"]) for r in rows]
def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2
        i = j + 1
    return r
a, b = ranks(model), ranks(meas)
n = len(a)
ma, mb = sum(a) / n, sum(b) / n
cov = sum((x - ma) * (y - mb) for x, y in zip(a, b))
rho = cov / (sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b)) ** 0.5
errors = sorted(abs(m - f) / f for m, f in zip(model, meas))
print(f"{n} designs: Spearman {rho:.3f}, median error {100 * errors[n // 2]:.1f}%, "
      f"largest {100 * errors[-1]:.1f}%")
EOF
