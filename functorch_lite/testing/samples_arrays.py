"""Sample entries of shape functions, indexing, `.at[]` updates and array creation.

Index arrays and boolean masks are fixed (the same for every generator), so output shapes and
the selected elements never depend on the generator. They are still ndarray leaves (integer and
boolean leaves are never differentiated).
"""
import numpy as np

from .. import numpy as fnp
from ..ops.checks import loop_slots
from .samples_base import EVEN, F32, F64, I64, ODD, REAL, OpInfo, S, array


def _same(name):
    return getattr(fnp, name), getattr(np, name)


def _op(name, samples, **kw):
    return OpInfo(name, *_same(name), samples, **kw)


def _a(rng, *shape, dtype=F64, domain=REAL):
    return array(rng, shape, dtype, domain)


# -- shape ------------------------------------------------------------------------------------

SHAPE = [
    _op("reshape", lambda r: [S(_a(r, 2, 3), (3, 2)), S(_a(r, 2, 3), (-1,)), S(_a(r), (1, 1)),
                              S(_a(r, 0, 3), (3, 0)), S(_a(r, 4, dtype=F32), (2, 2)),
                              S(_a(r, 2, 3), (3, 2), order="F"), S(_a(r, 6, dtype=I64), 6)]),
    _op("ravel", lambda r: [S(_a(r, 2, 3)), S(_a(r)), S(_a(r, 0, 2)), S(_a(r, 2, 2, dtype=F32)),
                            S(_a(r, 2, 3), order="F")]),
    _op("transpose", lambda r: [S(_a(r, 2, 3)), S(_a(r, 2, 3, 4), (1, 0, 2)),
                                S(_a(r, 2, 3, 4), (-1, 0, 1)), S(_a(r)), S(_a(r, 0, 3)),
                                S(_a(r, 3, 2, dtype=F32))]),
    _op("moveaxis", lambda r: [S(_a(r, 2, 3, 4), 0, -1), S(_a(r, 2, 3, 4), (0, 1), (-1, 0)),
                               S(_a(r, 2, 3, dtype=F32), 1, 0)]),
    _op("swapaxes", lambda r: [S(_a(r, 2, 3, 4), 0, 2), S(_a(r, 2, 3), -1, 0),
                               S(_a(r, 3, 2, dtype=F32), 0, 1)]),
    _op("expand_dims", lambda r: [S(_a(r, 2, 3), 0), S(_a(r, 2, 3), -1), S(_a(r, 2, 3), (0, 3)),
                                  S(_a(r), 0), S(_a(r, 3, dtype=F32), 1)]),
    _op("squeeze", lambda r: [S(_a(r, 1, 3, 1)), S(_a(r, 1, 3, 1), 0), S(_a(r, 1, 3, 1), (0, -1)),
                              S(_a(r, 1)), S(_a(r)), S(_a(r, 1, 2, dtype=F32), axis=0)]),
    _op("broadcast_to", lambda r: [S(_a(r, 3, 1), (2, 3, 4)), S(_a(r), (2, 3)),
                                   S(_a(r, 3), (0, 3)), S(_a(r, 3, dtype=F32), (2, 3))]),
    _op("broadcast_arrays", lambda r: [S(_a(r, 3, 1), _a(r, 4), _a(r)),
                                       S(_a(r, 2, dtype=F32), _a(r, 2, dtype=F32))]),
    _op("concatenate", lambda r: [
        S([_a(r, 2, 3), _a(r, 1, 3)]), S([_a(r, 2, 3), _a(r, 2, 1)], axis=1),
        S([_a(r, 2, 3), _a(r, 3)], axis=None), S([_a(r, 2, 3), _a(r, 2, 3)], axis=-1),
        S([_a(r, 0, 3), _a(r, 2, 3)]), S([_a(r, 2, dtype=F32), _a(r, 3, dtype=F32)]),
        S([_a(r, 2), _a(r, 2, dtype=I64)])]),
    _op("stack", lambda r: [S([_a(r, 2, 3), _a(r, 2, 3)]), S([_a(r, 2, 3), _a(r, 2, 3)], axis=1),
                            S([_a(r, 2, 3), _a(r, 2, 3), _a(r, 2, 3)], axis=-1),
                            S([_a(r), _a(r)]), S([_a(r, 2, dtype=F32), _a(r, 2, dtype=F32)])]),
    _op("hstack", lambda r: [S([_a(r, 3), _a(r, 2)]), S([_a(r, 2, 3), _a(r, 2, 1)]),
                             S([_a(r), _a(r, 2)]), S([_a(r, 2, dtype=F32), _a(r, 1, dtype=F32)])]),
    _op("vstack", lambda r: [S([_a(r, 3), _a(r, 3)]), S([_a(r, 2, 3), _a(r, 1, 3)]),
                             S([_a(r), _a(r)]), S([_a(r, 2, dtype=F32), _a(r, 2, dtype=F32)])]),
    _op("split", lambda r: [S(_a(r, 6, 2), 3), S(_a(r, 6, 2), [1, 4]), S(_a(r, 2, 6), 2, axis=1),
                            S(_a(r, 4, dtype=F32), 2)]),
    _op("unstack", lambda r: [S(_a(r, 3, 2)), S(_a(r, 2, 3), axis=1), S(_a(r, 2, 3, 4), axis=-1),
                              S(_a(r, 4)), S(_a(r, 2, 0)), S(_a(r, 2, 3, dtype=F32), axis=1)]),
    _op("array_split", lambda r: [S(_a(r, 7), 3), S(_a(r, 2, 5), [1, 3], axis=-1),
                                  S(_a(r, 3, 2), 2), S(_a(r, 5, dtype=F32), 2),
                                  # out of order and negative: NumPy's overlapping slices
                                  S(_a(r, 7, 2), [4, 2, -1])]),
    _op("flip", lambda r: [S(_a(r, 2, 3)), S(_a(r, 2, 3), 0), S(_a(r, 2, 3, 4), (0, 2)),
                           S(_a(r)), S(_a(r, 3, dtype=F32), axis=-1)]),
    _op("roll", lambda r: [S(_a(r, 5), 2), S(_a(r, 2, 3), 1, axis=1),
                           S(_a(r, 2, 3), (1, -1), axis=(0, 1)), S(_a(r, 2, 3), -1),
                           S(_a(r, 0, 2), 1, axis=0), S(_a(r, 4, dtype=F32), 1)]),
    _op("tile", lambda r: [S(_a(r, 2, 3), 2), S(_a(r, 3), (2, 2)), S(_a(r), 3),
                           S(_a(r, 2, 1, dtype=F32), (1, 1, 2))]),
    _op("repeat", lambda r: [S(_a(r, 3), 2), S(_a(r, 2, 3), [1, 2, 0], axis=1),
                             S(_a(r, 2, 2), 2), S(_a(r, 2, dtype=F32), 3, axis=0)]),
    _op("pad", lambda r: [S(_a(r, 2, 3), 1), S(_a(r, 2, 3), ((1, 0), (0, 2))),
                          S(_a(r, 3), (2,), constant_values=1.5), S(_a(r, 2, dtype=F32), 1),
                          S(_a(r, 0, 2), ((1, 1), (0, 0)))]),
    _op("diagonal", lambda r: [S(_a(r, 3, 4)), S(_a(r, 3, 4), 1), S(_a(r, 3, 4), -1),
                               S(_a(r, 2, 3, 3), axis1=1, axis2=2),
                               S(_a(r, 3, 3, 2), 0, 0, 1), S(_a(r, 2, 2, dtype=F32))]),
    _op("trace", lambda r: [S(_a(r, 3, 4)), S(_a(r, 3, 4), 1),
                            S(_a(r, 2, 3, 3), axis1=1, axis2=2), S(_a(r, 2, 2, dtype=F32))]),
    _op("tril", lambda r: [S(_a(r, 4, 4)), S(_a(r, 4, 4), 1), S(_a(r, 3, 5), -1),
                           S(_a(r, 2, 3, 4)), S(_a(r, 3, 3, dtype=F32))]),
    _op("triu", lambda r: [S(_a(r, 4, 4)), S(_a(r, 4, 4), 1), S(_a(r, 3, 5), -1),
                           S(_a(r, 2, 3, 4)), S(_a(r, 3, 3, dtype=F32))]),
    _op("atleast_1d", lambda r: [S(_a(r)), S(_a(r, 3)), S(_a(r), _a(r, 2, 3)),
                                 S(_a(r, dtype=F32))]),
    _op("atleast_2d", lambda r: [S(_a(r)), S(_a(r, 3)), S(_a(r, 2, 3)), S(_a(r), _a(r, 4)),
                                 S(_a(r, 2, dtype=F32))]),
    *(_op(name, lambda r: [S(_a(r, 2, 3)), S(_a(r)), S(_a(r, 0, 4)), S(_a(r, 3, dtype=F32))],
          differentiable=False) for name in ["shape", "ndim", "size"]),
]


