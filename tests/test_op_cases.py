"""op_cases.check_each, which runs a file's checks of one op in one test item: a failure among
them fails the item and names every failing check; the item is skipped only when all are."""
import pytest

from functorch_lite.testing.samples import OP_DB
from op_cases import check_each

INFO = OP_DB[0]


def passes(info, *args):
    passes.seen.append((info.name, args))


def fails(info, *args):
    raise ValueError("wrong")


def also_fails(info, *args):
    assert False, "also wrong"


def skips(info, *args):
    pytest.skip("does not apply")


def test_every_check_runs_and_every_failure_is_named():
    passes.seen = []
    with pytest.raises(AssertionError) as caught:
        check_each(INFO, [fails, skips, passes, also_fails], 7)
    message = str(caught.value)
    assert message.startswith(f"2 of 3 checks of {INFO.name} fail")   # the skipped one not counted
    assert f"fails({INFO.name}): ValueError: wrong" in message
    assert f"also_fails({INFO.name}): AssertionError: also wrong" in message
    assert passes.seen == [(INFO.name, (7,))]   # the checks after a failure still run
    assert isinstance(caught.value.__cause__, ValueError)


def test_skipped_only_when_every_check_is():
    passes.seen = []
    assert check_each(INFO, [skips, passes]) is None
    with pytest.raises(pytest.skip.Exception, match="^does not apply$"):   # reasons, once each
        check_each(INFO, [skips, skips])
