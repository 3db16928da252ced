"""Empty batches and size-0 dimensions through compositions of transforms.

Every differentiable op of the sample database, on each of its samples with a size-0 operand
(and, with a batch of 0, on every sample), through nested vmaps with negative dims, jacfwd and
jacrev of vmap, and jacfwd of the vjp of vmap: shapes must be what JAX gives (Jacobian blocks
out.shape + in.shape), and jacfwd must equal jacrev wherever there are values to compare.
"""
import numpy as np
import optree
import pytest

import functorch_lite as ft
from functorch_lite.testing import float_leaf_function, float_outputs, real_outputs
from functorch_lite.testing.samples import OP_DB
from op_cases import check_each

DIFF_OPS = [info for info in OP_DB if info.differentiable and not info.creation]


def f64_samples(info, rng, empty_only):
    out = []
    for s in info.samples(rng):
        floats = [x for x in s.leaves() if x.dtype.kind in "fc"]
        if not floats or any(x.dtype != np.float64 for x in floats):
            continue
        if empty_only and not any(x.size == 0 for x in s.leaves()):
            continue
        out.append(s)
    return out


def _stack(floats, size, axis):
    """A batch of `size` copies of each example (any values do: shapes are what is checked,
    and jacfwd is compared with jacrev), the batch at `axis`."""
    return [np.stack([x] * size, axis=axis % (x.ndim + 1)) if size else
            np.empty(x.shape[:axis % (x.ndim + 1)] + (0,) + x.shape[axis % (x.ndim + 1):])
            for x in floats]


def _assert_blocks(jac, outs, ins, what):
    """jac: for each output, a tuple of blocks of shape out.shape + in.shape."""
    assert len(jac) == len(outs), what
    for row, o in zip(jac, outs):
        for block, x in zip(row, ins):
            assert block.shape == o.shape + x.shape, (what, block.shape, o.shape, x.shape)


def check_nested_vmap_negative_dims_with_empty_batches(info):
    for sample in f64_samples(info, np.random.default_rng(0), empty_only=False):
        f, floats = float_leaf_function(info.fn, sample)
        one = [np.asarray(o) for o in optree.tree_leaves(f(*floats))]
        for outer, inner in ((0, 2), (2, 0), (0, 0)):
            xs = _stack(_stack(floats, inner, -1), outer, -1)
            got = ft.vmap(ft.vmap(f, in_dims=-1), in_dims=-1)(*xs)
            shapes = [np.shape(g) for g in optree.tree_leaves(got)]
            assert shapes == [(outer, inner) + o.shape for o in one], (sample.name, shapes)


def check_jacobians_of_vmap_with_size_zero_dims(info):
    for sample in f64_samples(info, np.random.default_rng(1), empty_only=True):
        f, floats = float_leaf_function(info.fn, sample)
        f = real_outputs(float_outputs(f))
        nums = tuple(range(len(floats)))
        for size in (0, 2):
            vf = ft.vmap(f)
            xs = _stack(floats, size, 0)
            outs = [np.asarray(o) for o in vf(*xs)]
            what = f"{sample.name}, batch {size}"
            fwd = ft.jacfwd(vf, argnums=nums)(*xs)
            rev = ft.jacrev(vf, argnums=nums)(*xs)
            _assert_blocks(fwd, outs, xs, what + " jacfwd")
            _assert_blocks(rev, outs, xs, what + " jacrev")
            for a, b in zip(optree.tree_leaves(fwd), optree.tree_leaves(rev)):
                np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9, err_msg=what)


def check_jacfwd_of_vjp_of_vmap_with_size_zero_dims(info):
    """The Jacobian of the pullback with respect to the cotangent is J^T: jacfwd of the vjp
    must have blocks in.shape + out.shape and equal the transposed jacrev."""
    for sample in f64_samples(info, np.random.default_rng(2), empty_only=True):
        f, floats = float_leaf_function(info.fn, sample)
        f = real_outputs(float_outputs(f))
        vf = ft.vmap(f)
        xs = _stack(floats, 2, 0)
        outs = [np.asarray(o) for o in vf(*xs)]
        if not outs:
            continue

        def pullback(*cts):
            return ft.vjp(vf, *xs)[1](tuple(cts))

        cts = [np.ones_like(o) for o in outs]
        jt = ft.jacfwd(pullback, argnums=tuple(range(len(cts))))(*cts)
        _assert_blocks(jt, xs, outs, sample.name)
        rev = ft.jacrev(vf, argnums=tuple(range(len(xs))))(*xs)
        for i, x in enumerate(xs):
            for j, o in enumerate(outs):
                transposed = np.moveaxis(rev[j][i], tuple(range(o.ndim)),
                                         tuple(range(x.ndim, x.ndim + o.ndim)))
                np.testing.assert_allclose(jt[i][j], transposed, rtol=1e-7, atol=1e-9,
                                           err_msg=sample.name)


