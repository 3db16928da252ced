"""Sample entries of reductions, scans and sorting."""
import numpy as np

from .. import numpy as fnp
from .samples_base import (EVEN, F32, F64, I64, NEAR_ONE, POSITIVE, REAL, OpInfo, S, array,
                           fixed, reduction)


def _same(name):
    return getattr(fnp, name), getattr(np, name)


def _red(name, samples, differentiable=True, **kw):
    return OpInfo(name, *_same(name), samples, differentiable=differentiable, **kw)


def _sum_dtype(rng):
    return [S(array(rng, (3, 4), F32), axis=1, dtype=F64), S(array(rng, (3,), I64), dtype=F64),
            *_widening(rng)]


def _widening(rng):
    """Narrow integers whose sums and products leave their dtype: NumPy's are int64 (uint64),
    so nothing wraps (a backend that accumulates in int8 gives 100, -56, 44)."""
    return [S(np.array([100, 100, 100], np.int8), name="i8_widens"),
            S(np.array([[200, 100, 7], [250, 3, 255]], np.uint8), axis=0, name="u8_widens_axis=0"),
            S(np.array([[30000, 20000], [-30000, 9]], np.int16), axis=-1, name="i16_widens")]


def _var_extra(ddof_name):
    return [((2, 3, 4), {"axis": 1, ddof_name: 1}), ((3, 4), {"axis": (0, 1), ddof_name: 2})]


def _scan(domain):
    def samples(rng):
        return [S(array(rng, (2, 3, 4), F64, domain), axis=1),
                S(array(rng, (2, 3), F64, domain), axis=-1), S(array(rng, (2, 3), F64, domain)),
                S(array(rng, (), F64, domain)), S(array(rng, (0, 3), F64, domain), axis=0),
                S(array(rng, (5,), F32, domain), axis=0), S(array(rng, (3,), I64, domain)),
                S(array(rng, (2, 3), F32, domain), axis=0, dtype=F64), *_widening(rng)]
    return samples


def _sort_samples(rng):
    """Distinct values (no ties): sort's derivative is a permutation."""
    return [S(array(rng, (3, 4), F64, EVEN)), S(array(rng, (3, 4), F64, EVEN), axis=0),
            S(array(rng, (2, 3, 4), F64, EVEN), axis=1), S(array(rng, (5,), F64, EVEN)),
            S(array(rng, (2, 3), F64, EVEN), axis=None), S(array(rng, (0, 3), F64, EVEN)),
            S(array(rng, (3, 4), F32, EVEN), axis=-1), S(array(rng, (6,), I64))]


def _argsort_samples(rng):
    return _sort_samples(rng) + [S(np.array([3, 1, 3, 2, 1]), name="i64_ties_stable")]


def _arg_extremum(rng):
    """argmax/argmin: no tuple axes (NumPy takes an int or None)."""
    return reduction(EVEN, tuple_axes=False)(rng) + [S(np.array([[1, 3, 3], [2, 2, 0]]),
                                                       axis=1, name="i64_ties_first")]


_NO_TIES = "values are distinct (no ties), so the derivative is one-hot"

ENTRIES = [
    _red("sum", fixed(reduction(REAL, bools=True, empty_axis=True), _sum_dtype)),
    _red("prod", fixed(reduction(NEAR_ONE, empty_axis=True), _sum_dtype)),
    _red("max", fixed(reduction(EVEN)), doc=_NO_TIES),
    _red("min", fixed(reduction(EVEN)), doc=_NO_TIES),
    _red("amax", fixed(reduction(EVEN)), doc=_NO_TIES),
    _red("amin", fixed(reduction(EVEN)), doc=_NO_TIES),
    _red("mean", reduction(REAL)),
    _red("var", reduction(REAL, extra=_var_extra("ddof"))),
    _red("std", reduction(EVEN, scalar=False, extra=_var_extra("ddof")),
         doc="distinct values and no 0-d sample: the deviation is positive, where sqrt is "
             "smooth"),
    _red("argmax", _arg_extremum, differentiable=False),
    _red("argmin", _arg_extremum, differentiable=False),
    _red("all", reduction(REAL, bools=True, empty_axis=True), differentiable=False),
    _red("any", reduction(REAL, bools=True, empty_axis=True), differentiable=False),
    _red("cumsum", _scan(REAL)),
    _red("cumprod", _scan(NEAR_ONE)),
    _red("sort", _sort_samples, doc=_NO_TIES),
    _red("argsort", _argsort_samples, differentiable=False),
]


# -- statistics (composites: functorch_lite/numpy/_statistics.py) ---------------------------

def _average_samples(rng):
    def w(*shape, dtype=F64):
        return array(rng, shape, dtype, POSITIVE)
    return [S(array(rng, (2, 3, 4), F64)), S(array(rng, (2, 3, 4), F64), axis=1),
            S(array(rng, (2, 3, 4), F64), axis=-1, weights=None, keepdims=True),
            S(array(rng, (2, 3, 4), F64), 1, w(2, 3, 4)),
            S(array(rng, (2, 3, 4), F64), -1, w(4), name="f64_2x3x4_axis=-1_1d_weights"),
            S(array(rng, (2, 3, 4), F64), (0, 2), w(2, 4), name="f64_2x3x4_axis=(0,2)_weights"),
            S(array(rng, (3, 4), F64), 0, w(3), True, name="f64_3x4_returned"),
            S(array(rng, (3, 4), F64), None, None, True, name="f64_3x4_returned_unweighted"),
            S(array(rng, (3, 4), F32), 0, w(3, dtype=F32)),
            S(array(rng, (3, 4), I64), axis=-1)]


