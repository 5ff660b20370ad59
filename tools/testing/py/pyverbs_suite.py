"""Run rdma-core's pyverbs test suite against one device and count.

Usage: pyverbs_suite.py TESTS_DIR DEVICE LABEL [SUITE_OPTION...]

SUITE_OPTIONs go to the suite's own argument parser (e.g. --gid 1).
TESTS_DIR holds the suite, uncompressed (Debian ships it gzipped under
/usr/share/doc/rdma-core/tests). Prints every test with its outcome, the
failures and errors with their tracebacks, the skip reasons with their
counts, then one line per test (PASS, SKIP with its reason, FAIL, ERROR),
then

  PYVERBS-COUNTS LABEL run N passed N failed N errors N skipped N

and exits 0 only if nothing failed or raised an error.
"""
import collections
import os
import sys
import unittest
from importlib.machinery import SourceFileLoader


class RecordingResult(unittest.TextTestResult):
    """A TextTestResult that also remembers the tests that passed."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.passed = []

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed.append(test)


def load_suite(tests_dir, device, options):
    sys.path.insert(0, tests_dir)
    # The suite's own argument parser reads sys.argv (as run_tests.py).
    sys.argv = [sys.argv[0], "--dev", device] + options
    from args_parser import parser  # pylint: disable=import-outside-toplevel
    parser.parse_args()
    tests = SourceFileLoader(
        "tests", os.path.join(tests_dir, "__init__.py")).load_module()
    return unittest.defaultTestLoader.loadTestsFromModule(tests)


def summarize(label, result):
    skipped = len(result.skipped)
    failed = len(result.failures) + len(result.unexpectedSuccesses)
    errors = len(result.errors)
    passed = len(result.passed)
    print(f"\nSkips of {label}, by reason:")
    reasons = collections.Counter(reason for _, reason in result.skipped)
    for reason, count in reasons.most_common():
        print(f"  {count:4d}  {reason}")
    print(f"\nTests of {label}, each:")
    for test in result.passed:
        print(f"  PASS {test.id()}")
    for test, reason in result.skipped:
        print(f"  SKIP {test.id()}: {reason}")
    for kind, entries in (("FAIL", result.failures),
                          ("ERROR", result.errors)):
        for test, _ in entries:
            print(f"  {kind} {test.id()}")
    print(f"PYVERBS-COUNTS {label} run {result.testsRun} passed {passed} "
          f"failed {failed} errors {errors} skipped {skipped}")
    return failed == 0 and errors == 0


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    tests_dir, device, label = sys.argv[1:4]
    suite = load_suite(os.path.abspath(tests_dir), device, sys.argv[4:])
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=2,
                                     resultclass=RecordingResult)
    result = runner.run(suite)
    sys.exit(0 if summarize(label, result) else 1)


if __name__ == "__main__":
    main()