@pytest.mark.parametrize("shape_in, shape_out", [((0,), (3,)), ((3,), (0,)), ((2, 0), (0, 4))])
def test_jacobians_with_size_zero_inputs_or_outputs(shape_in, shape_out):
    a = np.random.default_rng(3).standard_normal(shape_out + shape_in)
    n_in = int(np.prod(shape_in))

    def f(x):
        return np.tensordot(a, np.sin(x), axes=len(shape_in)) + x.sum()

    x = np.random.default_rng(4).standard_normal(shape_in)
    expected = (a * np.cos(x)) + (1.0 if n_in else 0.0)
    for jac in (ft.jacfwd, ft.jacrev):
        got = jac(f)(x)
        assert got.shape == shape_out + shape_in
        np.testing.assert_allclose(got, expected)
    assert ft.hessian(lambda x: np.sum(np.sin(x)))(np.zeros((0, 2))).shape == (0, 2, 0, 2)


@pytest.mark.parametrize("fn, shape", [
    (np.ravel, (0, 6)), (lambda z: z.reshape(-1), (0, 6)), (lambda z: z.argmax(), (0,)),
    (lambda z: np.sort(z, axis=None), (0, 6)),
])
def test_issue_examples_over_an_empty_batch(fn, shape):
    got = ft.vmap(fn)(np.zeros((0, 2, 3)))
    assert got.shape == shape


def test_loop_fallback_over_an_empty_batch():
    """An op with no batching rule over 0 examples: shapes and dtypes from a stand-in example,
    under grad too; an op that cannot run on the stand-in names itself in the error."""
    import warnings
    from functorch_lite.batching_rules.fallback import PerformanceWarning

    import functorch_lite.numpy as fnp

    def head_kernel(xp, x, k):
        return x[..., :k] * 2.0, (x[..., :1] > 0)

    op = ft.defop("test_size_zero_head", head_kernel, multiple_results=True)
    op.def_vjp(lambda ct, primals, out, k: (
        fnp.concatenate([ct[0] * 2.0, fnp.zeros_like(primals[0][..., k:])], axis=-1),))
    x = np.zeros((0, 5), dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PerformanceWarning)
        a, b = ft.vmap(lambda x: op(x, k=3))(x)
        assert (a.shape, a.dtype, b.shape, b.dtype) == ((0, 3), np.float32, (0, 1), np.bool_)
        a, b = ft.vmap(lambda x: op(x, k=3), in_dims=1)(np.zeros((2, 0, 5)))
        assert a.shape == (0, 2, 3) and b.shape == (0, 2, 1)
        g = ft.grad(lambda x: ft.vmap(lambda r: op(r, k=2)[0])(x).sum())(np.zeros((0, 4)))
        assert g.shape == (0, 4)
        picky = ft.defop("test_size_zero_picky", lambda xp, x: xp.linalg.cholesky(x))
        with pytest.raises(ValueError, match="test_size_zero_picky.*empty batch"):
            ft.vmap(picky)(np.zeros((0, 2, 2)))


@pytest.mark.parametrize("info", DIFF_OPS, ids=lambda i: i.name)
def test_size_zero_dims(info):
    """Empty batches and size-zero dims under nested vmap, jacobians and jacfwd(vjp(vmap)) of
    the op: one item (op_cases.check_each)."""
    check_each(info, [check_nested_vmap_negative_dims_with_empty_batches,
                      check_jacobians_of_vmap_with_size_zero_dims,
                      check_jacfwd_of_vjp_of_vmap_with_size_zero_dims])
