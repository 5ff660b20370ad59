"""Assertions shared by the pyverbs-based tests."""
from pyverbs.pyverbs_error import PyverbsRDMAError


def check(cond, what):
    """Fail the test with @what unless @cond holds."""
    if not cond:
        raise AssertionError(what)


def expect_errno(want, what, func, *args, **kwargs):
    """Call func(*args, **kwargs): a verb that must fail with errno want.
    What it made if it did not fail (a CQ, an MR) is closed before the
    failure is raised, so that it holds nothing the next test counts."""
    try:
        obj = func(*args, **kwargs)
    except PyverbsRDMAError as err:
        check(err.error_code == want,
              f"{what}: errno {err.error_code}, want {want}")
        return
    if hasattr(obj, "close"):
        obj.close()
    raise AssertionError(f"{what}: succeeded, want errno {want}")
