"""One test item per op, every sample checked inside it: the per-op tests' parametrization.

A parametrization per (op, sample) made some 31,000 items of the generic tests, and the items
themselves cost more than many of the checks: pytest-xdist's controller spends about 4 ms per
item on a 2-core machine (10,000 trivial items: 44 s under `-n 2`, 11 s without xdist), and
each worker collects every item. `check_samples` runs one check over all of an op's samples and
reports every failing sample (op, sample name, error) in one AssertionError, so a failure names
what a per-sample item named, and one failing sample does not hide the others. `check_each`
does the same one level up: a file's checks of one op (vjp, grad(grad), jacrev, ...) run in one
item and every failing check is named (five files: 8,661 items -> 2,043, 86 s -> 64 s under
`-n 2`).
"""
import pytest

from functorch_lite.testing.samples import OP_DB


def op_params(predicate=lambda info: True):
    """pytest params of the OP_DB entries that satisfy `predicate`, with the op's name as id."""
    return [pytest.param(info, id=info.name) for info in OP_DB if predicate(info)]


def check_samples(info, samples, check, test=None):
    """check(sample) for each sample; every failure is reported at the end, at once.

    Args:
        info: the OpInfo.
        samples: the samples to check (a list).
        check: called with one sample; raises (AssertionError or any error) on failure, or
            pytest.skip for a sample it does not apply to.
        test: the name under which the entry's `skips` list samples (e.g. "test_kernel"):
            those are skipped with the reason given there.

    Raises:
        AssertionError: one or more samples failed (each named, with its error).
        pytest.skip.Exception: no sample was checked (every one skipped, with the reasons).
    """
    skipped, calls = [], []
    for sample in samples:
        reason = info.skip_reason(test, sample.name) if test else None
        if reason:
            skipped.append(reason)
        else:
            calls.append((f"{info.name}[{sample.name}]", lambda sample=sample: check(sample)))
    _run_each(info, calls, "checked samples", skipped)


def check_each(info, checks, *args):
    """check_samples one level up: check(info, *args) for each of `checks` in one test item,
    every failure reported at the end (the check's name and its error), the item skipped only
    when every check is. A file's checks of an op make one item, not one each, for the cost of
    an item (above).

    Args:
        info: the OpInfo.
        checks: functions of (info, *args); each raises on failure, or pytest.skip where it does
            not apply (an entry's skips still name the test the check was before it joined
            the item, e.g. "test_vjp").
        args: passed on to each check (a fixture's value).
    """
    _run_each(info, [(f"{check.__name__}({info.name})", lambda check=check: check(info, *args))
                     for check in checks], "checks")


def _run_each(info, calls, what, skipped=()):
    """Run every (label, call) pair; raise one AssertionError naming each failure (label and
    error), or skip with the reasons when every call skipped."""
    failures, skipped, ran = [], list(skipped), 0
    for label, call in calls:
        try:
            call()
        except pytest.skip.Exception as e:
            skipped.append(e.msg)
            continue
        except Exception as e:   # an assertion, or an error of the code under test
            failures.append((label, e))
        ran += 1
    if failures:
        lines = [f"{label}: {type(e).__name__}: {e}" for label, e in failures]
        raise AssertionError(f"{len(failures)} of {ran} {what} of {info.name} fail:\n"
                             + "\n".join(lines)) from failures[0][1]
    if not ran:
        pytest.skip("; ".join(sorted(set(skipped))) or f"no {what}")
