"""Scatter-add (`.at[idx].add`, the vjp of every gather) against np.add.at, for every index
form and dtype: the host kernel sums rows of repeated indices with np.bincount (issue 20, slow
derivative kernels), which must agree with ufunc.at up to rounding."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.ops import indexing

DTYPES = [np.float64, np.float32, np.complex128, np.int64]
TOL = {np.float64: 1e-12, np.float32: 1e-5, np.complex128: 1e-12, np.int64: 0}


def _index(kind, rng, shape, count):
    rows, cols = shape
    pick = lambda n: rng.integers(0, n, count)  # noqa: E731
    return {"rows": (pick(rows),), "pairs": (pick(rows), pick(cols)),
            "columns": (slice(None), pick(cols)), "rows_2d": (pick(rows).reshape(-1, 1),),
            "rows_sliced": (pick(rows), slice(1, None)),
            "negative": (-1 - pick(rows),)}[kind]


def _array(rng, shape, dtype):
    x = rng.standard_normal(shape) * 4
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(["rows", "pairs", "columns", "rows_2d", "rows_sliced", "negative"]),
       dtype=st.sampled_from(DTYPES), rows=st.integers(1, 12), cols=st.integers(2, 9),
       count=st.integers(0, 40), seed=st.integers(0, 2 ** 16))
def test_scatter_add_matches_numpy_add_at(kind, dtype, rows, cols, count, seed):
    rng = np.random.default_rng(seed)
    x = _array(rng, (rows, cols), dtype)
    x[0, 0] = -0.0 if np.dtype(dtype).kind == "f" else x[0, 0]
    idx = _index(kind, rng, (rows, cols), count)
    values = _array(rng, x[idx].shape, dtype)
    want = x.copy()
    np.add.at(want, idx, values)
    got = fnp.at(x)[idx].add(values)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=TOL[dtype], atol=TOL[dtype])
    untouched = np.ones(x.shape, bool)
    untouched[idx] = False
    np.testing.assert_array_equal(np.signbit(got.real[untouched]),
                                  np.signbit(x.real[untouched]))   # -0.0 stays -0.0
    if np.dtype(dtype).kind == "f":   # the gather's vjp is the scatter-add of its cotangent
        g = ft.grad(lambda t: fnp.sum(t[idx] * values))(x)
        np.testing.assert_allclose(g, want - x, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 40)


def test_broadcast_values_and_scalars():
    x = np.zeros((5, 3))
    idx = (np.array([0, 0, 4, 4, 4]),)
    want = x.copy()
    np.add.at(want, idx, np.arange(3.0))
    np.testing.assert_array_equal(fnp.at(x)[idx].add(np.arange(3.0)), want)
    want = x.copy()
    np.add.at(want, idx, 2.0)
    np.testing.assert_array_equal(fnp.at(x)[idx].add(2.0), want)


@pytest.mark.parametrize("mask_dtype", [bool])
def test_boolean_masks_keep_add_at(mask_dtype):
    x = np.arange(6.0).reshape(2, 3)
    mask = np.array([True, False])
    want = x.copy()
    np.add.at(want, (mask,), 1.0)
    np.testing.assert_array_equal(fnp.at(x)[mask].add(1.0), want)


ROWS = {   # (table shape, index builder): leading integer arrays picking contiguous rows
    "rows": ((300, 16), lambda r: (r.integers(0, 300, 700),)),
    "rows_negative": ((300, 16), lambda r: (r.integers(-300, 300, 700),)),
    "rows_ellipsis": ((50, 4, 8), lambda r: (r.integers(0, 50, 900), Ellipsis)),
    "rows_slice": ((50, 4, 8), lambda r: (r.integers(0, 50, 900), slice(None))),
    "two_arrays": ((20, 30, 8), lambda r: (r.integers(0, 20, (30, 20)), r.integers(0, 30, 20))),
    "int32_index": ((300, 16), lambda r: (r.integers(0, 300, 700).astype(np.int32),)),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", sorted(ROWS))
def test_segment_sums_of_rows_match_numpy_add_at(case, dtype):
    """The sort-based segment sum (leading index arrays, large enough to take that path)."""
    rng = np.random.default_rng(len(case))
    shape, build = ROWS[case]
    x = _array(rng, shape, dtype)
    idx = build(rng)
    arrays = [a for a in idx if isinstance(a, np.ndarray)]
    assert indexing._leading_rows(idx, len(arrays), x)
    assert x[idx].size >= indexing._SEGMENT_SUM_MIN
    values = _array(rng, x[idx].shape, dtype)
    want = x.copy()
    np.add.at(want, idx, values)
    np.testing.assert_allclose(fnp.at(x)[idx].add(values), want, rtol=TOL[dtype] * 10,
                               atol=TOL[dtype] * 10)
    row = _array(rng, x.shape[len(arrays):], dtype)       # values broadcast along the index
    want = x.copy()
    np.add.at(want, idx, row)
    np.testing.assert_allclose(fnp.at(x)[idx].add(row), want, rtol=TOL[dtype] * 10,
                               atol=TOL[dtype] * 10)
    if np.dtype(dtype).kind == "f":
        g = ft.grad(lambda t: fnp.sum(t[idx] * values))(x)
        want = np.zeros_like(x)
        np.add.at(want, idx, values)
        np.testing.assert_allclose(g, want, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)


def test_segment_sums_refuse_out_of_range_rows_as_numpy():
    x = np.zeros((300, 16))
    idx = np.arange(700) % 301
    with pytest.raises(IndexError):
        fnp.at(x)[idx].add(1.0)