# -- indexing ---------------------------------------------------------------------------------

def _getitem_samples(r):
    rows = np.array([0, 2, 2, 3])              # repeated index
    mask = np.array([True, False, True, True])
    return [
        S(_a(r, 4, 5), 1), S(_a(r, 4, 5), -1), S(_a(r, 4, 5), slice(1, 3)),
        S(_a(r, 4, 5), (slice(None), 2)), S(_a(r, 4, 5), (Ellipsis, 1)),
        S(_a(r, 4, 5), (None, slice(None, None, -2))), S(_a(r, 4, 5), rows),
        S(_a(r, 4, 5), (np.array([0, 1]), np.array([2, -1]))),
        S(_a(r, 4, 5), (slice(None), np.array([[1, 3], [4, 0]]))),
        S(_a(r, 4), mask), S(_a(r, 4, 5), mask), S(_a(r, 2, 3, 4), (0, Ellipsis, None)),
        S(_a(r, 2, 3, 4), (np.array([1, 0]), slice(1, 3), np.array([3, 3]))),
        S(_a(r), ()), S(_a(r, 0, 3), slice(None)), S(_a(r, 4, 5, dtype=F32), (rows, 1)),
        S(_a(r, 5, dtype=I64), slice(1, None))]


def _take_samples(r):
    return [S(_a(r, 5), np.array([0, 2, 4, 2])), S(_a(r, 3, 4), np.array([3, 0]), axis=1),
            S(_a(r, 3, 4), np.array([[0, 1], [2, 2]]), axis=0),
            S(_a(r, 2, 3), np.array([5, 0])), S(_a(r, 3, 4, dtype=F32), np.array([1]), axis=-1)]


