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
the entry's step pattern matches, and the difference's text matched, as
a whole, by one of the entry's patterns for that side ("ours:" or
"distro:"; "ours hfi1:" for a pattern that applies to one personality
only). A difference counts for the first entry and, in it, the first
pattern that covers it.

An entry may instead allow an order, and nothing else, to differ:
  unordered:      a pattern with the named groups "walk" and "qp". In a
                  step of the entry, consecutive lines that it matches
                  with the same walk form a walk on each side; the n-th
                  walk of a name on one side is paired with the n-th on
                  the other. A pair that holds the same lines, in which
                  no QP comes twice, is compared as a set: its order is
                  forgiven. Any other pair is compared line by line.
  unordered-snap: a pattern matching "<section> <field>" of snapshot
                  fields whose value is a comma-separated list: lists
                  with the same items, none twice, are equal whatever
                  their order.

The list is refused (exit status 2) when a pattern is not anchored on
the whole line (^...$) or when an entry's step pattern matches every
step of the logs it applies to. The comparison fails (exit status 1) on
a difference no entry covers, on a pattern that covered or reordered
nothing in any run, or on an entry that did nothing for one of its
personalities. Exit status 0 otherwise.
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
# Keys of an entry that hold patterns, and what each is matched against.
PATTERN_KEYS = ("ours", "distro", "unordered", "unordered-snap")


class Pattern:
    """One pattern of an entry, with the number of times it was used."""

    def __init__(self, entry, key, text):
        self.entry = entry
        self.key, _, self.personality = key.partition(" ")
        key = self.key
        self.text = text
        if self.personality and entry.personalities and \
                self.personality not in entry.personalities:
            raise ValueError(f"{entry.where}: entry {entry.id}: pattern "
                             f"for {self.personality}, which the entry "
                             f"does not apply to")
        if not (text.startswith("^") and text.endswith("$")):
            raise ValueError(f"{entry.where}: entry {entry.id}: {key} "
                             f"pattern not anchored on the whole line "
                             f"(^...$): {text}")
        try:
            self.re = re.compile(text)
        except re.error as err:
            raise ValueError(f"{entry.where}: entry {entry.id}: {key} "
                             f"pattern {text}: {err}") from err
        if key == "unordered" and not {"walk", "qp"} <= set(
                self.re.groupindex):
            raise ValueError(f"{entry.where}: entry {entry.id}: unordered "
                             f"pattern lacks (?P<walk>...) or (?P<qp>...): "
                             f"{text}")
        self.used = 0

    def match(self, text):
        return self.re.fullmatch(text)

    def applies(self, personality):
        return not self.personality or self.personality == personality


class Entry:
    """One intended difference."""

    def __init__(self, fields, where):
        self.where = where
        self.id = fields.get("id", ["?"])[0]
        for key in ("id", "step", "reason", "test"):
            if key not in fields:
                raise ValueError(f"{where}: entry {self.id} lacks '{key}:'")
        self.personalities = " ".join(fields.get("personalities", [])).split()
        step = fields["step"][0]
        if not (step.startswith("^") and step.endswith("$")):
            raise ValueError(f"{where}: entry {self.id}: step pattern not "
                             f"anchored (^...$): {step}")
        self.step_text = step
        self.step = re.compile(step)
        self.patterns = {key: [] for key in PATTERN_KEYS}
        for key, values in fields.items():
            base = key.partition(" ")[0]
            if base in PATTERN_KEYS:
                self.patterns[base] += [Pattern(self, key, p)
                                        for p in values]
        if not any(self.patterns.values()):
            raise ValueError(f"{where}: entry {self.id} has no pattern")
        # Uses per personality, to find an entry one of them never needs.
        self.used_by = {}

    def applies(self, personality, step):
        if self.personalities and personality not in self.personalities:
            return False
        return bool(self.step.fullmatch(step))

    def cover(self, personality, side, text):
        """The first pattern for @side that matches @text, or None."""
        for pattern in self.patterns[side]:
            if pattern.applies(personality) and pattern.match(text):
                return pattern
        return None

    def note_use(self, pattern, personality):
        pattern.used += 1
        self.used_by[personality] = self.used_by.get(personality, 0) + 1


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
        m = re.match(r"([a-z][a-z-]*(?: [a-z0-9]+)?):\s*(.*)$", line)
        if not m:
            raise ValueError(f"{path}:{n}: not 'key: value': {line}")
        if not fields:
            start = n
        key = m.group(1)
        base, _, qualifier = key.partition(" ")
        if base not in ("id", "personalities", "step", "reason", "test") + \
                PATTERN_KEYS or (qualifier and base not in PATTERN_KEYS):
            raise ValueError(f"{path}:{n}: unknown key '{key}'")
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
    """A snapshot's fields: key=value, a QP table bucket "b<n>:<QPs>" by
    its name, duplicates numbered, the rest by place."""
    out, seen = OrderedDict(), {}
    for i, tok in enumerate(text.split()):
        key, sep, value = tok.partition("=")
        if not sep:
            bucket = re.fullmatch(r"(b\d+):(.*)", tok)
            if bucket:
                key, value = bucket.groups()
            else:
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


