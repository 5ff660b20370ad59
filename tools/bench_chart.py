#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""make bench's chart, from the RVT-BENCH lines of a guest log.

Left: for every benchmark, ours against the distro core (and against
rdma_rxe where it ran), above 1 meaning ours is better, and rvtsw's
packet engine between two devices (wire) against ours, loopback within
one, above 1 meaning the engine is better; the bar is the
median over the rounds, the whisker the lowest and highest round (round k
of one target against round k of the other). Right: the scale rows, per
QP cost against the number of live QPs, one curve per core and figure.

Usage: bench_chart.py GUEST_LOG OUT_PREFIX   (writes OUT_PREFIX.png/.svg)
"""
import re
import statistics
import sys
from collections import defaultdict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LINE = re.compile(r"^RVT-BENCH (\S+) (\S+) (\S+) (\S+)$")
SCALE = re.compile(r"^scale_(\w+?)_(\d+)$")
LOWER_BETTER = {"usec", "ns", "B/QP", "IPI"}
# The scale rows that are no curve over the QP count: what a destroy costs
# the other CPUs, measured at one count with c CPUs busy.
CPU_FIGURE = re.compile(r"_\d+cpu$")


def read_rounds(path):
    """{(target, bench): [value per round]} and {bench: unit}."""
    runs, units = defaultdict(list), {}
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m or m.group(3) == "failed":
                continue
            target, bench, value, unit = m.groups()
            try:
                runs[target, bench].append(float(value))
            except ValueError:
                continue
            units[bench] = unit
    return runs, units


def ratios(runs, units, bench, other):
    """Ours against @other, round by round, better-is-above-1."""
    ours, theirs = runs.get(("ours", bench)), runs.get((other, bench))
    if not ours or not theirs:
        return []
    out = []
    for o, t in zip(ours, theirs):
        if o > 0 and t > 0:
            out.append(t / o if units[bench] in LOWER_BETTER else o / t)
    return out


# The bars: (target, colour, label); wire's ratio is the other way up.
BARS = (("distro", "tab:blue", "ours / distro"),
        ("rxe", "tab:orange", "ours / rxe"),
        ("wire", "tab:green", "wire / ours"))


def ratio_panel(ax, runs, units):
    benches = [b for b in units if not SCALE.match(b)]
    width = 0.8 / len(BARS)
    for k, (other, colour, label) in enumerate(BARS):
        xs, meds, lows, highs = [], [], [], []
        for i, bench in enumerate(benches):
            r = ratios(runs, units, bench, other)
            if other == "wire":
                r = [1 / x for x in r]
            if not r:
                continue
            med = statistics.median(r)
            xs.append(i + (k - (len(BARS) - 1) / 2) * width)
            meds.append(med)
            lows.append(med - min(r))
            highs.append(max(r) - med)
        if xs:
            ax.bar(xs, meds, width, color=colour, label=label,
                   yerr=[lows, highs], capsize=2)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(benches)), benches, rotation=70, fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("ratio (above 1: the first named better)")
    ax.set_title("median ratio per benchmark, whiskers: round spread")
    ax.legend(fontsize=8)


def scale_panel(ax, runs):
    curves = defaultdict(dict)
    for (target, bench), values in runs.items():
        m = SCALE.match(bench)
        if m and m.group(1) not in ("memory", "chain") and \
                not CPU_FIGURE.search(m.group(1)):
            curves[target, m.group(1)][int(m.group(2))] = \
                statistics.median(values)
    # One colour per figure, one line style per core.
    figures = sorted({figure for _, figure in curves})
    colours = dict(zip(figures, plt.rcParams["axes.prop_cycle"].by_key()
                       ["color"]))
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
    if curves:
        ax.legend(fontsize=7, ncol=2)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    runs, units = read_rounds(sys.argv[1])
    if not units:
        sys.exit(f"no RVT-BENCH figures in {sys.argv[1]}")
    fig, (left, right) = plt.subplots(1, 2, figsize=(16, 6),
                                      gridspec_kw={"width_ratios": [3, 1]})
    ratio_panel(left, runs, units)
    scale_panel(right, runs)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(f"{sys.argv[2]}.{ext}", dpi=100)
    print(f"chart: {sys.argv[2]}.png, {sys.argv[2]}.svg")


if __name__ == "__main__":
    main()
