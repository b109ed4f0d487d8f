#!/usr/bin/env bash
# Measures how well the delay model predicts place-and-route (docs/timing.md):
#
#   scripts/timing_calibration.sh [OUT_DIR] [CLOCKS] [STRATEGIES]
#
# schedules every small paper app (map, conv2d, conv2d_b2b, conv2d_b2b_3x3_repeat, sharpen)
# at each of its paper slowdowns for each clock target in CLOCKS (default "0 150 225": 0 is
# no pipelining) with each scheduler in STRATEGIES (default "egraph"; "egraph aetherling"
# adds Aetherling's designs, registered after every operator at a clock), measures each
# design with `tessera fmax --json` (synth_ice40, nextpnr-ice40, register harness), writes
# OUT_DIR/calibration.csv (app, slowdown, clock target, strategy, modelled MHz, measured
# MHz, logic cells, model flip-flop bits and area, clocks per period, latency, the model's
# longest data path and start-control floor, the measured critical path; the input of
# scripts/timing_fit.py) and prints
# the Spearman rank correlation and the median and largest relative error of the model,
# over all the designs and per clock target.
#
# Designs are kept in OUT_DIR (default target/timing-calibration) beside their measurement
# (DESIGN.st.fmax.json); measurements are also kept by the design's text, for every run
# (in $TIMING_MEASURED, default target/timing-measured), so a design equal byte for byte to
# one already measured (the same design for several clock targets, or from both schedulers,
# or from an earlier run) is not placed and routed again (same design, same flow, same seed). After a change of the delay
# model alone the script re-reads the model (`tessera check --json`) without placing
# anything again; delete those folders to measure everything afresh. A design nextpnr-ice40 could
# not place
# and route (`tessera fmax` failed) is left out of the statistics and named at the end.
# Needs yosys, nextpnr-ice40 and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/timing-calibration}"
clocks="${2:-0 150 225}"
strategies="${3:-egraph}"
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/tessera"
measured="${TIMING_MEASURED:-target/timing-measured}"
mkdir -p "$out" "$measured"
csv="$out/calibration.csv"
echo "app,slowdown,clock,strategy,model_mhz,fmax_mhz,logic_cells,ff_bits,area,clocks,latency,data_path_ns,control_floor_ns,critical_path" > "$csv"
rm -f "$out/failed.txt"
declare -A slowdowns=(
  [map]="5 10 20 25 40 50 100 200"
  [conv2d]="1 2 4 8 16 48 144"
  [conv2d_b2b]="1 2 4 8 16 48 144"
  [conv2d_b2b_3x3_repeat]="1 2 4 8 16 48 144"
  [sharpen]="1 2 4 8 16 48 144"
)
for strategy in $strategies; do
  for clock in $clocks; do
    for app in map conv2d conv2d_b2b conv2d_b2b_3x3_repeat sharpen; do
      for s in ${slowdowns[$app]}; do
        st="$out/${app}_s${s}_c${clock}_${strategy}.st"
        "$bin" schedule "examples/$app.seq" --slowdown "$s" --clock-mhz "$clock" \
          --strategy "$strategy" -o "$st.new" 2>/dev/null
        # measurements are kept by the design's text: a design made for several clock
        # targets (or by both schedulers) is placed and routed once
        key="$measured/$(sha256sum < "$st.new" | cut -c1-16).fmax.json"
        if [ -f "$st" ] && [ -s "$st.fmax.json" ] && cmp -s "$st" "$st.new" && [ ! -s "$key" ]; then
          cp "$st.fmax.json" "$key"
        fi
        mv "$st.new" "$st"
        if [ -s "$key" ]; then
          cp "$key" "$st.fmax.json"
        elif "$bin" fmax "$st" --json > "$st.fmax.json" 2> "$st.fmax.err"; then
          cp "$st.fmax.json" "$key"
        else
          # not measured (e.g. nextpnr's router did not converge): left out of the
          # statistics, listed, and tried again by the next run
          : > "$st.fmax.json"
          echo "timing_calibration: $app s=$s clock=$clock $strategy: not measured: $(tail -n1 "$st.fmax.err")" >&2
          echo "$app,$s,$clock,$strategy,not measured" >> "$out/failed.txt"
          continue
        fi
        "$bin" check "$st" --json > "$st.check.json"
        row="$(python3 - "$st.fmax.json" "$st.check.json" <<'EOF'
import json, sys
f = json.load(open(sys.argv[1]))
c = json.load(open(sys.argv[2]))
path = " -> ".join(f["critical_path"]).replace(",", ";")
t = c["timing"]
floor = t["control_floor_ns"]
print(t["clock_mhz"], f["fmax_mhz"], f["logic_cells"], c["area"]["ff_bits"], c["area"]["scalar"],
      c["clocks"], c["latency"], t["data_path_ns"], "" if floor is None else floor, path, sep=",")
EOF
)"
        echo "$app,$s,$clock,$strategy,$row" >> "$csv"
        echo "timing_calibration: $app s=$s clock=$clock $strategy: $row" >&2
      done
    done
  done
done
python3 - "$csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
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
def stats(name, rows):
    model = [float(r["model_mhz"]) for r in rows]
    meas = [float(r["fmax_mhz"]) for r in rows]
    a, b = ranks(model), ranks(meas)
    n = len(a)
    ma, mb = sum(a) / n, sum(b) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    den = (sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b)) ** 0.5
    rho = f"{cov / den:.3f}" if den > 0 else "undefined"
    errors = sorted(abs(m - f) / f for m, f in zip(model, meas))
    print(f"{name}: {n} designs: Spearman {rho}, median error {100 * errors[n // 2]:.1f}%, "
          f"largest {100 * errors[-1]:.1f}%")
stats("all", rows)
try:
    failed = open(sys.argv[1].rsplit("/", 1)[0] + "/failed.txt").read().splitlines()
    print(f"not measured ({len(failed)}): " + "; ".join(failed))
except FileNotFoundError:
    pass
for clock in sorted({r["clock"] for r in rows}, key=float):
    stats(f"clock {clock}", [r for r in rows if r["clock"] == clock])
EOF