def same_set(items_a, items_b):
    """True if the two lists hold the same items, none of them twice."""
    return (len(set(items_a)) == len(items_a) and
            sorted(items_a) == sorted(items_b))


class Run:
    """What the comparison of one personality's logs needs to know."""

    def __init__(self, personality, entries):
        self.personality = personality
        self.entries = entries
        self.step = None

    def active(self, key):
        """(entry, pattern) of @key that apply to the current step."""
        return [(e, p) for e in self.entries
                if e.applies(self.personality, self.step)
                for p in e.patterns[key] if p.applies(self.personality)]

    def unordered_field(self, section, key, a, b):
        """True if an entry lets field @key of @section differ in order."""
        name = f"{section} {key.split('#')[0]}"
        if a == b:
            return False
        for entry, pattern in self.active("unordered-snap"):
            if pattern.match(name) and same_set(
                    [x for x in a.split(",") if x],
                    [x for x in b.split(",") if x]):
                entry.note_use(pattern, self.personality)
                return True
        return False


def walks(lines, pattern):
    """{walk: [(start, end), ...]}: runs of consecutive lines that
    @pattern matches with the same walk, in order."""
    out, cur = {}, None
    for i, text in enumerate(lines + [None]):
        m = pattern.match(text) if text is not None else None
        walk = m.group("walk") if m else None
        if cur and (walk is None or walk != cur[0]):
            out.setdefault(cur[0], []).append((cur[1], i))
            cur = None
        if walk is not None and cur is None:
            cur = (walk, i)
    return out


def unorder(run, plain):
    """Put the distro's walks in our order where they hold the same QPs
    with the same lines, each QP once (the entries' unordered patterns)."""
    for entry, pattern in run.active("unordered"):
        mine = walks(plain["ours"], pattern)
        theirs = walks(plain["distro"], pattern)
        for walk, spans in mine.items():
            for (a1, a2), (b1, b2) in zip(spans, theirs.get(walk, [])):
                ours = plain["ours"][a1:a2]
                dist = plain["distro"][b1:b2]
                if ours == dist or not same_set(ours, dist):
                    continue
                qps = [pattern.match(t).group("qp") for t in ours]
                if len(set(qps)) != len(qps):
                    continue
                plain["distro"][b1:b2] = ours
                entry.note_use(pattern, run.personality)


def section_diffs(run, section, a, b, reported, begin=None):
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
        if pair[0] == pair[1] or (
                None not in pair and
                run.unordered_field(section, key, *pair)):
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


