"""Host test of pyverbs_suite.py's accounting (no device needed): fake
tests stand for test_qp's extended creates and draw a comp_mask as
rdma-core's would; the skip "Create ... QP with(out) extended attrs is not
supported" must be accepted only when the mask had more than the PD bit
(the provider refused it before the kernel), a pass after a draw must be
counted as random, and any other skip must be left alone.

Usage: /usr/bin/python3 pyverbs_accounting_test.py (Debian's python3,
which has pyverbs). Exits 0 if every case is reported as expected.
"""
import io
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "py"))
import pyverbs_suite as ps  # noqa: E402 pylint: disable=wrong-import-position

EXT = "Create RC QP with extended attrs is not supported"


class Fake(unittest.TestCase):
    """Each test draws (or not) a mask, then passes or skips."""

    def test_a_skip_pd_only(self):
        ps.MASKS.append(1)
        raise unittest.SkipTest(EXT)

    def test_b_skip_more_than_pd(self):
        ps.MASKS.append(1 | 4)
        raise unittest.SkipTest(EXT)

    def test_c_skip_no_draw(self):
        raise unittest.SkipTest(EXT)

    def test_d_pass_after_draw(self):
        ps.MASKS.append(1)

    def test_e_pass(self):
        pass

    def test_f_other_skip(self):
        raise unittest.SkipTest("Create MW is not supported")


EXPECTED = """\
  PASS __main__.Fake.test_d_pass_after_draw
  PASS __main__.Fake.test_e_pass
  SKIP __main__.Fake.test_b_skip_more_than_pd: Create RC QP with extended \
attrs is not supported [comp_mask 0x5: kernel not reached]
  SKIP __main__.Fake.test_f_other_skip: Create MW is not supported
  FAIL __main__.Fake.test_a_skip_pd_only
  FAIL __main__.Fake.test_c_skip_no_draw
PYVERBS-COUNTS fake run 6 passed 2 failed 2 errors 0 skipped 2 random 1
"""


def main():
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(Fake)
    result = unittest.TextTestRunner(
        stream=io.StringIO(), resultclass=ps.RecordingResult).run(suite)
    out = io.StringIO()
    sys.stdout, saved = out, sys.stdout
    try:
        ps.summarize("fake", result)
    finally:
        sys.stdout = saved
    lines = out.getvalue().splitlines()
    got = "\n".join(lines[lines.index("Tests of fake, each:") + 1:]) + "\n"
    if got != EXPECTED:
        print("FAIL: pyverbs accounting differs:\n--- expected\n"
              f"{EXPECTED}--- got\n{got}")
        return 1
    print("ok: pyverbs accounting of the random extended creates")
    return 0


if __name__ == "__main__":
    sys.exit(main())
