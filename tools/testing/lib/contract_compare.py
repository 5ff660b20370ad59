#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Compare rvt_contract logs of our rdmavt core and the distro's.

Usage: contract_compare.py --list FILE [--show-all] RUN...
  RUN is PERSONALITY:OURS_LOG:DISTRO_LOG (one per personality).

A log line is "<step>|<text>". Steps are compared in order, by name.
Within a step the lines that are not snapshots are compared as sequences
(difflib); every line only ours has, or only the distro's has, is a
difference. Snapshot lines ("snap <section> <fields>") are logged only
when a section changed, so the comparator keeps each side's current
state of every section and, in each step where either side logged a
section, compares the two states field by field: a differing field is a
difference "snap <section> <field>=<value>" on each side.

Every difference must be covered by an entry of the intended-differences
list (Documentation/contract-differences.txt): same personality, a step
matching the entry's step pattern, and the difference's text matching
one of the entry's patterns for that side. An entry that covers nothing
in any run is stale. Exit status: 0 when every difference is covered and
no entry is stale, 1 otherwise, 2 on bad input.
"""

import argparse
import difflib
import re
import sys
from collections import OrderedDict

SIDES = ("ours", "distro")
# Differences printed per step; the rest are counted.
MAX_SHOWN = 16
# Port counters: compared by how much they grew in a step, so that one
# early difference is not reported again in every later step.
COUNTERS = {"resends", "seq_naks", "rdma_seq", "rnr_naks", "other_naks",
            "loop", "drops", "vl15", "timeouts", "dmawait", "unaligned",
            "dupreq", "seqnak", "crwaits"}


class Entry:
    """One intended difference."""

    def __init__(self, fields, where):
        self.where = where
        self.id = fields.get("id", ["?"])[0]
        self.personalities = " ".join(fields.get("personalities", [])).split()
        self.step = re.compile(fields.get("step", [".*"])[0])
        self.patterns = {side: [re.compile(p) for p in fields.get(side, [])]
                         for side in SIDES}
        self.used = 0
        for key in ("id", "step", "reason", "test"):
            if key not in fields:
                raise ValueError(f"{where}: entry {self.id} lacks '{key}:'")
        if not any(self.patterns.values()):
            raise ValueError(f"{where}: entry {self.id} has no pattern")

    def covers(self, personality, step, side, text):
        if self.personalities and personality not in self.personalities:
            return False
        if not self.step.search(step):
            return False
        return any(p.search(text) for p in self.patterns[side])


def parse_list(path):
    """Blocks of 'key: value' lines; indented lines continue a value."""
    entries, fields, key, start = [], {}, None, 0
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines + [""], 1):
        if line.startswith("#"):
            continue
        if not line.strip():
            if fields:
                entries.append(Entry(fields, f"{path}:{start}"))
            fields, key = {}, None
            continue
        if line[0] in " \t" and key:
            fields[key][-1] += " " + line.strip()
            continue
        m = re.match(r"([a-z]+):\s*(.*)$", line)
        if not m:
            raise ValueError(f"{path}:{n}: not 'key: value': {line}")
        if not fields:
            start = n
        key = m.group(1)
        fields.setdefault(key, []).append(m.group(2))
    return entries


def read_log(path):
    """Ordered {step: [lines]} of a log."""
    steps = OrderedDict()
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            step, sep, text = line.partition("|")
            if not sep:
                step, text = "-", line
            steps.setdefault(step, []).append(text)
    return steps


def fields_of(text):
    """A snapshot's fields: key=value, duplicates numbered, the rest by place."""
    out, seen = OrderedDict(), {}
    for i, tok in enumerate(text.split()):
        key, sep, value = tok.partition("=")
        if not sep:
            key, value = f"@{i}", tok
        n = seen.get(key, 0)
        seen[key] = n + 1
        out[key if not n else f"{key}#{n}"] = value
    return out


def snap_split(text):
    """('qp u_a', 'fields...') for 'snap qp u_a fields...', else None."""
    m = re.match(r"snap (qp \S+|port\d+|dev) ?(.*)$", text)
    return (m.group(1), m.group(2)) if m else None


def apply_line(side, text, state, touched, begin=None):
    """Track snapshots and QPs that are gone; True if @text is a snapshot.

    begin[side][section] keeps a section's state from before the step.
    """
    snap = snap_split(text)
    if snap:
        if begin is not None and snap[0] not in begin[side]:
            begin[side][snap[0]] = state[side].get(snap[0])
        state[side][snap[0]] = fields_of(snap[1])
        if touched is not None and snap[0] not in touched:
            touched.append(snap[0])
        return True
    if text.startswith("gone "):
        state[side].pop("qp " + text.split()[1], None)
    return False


def growth(now, before, key):
    """How much counter @key grew, or None if it is not a number."""
    try:
        return int(now[key], 0) - int((before or {}).get(key, "0"), 0)
    except ValueError:
        return None


