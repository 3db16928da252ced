"""ft.jit over the whole sample database: every op, and the compositions the suite checks,
give the eager result when jitted (first call: trace + compile; second call: the cache)."""
import pathlib

import numpy as np
import optree
import pytest

import functorch_lite as ft
from functorch_lite.testing.checks import assert_matches_reference
from functorch_lite.testing.samples import OP_DB
from jit_differential import same_bits
from op_cases import check_each, check_samples, op_params
from test_compositions import f64_samples, flat_scalar_function

RTOL, ATOL = 1e-9, 1e-11


def _assert_same(actual, expected, what):
    a, e = optree.tree_leaves(actual), optree.tree_leaves(expected)
    assert len(a) == len(e), what
    for k, (x, y) in enumerate(zip(a, e)):
        assert not isinstance(x, ft.Tensor), f"{what}: a wrapper leaked out"
        assert np.shape(x) == np.shape(y), f"{what}, leaf {k}: shape"
        np.testing.assert_allclose(x, y, rtol=RTOL, atol=ATOL, err_msg=f"{what}, leaf {k}")


def check_jit_op(info):
    """jit(op) == the NumPy reference, on the tracing call and on the cached replay."""
    def check(sample):
        leaves = sample.leaves()
        jitted = ft.jit(lambda *xs: sample.call(info.fn, list(xs)))
        try:
            first = jitted(*leaves)
        except ft.TracerConversionError:
            # Value-dependent Python (nonzero, unique shapes) is refused while tracing, as in JAX.
            with pytest.raises(ft.TracerConversionError, match="static_argnums"):
                jitted(*leaves)
            return
        assert_matches_reference(info, sample, first)
        assert_matches_reference(info, sample, jitted(*[_same_layout_copy(x) for x in leaves]))
        assert jitted.traces == 1
    check_samples(info, info.samples(np.random.default_rng(0)), check, "test_kernel")


def _same_layout_copy(x):
    """A copy of x with x's strides (the signature holds them: another layout traces again)."""
    base = getattr(x, "base", None)
    if isinstance(base, np.ndarray) and base.base is None and (
            base.flags.c_contiguous or base.flags.f_contiguous):
        offset = x.__array_interface__["data"][0] - base.__array_interface__["data"][0]
        return np.ndarray(x.shape, x.dtype, buffer=base.copy(order="K"), offset=offset,
                          strides=x.strides)
    return x.copy(order="K")


DIFF_OPS = [info for info in OP_DB if info.differentiable and not info.creation]


def check_jit_compositions(info):
    """jit of grad, vmap(grad), jvp, jacfwd, jacrev and hessian == the eager transforms."""
    if not info.differentiable:
        pytest.skip("not differentiable")
    if info.skip_reason("test_jit_compositions"):
        pytest.skip(info.skip_reason("test_jit_compositions"))
    rng = np.random.default_rng(1)
    for sample in f64_samples(info, rng)[:2]:
        g, x = flat_scalar_function(info, sample, rng)
        t = rng.standard_normal(x.shape)
        xs = x + 0.01 * rng.standard_normal((3,) + x.shape)
        cases = {
            "grad": (ft.grad(g), (x,)),
            "vmap(grad)": (ft.vmap(ft.grad(g)), (xs,)),
            "jvp": (lambda x, t: ft.jvp(g, (x,), (t,)), (x, t)),
            "jacrev(grad)": (ft.jacrev(ft.grad(g)), (x,)),
            "hessian": (ft.hessian(g), (x,)),
            "grad(grad(sum))": (ft.grad(lambda x: ft.grad(g)(x).sum()), (x,)),
        }
        for name, (fn, args) in cases.items():
            _assert_same(ft.jit(fn)(*args), fn(*args), f"{info.name}/{sample.name}: jit({name})")


def check_jit_numpy_bits(info):
    """ft.jit of the NumPy function itself (np.cov(x), what eager code on plain arrays runs as
    NumPy's own routine, and what a tracer routes to the library) gives NumPy's result: values
    bit for bit, dtype, shape and Python type, or refuses; the exceptions are listed with their
    reasons in samples.JIT_NOT_NUMPY_BITS and docs/jit.md."""
    if info.numpy_fn is None or not info.check_values:
        pytest.skip("no NumPy function of that name, or values undefined")

    def check(sample):
        with np.errstate(all="ignore"):
            try:
                want = optree.tree_leaves(sample.call(info.numpy_fn))
            except Exception as e:              # NumPy refuses the sample: so must ft.jit
                with pytest.raises(type(e)):
                    ft.jit(lambda *xs: sample.call(info.numpy_fn, list(xs)))(*sample.leaves())
                return
            jitted = ft.jit(lambda *xs: sample.call(info.numpy_fn, list(xs)))
            try:
                first = jitted(*sample.leaves())
            except ft.TracerConversionError:    # a conversion refused (np.asarray of a tracer)
                return
            for call, got in (("tracing", first), ("compiled", jitted(*sample.leaves()))):
                got = optree.tree_leaves(got)
                assert len(got) == len(want)
                for k, (g, w) in enumerate(zip(got, want)):
                    assert type(g) is type(w), f"{call} call, leaf {k}: {type(g)}, NumPy {type(w)}"
                    assert same_bits(g, w), f"{call} call, leaf {k}: {g!r}, NumPy {w!r}"
    check_samples(info, info.samples(np.random.default_rng(0)), check, "test_jit_numpy_bits")


@pytest.mark.parametrize("info", op_params(lambda info: not info.creation))
def test_jit(info):
    """jit of the op, of its compositions and of its NumPy function: one item
    (op_cases.check_each)."""
    check_each(info, [check_jit_op, check_jit_compositions, check_jit_numpy_bits])


def test_every_exception_to_numpy_bits_is_stated_in_the_docs():
    from functorch_lite.testing.samples import JIT_NOT_NUMPY_BITS
    page = (pathlib.Path(__file__).parent.parent / "docs" / "jit.md").read_text()
    missing = [name for name in JIT_NOT_NUMPY_BITS if f"`{name}`" not in page]
    assert not missing, f"docs/jit.md does not name {missing}"