def _ptp_samples(rng):
    return reduction(EVEN, bools=False, scalar=True)(rng)


def _nan_slices(rng, *shape, dtype=F64):
    """Distinct values with a NaN at flat position 1: the slices through it (row 0, column 1,
    the whole array) are NaN in median and quantile, the others finite
    (Note [NaN slices of sort-based statistics])."""
    x = array(rng, shape, dtype, EVEN)
    x.reshape(-1)[1] = np.nan
    return x


def _median_samples(rng):
    """Distinct values; odd counts give one middle element, even counts average two."""
    def a(*shape, dtype=F64):
        return array(rng, shape, dtype, EVEN)
    return [S(a(5)), S(a(2, 3, 5), axis=-1), S(a(2, 3, 5), axis=1, keepdims=True),
            S(a(3, 5)), S(a(3, 5), keepdims=True), S(a(4)), S(a(2, 4), axis=1),
            S(a(3, 5, dtype=F32), axis=0), S(np.array([3, 1, 4, 1, 5]), name="i64_ties")]


def _median_nan_samples(rng):
    return [S(_nan_slices(rng, 3, 5), axis=1), S(_nan_slices(rng, 3, 4), axis=0, keepdims=True),
            S(_nan_slices(rng, 2, 4, dtype=F32), axis=-1), S(_nan_slices(rng, 4)),
            S(_nan_slices(rng, 2, 3, 4), axis=None, keepdims=True)]


def _quantile_samples(scale):
    def samples(rng):
        def a(*shape, dtype=F64):
            return array(rng, shape, dtype, EVEN)
        return [S(a(5), 0.3 * scale), S(a(2, 5), 0.75 * scale, axis=-1),
                S(a(4, 3), [0.25 * scale, 0.5 * scale, 0.9 * scale], axis=0, keepdims=True),
                S(a(3, 4), 0.4 * scale), S(a(2, 3, 4), (0.0, scale), axis=1),
                S(a(3, 5, dtype=F32), 0.6 * scale, axis=1), S(np.array([4, 1, 7, 2]), 0.5 * scale)]
    return samples


def _quantile_nan_samples(scale):
    def samples(rng):
        return [S(_nan_slices(rng, 3, 5), [0.0, 0.3 * scale, scale], axis=1),
                S(_nan_slices(rng, 4, 3), 0.5 * scale, axis=0, keepdims=True),
                S(_nan_slices(rng, 3, 4, dtype=F32), 0.7 * scale, axis=-1),
                S(_nan_slices(rng, 5), [0.0, scale])]
    return samples


def _with_nans(rng, shape, dtype=F64, domain=REAL):
    """Values with NaN at fixed places, never a whole slice along any axis (every
    reduction stays finite, so derivatives are checked everywhere)."""
    x = array(rng, shape, dtype, domain)
    flat = x.reshape(-1)
    flat[1::5] = np.nan
    return x


def _nan_samples(domain):
    def samples(rng):
        return [S(_with_nans(rng, (3, 4), domain=domain)),
                S(_with_nans(rng, (3, 4), domain=domain), axis=1),
                S(_with_nans(rng, (2, 3, 4), domain=domain), axis=-1, keepdims=True),
                S(_with_nans(rng, (2, 3, 4), domain=domain), axis=(0, 2)),
                S(array(rng, (5,), F64, domain)), S(_with_nans(rng, (4, 3), F32, domain), axis=0),
                S(array(rng, (3, 4), I64, domain), axis=0)]
    return samples


_FD_TESTS = ("test_vjp", "test_jacrev", "test_jvp", "test_jvp_float32")
_NAN_SLICES = ("a slice holding a NaN gives NaN, with derivative 0 (JAX's) where finite "
               "differences give NaN: checked against JAX in tests/test_nan_statistics.py")


def _nan_slice_entry(name, samples):
    """name[nan]: the samples with NaN slices, checked by every test but the finite-difference
    ones (the other slices' derivatives are the plain entry's)."""
    return OpInfo(f"{name}[nan]", *_same(name), samples, numpy_fn=getattr(np, name),
                  skips=dict.fromkeys(_FD_TESTS, _NAN_SLICES), doc=_NAN_SLICES)


_NAN_DOC = ("NaN at fixed places, never a whole slice (all-NaN slices are checked in "
            "tests/test_numpy_composites.py: the result is NaN, the derivative 0)")

STATISTICS = [
    _red("average", _average_samples),
    _red("ptp", _ptp_samples, doc=_NO_TIES),
    _red("median", _median_samples, doc=_NO_TIES + " (the i64 sample has ties; integers "
         "are not differentiated)"),
    _red("quantile", _quantile_samples(1.0), doc=_NO_TIES + "; method='linear' only"),
    _red("percentile", _quantile_samples(100.0), doc=_NO_TIES + "; method='linear' only"),
    _nan_slice_entry("median", _median_nan_samples),
    _nan_slice_entry("quantile", _quantile_nan_samples(1.0)),
    _nan_slice_entry("percentile", _quantile_nan_samples(100.0)),
    _red("nansum", _nan_samples(REAL), doc=_NAN_DOC),
    _red("nanmean", _nan_samples(REAL), doc=_NAN_DOC),
    _red("nanmax", _nan_samples(EVEN), doc=_NAN_DOC + "; " + _NO_TIES),
    _red("nanmin", _nan_samples(EVEN), doc=_NAN_DOC + "; " + _NO_TIES),
]

ENTRIES = ENTRIES + STATISTICS
