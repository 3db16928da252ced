"""Every differentiable op of the sample database, in float64 (and float32 for jvp):
jvp against central finite differences (test_jvp) and the transpose identity between forward and
reverse mode, <u, J v> == <J^T u, v> (test_jvp_vjp)."""
import numpy as np
import optree
import pytest

from functorch_lite.testing import check_jvp, check_transpose, float_leaf_function, float_outputs
from functorch_lite.testing.samples import OP_DB
from op_cases import check_each

DIFF_OPS = [info for info in OP_DB if info.differentiable and not info.creation]


def samples_of(info, dtype, rng):
    """The samples whose floating-point leaves all have `dtype` (at least one)."""
    out = []
    for s in info.samples(rng):
        floats = [x for x in s.leaves() if x.dtype.kind in "fc"]
        if floats and all(x.dtype == dtype for x in floats):
            out.append(s)
    return out


def skip_if_listed(info, test_name):
    reason = info.skips.get(test_name)
    if reason:
        pytest.skip(reason)


def check_jvp_float64(info):
    skip_if_listed(info, "test_jvp")
    rng = np.random.default_rng(0)
    for sample in samples_of(info, np.float64, rng):
        f, floats = float_leaf_function(info.fn, sample)
        try:
            check_jvp(f, floats, rng=rng, rtol=1e-5, atol=1e-6)
        except AssertionError as e:
            raise AssertionError(f"{info.name} sample {sample.name}: {e}") from None


def check_jvp_float32(info):
    """Tangents have their primal's dtype (float32 stays float32) and agree with finite
    differences at float32 precision."""
    skip_if_listed(info, "test_jvp_float32")
    rng = np.random.default_rng(1)
    for sample in samples_of(info, np.float32, rng)[:3]:
        f, floats = float_leaf_function(info.fn, sample)
        out, t = check_jvp(f, floats, rng=rng, rtol=2e-3, atol=2e-3)
        for o, tt in zip(optree.tree_leaves(out), optree.tree_leaves(t)):
            if np.asarray(o).dtype.kind == "f":
                assert np.asarray(tt).dtype == np.asarray(o).dtype, (info.name, sample.name)


def check_jvp_vjp(info):
    skip_if_listed(info, "test_jvp_vjp")
    rng = np.random.default_rng(2)
    for sample in samples_of(info, np.float64, rng):
        f, floats = float_leaf_function(info.fn, sample)
        try:
            check_transpose(f, floats, rng=rng, rtol=1e-8, atol=1e-10)
        except AssertionError as e:
            raise AssertionError(f"{info.name} sample {sample.name}: {e}") from None


def check_linearize(info):
    """linearize's jvp_fn (a replay of the recorded tangent ops) == a fresh jvp."""
    skip_if_listed(info, "test_linearize")
    from functorch_lite import jvp, linearize
    rng = np.random.default_rng(3)
    for sample in samples_of(info, np.float64, rng)[:3]:
        f, floats = float_leaf_function(info.fn, sample)
        f = float_outputs(f)  # integer outputs have float0 tangents (test_forward.py)
        out, jvp_fn = linearize(f, *floats)
        for _ in range(2):
            v = [rng.standard_normal(x.shape) for x in floats]
            expected_out, expected = jvp(f, tuple(floats), tuple(v))
            got = jvp_fn(*v)
            for a, b in zip(optree.tree_leaves(got), optree.tree_leaves(expected)):
                np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float),
                                           rtol=1e-12, atol=1e-14, err_msg=sample.name)
        for a, b in zip(optree.tree_leaves(out), optree.tree_leaves(expected_out)):
            np.testing.assert_allclose(a, b, rtol=1e-12, err_msg=sample.name)


@pytest.mark.parametrize("info", DIFF_OPS, ids=lambda i: i.name)
def test_forward_mode(info):
    """jvp in float64 and float32, the jvp/vjp transpose identity and linearize of the op: one
    item (op_cases.check_each)."""
    check_each(info, [check_jvp_float64, check_jvp_float32, check_jvp_vjp, check_linearize])
