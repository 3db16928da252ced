"""Sample entries of the NumPy functions added for coverage: searching and interpolation,
selection, closeness, statistics, signals, grids, angle, and the .reduce/.accumulate of the
differentiable binary ufuncs ("add.reduce", "logaddexp.accumulate", ...)."""
import numpy as np

from .. import numpy as fnp
from .samples_base import EVEN, F32, F64, I64, NEAR_ONE, NONZERO, REAL, OpInfo, S, array


def _a(rng, *shape, dtype=F64, domain=REAL):
    return array(rng, shape, dtype, domain)


def _sorted(rng, n, dtype=F64):
    return np.sort(_a(rng, n, dtype=dtype, domain=EVEN))


def _same(name, samples, **kw):
    return OpInfo(name, getattr(fnp, name), getattr(np, name), samples, **kw)


# -- searching and interpolation --------------------------------------------------------------

def _searchsorted(rng):
    return [S(_sorted(rng, 5), _a(rng, 3, domain=EVEN)),
            S(_sorted(rng, 6), _a(rng, 2, 3, domain=EVEN), side="right"),
            S(_sorted(rng, 4), _a(rng, domain=EVEN)),
            S(_sorted(rng, 4, F32), _a(rng, 3, dtype=F32, domain=EVEN)),
            S(np.array([1, 2, 2, 4]), np.array([2, 3, 0, 5]), side="right", name="i64_ties"),
            S(np.array([1, 2, 2, 4]), np.array([2, 3, 0, 5]), name="i64_ties_left"),
            S(_unsorted(rng, _SORTER), _a(rng, 4, domain=EVEN), sorter=_SORTER,
              name="f64_5_4_sorter")]


_SORTER = np.array([4, 0, 2, 1, 3])


def _unsorted(rng, sorter):
    """Values that `sorter` sorts (for every generator): a[sorter] is increasing."""
    a = np.empty(len(sorter))
    a[sorter] = _sorted(rng, len(sorter))
    return a


def _interp(rng):
    def xs(*shape, dtype=F64):
        return _a(rng, *shape, dtype=dtype, domain=EVEN) * 0.37   # never on a knot
    return [S(xs(6), _sorted(rng, 5), _a(rng, 5)), S(xs(2, 3), _sorted(rng, 4), _a(rng, 4)),
            S(xs(), _sorted(rng, 3), _a(rng, 3)),
            S(xs(4), _sorted(rng, 4), _a(rng, 4), -5.0, 5.0),
            S(xs(4), _sorted(rng, 1), _a(rng, 1)),
            S(xs(4, dtype=F32), _sorted(rng, 4, F32), _a(rng, 4, dtype=F32))]


def _partition(rng):
    def a(*shape, dtype=F64):
        return _a(rng, *shape, dtype=dtype, domain=EVEN)
    return [S(a(6), 2), S(a(3, 5), 1, axis=0), S(a(3, 5), [0, 3]), S(a(2, 3, 4), 2, axis=-1),
            S(a(2, 4), 3, axis=None), S(a(5, dtype=F32), -1), S(np.array([4, 1, 3, 2]), 1)]


def _unique(rng):
    ints = np.array([3, 1, 3, 2, 1])
    return [S(ints), S(ints, return_index=True, return_inverse=True, return_counts=True),
            S(np.array([[1, 2], [1, 2], [0, 5]]), axis=0), S(_a(rng, 2, 3))]


# -- selection and closeness ------------------------------------------------------------------

def _select(rng):
    x = _a(rng, 3, 4)
    return [S([x < -0.5, x > 0.5], [_a(rng, 3, 4), _a(rng, 4)], name="f64_two_conditions"),
            S([x < 0], [_a(rng, 3, 4)], 2.5, name="f64_default"),
            S([np.array([True, False, True])], [_a(rng, 3, dtype=F32)], name="f32"),
            S([np.array([[True], [False]])], [_a(rng, 2, 3)], _a(rng, 3), name="f64_bcast")]


def _negate(x):
    return -x


def _square(x):
    return x * x


def _scaled(x, k, offset=0.0):
    return k * x + offset


def _scaled_square(x, k, offset=0.0):
    return k * x * x - offset


def _piecewise(rng):
    x = _a(rng, 2, 5)
    return [S(x, [x < 0, x >= 0], [_negate, _square], name="f64_two_pieces"),
            S(x, [x < -0.5], [_negate, 3.0], name="f64_otherwise_constant"),
            S(x, [x < 0, x > 1], [_scaled, _scaled_square], 2.0, offset=1.0,
              name="f64_args_kw_otherwise"),
            S(_a(rng, 4, dtype=F32), [np.array([True, False, True, False])], [_square],
              name="f32")]


