#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""make bench's chart, from the RVT-BENCH lines of a guest log.

Left: a bar for every ratio the table has (tools/bench.sh's RATIOS,
given as --ratios: each "A/B" whose two targets both ran), per
benchmark, above 1 meaning A is better (for the units of --lower-better
the figures are inverted so that this holds too); the bar is the median
over the rounds, the whisker the lowest and highest round (round k of
one target against round k of the other). As in the table, a benchmark
in which either target failed a round has no bar. Right, where the log
has them: the scale rows, per QP cost against the number of live QPs,
one curve per core and figure.

Usage: bench_chart.py --ratios "A/B ..." --lower-better "UNIT ..."
       (GUEST_LOG OUT_PREFIX | --data GUEST_LOG)
writes OUT_PREFIX.png and .svg; with --data, prints the bars instead
(a line a bar: ratio, benchmark, median, lowest, highest; a ratio with
no bar as "ratio -"): what the chart is drawn from, without matplotlib.
"""
import argparse
import re
import statistics
import sys
from collections import defaultdict

LINE = re.compile(r"^RVT-BENCH (\S+) (\S+) (\S+) (\S+)$")
SCALE = re.compile(r"^scale_(\w+?)_(\d+)$")
# The scale rows that are no curve over the QP count: what a destroy costs
# the other CPUs, measured at one count with c CPUs busy.
CPU_FIGURE = re.compile(r"_\d+cpu$")


def read_rounds(path):
    """{(target, bench): [value per round, None where it failed]} and
    {bench: unit}."""
    runs, units = defaultdict(list), {}
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            target, bench, value, unit = m.groups()
            try:
                runs[target, bench].append(float(value))
            except ValueError:
                runs[target, bench].append(None)
            units[bench] = unit
    return runs, units


def round_ratios(a, b, lower_better):
    """@a against @b (a round's figure each), round by round, above 1
    when @a is better; [] if either failed a round."""
    if not a or not b or None in a or None in b:
        return []
    return [y / x if lower_better else x / y
            for x, y in zip(a, b) if x > 0 and y > 0]


def ratio_bars(runs, units, ratios, lower_better):
    """[(ratio, [(bench, [its ratio per round])])], one for each "A/B" of
    @ratios whose targets both ran, in that order; the scale rows are
    the other panel's."""
    seen = {target for target, _ in runs}
    benches = [b for b in units if not SCALE.match(b)]
    out = []
    for pair in ratios:
        a, b = pair.split("/")
        if a not in seen or b not in seen:
            continue
        bars = []
        for bench in benches:
            r = round_ratios(runs.get((a, bench)), runs.get((b, bench)),
                             units[bench] in lower_better)
            if r:
                bars.append((bench, r))
        out.append((pair, bars))
    return out


def print_bars(bars):
    for pair, rows in bars:
        if not rows:
            print(f"{pair} -")
        for bench, r in rows:
            print(f"{pair} {bench} {statistics.median(r):.2f} "
                  f"{min(r):.2f} {max(r):.2f}")


def ratio_panel(ax, bars, ratios, colours):
    # The benchmarks with a bar of any ratio, in the log's order.
    benches = list(dict.fromkeys(bench for _, rows in bars
                                 for bench, _ in rows))
    width = 0.8 / max(len(bars), 1)
    for k, (pair, rows) in enumerate(bars):
        xs, meds, lows, highs = [], [], [], []
        for bench, r in rows:
            med = statistics.median(r)
            xs.append(benches.index(bench) + (k - (len(bars) - 1) / 2) * width)
            meds.append(med)
            lows.append(med - min(r))
            highs.append(max(r) - med)
        if xs:
            # A ratio's colour is its place in RATIOS: the same in
            # every chart, whichever targets ran.
            ax.bar(xs, meds, width,
                   color=colours[ratios.index(pair) % len(colours)],
                   label=pair.replace("/", " / "),
                   yerr=[lows, highs], capsize=2)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(benches)), benches, rotation=70, fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("ratio (above 1: the first named better)")
    ax.set_title("median ratio per benchmark, whiskers: round spread")
    if benches:
        ax.legend(fontsize=8)


def scale_curves(runs):
    """{(target, figure): {live QPs: median}} of the scale rows."""
    curves = defaultdict(dict)
    for (target, bench), values in runs.items():
        m = SCALE.match(bench)
        values = [v for v in values if v is not None]
        if m and values and m.group(1) not in ("memory", "chain") and \
                not CPU_FIGURE.search(m.group(1)):
            curves[target, m.group(1)][int(m.group(2))] = \
                statistics.median(values)
    return curves


def scale_panel(ax, curves, colour_cycle):
    # One colour per figure, one line style per core.
    figures = sorted({figure for _, figure in curves})
    colours = dict(zip(figures, colour_cycle))
    for (target, figure), points in sorted(curves.items()):
        qps = sorted(points)
        ax.plot(qps, [points[q] for q in qps], marker="o",
                color=colours[figure],
                linestyle="-" if target == "ours" else "--",
                label=f"{target} {figure}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("live QPs")
    ax.set_ylabel("ns per QP")
    ax.set_title("QP table at scale")
    ax.legend(fontsize=7, ncol=2)


def draw(bars, ratios, curves, prefix):
    # matplotlib only here: --data runs without it (make check does
    # not install it).
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    if curves:
        fig, (left, right) = plt.subplots(
            1, 2, figsize=(16, 6), gridspec_kw={"width_ratios": [3, 1]})
        scale_panel(right, curves, colours)
    else:
        fig, left = plt.subplots(1, 1, figsize=(12, 6))
    ratio_panel(left, bars, ratios, colours)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(f"{prefix}.{ext}", dpi=100)
    print(f"chart: {prefix}.png, {prefix}.svg")


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--ratios", required=True,
                    help="the ratios, A/B ...: tools/bench.sh's RATIOS")
    ap.add_argument("--lower-better", required=True,
                    help="the units in which less is better: tools/bench.sh's")
    ap.add_argument("--data", action="store_true",
                    help="print the bars, draw nothing")
    ap.add_argument("log")
    ap.add_argument("prefix", nargs="?")
    args = ap.parse_args()
    if not args.data and not args.prefix:
        ap.error("OUT_PREFIX is wanted, or --data")
    ratios = args.ratios.split()
    bad = [r for r in ratios if not re.fullmatch(r"[^/\s]+/[^/\s]+", r)]
    if bad:
        ap.error(f"a ratio is A/B: {' '.join(bad)}")
    runs, units = read_rounds(args.log)
    if not units:
        sys.exit(f"no RVT-BENCH figures in {args.log}")
    bars = ratio_bars(runs, units, ratios, set(args.lower_better.split()))
    if args.data:
        print_bars(bars)
    else:
        draw(bars, ratios, scale_curves(runs), args.prefix)


if __name__ == "__main__":
    main()
