#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Compare the tracefs format files of two rdmavt cores' trace events.

Usage: trace_formats.py [--only-in-ours EVENT]... OURS_DIR DISTRO_DIR
  Each DIR holds a copy of /sys/kernel/tracing/events/<system>/<event>/
  format as DIR/<system>/<event>/format, for every rvt* event of a core.

Every event of one core must exist on the other, but for the events
named with --only-in-ours (system/event), which must exist on ours only.
For each event both have, the format files must be the same but for the
ID line (a number the running kernel hands out): the same name line,
the same fields in the same order, each with the same type, offset,
size and signedness, and the same print fmt line. Each difference is
printed on a line of its own, naming the event and the field or line.
Exit status: 0 when there is no difference, 1 otherwise, 2 on bad input.
"""

import argparse
import os
import re
import sys

FIELD_RE = re.compile(r'^\s*field:(?P<decl>.*);\s*offset:(?P<offset>\d+);'
                      r'\s*size:(?P<size>\d+);\s*signed:(?P<signed>\d+);$')
DECL_RE = re.compile(r'^(?P<type>.*\S)\s+(?P<name>\S+)$')
CORES = ('ours', 'distro')


class Format:
    """One format file: its fields by name, in order, and its other lines."""

    def __init__(self, path):
        self.fields = {}
        self.order = []
        self.lines = {}
        with open(path, encoding='utf-8') as f:
            for line in f.read().splitlines():
                self._add(path, line)

    def _add(self, path, line):
        match = FIELD_RE.match(line)
        if match:
            decl = DECL_RE.match(match['decl'])
            if not decl:
                raise ValueError(f'{path}: no type and name in: {line}')
            name = decl['name']
            self.order.append(name)
            self.fields[name] = {'type': decl['type'],
                                 'offset': match['offset'],
                                 'size': match['size'],
                                 'signed': match['signed']}
            return
        key, sep, value = line.partition(':')
        if not line.strip() or key == 'ID':
            return
        if not sep:
            raise ValueError(f'{path}: not a format line: {line}')
        self.lines[key.strip()] = value.strip()


def load(top):
    """The events under top, as system/event -> Format."""
    events = {}
    for system in sorted(os.listdir(top)):
        sysdir = os.path.join(top, system)
        if not os.path.isdir(sysdir):
            continue
        for event in sorted(os.listdir(sysdir)):
            path = os.path.join(sysdir, event, 'format')
            if os.path.isfile(path):
                events[f'{system}/{event}'] = Format(path)
    return events


def compare_fields(event, ours, distro):
    """The differences between two events' fields."""
    diffs = []
    for name in ours.order + [n for n in distro.order if n not in ours.fields]:
        mine, theirs = ours.fields.get(name), distro.fields.get(name)
        if mine is None or theirs is None:
            core = 'ours' if theirs is None else 'distro'
            diffs.append(f'{event}: field {name}: only on {core}')
            continue
        for attr in ('type', 'offset', 'size', 'signed'):
            if mine[attr] != theirs[attr]:
                diffs.append(f'{event}: field {name}: {attr} '
                             f'"{mine[attr]}" on ours, '
                             f'"{theirs[attr]}" on distro')
    common = [n for n in ours.order if n in distro.fields]
    if common != [n for n in distro.order if n in ours.fields]:
        diffs.append(f'{event}: fields in another order: ours {ours.order}, '
                     f'distro {distro.order}')
    return diffs


def compare_lines(event, ours, distro):
    """The differences between two events' other lines (print fmt, name)."""
    diffs = []
    for key in list(ours.lines) + [k for k in distro.lines
                                   if k not in ours.lines]:
        values = [fmt.lines.get(key) for fmt in (ours, distro)]
        if values[0] == values[1]:
            continue
        diffs.append(f'{event}: {key} differs')
        for core, value in zip(CORES, values):
            shown = '(none)' if value is None else value
            diffs.append(f'    {core + ":":8}{shown}')
    return diffs


def compare(ours, distro, only_in_ours):
    """All differences between the two cores' event sets."""
    diffs = []
    for event in sorted(set(ours) | set(distro)):
        if event in only_in_ours:
            if event not in ours or event in distro:
                diffs.append(f'{event}: an event of ours only, but found '
                             f'on {"distro" if event in distro else "neither"}')
            continue
        missing = [c for c, evs in zip(CORES, (ours, distro))
                   if event not in evs]
        if missing:
            diffs.append(f'{event}: missing on {missing[0]}')
            continue
        diffs += compare_fields(event, ours[event], distro[event])
        diffs += compare_lines(event, ours[event], distro[event])
    for event in sorted(only_in_ours - set(ours)):
        diffs.append(f'{event}: an event of ours only, but missing on ours')
    return diffs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--only-in-ours', action='append', default=[],
                        metavar='EVENT')
    parser.add_argument('ours')
    parser.add_argument('distro')
    args = parser.parse_args()
    try:
        ours, distro = load(args.ours), load(args.distro)
    except (OSError, ValueError) as err:
        print(f'trace_formats: {err}')
        return 2
    if not ours or not distro:
        print('trace_formats: no events on '
              f'{"ours" if not ours else "distro"}')
        return 2
    diffs = compare(ours, distro, set(args.only_in_ours))
    for line in diffs:
        print(line)
    shared = [e for e in ours if e in distro]
    nfields = sum(len(ours[e].order) for e in shared)
    if diffs:
        count = sum(not line.startswith(' ') for line in diffs)
        print(f'{count} differences ({len(shared)} events on both cores)')
        return 1
    print(f'{len(shared)} events, {nfields} fields and {len(shared)} print '
          f'formats the same on both cores; ours only: '
          f'{", ".join(sorted(args.only_in_ours)) or "none"}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
