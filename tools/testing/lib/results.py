"""Count a guest run's results, as `make check` does, from the results
channel alone (the file run.sh fills from the guest's results port).

Usage: results.py [--table] --cores "CORE..." --suites "SUITE..." FILE

Without --table, prints one record per result, "STATUS core/suite/test"
(with ": reason" when there is one), the channel's own results included,
plus a FAIL of the harness for everything that does not add up:

- a suite of a core that declared no plan (it never ran, or died first),
  or declared one more than once;
- a suite whose number of results (tests; the harness's own @ results
  aside) differs from its plan: a result lost, or one too many;
- a test reported more than once;
- results of a suite or core that was not asked for;
- a line on the channel that is neither a result nor a plan;
- a PASS for a harness result (@...): those can only fail.

With --table, prints the passed/failed/skipped counts per suite, one
column per core, the failures above included. SKIP and KNOWN count as
skipped.
"""
import argparse
import collections
import re
import sys

RESULT_RE = re.compile(
    r"^RVT-RESULT: (PASS|FAIL|SKIP|KNOWN) ([^/ ]+)/([^/ ]+)/([^ ]+?)"
    r"(?:: (.*))?$")
PLAN_RE = re.compile(r"^RVT-PLAN: ([^/ ]+)/([^/ ]+) ([0-9]+)$")


class Tally:
    """The results of one run, by core and suite, in the order seen."""

    def __init__(self, cores, suites):
        self.cores = cores
        self.suites = list(suites)
        self.records = []
        self.plans = collections.defaultdict(list)
        self.names = collections.defaultdict(collections.Counter)

    def add(self, status, core, suite, test, reason=None):
        self.records.append((status, core, suite, test, reason))
        if suite not in self.suites:
            self.suites.append(suite)

    def harness_fail(self, core, suite, what, reason):
        self.add("FAIL", core, suite, "@" + what, reason)

    def read(self, lines):
        for raw in lines:
            line = raw.replace("\r", "").replace("\0", "").rstrip("\n")
            if not line.strip():
                continue
            match = RESULT_RE.match(line)
            if match:
                status, core, suite, test, reason = match.groups()
                if test.startswith("@") and status != "FAIL":
                    reason = f"a harness result reported {status}"
                    status = "FAIL"
                self.add(status, core, suite, test, reason)
                if not test.startswith("@"):
                    self.names[core, suite][test] += 1
                continue
            match = PLAN_RE.match(line)
            if match:
                core, suite, count = match.groups()
                self.plans[core, suite].append(int(count))
                continue
            self.harness_fail("-", "channel", "malformed",
                              f"not a result or a plan: {line!r}")

    def check(self, expected_suites):
        seen = {(r[1], r[2]) for r in self.records} | set(self.plans)
        expected = {(c, s) for c in self.cores for s in expected_suites}
        for core, suite in sorted(seen - expected):
            if core != "-":
                self.harness_fail(core, suite, "unexpected",
                                  "results of a suite or core not asked for")
        for core in self.cores:
            for suite in expected_suites:
                self.check_suite(core, suite)

    def check_suite(self, core, suite):
        plans = self.plans.get((core, suite), [])
        names = self.names.get((core, suite), collections.Counter())
        if not plans:
            self.harness_fail(core, suite, "plan",
                              f"no plan declared ({sum(names.values())} "
                              "results): the suite never ran or died first")
            return
        if len(plans) > 1:
            self.harness_fail(core, suite, "plan",
                              f"plan declared {len(plans)} times: {plans}")
        for test, times in sorted(names.items()):
            if times > 1:
                self.harness_fail(core, suite, "duplicate",
                                  f"{test} reported {times} times")
        got = sum(names.values())
        if got != plans[0]:
            word = "missing" if got < plans[0] else "extra"
            self.harness_fail(core, suite, "count",
                              f"{got} results, plan {plans[0]}: "
                              f"{abs(plans[0] - got)} {word}")

    def print_records(self):
        for status, core, suite, test, reason in self.records:
            tail = f": {reason}" if reason else ""
            print(f"{status} {core}/{suite}/{test}{tail}")

    def print_table(self):
        count = collections.Counter()
        for status, core, suite, _, _ in self.records:
            kind = {"PASS": "p", "FAIL": "f"}.get(status, "s")
            count[suite, core, kind] += 1
        rows = [s for s in self.suites
                if any(count[s, c, k] for c in self.cores + ["-"]
                       for k in "pfs")]
        if not rows:
            return
        print("Results by suite, passed/failed/skipped:")
        label = {"ours": "our core", "distro": "distro core"}
        header = "".join(f" {label.get(c, c):<12}" for c in self.cores)
        print(f"  {'suite':<14}{header}")
        for suite in rows:
            cells = "".join(
                " {:<12}".format("/".join(str(count[suite, c, k])
                                          for k in "pfs"))
                for c in self.cores)
            print(f"  {suite:<14}{cells}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--cores", required=True)
    parser.add_argument("--suites", required=True)
    parser.add_argument("file")
    args = parser.parse_args()
    suites = args.suites.split()
    tally = Tally(args.cores.split(), suites)
    try:
        with open(args.file, encoding="utf-8", errors="replace") as f:
            tally.read(f)
    except OSError as err:
        tally.harness_fail("-", "channel", "missing", str(err))
    tally.check(suites)
    if args.table:
        tally.print_table()
    else:
        tally.print_records()


if __name__ == "__main__":
    sys.exit(main())