def _heaviside(rng):
    return [S(_a(rng, 3, 4, domain=NONZERO), _a(rng, 3, 4)),
            S(_a(rng, 5, domain=NONZERO), 0.5),
            S(np.array([-2, 0, 3, 0]), _a(rng, 4), name="i64_zeros"),
            S(_a(rng, 3, dtype=F32, domain=NONZERO), _a(rng, 3, dtype=F32))]


def _close_pairs(rng):
    a = _a(rng, 3, 4)
    near = a + np.where(np.arange(12).reshape(3, 4) % 2 == 0, 1e-9, 1e-3)
    special = np.array([np.inf, -np.inf, np.nan, 1.0])
    return [S(a, near), S(a, near, rtol=1e-2), S(a, _a(rng, 4), atol=0.5),
            S(special, np.array([np.inf, np.inf, np.nan, 1.0 + 1e-12]), name="f64_inf_nan"),
            S(special, special, equal_nan=True, name="f64_equal_nan"),
            S(_a(rng, 3, dtype=F32), _a(rng, 3, dtype=F32))]


# -- statistics, signals, grids, angle --------------------------------------------------------

def _cov(rng):
    return [S(_a(rng, 3, 6)), S(_a(rng, 6, 3), rowvar=False), S(_a(rng, 5)),
            S(_a(rng, 2, 5), _a(rng, 5)), S(_a(rng, 3, 6), ddof=2), S(_a(rng, 3, 6), bias=True),
            S(_a(rng, 2, 4, dtype=F32))]


def _corrcoef(rng):
    return [S(_a(rng, 3, 6)), S(_a(rng, 6, 3), rowvar=False), S(_a(rng, 2, 5), _a(rng, 5)),
            S(_a(rng, 2, 4, dtype=F32))]


def _signal(rng):
    """Every mode, with the first sequence longer, shorter and as long; the default mode;
    int8 products that wrap (NumPy's integer loop, not a float one cast back) and booleans."""
    out = [S(_a(rng, n), _a(rng, m), mode=mode)
           for n, m in [(6, 3), (3, 5), (4, 4), (2, 7), (5, 1)]
           for mode in ("full", "same", "valid")]
    wraps = np.array([100, 33, -100, 7], np.int8)
    return out + [S(_a(rng, 5), _a(rng, 2)), S(_a(rng, 4, dtype=F32), _a(rng, 3, dtype=F32)),
                  S(np.array([1, 2, 3]), np.array([0, 1]), mode="same"),
                  S(wraps, wraps[:3], mode="full", name="i8_wraps_full"),
                  S(wraps[:2], wraps, mode="same", name="i8_wraps_same"),
                  S(np.array([True, False, True]), np.array([False, True]), mode="full",
                    name="bool_full")]


def _meshgrid(rng):
    return [S(_a(rng, 3), _a(rng, 2)), S(_a(rng, 3), _a(rng, 2), indexing="ij"),
            S(_a(rng, 2), _a(rng, 3), _a(rng, 4)), S(_a(rng, 4)),
            S(_a(rng, 3), _a(rng, 2), sparse=True),
            S(_a(rng, 2, dtype=F32), _a(rng, 3, dtype=F32), indexing="ij")]


# -- general eigendecomposition --------------------------------------------------------------

def _eig(rng):
    """Real matrices with complex eigenvalue pairs and with real ones (diagonally dominant),
    a stack, float32: eigenvalues distinct in every case."""
    def dominant(*batch, dtype=F64):
        n = 4
        return np.asarray(np.diag(np.arange(1.0, n + 1)) * 2
                          + 0.3 * rng.standard_normal(batch + (n, n)), dtype=dtype)
    return [S(_a(rng, 3, 3)), S(dominant()), S(_a(rng, 2, 3, 3)), S(dominant(2)),
            S(dominant(dtype=F32))]


_ALWAYS_COMPLEX = ("NumPy's eig returns real arrays when every eigenvalue is real; the library "
                   "always returns complex ones (as JAX), so the dtypes differ by design")


def _complex_ref(fn):
    """NumPy's eig/eigvals with the results always complex (see _ALWAYS_COMPLEX)."""
    def ref(a):
        out = fn(a)
        cast = [np.asarray(o, np.result_type(a.dtype, np.complex64)) for o in
                (out if isinstance(out, tuple) else (out,))]
        return tuple(cast) if isinstance(out, tuple) else cast[0]
    return ref


def _eig_invariant(eig, conj):
    """eig returning (eigenvalues, each eigenvector's projector v v^H, shape (..., n, n, k)):
    an eigenvector is defined up to a phase, which solvers choose differently (CuPy's geev
    flips signs LAPACK's keeps), its projector is not."""
    def fn(a):
        w, v = eig(a)
        return w, v[..., :, None, :] * conj(v)[..., None, :, :]
    return fn


