"""vmap's API semantics: in_dims/out_dims pytrees, axis_size, chunk_size, nesting, the loop
fallback, the extension API, and speed-relevant properties of the rules (one GEMM, views,
no materialized broadcasts)."""
import warnings
from typing import NamedTuple

import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.batching_rules import fallback
from functorch_lite.ops import elementwise as ew, linalg as la
from functorch_lite.testing import check_vmap

rng = np.random.default_rng(0)


def randn(*shape):
    return rng.standard_normal(shape)


class Pair(NamedTuple):
    a: object
    b: object


# -- in_dims / out_dims ------------------------------------------------------------------------

def test_in_dims_int_none_and_negative():
    x, y = randn(4, 3), randn(3)
    check_vmap(lambda x, y: x * y + 1.0, (x, y), in_dims=(0, None))
    check_vmap(lambda x, y: x * y, (x.T.copy(), y), in_dims=(-1, None))
    check_vmap(lambda x: fnp.sum(x ** 2), (randn(2, 5, 3),), in_dims=1)


def test_in_dims_pytrees():
    params = {"w": randn(3, 2), "b": randn(2)}
    xs = [randn(5, 3), randn(3, 5)]

    def f(p, xs):
        return fnp.tanh(xs[0] @ p["w"] + p["b"]) + (xs[1] @ p["w"])

    got = ft.vmap(f, in_dims=({"w": None, "b": None}, [0, 1]))(params, xs)
    expected = np.stack([f(params, [xs[0][i], xs[1][:, i]]) for i in range(5)])
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    # a prefix: None for the whole dict
    np.testing.assert_allclose(ft.vmap(f, in_dims=(None, [0, 1]))(params, xs), expected,
                               rtol=1e-12)
    # namedtuple argument
    pair = Pair(randn(5, 2), randn(2))
    got = ft.vmap(lambda p: p.a * p.b, in_dims=(Pair(0, None),))(pair)
    np.testing.assert_allclose(got, pair.a * pair.b)


def test_in_axes_out_axes_aliases():
    x = randn(4, 3)
    np.testing.assert_allclose(ft.vmap(fnp.sin, in_axes=1, out_axes=1)(x), np.sin(x))
    with pytest.raises(TypeError, match="not both"):
        ft.vmap(fnp.sin, in_dims=1, in_axes=1)
    with pytest.raises(TypeError, match="not both"):
        ft.vmap(fnp.sin, out_dims=1, out_axes=1)


def test_out_dims_pytree_and_none():
    x, c = randn(5, 3), randn(3)

    def f(x):
        return {"y": x * 2, "s": fnp.sum(x)}, c

    out, const = ft.vmap(f, out_dims=({"y": 1, "s": 0}, None))(x)
    np.testing.assert_allclose(out["y"], (x * 2).T)
    np.testing.assert_allclose(out["s"], x.sum(1))
    assert const is c
    a, b = ft.vmap(lambda x: (x, x + 1), out_dims=(1, -1))(randn(4, 2, 3))
    assert a.shape == (2, 4, 3) and b.shape == (2, 3, 4)


def test_unbatched_outputs_are_broadcast():
    x = randn(4, 3)
    const = randn(3)
    out = ft.vmap(lambda x: (const, 2.0, x), out_dims=(1, 0, 0))(x)
    np.testing.assert_array_equal(out[0], np.broadcast_to(const[:, None], (3, 4)))
    np.testing.assert_array_equal(out[1], np.full(4, 2.0))
    out[0][0, 0] = 1.0   # a writable array, not a read-only broadcast view
    assert const[0] != 1.0 or out[0][0, 1] == const[0]


def test_axis_size():
    out = ft.vmap(lambda: fnp.ones(3), in_dims=(), axis_size=4)()
    np.testing.assert_array_equal(out, np.ones((4, 3)))
    y = randn(3)
    np.testing.assert_array_equal(ft.vmap(lambda y: y * 2, in_dims=None, axis_size=2)(y),
                                  np.stack([y * 2] * 2))
    with pytest.raises(ValueError, match="inconsistent batch sizes"):
        ft.vmap(fnp.sin, axis_size=3)(randn(4))


