#!/usr/bin/env python3
"""README's "Which tests cover each core file" against the tree: every
core .c file (the top directory's, rdmavt.ko's sources) has exactly one
row; every suite (NN-name) and every kmod file (kmod/NAME.c) a row names
exists; every suite is named in some row. Exit 1 with one line a failure.

Usage: coverage_map_test.py [REPO]"""
import os
import re
import sys

HEADING = '### Which tests cover each core file'


def table_rows(readme):
    """The table's (core files, tests) cells, in order."""
    lines = readme.splitlines()
    try:
        start = lines.index(HEADING)
    except ValueError:
        return None
    rows = []
    for line in lines[start + 1:]:
        if line.startswith('#'):
            break
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if not line.startswith('|') or len(cells) != 2 or \
                cells[0] in ('core file', '---'):
            continue
        rows.append((re.findall(r'`([^`]+)`', cells[0]),
                     re.findall(r'`([^`]+)`', cells[1])))
    return rows


def check(repo):
    failures = []
    with open(os.path.join(repo, 'README.md'), encoding='utf-8') as f:
        rows = table_rows(f.read())
    if rows is None:
        return [f'README.md: no "{HEADING}" section']
    suites_dir = os.path.join(repo, 'tools/testing/suites')
    suites = {n[:-3] for n in os.listdir(suites_dir) if n.endswith('.sh')}
    core = {n for n in os.listdir(repo)
            if n.endswith('.c') and not n.endswith('.mod.c')}
    seen_core, seen_suites = {}, set()
    for files, tests in rows:
        for name in files:
            seen_core[name] = seen_core.get(name, 0) + 1
            if name not in core:
                failures.append(f'{name}: a row for no core file')
        if not tests:
            failures.append(f'{", ".join(files)}: a row that names no test')
        for test in tests:
            if test.startswith('kmod/'):
                path = os.path.join(repo, 'tools/testing', test)
                if not os.path.isfile(path):
                    failures.append(f'{test}: no such test module file')
            elif test in suites:
                seen_suites.add(test)
            else:
                failures.append(f'{test}: no such suite')
    for name in sorted(core):
        if seen_core.get(name, 0) != 1:
            failures.append(f'{name}: {seen_core.get(name, 0)} rows, want 1')
    for suite in sorted(suites - seen_suites):
        failures.append(f'{suite}: a suite no row names')
    return failures


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../..')
    failures = check(repo)
    for failure in failures:
        print(f'FAIL: {failure}')
    print(f'coverage map: {len(failures)} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