def _take_along_samples(r):
    return [S(_a(r, 3, 4), np.array([[0, 3], [1, 1], [2, 0]]), axis=1),
            S(_a(r, 3, 4), np.array([[2, 0, 1, 1]]), axis=0),
            S(_a(r, 5), np.array([4, 0, 0]), axis=0),
            S(_a(r, 2, 3, dtype=F32), np.array([[1], [2]]), axis=-1)]


def _put_along_samples(r):
    """Distinct indices per row, so the values written do not depend on write order."""
    return [S(_a(r, 3, 4), np.array([[0], [3], [1]]), _a(r, 3, 1), axis=1),
            S(_a(r, 3, 4), np.array([[2, 0, 1, 1]]), _a(r, 1, 4), axis=0),
            S(_a(r, 2, 3, dtype=F32), np.array([[1, 0], [2, 1]]), _a(r, 2, 2, dtype=F32),
              axis=-1)]


def _put_along_ref(arr, indices, values, axis):
    out = arr.copy()
    np.put_along_axis(out, indices, values, axis)
    return out


def _nonzero_samples(r):
    """Zeros at fixed places, so the result's shape does not depend on the generator."""
    pattern = np.array([[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 0, 1]])
    return [S(_a(r, 3, 4, domain=EVEN) * pattern), S(pattern), S(pattern.astype(bool)),
            S(_a(r, 0, 2))]


INDEXING = [
    OpInfo("getitem", fnp.getitem, lambda x, idx: x[idx], _getitem_samples,
           numpy_fn=lambda x, idx: x[idx],
           doc="numpy_fn is operator.getitem-style indexing (Tensor.__getitem__ on wrappers)"),
    _op("take", _take_samples),
    _op("take_along_axis", _take_along_samples),
    OpInfo("put_along_axis", fnp.put_along_axis, _put_along_ref, _put_along_samples,
           numpy_fn=None, doc="functional (returns the copy); numpy's version writes in place"),
    _op("nonzero", _nonzero_samples, differentiable=False, creation=True,
        doc="the result's shape depends on the values: plain arrays only"),
    _op("argwhere", _nonzero_samples, differentiable=False, creation=True,
        doc="the result's shape depends on the values: plain arrays only"),
]


# -- .at[] updates ----------------------------------------------------------------------------

def _at(mode):
    def fn(x, idx, values):
        return getattr(fnp.at(x)[idx], mode)(values)
    fn.__name__ = f"at_{mode}"
    return fn