def section_diffs(section, a, b, reported, begin=None):
    """A section's differing fields, each reported when it starts to differ.

    A section that exists on one side only is one difference, not one
    per field (reported: {(section, key): (ours, distro)}).
    """
    if (a is None) != (b is None):
        pair = ("exists" if a is not None else None,
                "exists" if b is not None else None)
        if reported.get((section, "")) == pair:
            return []
        reported[(section, "")] = pair
        side = "ours" if a is not None else "distro"
        return [(side, f"snap {section} exists only here")]
    reported.pop((section, ""), None)
    diffs = []
    for key in list(a) + [k for k in b if k not in a]:
        if key in COUNTERS and key in a and key in b and begin is not None:
            before_a = begin["ours"].get(section, a)
            before_b = begin["distro"].get(section, b)
            da, db = growth(a, before_a, key), growth(b, before_b, key)
            if da is not None and db is not None:
                if da != db:
                    diffs.append(("ours", f"snap {section} {key}+={da}"))
                    diffs.append(("distro", f"snap {section} {key}+={db}"))
                continue
        pair = (a.get(key), b.get(key))
        if pair[0] == pair[1]:
            reported.pop((section, key), None)
            continue
        if reported.get((section, key)) == pair:
            continue
        reported[(section, key)] = pair
        name = key.split("#")[0]
        if key in a:
            diffs.append(("ours", f"snap {section} {name}={a[key]}"))
        if key in b:
            diffs.append(("distro", f"snap {section} {name}={b[key]}"))
    return diffs


def step_diffs(lines, state, reported):
    """Differences of one step: [(side, text)]; updates the snapshot state.

    A snapshot field that differs is reported once, when it starts to
    differ or changes while differing, not in every later step that logs
    its section.
    """
    plain = {side: [] for side in SIDES}
    touched = []
    begin = {side: {} for side in SIDES}
    for side in SIDES:
        for text in lines[side]:
            if not apply_line(side, text, state, touched, begin):
                plain[side].append(text)
    diffs = []
    sm = difflib.SequenceMatcher(None, plain["ours"], plain["distro"],
                                 autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        diffs += [("ours", t) for t in plain["ours"][i1:i2]]
        diffs += [("distro", t) for t in plain["distro"][j1:j2]]
    for section in touched:
        diffs += section_diffs(section, state["ours"].get(section),
                               state["distro"].get(section), reported, begin)
    return diffs


def token_diff(text, other):
    """@text, shortened to its tokens that @other lacks when it is long."""
    if len(text) <= 160 or other is None:
        return text
    theirs = set(other.split())
    mine = [t for t in text.split() if t not in theirs]
    return f"{text[:60]}... [{' '.join(mine)}]"


def compare(personality, logs, entries, show_all):
    """Print the run's differences; return how many no entry covers."""
    state = {side: {} for side in SIDES}
    reported = {}
    order = list(logs["ours"])
    order += [s for s in logs["distro"] if s not in logs["ours"]]
    unlisted = []
    for step in order:
        shown = 0
        if step.endswith(".register"):
            # A new device: nothing of the last round's carries over.
            state = {side: {} for side in SIDES}
            reported.clear()
        missing = [side for side in SIDES if step not in logs[side]]
        if missing:
            other = "distro" if missing[0] == "ours" else "ours"
            for text in logs[other][step]:
                apply_line(other, text, state, None)
            diffs = [(other, f"step only here ({len(logs[other][step])} "
                             f"lines): {logs[other][step][-1]}")]
        elif logs["ours"][step] == logs["distro"][step]:
            for side in SIDES:
                for text in logs[side][step]:
                    apply_line(side, text, state, None)
            continue
        else:
            diffs = step_diffs({side: logs[side][step] for side in SIDES},
                               state, reported)
        partner = {}
        for side in SIDES:
            mine = [t for s_, t in diffs if s_ == side]
            theirs = [t for s_, t in diffs if s_ != side]
            for i, t in enumerate(mine):
                partner[(side, t)] = theirs[i] if i < len(theirs) else None
        for side, text in diffs:
            covering = [e for e in entries
                        if e.covers(personality, step, side, text)]
            for e in covering:
                e.used += 1
            if not covering:
                unlisted.append(f"{personality} {step} {side}: {text}")
            if show_all or not covering:
                shown += 1
                if shown <= MAX_SHOWN:
                    mark = "UNLISTED" if not covering else covering[0].id
                    shown_text = token_diff(text, partner.get((side, text)))
                    print(f"  {personality} {step} {side:6} [{mark}] "
                          f"{shown_text}")
        if shown > MAX_SHOWN:
            print(f"  {personality} {step} ... {shown - MAX_SHOWN} more")
    return unlisted


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", required=True)
    ap.add_argument("--show-all", action="store_true",
                    help="also print the differences the list covers")
    ap.add_argument("runs", nargs="+", metavar="PERSONALITY:OURS:DISTRO")
    args = ap.parse_args()
    try:
        entries = parse_list(args.list)
        runs = []
        for run in args.runs:
            personality, ours, distro = run.split(":")
            runs.append((personality, {"ours": read_log(ours),
                                       "distro": read_log(distro)}))
    except (OSError, ValueError) as err:
        print(f"contract_compare: {err}", file=sys.stderr)
        return 2
    unlisted = [d for p, logs in runs
                for d in compare(p, logs, entries, args.show_all)]
    stale = [e for e in entries if not e.used]
    for e in stale:
        print(f"  stale entry {e.id} ({e.where}): no difference matches it")
    for e in entries:
        if e.used:
            print(f"  listed {e.id}: {e.used} difference(s)")
    # The last line is what a failure's summary shows: say what went wrong.
    first = []
    if unlisted:
        first.append(f"first unlisted: {unlisted[0]}")
    if stale:
        first.append(f"first stale: {stale[0].id}")
    print(f"contract: {len(unlisted)} unlisted difference(s), {len(stale)} "
          f"stale entr{'y' if len(stale) == 1 else 'ies'}"
          + "".join(f"; {f}" for f in first))
    return 1 if unlisted or stale else 0


if __name__ == "__main__":
    sys.exit(main())
