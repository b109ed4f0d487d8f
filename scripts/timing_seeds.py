#!/usr/bin/env python3
"""How far place-and-route's own noise lets the delay model rank designs (docs/timing.md,
"How repeatable the measurement is"):

    scripts/timing_seeds.py OUT_DIR [--seeds 2,3]

OUT_DIR is a folder scripts/timing_calibration.sh wrote (its calibration.csv and, beside each
DESIGN.st, the seed-1 measurement DESIGN.st.fmax.json). Each design is placed and routed again
with every seed of --seeds (`tessera fmax DESIGN.st --seed K --json`, kept as
DESIGN.st.fmaxK.json and not measured again by a later run), and the script prints:

- the Spearman rank correlation between every two seeds;
- the mean of the other seeds' clocks against each seed: a predictor made of real
  place-and-route runs of the very same designs, which bounds what a model can reach
  against one seed's measurement;
- the model (the CSV's modelled clock) against each seed and against the mean of all;
- the best a start-control floor linear in the model's design figures (log2 of the flip-flop
  bits, the phase counters' width, the latency, log2 of the model area, the longest data
  path) can do: fitted by least squares on the very designs it is judged on, against the
  mean of the seeds (an upper bound for such floors, not a fit to use).

Needs the release binary (cargo build --release), yosys and nextpnr-ice40.
"""
import csv
import json
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing_fit import REGISTER_NS, spearman, width  # noqa: E402

BIN = os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release", "tessera")


def design_path(out, r):
    return os.path.join(out, f"{r['app']}_s{r['slowdown']}_c{r['clock']}_{r['strategy']}.st")


def measured(path, seed):
    name = f"{path}.fmax.json" if seed == 1 else f"{path}.fmax{seed}.json"
    if seed != 1 and not (os.path.exists(name) and os.path.getsize(name) > 0):
        got = subprocess.run([BIN, "fmax", path, "--seed", str(seed), "--json"],
                             capture_output=True, text=True)
        if got.returncode != 0:
            return None
        with open(name, "w") as f:
            f.write(got.stdout)
    try:
        with open(name) as f:
            return float(json.load(f)["fmax_mhz"])
    except (OSError, ValueError, KeyError):
        return None


def solve(xs, ys):
    """Least squares by the normal equations (a handful of columns)."""
    n = len(xs[0])
    a = [[sum(x[i] * x[j] for x in xs) + (1e-9 if i == j else 0) for j in range(n)]
         for i in range(n)]
    b = [sum(x[i] * y for x, y in zip(xs, ys)) for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda k: abs(a[k][i]))
        a[i], a[p], b[i], b[p] = a[p], a[i], b[p], b[i]
        for k in range(n):
            if k != i:
                f = a[k][i] / a[i][i]
                a[k] = [u - f * v for u, v in zip(a[k], a[i])]
                b[k] -= f * b[i]
    return [b[i] / a[i][i] for i in range(n)]


def figures(r):
    return [1.0, math.log2(max(int(r["ff_bits"]), 1)), width(int(r["clocks"])),
            float(r["latency"]), math.log2(max(float(r["area"]), 1.0)),
            float(r["data_path_ns"])]


def main():
    args = sys.argv[1:]
    seeds = [2, 3]
    if "--seeds" in args:
        k = args.index("--seeds")
        seeds = [int(s) for s in args[k + 1].split(",")]
        del args[k:k + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    out = args[0]
    with open(os.path.join(out, "calibration.csv")) as f:
        rows = list(csv.DictReader(f))
    seeds = [1] + [s for s in seeds if s != 1]
    jobs = [(design_path(out, r), s) for r in rows for s in seeds]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        got = list(pool.map(lambda j: measured(*j), jobs))
    clocks = [got[i * len(seeds):(i + 1) * len(seeds)] for i in range(len(rows))]
    keep = [i for i, c in enumerate(clocks) if all(x is not None for x in c)]
    if len(keep) < len(rows):
        print(f"{len(rows) - len(keep)} designs not measured at every seed: left out")
    rows = [rows[i] for i in keep]
    by_seed = {s: [clocks[i][k] for i in keep] for k, s in enumerate(seeds)}
    model = [float(r["model_mhz"]) for r in rows]
    mean = [sum(by_seed[s][i] for s in seeds) / len(seeds) for i in range(len(rows))]
    print(f"{len(rows)} designs, seeds {', '.join(map(str, seeds))}")
    for i, a in enumerate(seeds):
        for b in seeds[i + 1:]:
            print(f"  seed {a} against seed {b}: Spearman {spearman(by_seed[a], by_seed[b]):.3f}")
    for s in seeds:
        others = [x for x in seeds if x != s]
        if others:
            pred = [sum(by_seed[o][i] for o in others) / len(others) for i in range(len(rows))]
            print(f"  mean of the other seeds against seed {s}: "
                  f"Spearman {spearman(pred, by_seed[s]):.3f}")
    for s in seeds:
        print(f"  model against seed {s}: Spearman {spearman(model, by_seed[s]):.3f}")
    print(f"  model against the mean of the seeds: Spearman {spearman(model, mean):.3f}")
    timed = [(r, m) for r, m in zip(rows, mean) if int(r["latency"]) > 0]
    if len(timed) > 6:
        w = solve([figures(r) for r, _ in timed], [1000.0 / m - REGISTER_NS for _, m in timed])

        def floor_mhz(r):
            ns = float(r["data_path_ns"])
            if int(r["latency"]) > 0:
                ns = max(ns, sum(a * b for a, b in zip(w, figures(r))))
            return 1000.0 / (ns + REGISTER_NS)

        best = [floor_mhz(r) for r in rows]
        print("  a floor fitted on these designs' mean clock (1, log2 ff bits, counter width, "
              "latency, log2 area, data path: "
              + ", ".join(f"{x:.3f}" for x in w) + " ns):")
        print(f"    against the mean: Spearman {spearman(best, mean):.3f}; "
              + ", ".join(f"seed {s} {spearman(best, by_seed[s]):.3f}" for s in seeds))


if __name__ == "__main__":
    main()