def _at_ref(ufunc):
    def ref(x, idx, values):
        out = np.array(x, copy=True)
        if ufunc is None:
            out[idx] = values
        else:
            ufunc.at(out, idx, values)
        return out
    return ref


def _at_samples(accumulate, x_domain=REAL, v_domain=REAL):
    """Basic and advanced indices; repeated indices only where updates accumulate, and then with
    one distinct value per repeat (never a broadcast value written twice). For min and max, x
    and values come from the EVEN and ODD domains (no ties between them or among them)."""
    def samples(r):
        def a(*shape, dtype=F64, domain=x_domain):
            return array(r, shape, dtype, domain)

        def v(*shape, dtype=F64):
            return array(r, shape, dtype, v_domain)
        rows = np.array([0, 2, 2, 3]) if accumulate else np.array([0, 2, 3])
        unique_rows = np.array([3, 0, 2])
        out = [S(a(4, 3), 1, v(3)), S(a(4, 3), (slice(1, 3), 0), v(2)),
               S(a(4, 3), rows, v(len(rows), 3)), S(a(4, 3), unique_rows, v(3)),
               S(a(4, 3), (unique_rows, np.array(1)), v()),
               S(a(4, 3), (Ellipsis, np.array([2, 0])), v(4, 2)),
               S(a(4), np.array([True, False, True, False]), v(2)),
               S(a(4, 3, dtype=F32), (0, slice(None)), v(3, dtype=F32)),
               S(a(4), 2, 0.5), S(a(0, 3), slice(None), v(3))]
        if accumulate:
            out.append(S(a(5), np.array([1, 1, 1, 4]), v(4), name="f64_5_repeated3"))
        return out
    return samples


AT = [
    OpInfo("at_set", _at("set"), _at_ref(None), _at_samples(False), numpy_fn=None),
    OpInfo("at_add", _at("add"), _at_ref(np.add), _at_samples(True), numpy_fn=None,
           doc="repeated indices accumulate (as np.add.at)"),
    OpInfo("at_multiply", _at("multiply"), _at_ref(np.multiply), _at_samples(True), numpy_fn=None),
    OpInfo("at_min", _at("min"), _at_ref(np.minimum), _at_samples(True, EVEN, ODD), numpy_fn=None),
    OpInfo("at_max", _at("max"), _at_ref(np.maximum), _at_samples(True, EVEN, ODD), numpy_fn=None),
]


# -- creation ---------------------------------------------------------------------------------

def _creation(name, samples, **kw):
    return _op(name, samples, differentiable=False, creation=True, **kw)


def _like_samples(*extra):
    def samples(r):
        return [S(_a(r, 2, 3), *extra), S(_a(r), *extra), S(_a(r, 0, 3), *extra),
                S(_a(r, 3, dtype=F32), *extra), S(_a(r, 3, dtype=I64), *extra),
                S(_a(r, 2, 2), *extra, dtype=F32), S(_a(r, 2, 2), *extra, shape=(3,))]
    return samples


def _linspace_samples(r):
    """Array ends (Python-scalar ends make a constant: tests/test_linspace.py)."""
    return [S(_a(r), _a(r), 5), S(_a(r, 2), _a(r), 4, endpoint=False),
            S(_a(r, 3), _a(r, 3), 4, axis=1), S(_a(r, 2, 3), _a(r, 3), 3, axis=-1),
            S(_a(r, dtype=F32), _a(r, dtype=F32), 6), S(_a(r), 2.5, 3),
            S(_a(r, 2), _a(r, 2), 4, retstep=True), S(_a(r), _a(r), 1), S(_a(r, 2), _a(r), 0),
            S(_a(r, 3, dtype=I64), _a(r, 3, dtype=I64), 5, dtype=I64, name="i64_dtype=int64")]


_SHAPES = lambda r: [S((2, 3)), S(()), S((0,)), S(4), S((2, 2), dtype=F32),  # noqa: E731
                     S((3,), dtype=I64), S((2,), dtype=bool)]