@pytest.mark.parametrize("chunk_size", [1, 2, 3, 7, 100])
def test_chunk_size_equivalence(chunk_size):
    x, w = randn(7, 4), randn(4, 3)

    def f(x, w):
        return fnp.tanh(x @ w), fnp.sum(x), w

    full = ft.vmap(f, in_dims=(0, None), out_dims=(1, 0, None))(x, w)
    chunked = ft.vmap(f, in_dims=(0, None), out_dims=(1, 0, None),
                      chunk_size=chunk_size)(x, w)
    for a, b in zip(full, chunked):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    assert chunked[0].shape == (3, 7)


def test_logical_shape_inside():
    seen = {}

    def f(x):
        seen.update(shape=x.shape, ndim=x.ndim, size=x.size, len=len(x), fnp=fnp.shape(x))
        return x

    ft.vmap(f, in_dims=1)(randn(2, 5, 3))
    assert seen == {"shape": (2, 3), "ndim": 2, "size": 6, "len": 2, "fnp": (2, 3)}


def test_kwargs_are_not_batched():
    x = randn(4, 3)
    out = ft.vmap(lambda x, scale: x * scale)(x, scale=np.arange(3.0))
    np.testing.assert_allclose(out, x * np.arange(3.0))


def test_nested_vmap_different_in_dims():
    x, y = randn(2, 3, 4), randn(3, 4)

    def f(a, b):
        return fnp.dot(a, b)

    got = ft.vmap(ft.vmap(f, in_dims=(1, None)), in_dims=(0, None))(x, y)
    expected = np.array([[x[i, :, j] @ y for j in range(4)] for i in range(2)])
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    # the outer batch reaches the inner function as a constant when the inner in_dim is None
    got = ft.vmap(lambda a: ft.vmap(lambda b: a * b, in_dims=0)(y), in_dims=0)(x[:, 0, :])
    expected = np.array([[x[i, 0] * y[j] for j in range(3)] for i in range(2)])
    np.testing.assert_allclose(got, expected)


def test_compose_with_grad_and_jvp():
    w, xs = randn(3, 2), randn(5, 3)

    def loss(w, x):
        return fnp.sum(fnp.tanh(x @ w) ** 2)

    per_example = ft.vmap(ft.grad(loss), in_dims=(None, 0))(w, xs)
    np.testing.assert_allclose(per_example, np.stack([ft.grad(loss)(w, x) for x in xs]),
                               rtol=1e-12)
    summed = ft.grad(lambda w: fnp.sum(ft.vmap(loss, in_dims=(None, 0))(w, xs)))(w)
    np.testing.assert_allclose(summed, per_example.sum(0), rtol=1e-12)


def test_compose_with_forward_mode_and_jacobians():
    x, t = randn(5, 3), randn(5, 3)

    def f(x):
        return fnp.sin(x) * fnp.sum(x)

    expected = np.stack([ft.jvp(f, (a,), (b,))[1] for a, b in zip(x, t)])
    np.testing.assert_allclose(ft.jvp(ft.vmap(f), (x,), (t,))[1], expected, rtol=1e-12)
    np.testing.assert_allclose(ft.vmap(lambda a, b: ft.jvp(f, (a,), (b,))[1])(x, t), expected,
                               rtol=1e-12)
    np.testing.assert_allclose(ft.vmap(ft.jacrev(f))(x),
                               np.stack([ft.jacrev(f)(a) for a in x]), rtol=1e-12)
    np.testing.assert_allclose(ft.vmap(ft.jacfwd(f), in_dims=1)(x.T.copy()),
                               np.stack([ft.jacfwd(f)(a) for a in x]), rtol=1e-12)


# -- errors -----------------------------------------------------------------------------------

def test_error_in_dims_structure():
    with pytest.raises(ValueError, match=r"2 entries.*3 positional") as info:
        ft.vmap(lambda a, b, c: a, in_dims=(0, 0))(randn(2), randn(2), randn(2))
    with pytest.raises(ValueError, match="not a prefix") as info:
        ft.vmap(lambda d: d["a"], in_dims=({"b": 0},))({"a": randn(2)})
    assert "'b'" in str(info.value) and "'a'" in str(info.value)
    with pytest.raises(ValueError, match="ints or None"):
        ft.vmap(fnp.sin, in_dims=1.5)