def step_diffs(run, lines, state, reported):
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
    unorder(run, plain)
    diffs = []
    sm = difflib.SequenceMatcher(None, plain["ours"], plain["distro"],
                                 autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        diffs += [("ours", t) for t in plain["ours"][i1:i2]]
        diffs += [("distro", t) for t in plain["distro"][j1:j2]]
    for section in touched:
        diffs += section_diffs(run, section, state["ours"].get(section),
                               state["distro"].get(section), reported,
                               begin)
    return diffs


def token_diff(text, other):
    """@text, shortened to its tokens that @other lacks when it is long."""
    if len(text) <= 160 or other is None:
        return text
    theirs = set(other.split())
    mine = [t for t in text.split() if t not in theirs]
    return f"{text[:60]}... [{' '.join(mine)}]"


def cover(run, side, text):
    """The entry and pattern that take the difference, or (None, None)."""
    for entry in run.entries:
        if entry.applies(run.personality, run.step):
            pattern = entry.cover(run.personality, side, text)
            if pattern:
                return entry, pattern
    return None, None


def compare(personality, logs, entries, show_all):
    """Print the run's differences; return those no entry covers."""
    run = Run(personality, entries)
    state = {side: {} for side in SIDES}
    reported = {}
    order = list(logs["ours"])
    order += [s for s in logs["distro"] if s not in logs["ours"]]
    unlisted = []
    for step in order:
        run.step = step
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
            diffs = step_diffs(run, {side: logs[side][step]
                                     for side in SIDES}, state, reported)
        partner = {}
        for side in SIDES:
            mine = [t for s_, t in diffs if s_ == side]
            theirs = [t for s_, t in diffs if s_ != side]
            for i, t in enumerate(mine):
                partner[(side, t)] = theirs[i] if i < len(theirs) else None
        for side, text in diffs:
            entry, pattern = cover(run, side, text)
            if entry:
                entry.note_use(pattern, personality)
            else:
                unlisted.append(f"{personality} {step} {side}: {text}")
            if show_all or not entry:
                shown += 1
                if shown <= MAX_SHOWN:
                    mark = entry.id if entry else "UNLISTED"
                    shown_text = token_diff(text, partner.get((side, text)))
                    print(f"  {personality} {step} {side:6} [{mark}] "
                          f"{shown_text}")
        if shown > MAX_SHOWN:
            print(f"  {personality} {step} ... {shown - MAX_SHOWN} more")
    return unlisted


def universal_steps(entries, runs):
    """Entries whose step pattern matches every step of their logs."""
    bad = []
    for entry in entries:
        steps = {step for personality, logs in runs
                 if not entry.personalities or
                 personality in entry.personalities
                 for side in SIDES for step in logs[side]}
        if steps and all(entry.step.fullmatch(s) for s in steps):
            bad.append(entry)
    return bad


def idle(entries, runs):
    """Messages for patterns never used and entries a personality of
    theirs never needed."""
    out = []
    for entry in entries:
        for key in PATTERN_KEYS:
            for pattern in entry.patterns[key]:
                if not pattern.used:
                    whose = f" {pattern.personality}" \
                        if pattern.personality else ""
                    out.append(f"unused pattern of {entry.id} "
                               f"({entry.where}) {key}{whose}: "
                               f"{pattern.text}")
        for personality, _ in runs:
            if (entry.personalities and
                    personality not in entry.personalities):
                continue
            if not entry.used_by.get(personality):
                out.append(f"entry {entry.id} ({entry.where}) matched "
                           f"nothing for {personality}")
    return out


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
    universal = universal_steps(entries, runs)
    for entry in universal:
        print(f"contract_compare: {entry.where}: entry {entry.id}: step "
              f"{entry.step_text} matches every step", file=sys.stderr)
    if universal:
        return 2
    unlisted = [d for p, logs in runs
                for d in compare(p, logs, entries, args.show_all)]
    unused = idle(entries, runs)
    for message in unused:
        print(f"  {message}")
    for entry in entries:
        counts = " ".join(str(p.used) for key in PATTERN_KEYS
                          for p in entry.patterns[key])
        print(f"  listed {entry.id}: {sum(entry.used_by.values())} "
              f"use(s), per pattern {counts}")
    # The last line is what a failure's summary shows: say what went wrong.
    first = []
    if unlisted:
        first.append(f"first unlisted: {unlisted[0]}")
    if unused:
        first.append(f"first unused: {unused[0]}")
    print(f"contract: {len(unlisted)} unlisted difference(s), "
          f"{len(unused)} unused pattern(s) or entr(y/ies)"
          + "".join(f"; {f}" for f in first))
    return 1 if unlisted or unused else 0


if __name__ == "__main__":
    sys.exit(main())