CREATION = [
    _creation("zeros", _SHAPES), _creation("ones", _SHAPES),
    _creation("empty", _SHAPES, check_values=False),
    _creation("full", lambda r: [S((2, 3), 1.5), S((), 2), S((0,), 1.0),
                                 S((2,), 3, dtype=F32), S((2,), True)]),
    _creation("arange", lambda r: [S(5), S(1, 7, 2), S(0.5, 2.0, 0.25), S(5, dtype=F32),
                                   S(3, 1, -1), S(0)]),
    _op("linspace", _linspace_samples,
        doc="differentiable and batchable in start and stop; NumPy's values bit for bit "
            "(tests/test_linspace.py)"),
    _creation("eye", lambda r: [S(3), S(2, 4), S(3, k=1), S(3, dtype=F32), S(0)]),
    _creation("broadcast_shapes", lambda r: [S((3, 1), (4,)), S((), (2, 3)), S((0, 1), (1, 5))]),
    _op("zeros_like", _like_samples(), differentiable=False),
    _op("ones_like", _like_samples(), differentiable=False),
    _op("empty_like", _like_samples(), differentiable=False, check_values=False),
    _op("full_like", lambda r: _like_samples(2.5)(r) + [
        S(_a(r, 2, 3), _a(r), name="f64_2x3_array_fill"),
        S(_a(r, 2, 3), _a(r, 3), name="f64_2x3_broadcast_fill"),
        S(_a(r, 2, 2), _a(r, 2), dtype=F32, name="f64_2x2_fill_to_f32"),
        S(_a(r, 3, dtype=I64), _a(r), name="i64_3_float_fill")],
        doc="differentiable in the fill value (its broadcast), as jnp.full_like"),
    _op("asarray", lambda r: [S(_a(r, 2, 3)), S(_a(r)), S(_a(r, 3), F32),
                              S(_a(r, 3, dtype=F32), dtype=F64), S(_a(r, 2, dtype=I64))]),
    _op("array", lambda r: [S(_a(r, 2, 3)), S([_a(r, 3), _a(r, 3)]), S(_a(r, 3), F32),
                            S([_a(r), _a(r)], name="f64_list_of_0d"),
                            S(_a(r, 2, dtype=F32))]),
    _op("copy", lambda r: [S(_a(r, 2, 3)), S(_a(r)), S(_a(r, 3, dtype=F32)),
                           S(_a(r, 2, dtype=I64)), S(_a(r, 3, 2).T, order="C"),
                           S(_a(r, 2, 3), order="F")]),
    OpInfo("loop_slots", loop_slots, lambda n, bound: np.arange(bound),
           lambda r: [S(np.array(3), bound=4), S(np.array(4), bound=4),
                      S(np.array([2, 4, 1]), bound=4), S(np.array(0), bound=1)],
           differentiable=False, numpy_fn=None, internal=True,
           doc="the steps of a while_loop recorded for reverse mode (trip counts within the "
               "bound; a larger count lengthens the range: tests/test_lax_jit_while_grad.py)"),
]

ENTRIES = SHAPE + INDEXING + AT + CREATION


# -- builders and differences (composites: functorch_lite/numpy/_matrices.py) ---------------

BUILDERS = [
    _op("diag", lambda r: [S(_a(r, 3)), S(_a(r, 3), 1), S(_a(r, 3), k=-2), S(_a(r, 3, 4)),
                           S(_a(r, 3, 4), 1), S(_a(r, 4, 3), -1), S(_a(r, 0)),
                           S(_a(r, 2, dtype=F32), 1), S(_a(r, 3, dtype=I64))]),
    _op("diagflat", lambda r: [S(_a(r, 2, 2)), S(_a(r, 3), 1), S(_a(r, 2, 2), k=-1),
                               S(_a(r)), S(_a(r, 3, dtype=F32), -1)]),
    _op("kron", lambda r: [S(_a(r, 2, 3), _a(r, 3, 2)), S(_a(r, 3), _a(r, 2)),
                           S(_a(r, 2), _a(r, 2, 3)), S(_a(r, 2, 1, 2), _a(r, 2, 2)),
                           S(_a(r), _a(r, 3)), S(_a(r, 2, dtype=F32), _a(r, 2, dtype=F32)),
                           S(_a(r, 2, dtype=I64), _a(r, 2, dtype=I64))]),
    _op("diff", lambda r: [S(_a(r, 5)), S(_a(r, 5), 2), S(_a(r, 3, 4), axis=0),
                           S(_a(r, 2, 3, 4), 2, -2), S(_a(r, 3), 0), S(_a(r, 2, 1), axis=1),
                           S(_a(r, 4, dtype=F32)), S(_a(r, 4, dtype=I64), 2),
                           S(np.array([True, False, False, True]), name="bool_4")]),
]

ENTRIES = ENTRIES + BUILDERS