def test_error_out_dims_structure():
    with pytest.raises(ValueError, match="not a prefix"):
        ft.vmap(lambda x: (x, x), out_dims=(0, 0, 0))(randn(3))
    with pytest.raises(ValueError, match="out of range"):
        ft.vmap(lambda x: x, out_dims=2)(randn(3))


def test_error_dim_out_of_range():
    with pytest.raises(ValueError, match=r"in_dim 2 is out of range for argument 1 of shape "
                                         r"\(3, 4\)"):
        ft.vmap(lambda a, b: a, in_dims=(0, 2))(randn(3), randn(3, 4))
    with pytest.raises(ValueError, match=r"argument 0\['b'\] of shape \(\)"):
        ft.vmap(lambda p: p["w"], in_dims=0)({"w": randn(3, 4), "b": np.float64(1.0)})


def test_error_inconsistent_batch_sizes():
    with pytest.raises(ValueError, match="inconsistent batch sizes") as info:
        ft.vmap(lambda a, b: a + b)(randn(3), randn(4))
    msg = str(info.value)
    assert "argument 0" in msg and "size 3" in msg and "argument 1" in msg and "size 4" in msg


def test_error_no_batched_input():
    with pytest.raises(ValueError, match="axis_size"):
        ft.vmap(fnp.sin, in_dims=None)(randn(3))
    with pytest.raises(ValueError, match="axis_size"):
        ft.vmap(lambda: 1.0)()


@pytest.mark.parametrize("convert", [bool, float, int, np.asarray, lambda x: x.item(),
                                     lambda x: 1 if x > 0 else 0, lambda x: [0, 1][x]])
def test_error_conversion_of_batched_value(convert):
    with pytest.raises(TypeError, match="fnp.where"):
        ft.vmap(lambda x: convert(fnp.sum(x) if x.ndim else x))(np.arange(3.0))


def test_error_indexing_plain_array_with_batched_index_points_to_take():
    # an embedding lookup table[i] with a plain NumPy table: NumPy converts the index, which
    # cannot be batched; the error used to talk only about control flow
    table = np.arange(12.0).reshape(6, 2)
    tokens = np.array([0, 3, 5])
    with pytest.raises(TypeError, match=r"fnp.take\(table, i, axis=0\)"):
        ft.vmap(lambda i: table[i])(tokens)
    np.testing.assert_array_equal(ft.vmap(lambda i: fnp.take(table, i, axis=0))(tokens),
                                  table[tokens])


def test_error_out_dims_none_for_batched_output():
    with pytest.raises(ValueError, match="out_dim is None"):
        ft.vmap(fnp.sin, out_dims=None)(randn(3))


@pytest.mark.parametrize("bad", [0, -1, 1.5])
def test_error_chunk_size(bad):
    with pytest.raises(ValueError, match="chunk_size"):
        ft.vmap(fnp.sin, chunk_size=bad)


def test_error_python_scalar_batched():
    with pytest.raises(ValueError, match="no axes"):
        ft.vmap(lambda a, b: a * b)(randn(3), 2.0)


def test_shape_error_reports_logical_shapes():
    x, y = randn(5, 3), randn(5, 4)
    with pytest.raises(ValueError, match=r"per-example shapes \(3,\), \(4,\)"):
        ft.vmap(lambda a, b: a + b)(x, y)
    with pytest.raises(ValueError, match=r"matmul.*\(2, 3\), \(2, 3\)"):
        ft.vmap(lambda a: a @ a)(randn(4, 2, 3))
    # nested: the user sees the innermost logical shapes
    with pytest.raises(ValueError, match=r"per-example shapes \(3,\), \(4,\)"):
        ft.vmap(ft.vmap(lambda a, b: a + b))(randn(2, 5, 3), randn(2, 5, 4))


