"""Indexing, scatter and selection on a device backend, in the forms users write them: the
results stay on the device and equal the NumPy run. NumPy index arrays (and masks, labels)
meeting device data are accepted, as CuPy's indexing accepts them; `.at[...].multiply`, which
has no multiply.at on CuPy, accumulates repeated indices exactly as numpy.multiply.at, as do
min and max; `.at[...].add` sums them in the order of the device's atomics (docs/gpu.md), equal
to numpy.add.at up to rounding."""
import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp

def _same(dxp, got, want):
    assert isinstance(got, dxp.ndarray), f"a {type(got).__name__} came back"
    np.testing.assert_array_equal(dxp.asnumpy(got), want)


X = np.arange(12.0).reshape(3, 4)


def test_grad_of_a_row(dxp):
    f = ft.grad(lambda v: v[0].sum())
    _same(dxp, f(dxp.asarray(X)), f(X))


def test_numpy_index_array_under_grad_and_vmap(dxp):
    idx = np.array([0, 2])
    loss = lambda v: (v[idx] ** 2).sum()
    x = dxp.asarray(X)
    _same(dxp, ft.grad(loss)(x), ft.grad(loss)(X))
    _same(dxp, ft.vmap(lambda v: v[idx])(x), X[:, idx])
    _same(dxp, ft.vmap(ft.grad(loss))(x), ft.vmap(ft.grad(loss))(X))
    pick = ft.vmap(lambda v, i: v[i], in_dims=(None, 0))   # a batched NumPy index
    _same(dxp, pick(x, idx), X[idx])


@pytest.mark.parametrize("fn", [lambda v: fnp.trace(v), lambda v: fnp.trace(v, offset=1),
                                lambda v: fnp.diagonal(v, -1).sum(),
                                lambda v: (fnp.diagonal(v) ** 2).sum()],
                         ids=["trace", "trace_offset", "diagonal_below", "diagonal_squared"])
def test_trace_and_diagonal_gradients(dxp, fn):
    _same(dxp, ft.grad(fn)(dxp.asarray(X)), ft.grad(fn)(X))
    batch = np.stack([X, 2 * X])
    _same(dxp, ft.vmap(ft.grad(fn))(dxp.asarray(batch)), ft.vmap(ft.grad(fn))(batch))


def test_array_of_device_arrays_stays_on_the_device(dxp):
    parts = [dxp.asarray(X[0]), dxp.asarray(X[1])]
    _same(dxp, fnp.array(parts), X[:2])
    _same(dxp, fnp.array([[dxp.asarray(1.0), dxp.asarray(2.0)]]), [[1.0, 2.0]])
    _same(dxp, fnp.asarray(parts), X[:2])


@pytest.mark.parametrize("index", [np.array([0, 1, 0, 0, 3, 0]),
                                   (np.array([2, 0, 2, 2]), slice(1, 3)),
                                   (slice(None), np.array([[1, 1], [3, 1]])),
                                   (np.array([0, 0, 2]), np.array([1, 1, 1]))],
                         ids=["rows", "rows_slice", "slice_2d_cols", "pairs"])
def test_at_multiply_with_repeated_indices_equals_multiply_at(dxp, index):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5))
    values = rng.standard_normal(x[index].shape)
    want = x.copy()
    np.multiply.at(want, index, values)
    _same(dxp, fnp.at(dxp.asarray(x))[index].multiply(dxp.asarray(values)), want)
    for mode, ufunc in [("min", np.minimum), ("max", np.maximum)]:
        want = x.copy()
        ufunc.at(want, index, values)
        got = getattr(fnp.at(dxp.asarray(x))[index], mode)(dxp.asarray(values))
        _same(dxp, got, want)
    want = x.copy()
    np.add.at(want, index, values)
    got = fnp.at(dxp.asarray(x))[index].add(dxp.asarray(values))
    assert isinstance(got, dxp.ndarray)
    # atomics sum in no set order: each repeat may round once more or less than add.at's fold
    scale = np.abs(x).copy()
    np.add.at(scale, index, np.abs(values))
    np.testing.assert_array_less(np.abs(dxp.asnumpy(got) - want), 8 * np.finfo(float).eps * scale
                                 + np.finfo(float).tiny)


def test_at_multiply_gradient_with_repeated_indices(dxp):
    idx = np.array([0, 1, 0, 0])
    f = ft.grad(lambda v, w: (fnp.at(v)[idx].multiply(w) ** 2).sum(), argnums=(0, 1))
    x, w = np.arange(1.0, 4.0), np.array([2.0, 3.0, 5.0, 7.0])
    for got, want in zip(f(dxp.asarray(x), dxp.asarray(w)), f(x, w)):
        assert isinstance(got, dxp.ndarray)
        np.testing.assert_allclose(dxp.asnumpy(got), want)


def test_numpy_masks_labels_and_scalars_meet_device_data(dxp):
    cond = X > 4
    x = dxp.asarray(X)
    where_grad = ft.grad(lambda v: fnp.where(cond, v, 0.0).sum())
    _same(dxp, where_grad(x), where_grad(X))
    labels = np.array([1, 3, 0])
    ce = ft.grad(lambda v: ft.nn.cross_entropy(v, labels))
    got = ce(x)
    assert isinstance(got, dxp.ndarray)
    np.testing.assert_allclose(dxp.asnumpy(got), ce(X))
    _same(dxp, x * np.float64(2.0), X * 2.0)
    _same(dxp, x[np.int64(1)], X[1])


def test_vmap_of_a_size_is_a_device_array(dxp):
    _same(dxp, ft.vmap(fnp.size)(dxp.asarray(X)), [4, 4, 4])
