"""Run rdma-core's pyverbs test suite against one device and count.

Usage: pyverbs_suite.py TESTS_DIR DEVICE LABEL [--only MODULE] [SUITE_OPTION...]

--only MODULE runs only the tests of that test file (e.g. test_rdmacm);
every file is still imported, as the suite's __init__.py does.
SUITE_OPTIONs go to the suite's own argument parser (e.g. --gid 1).
TESTS_DIR holds the suite, uncompressed (Debian ships it gzipped under
/usr/share/doc/rdma-core/tests). Prints every test with its outcome, the
failures and errors with their tracebacks, the skip reasons with their
counts, then one line per test (PASS, SKIP with its reason, FAIL, ERROR),
then

  PYVERBS-COUNTS LABEL run N passed N failed N errors N skipped N random N

and exits 0 only if nothing failed or raised an error.

"random" counts the passes that depend on a draw: test_qp's extended
creates take a random comp_mask (tests/utils.py,
random_qp_create_mask). With IBV_QP_INIT_ATTR_PD alone libibverbs'
ibv_create_qp_ex() takes the plain ibv_create_qp() path into the kernel
and the test passes; with more bits it needs the provider's
create_qp_ex, which ipathverbs lacks, and fails with EOPNOTSUPP before
any call into the kernel: the test skips. Each such create's comp_mask
is recorded, and a skip "Create ... QP with(out) extended attrs is not
supported" is accepted only when the create's mask had more than PD (the
kernel was not reached); otherwise it is counted as a failure.
"""
import collections
import os
import re
import sys
import unittest
from importlib.machinery import SourceFileLoader

import pyverbs.enums as e

EXT_CREATE_SKIP = re.compile(
    r"^Create (RC|UC|UD) QP with(out)? extended attrs is not supported$")
# The comp_masks of the extended creates of the running test.
MASKS = []


def record_masks(module):
    """Wrap the test module's get_qp_init_attr_ex to note each mask."""
    draw = module.get_qp_init_attr_ex

    def recorded(*args, **kwargs):
        qia = draw(*args, **kwargs)
        MASKS.append(qia.comp_mask)
        return qia
    module.get_qp_init_attr_ex = recorded


class RecordingResult(unittest.TextTestResult):
    """A TextTestResult that also remembers the tests that passed, and
    which of them drew a random extended-create mask."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.passed = []
        self.random = []

    def startTest(self, test):
        MASKS.clear()
        super().startTest(test)

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed.append(test)
        if MASKS:
            self.random.append(test)

    def addSkip(self, test, reason):
        if EXT_CREATE_SKIP.match(reason):
            if not MASKS:
                self.addFailure(test, (AssertionError, AssertionError(
                    f"skipped ({reason}) with no extended create recorded"),
                    None))
                return
            if MASKS[-1] == e.IBV_QP_INIT_ATTR_PD:
                self.addFailure(test, (AssertionError, AssertionError(
                    f"skipped ({reason}) though its comp_mask was PD only: "
                    "the create reached the kernel and failed"), None))
                return
            reason += f" [comp_mask {MASKS[-1]:#x}: kernel not reached]"
        super().addSkip(test, reason)


def only_option(options):
    """Take --only MODULE out of OPTIONS: (MODULE or None, the rest)."""
    if "--only" not in options:
        return None, options
    i = options.index("--only")
    if i + 1 >= len(options):
        sys.exit("--only needs a test module's name")
    return options[i + 1], options[:i] + options[i + 2:]


def flatten(suite):
    """Every test case of a (nested) unittest suite."""
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from flatten(item)
        else:
            yield item


def only_module(suite, module):
    """The tests of SUITE that the test file MODULE defines; none is an
    error, not an empty run that would pass."""
    prefix = f"tests.{module}."
    kept = [test for test in flatten(suite) if test.id().startswith(prefix)]
    if not kept:
        sys.exit(f"no test of {module} in the suite")
    return unittest.TestSuite(kept)


def load_suite(tests_dir, device, options):
    sys.path.insert(0, tests_dir)
    # The suite's own argument parser reads sys.argv (as run_tests.py).
    sys.argv = [sys.argv[0], "--dev", device] + options
    from args_parser import parser  # pylint: disable=import-outside-toplevel
    parser.parse_args()
    tests = SourceFileLoader(
        "tests", os.path.join(tests_dir, "__init__.py")).load_module()
    suite = unittest.defaultTestLoader.loadTestsFromModule(tests)
    record_masks(sys.modules["tests.test_qp"])
    return suite


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
          f"failed {failed} errors {errors} skipped {skipped} "
          f"random {len(result.random)}")
    return failed == 0 and errors == 0


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    tests_dir, device, label = sys.argv[1:4]
    module, options = only_option(sys.argv[4:])
    suite = load_suite(os.path.abspath(tests_dir), device, options)
    if module:
        suite = only_module(suite, module)
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=2,
                                     resultclass=RecordingResult)
    result = runner.run(suite)
    sys.exit(0 if summarize(label, result) else 1)


if __name__ == "__main__":
    main()