def test_error_batched_boolean_mask():
    x, mask = randn(4, 3), rng.standard_normal((4, 3)) > 0
    with pytest.raises(ValueError, match="fnp.where"):
        ft.vmap(lambda x, m: x[m])(x, mask)
    # an unbatched mask is fine
    m = np.array([True, False, True])
    np.testing.assert_allclose(ft.vmap(lambda x: x[m])(x), x[:, m])
    np.testing.assert_allclose(ft.vmap(lambda x, i: x[m, None][i], in_dims=(0, 0))(
        x, np.array([0, 1, 0, 1])), np.stack([x[b][m, None][i] for b, i in
                                             enumerate([0, 1, 0, 1])]))


def test_error_escaped_batched_tensor():
    leaked = []
    ft.vmap(lambda x: leaked.append(x) or x)(randn(3))
    with pytest.raises(ft.EscapedWrapperError):
        fnp.sin(leaked[0])


def test_inputs_are_not_mutated():
    x = randn(4, 3)
    before = x.copy()
    ft.vmap(lambda x: x.at[0].set(5.0))(x)
    np.testing.assert_array_equal(x, before)


# -- the loop fallback and the extension API ---------------------------------------------------

_twice_p = ft.defop("test_vmap_api_twice", lambda xp, x, k=2.0: x * k, differentiable=False)


