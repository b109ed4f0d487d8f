#!/usr/bin/env python3
"""Fits the iCE40 start-control floor of the delay model (docs/timing.md, Calibration):

    scripts/timing_fit.py CSV [CSV ...] [--check-apps sharpen,conv2d_b2b_3x3_repeat]
                          [--figures CONTROL,FANOUT,COUNTER]

reads the designs measured by scripts/timing_calibration.sh (their model data path, flip-flop
bits, clocks per period and latency, and their measured clock), fits the floor

    control_ns + control_fanout_ns * log2(ff_bits) + counter_bit_ns * ceil(log2(clocks))

(st::delay::Target::control_floor_ns) by a grid search on the designs of every app but the
check apps (at every clock target and from every scheduler in the CSVs), and prints the
fitted figures and the model's Spearman rank correlation and median error on the fit set, on
the check set (the check apps' designs, which the fit did not see), per clock target, and over
all, for the fitted floor and for the floor in the CSV (the model the CSV was made with). The
`--figures` also prints the statistics of given figures (e.g. `3.4,0,0`: the fixed floor
of earlier versions). The
objective: the lowest mean relative error on the fit set (ties: the higher Spearman there);
the median error does not choose, as most fit-set designs are limited by their data paths
and it is the same for most figures. (A split by clock target does not work: below
225 MHz the data paths, not the start control, limit most designs, so a floor fitted there
absorbs the data paths' error.)
"""
import csv
import math
import sys

REGISTER_NS = 0.9  # st::delay::Target::ice40_hx8k().register_ns


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


def spearman(x, y):
    a, b = ranks(x), ranks(y)
    n = len(a)
    ma, mb = sum(a) / n, sum(b) / n
    cov = sum((p - ma) * (q - mb) for p, q in zip(a, b))
    den = (sum((p - ma) ** 2 for p in a) * sum((q - mb) ** 2 for q in b)) ** 0.5
    return cov / den if den > 0 else float("nan")


def errors(model, measured):
    e = sorted(abs(m - f) / f for m, f in zip(model, measured))
    return e[len(e) // 2], e[-1]


def width(clocks):
    return (clocks - 1).bit_length() if clocks > 1 else 0


def model_mhz(r, fig):
    ns = r["data"]
    if r["latency"] > 0 and fig is not None:
        c0, cff, cctr = fig
        ns = max(ns, c0 + cff * math.log2(max(r["ff"], 1)) + cctr * width(r["clocks"]))
    elif r["latency"] > 0:
        ns = max(ns, r["floor"])
    return 1000.0 / (ns + REGISTER_NS)


def mean_error(rows, fig):
    return sum(abs(model_mhz(r, fig) - r["fmax"]) / r["fmax"] for r in rows) / len(rows)


def stats(rows, fig):
    m = [model_mhz(r, fig) for r in rows]
    f = [r["fmax"] for r in rows]
    med, top = errors(m, f)
    return spearman(m, f), med, top


def line(name, rows, fig):
    rho, med, top = stats(rows, fig)
    return (f"  {name}: {len(rows)} designs: Spearman {rho:.3f}, median error "
            f"{100 * med:.1f}%, largest {100 * top:.1f}%")


def main():
    args = sys.argv[1:]
    check = {"sharpen", "conv2d_b2b_3x3_repeat"}
    if "--check-apps" in args:
        k = args.index("--check-apps")
        check = set(args[k + 1].split(","))
        del args[k:k + 2]
    if not args:
        sys.exit(__doc__)
    given = None
    if "--figures" in args:
        k = args.index("--figures")
        given = tuple(float(x) for x in args[k + 1].split(","))
        del args[k:k + 2]
    rows = []
    for path in args:
        for r in csv.DictReader(open(path)):
            rows.append({
                "app": r["app"],
                "clock": int(float(r["clock"])),
                "fmax": float(r["fmax_mhz"]),
                "ff": int(r["ff_bits"]),
                "clocks": int(r["clocks"]),
                "latency": int(r["latency"]),
                "data": float(r["data_path_ns"]),
                "floor": float(r["control_floor_ns"] or 0),
            })
    fit = [r for r in rows if r["app"] not in check]
    held = [r for r in rows if r["app"] in check]
    if not fit or not held:
        sys.exit(f"need designs of the check apps ({', '.join(sorted(check))}) and of others")
    grid = [(c0 / 20, cff / 40, cctr / 40)
            for c0 in range(0, 80) for cff in range(0, 25) for cctr in range(0, 17)]
    # the lowest mean relative error (ties: the higher Spearman); the median does not
    # choose: most fit-set designs are limited by their data paths, so it is the same for
    # most figures
    fig = min(grid, key=lambda f: (round(mean_error(fit, f), 9), -stats(fit, f)[0]))
    print(f"fitted on {len(fit)} designs (apps other than {', '.join(sorted(check))}): "
          f"control_ns {fig[0]:.3f}, control_fanout_ns {fig[1]:.3f}, "
          f"counter_bit_ns {fig[2]:.3f}")
    models = [("the CSV's model", None), ("the fitted floor", fig)]
    if given is not None:
        models.insert(0, (f"the figures {given}", given))
    for name, f in models:
        print(name)
        print(line("fit set", fit, f))
        print(line("check set", held, f))
        for clock in sorted({r["clock"] for r in rows}):
            print(line(f"{clock} MHz", [r for r in rows if r["clock"] == clock], f))
        three = [r for r in rows if r["clock"] > 0]
        print(line("pipelined (every clock target but 0)", three, f))
        print(line("all", rows, f))


if __name__ == "__main__":
    main()