_COMPLEX_OUT = ("complex results: the generic derivative checks compare real outputs (the "
                "complex-number work extends them); tests/test_coverage.py checks eig and "
                "eigvals derivatives against finite differences")
_DERIVATIVE_TESTS = ["test_vjp", "test_grad_grad", "test_vmap_grad", "test_vmap_vjp",
                     "test_grad_vmap", "test_jacrev", "test_jvp", "test_jvp_float32",
                     "test_jvp_vjp", "test_linearize", "test_jacfwd_jacrev", "test_vmap_jvp",
                     "test_jvp_vmap", "test_hvp", "test_hessian"]


# -- ufunc methods ----------------------------------------------------------------------------

def _ufunc_reduce(domain, dtype_arg):
    def samples(rng):
        out = [S(_a(rng, 3, 4, domain=domain)), S(_a(rng, 3, 4, domain=domain), axis=1),
               S(_a(rng, 2, 3, 4, domain=domain), axis=-1, keepdims=True),
               S(_a(rng, 2, 3, domain=domain), axis=None), S(_a(rng, 5, domain=domain)),
               S(_a(rng, 3, 4, dtype=F32, domain=domain), axis=0),
               S(_a(rng, 2, 3, 4, domain=domain), axis=(0, 2))]
        if dtype_arg:
            out.append(S(_a(rng, 3, 4, dtype=F32, domain=domain), axis=1, dtype=F64))
        return out
    return samples


def _ufunc_accumulate(domain):
    def samples(rng):
        return [S(_a(rng, 4, domain=domain)), S(_a(rng, 3, 4, domain=domain), axis=1),
                S(_a(rng, 2, 3, 4, domain=domain), axis=-2), S(_a(rng, 0, 3, domain=domain)),
                S(_a(rng, 3, 4, dtype=F32, domain=domain), axis=0),
                S(_a(rng, 3, dtype=I64, domain=domain)),
                S(_a(rng, 70, domain=domain))]       # past _TABLE_MAX: the doubling scan
    return samples


_UFUNC_DOMAINS = {"add": REAL, "multiply": NEAR_ONE, "maximum": EVEN, "minimum": EVEN,
                  "logaddexp": REAL}


def _ufunc_entries():
    entries = []
    for name, domain in _UFUNC_DOMAINS.items():
        ours, theirs = getattr(fnp, name), getattr(np, name)
        entries.append(OpInfo(f"{name}.reduce", ours.reduce, theirs.reduce,
                              _ufunc_reduce(domain, name in ("add", "multiply")),
                              numpy_fn=theirs.reduce))
        entries.append(OpInfo(f"{name}.accumulate", ours.accumulate, theirs.accumulate,
                              _ufunc_accumulate(domain), numpy_fn=theirs.accumulate))
    return entries


_CONCRETE = ("the result's shape (or a Python bool) depends on the values: refused under vmap, "
             "so only the plain-array test applies (tests/test_coverage.py checks grad)")

ENTRIES = [
    _same("searchsorted", _searchsorted, differentiable=False),
    _same("interp", _interp, doc="x never lands on a knot, where the slope jumps"),
    _same("partition", _partition, doc="distinct values: the arrangement is unique"),
    _same("argpartition", _partition, differentiable=False),
    _same("unique", _unique, differentiable=False, creation=True, doc=_CONCRETE),
    _same("select", _select),
    _same("piecewise", _piecewise),
    _same("heaviside", _heaviside, doc="x1 away from 0 where it is a float (a step there)"),
    _same("isclose", _close_pairs, differentiable=False),
    _same("allclose", _close_pairs, differentiable=False, creation=True, doc=_CONCRETE),
    _same("cov", _cov),
    _same("corrcoef", _corrcoef),
    _same("convolve", _signal),
    _same("correlate", _signal),
    _same("meshgrid", _meshgrid),
    OpInfo("linalg.eig", _eig_invariant(fnp.linalg.eig, fnp.conj),
           _complex_ref(_eig_invariant(np.linalg.eig, np.conj)), _eig, rtol={F32: 1e-4},
           doc="fn returns (eigenvalues, the projector of each eigenvector): eigenvectors are "
               "defined up to a phase, their projectors are not",
           skips={**dict.fromkeys(_DERIVATIVE_TESTS, _COMPLEX_OUT),
                  "test_numpy_dispatch": _ALWAYS_COMPLEX}),
    OpInfo("linalg.eigvals", fnp.linalg.eigvals, _complex_ref(np.linalg.eigvals), _eig,
           rtol={F32: 1e-4}, skips={**dict.fromkeys(_DERIVATIVE_TESTS, _COMPLEX_OUT),
                                    "test_numpy_dispatch": _ALWAYS_COMPLEX}),
] + _ufunc_entries()
