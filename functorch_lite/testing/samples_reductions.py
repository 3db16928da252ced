"""Sample entries of reductions, scans and sorting."""
import numpy as np

from .. import numpy as fnp
from .samples_base import (EVEN, F32, F64, I64, NEAR_ONE, REAL, OpInfo, S, array, fixed,
                           reduction)


def _same(name):
    return getattr(fnp, name), getattr(np, name)


def _red(name, samples, differentiable=True, **kw):
    return OpInfo(name, *_same(name), samples, differentiable=differentiable, **kw)


def _sum_dtype(rng):
    return [S(array(rng, (3, 4), F32), axis=1, dtype=F64), S(array(rng, (3,), I64), dtype=F64)]


def _var_extra(ddof_name):
    return [((2, 3, 4), {"axis": 1, ddof_name: 1}), ((3, 4), {"axis": (0, 1), ddof_name: 2})]


def _scan(domain):
    def samples(rng):
        return [S(array(rng, (2, 3, 4), F64, domain), axis=1),
                S(array(rng, (2, 3), F64, domain), axis=-1), S(array(rng, (2, 3), F64, domain)),
                S(array(rng, (), F64, domain)), S(array(rng, (0, 3), F64, domain), axis=0),
                S(array(rng, (5,), F32, domain), axis=0), S(array(rng, (3,), I64, domain)),
                S(array(rng, (2, 3), F32, domain), axis=0, dtype=F64)]
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