def test_fallback_matches_loop_and_warns_once():
    fallback.clear_fallback_record()
    x = randn(4, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = ft.vmap(lambda x: _twice_p(fnp.sin(x), k=3.0))(x)
        out2 = ft.vmap(lambda x: _twice_p(x))(x)
    np.testing.assert_allclose(out, np.sin(x) * 3.0)
    np.testing.assert_allclose(out2, x * 2.0)
    perf = [w for w in caught if issubclass(w.category, ft.PerformanceWarning)]
    assert len(perf) == 1 and "test_vmap_api_twice" in str(perf[0].message)
    assert "test_vmap_api_twice" in fallback.fallback_ops()


def test_fallback_for_a_builtin_op_with_its_rule_removed():
    fallback.clear_fallback_record()
    rule = ew.sin.rules.pop("batch")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_vmap(lambda x: fnp.sin(x) * 2, (randn(5, 3),), in_dims=1)
            check_vmap(lambda x: fnp.sin(x), (randn(5, 3),))
        assert sum(issubclass(w.category, ft.PerformanceWarning) for w in caught) == 1
        assert fallback.fallback_ops() == ["sin"]
    finally:
        ew.sin.def_batch_rule(rule)
    # multiple results through the loop
    rule = la.slogdet.rules.pop("batch")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = randn(4, 3, 3)
            sign, logdet = ft.vmap(fnp.linalg.slogdet)(a)
        np.testing.assert_allclose(logdet, np.linalg.slogdet(a)[1])
    finally:
        la.slogdet.def_batch_rule(rule)


def test_fallback_as_error_switch():
    with fallback.fallback_as_error():
        with pytest.raises(NotImplementedError, match="test_vmap_api_twice"):
            ft.vmap(_twice_p)(randn(3))
    old = fallback.set_fallback_error(True)
    try:
        with pytest.raises(fallback.MissingBatchRuleError):
            ft.vmap(_twice_p)(randn(3))
    finally:
        fallback.set_fallback_error(old)


def test_register_batch_rule():
    calls = []
    op = ft.defop("test_vmap_api_scale", lambda xp, x, k: x * k, differentiable=False)

    def scale_batch_rule(args, bdims, k):
        calls.append(bdims)
        return op(args[0], k=k), bdims[0]

    assert ft.register_batch_rule(op, scale_batch_rule) is scale_batch_rule
    with warnings.catch_warnings():
        warnings.simplefilter("error", ft.PerformanceWarning)
        check_vmap(lambda x: op(x, k=2.0), (randn(3, 4),), in_dims=1)
    assert calls == [(1,)]
    # replacing a built-in rule by name or through a public function named after the op
    original = ew.sin.rules["batch"]
    try:
        ft.register_batch_rule("sin", lambda args, bdims: (ew.cos(args[0]), bdims[0]))
        np.testing.assert_allclose(ft.vmap(fnp.sin)(np.zeros(3)), np.ones(3))
        ft.register_batch_rule(fnp.sin, original)
        np.testing.assert_allclose(ft.vmap(fnp.sin)(np.zeros(3)), np.zeros(3))
    finally:
        ew.sin.def_batch_rule(original)
    with pytest.raises(TypeError, match="primitive"):
        ft.register_batch_rule(lambda x: x, scale_batch_rule)


# -- the rules are fast: one GEMM, views, no materialized broadcasts ---------------------------

class _Spy:
    """Records the shapes each kernel call of `op` receives."""

    def __init__(self, op):
        self.op, self.calls = op, []

    def __enter__(self):
        kernel = self.original = self.op.kernel
        self.original_impl = self.op.numpy_impl

        def spy(xp, *args, **params):
            self.calls.append(tuple(getattr(a, "shape", None) for a in args))
            return kernel(xp, *args, **params)
        self.op.kernel = spy
        self.op.numpy_impl = lambda *args, **params: spy(np, *args, **params)
        return self

    def __exit__(self, *exc):
        self.op.kernel, self.op.numpy_impl = self.original, self.original_impl


def test_matrix_times_batch_of_vectors_is_one_gemm():
    w, xs = randn(6, 4), randn(50, 4)
    with _Spy(la.matmul) as spy:
        out = ft.vmap(lambda x: w @ x)(xs)
    np.testing.assert_allclose(out, xs @ w.T, rtol=1e-12)
    assert len(spy.calls) == 1 and all(len(s) == 2 for s in spy.calls[0])
    with _Spy(la.matmul) as spy:
        out = ft.vmap(lambda x: x @ w.T)(xs)
    assert len(spy.calls) == 1 and spy.calls[0] == ((50, 4), (4, 6))
    with _Spy(la.matmul) as spy:   # a batch of matrices times a matrix: rows folded
        ft.vmap(lambda m: m @ w)(randn(10, 3, 6))
    assert spy.calls == [((30, 6), (6, 4))]
    with _Spy(la.solve) as spy:    # one solve with the batch as right-hand sides
        a = randn(4, 4) + 4 * np.eye(4)
        out = ft.vmap(lambda b: fnp.linalg.solve(a, b))(xs)
    np.testing.assert_allclose(out, np.linalg.solve(a, xs.T).T, rtol=1e-10)
    assert spy.calls == [((4, 4), (4, 50))]


def test_unbatched_operands_are_not_broadcast():
    bias = randn(4)
    with _Spy(ew.add) as spy:
        ft.vmap(lambda x: x + bias)(randn(100, 4))
        ft.vmap(lambda x: x + bias, in_dims=1)(randn(4, 100))
    assert all(shapes[1] == (4,) for shapes in spy.calls)


def test_moving_the_batch_dim_is_a_view():
    """Inside, moving the batch dim is a view of the input; the output handed back is the
    user's own copy (Note [fresh outputs])."""
    x = randn(5, 3, 4)
    inside = []

    def f(a, op):
        out = op(a)
        inside.append(out.value)
        return out
    out = ft.vmap(lambda a: f(a, lambda a: a.T), in_dims=1)(x)
    assert out.shape == (3, 4, 5) and np.shares_memory(inside[-1], x)
    assert not np.shares_memory(out, x)
    out = ft.vmap(lambda a: f(a, lambda a: a[1:]), in_dims=2)(x)
    assert np.shares_memory(inside[-1], x) and not np.shares_memory(out, x)
    np.testing.assert_array_equal(out, np.moveaxis(x, 2, 0)[:, 1:])


def test_batched_tensor_repr():
    seen = []
    ft.vmap(lambda x: seen.append(repr(x)) or x)(randn(3, 2))
    assert "BatchedTensor(shape=(2,)" in seen[0] and "batch_size=3" in seen[0]


def test_in_dim_on_a_0d_argument_says_it_has_no_axis():
    with pytest.raises(ValueError, match="0-d value has no axes to map over: give it in_dims None"):
        ft.vmap(lambda x: x)(np.float64(3.0) * np.ones(()))
