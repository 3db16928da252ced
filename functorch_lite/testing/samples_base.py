"""The pieces of the op sample database: Sample, OpInfo, value domains and family helpers.

A sample function takes a `numpy.random.Generator` and returns a list of Samples. Shapes,
dtypes, static arguments and the number of samples never depend on the generator, only the
values do: calling it with B generators gives B examples of one batch (that is how the vmap
tests build batched inputs). Values are drawn where the op is smooth (a *domain*), so
derivative checks by finite differences are meaningful.
"""
import dataclasses
from typing import Any, Callable, NamedTuple

import numpy as np
import optree

F64, F32, I64, I32, BOOL = (np.dtype(t) for t in (np.float64, np.float32, np.int64, np.int32,
                                                  np.bool_))
_DT_ABBR = {F64: "f64", F32: "f32", I64: "i64", I32: "i32", BOOL: "bool"}


@dataclasses.dataclass
class Sample:
    """One call of an op: `fn(*args, **kwargs)`.

    The np.ndarray leaves of `args` (possibly inside lists and tuples) are the tensor inputs;
    every other value (Python scalars, slices, shapes) is static, as are the kwargs.
    replace_leaves raises ValueError when given the wrong number of leaves.

    Attributes:
        args: the positional arguments (a tuple).
        kwargs: the keyword arguments (static).
        name: a name unique within its entry, used in test ids and messages.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import Sample
        >>> s = Sample((np.ones(3),), {"axis": 0}, name="f64_3_axis=0")
        >>> len(s.leaves()), float(s.call(np.sum)), float(s.call(np.sum, [np.arange(3.0)]))
        (1, 3.0, 3.0)
    """

    args: tuple
    kwargs: dict = dataclasses.field(default_factory=dict)
    name: str = ""

    def leaves(self):
        """The ndarray leaves of args, in order."""
        return [x for x in optree.tree_leaves(self.args) if isinstance(x, np.ndarray)]

    def replace_leaves(self, new_leaves):
        """args with the ndarray leaves replaced, in order, by `new_leaves`."""
        new_leaves = list(new_leaves)
        if len(new_leaves) != len(self.leaves()):
            raise ValueError(f"sample {self.name!r}: {len(new_leaves)} leaves given, "
                             f"{len(self.leaves())} expected")
        it = iter(new_leaves)
        return optree.tree_map(lambda x: next(it) if isinstance(x, np.ndarray) else x, self.args)

    def call(self, fn, leaves=None):
        """fn(*args, **kwargs), with the leaves replaced when `leaves` is given."""
        args = self.args if leaves is None else self.replace_leaves(leaves)
        return fn(*args, **self.kwargs)


_DEFAULT_TOL = {np.dtype(np.float16): (1e-3, 1e-3), F32: (1e-5, 1e-6), F64: (1e-7, 1e-10),
                np.dtype(np.complex64): (1e-5, 1e-6), np.dtype(np.complex128): (1e-7, 1e-10)}


@dataclasses.dataclass
class OpInfo:
    """Everything the generic tests need about one public function.

    One entry of OP_DB: the generic tests run every sample of every entry through the kernel,
    vmap, jvp, vjp and their compositions, comparing with `ref`.

    Attributes:
        name: "sin", "linalg.solve", "nn.softmax", "getitem", "at_add", ...
        fn: the functorch_lite callable.
        ref: an independent NumPy reference with the same arguments.
        samples: rng -> list[Sample] (see the module docstring).
        differentiable: False where the derivative is zero or undefined everywhere
            (comparisons, rounding, argmax, creation); transforms then produce no
            tangent/cotangent.
        creation: the function takes no traced inputs (zeros, arange, ...) or needs concrete
            values (nonzero): only the plain-array kernel test applies.
        check_values: False for functions whose values are undefined (empty): shape and dtype
            only.
        numpy_fn: the NumPy function of the same name, reached on wrappers through NumPy's
            dispatch protocols (resolved from the name unless given; None when there is none).
        rtol: per-dtype overrides of the default relative tolerances (keys: anything np.dtype
            accepts).
        atol: the same for absolute tolerances.
        skips: test name -> reason, for known failures. Keys are test function names
            ("test_kernel", "test_vmap", "test_jvp", ...) or "test_name:sample_name" for one
            sample; see skip_reason.
        doc: anything special about the entry (why fn is not the bare function, ...).
        internal: an op with no public name (one that other functions' derivatives use):
            tested like the others, not listed on the functions page.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import OpInfo
        >>> from functorch_lite.testing.samples_base import S
        >>> info = OpInfo("cube", fn=lambda x: x * x * x, ref=lambda x: x ** 3,
        ...               samples=lambda rng: [S(rng.standard_normal((2, 3)))])
        >>> [s.name for s in info.samples(np.random.default_rng(0))], info.tolerance(np.float64)
        (['f64_2x3'], (1e-07, 1e-10))
    """

    name: str
    fn: Callable
    ref: Callable
    samples: Callable
    differentiable: bool = True
    creation: bool = False
    check_values: bool = True
    numpy_fn: Any = "auto"
    rtol: dict = dataclasses.field(default_factory=dict)
    atol: dict = dataclasses.field(default_factory=dict)
    skips: dict = dataclasses.field(default_factory=dict)
    doc: str = ""
    internal: bool = False

    def __post_init__(self):
        self.rtol = {np.dtype(k): v for k, v in self.rtol.items()}
        self.atol = {np.dtype(k): v for k, v in self.atol.items()}
        if isinstance(self.numpy_fn, str) and self.numpy_fn == "auto":
            self.numpy_fn = _numpy_function(self.name)
        raw = self.samples

        def samples(rng):
            return unique_names(raw(rng))
        samples.__doc__ = raw.__doc__
        self.samples = samples

    def skip_reason(self, test, sample_name=None):
        """The reason test function `test` (e.g. "test_vmap") is skipped for this entry, or
        for one sample (key "test_vmap:sample_name"), or None."""
        reason = self.skips.get(test)
        if reason is None and sample_name is not None:
            reason = self.skips.get(f"{test}:{sample_name}")
        return reason

    def tolerance(self, dtype):
        """(rtol, atol) for results of `dtype`."""
        dtype = np.dtype(dtype)
        rtol, atol = _DEFAULT_TOL.get(dtype, (0.0, 0.0))
        return self.rtol.get(dtype, rtol), self.atol.get(dtype, atol)


def _numpy_function(name):
    module, _, attr = name.rpartition(".")
    if module not in ("", "linalg"):
        return None
    fn = getattr(np.linalg if module else np, attr, None)
    return fn if callable(fn) and not isinstance(fn, type) else None


def scipy_stats_ref(*path):
    """scipy.stats.<path...> as a reference that imports scipy.stats on its first call:
    importing it costs seconds, which every process that builds the database (each test
    worker, at collection) would pay without calling it."""
    def ref(*args, **kwargs):
        import scipy.stats
        fn = scipy.stats
        for name in path:
            fn = getattr(fn, name)
        return fn(*args, **kwargs)
    ref.__name__ = ".".join(("scipy.stats",) + path)
    return ref


def unique_names(samples):
    """Make sample names unique within a list (suffix #2, #3, ...), keeping their order."""
    seen = {}
    for s in samples:
        base = s.name
        if base in seen:
            seen[base] += 1
            s.name = f"{base}#{seen[base]}"
        else:
            seen[base] = 1
    return samples


# -- naming ---------------------------------------------------------------------------------

def shape_name(shape):
    return "scalar" if shape == () else "x".join(map(str, shape))


def _leaf_name(x):
    if isinstance(x, np.ndarray):
        return shape_name(x.shape)
    if isinstance(x, (list, tuple)):
        return "[" + ",".join(_leaf_name(y) for y in x if isinstance(y, (np.ndarray, list,
                                                                         tuple))) + "]"
    return "py" if isinstance(x, (int, float, bool)) else None


def auto_name(args, kwargs):
    """f64_3x4_py_axis=1: dtype of the first leaf, shapes of the operands, then the kwargs."""
    leaves = [x for x in optree.tree_leaves(args) if isinstance(x, np.ndarray)]
    parts = [_DT_ABBR.get(leaves[0].dtype, str(leaves[0].dtype))] if leaves else []
    parts += [n for n in (_leaf_name(a) for a in args) if n is not None]
    parts += [f"{k}={_kw(v)}" for k, v in kwargs.items()]
    return "_".join(parts).replace(" ", "")


def _kw(v):
    if isinstance(v, np.dtype) or isinstance(v, type):
        return np.dtype(v).name
    if callable(v):
        return getattr(v, "__name__", "fn")
    return repr(v)


def S(*args, name=None, **kwargs):
    """A Sample named after its operands and kwargs unless `name` is given."""
    return Sample(tuple(args), kwargs, name or auto_name(args, kwargs))


# -- value domains ----------------------------------------------------------------------------

class Domain(NamedTuple):
    """Where to draw values: draw(rng, shape) -> float64 array; a Python scalar inside the
    domain (for scalar operands); an inclusive integer range inside it (or None)."""

    draw: Callable
    scalar: float
    ints: tuple = None


def _uniform(lo, hi):
    return lambda rng, shape: rng.uniform(lo, hi, shape)


def _banded(rng, shape, lo, hi):
    """|x| in [lo, hi] with a random sign: away from 0."""
    return rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)


def _off_integer(rng, shape):
    """k + u with u in [0.1, 0.4] or [0.6, 0.9]: away from integers and half-integers."""
    u = rng.uniform(0.1, 0.4, shape) + rng.choice([0.0, 0.5], shape)
    return rng.integers(-3, 3, shape) + u


def _distinct(offset):
    """Values 2*p + offset + u (p a permutation, u in [0.1, 0.9]): no two closer than 0.2 within
    one array, and an EVEN and an ODD array never closer than 0.2 to each other."""
    def draw(rng, shape):
        n = int(np.prod(shape, dtype=np.int64))
        p = rng.permutation(n).reshape(shape) - n // 2
        return 2.0 * p + offset + rng.uniform(0.1, 0.9, shape)
    return draw


REAL = Domain(_uniform(-2.0, 2.0), 1.5, (-2, 2))
POSITIVE = Domain(_uniform(0.2, 3.0), 1.5, (1, 3))
NONZERO = Domain(lambda rng, shape: _banded(rng, shape, 0.2, 2.0), 1.5, (1, 3))
UNIT = Domain(_uniform(-0.9, 0.9), 0.5, (0, 0))        # inside (-1, 1)
ABOVE_ONE = Domain(_uniform(1.2, 3.0), 1.5, (2, 3))     # inside (1, inf)
NEAR_ONE = Domain(lambda rng, shape: _banded(rng, shape, 0.6, 1.4), 1.2, (1, 1))
OFF_INTEGER = Domain(_off_integer, 1.3, (-3, 3))
EVEN = Domain(_distinct(0.0), 0.5, None)               # distinct, and never near ODD values
ODD = Domain(_distinct(1.0), 1.5, None)
SMALL_POWER = Domain(_uniform(-1.5, 2.5), 2.0, (0, 3))  # exponents


def array(rng, shape, dtype=F64, domain=REAL):
    """An ndarray (never a NumPy scalar) of `shape` and `dtype` drawn from `domain`."""
    dtype = np.dtype(dtype)
    if dtype == BOOL:
        return np.asarray(rng.random(shape) < 0.5)
    if dtype.kind in "iu":
        lo, hi = domain.ints if domain.ints is not None else (-3, 3)
        return np.asarray(rng.integers(lo, hi + 1, shape), dtype=dtype)
    return np.asarray(domain.draw(rng, shape), dtype=dtype)


def spd(rng, n, batch=(), dtype=F64):
    """Symmetric positive definite matrices A A^T + n I (well conditioned)."""
    a = rng.standard_normal(batch + (n, n))
    return np.asarray(a @ np.swapaxes(a, -1, -2) + n * np.eye(n), dtype=dtype)


def well_conditioned(rng, n, batch=(), dtype=F64):
    """A general square matrix A + n I (well conditioned for solve/inv/det)."""
    return np.asarray(rng.standard_normal(batch + (n, n)) + n * np.eye(n), dtype=dtype)


# -- family helpers ---------------------------------------------------------------------------

UNARY_SHAPES = [(), (0,), (5,), (2, 3)]


def unary(domain=REAL, *, ints=False, bools=False, **kwargs):
    """Samples of a one-operand function: float64 over UNARY_SHAPES, float32, optionally an
    integer and a boolean operand, all with the same static kwargs."""
    def samples(rng):
        out = [S(array(rng, s, F64, domain), **kwargs) for s in UNARY_SHAPES]
        out.append(S(array(rng, (3, 4), F32, domain), **kwargs))
        if ints and domain.ints is not None:
            out.append(S(array(rng, (4,), I64, domain), **kwargs))
        if bools:
            out.append(S(array(rng, (2, 3), BOOL), **kwargs))
        return out
    return samples


BINARY_SHAPES = [((3, 4), (3, 4)), ((3, 1), (4,)), ((2, 3), ()), ((), ()), ((0, 3), (3,))]


def binary(d1=REAL, d2=REAL, *, ints=True, bools=False, scalars=True):
    """Samples of a broadcasting two-operand function: float64 pairs over BINARY_SHAPES, a
    float32 pair, Python scalars on either side, an integer pair, optionally a boolean pair."""
    def samples(rng):
        out = [S(array(rng, s1, F64, d1), array(rng, s2, F64, d2)) for s1, s2 in BINARY_SHAPES]
        out.append(S(array(rng, (3, 4), F32, d1), array(rng, (4,), F32, d2)))
        if scalars:
            out.append(S(array(rng, (2, 3), F64, d1), d2.scalar))
            out.append(S(d1.scalar, array(rng, (3,), F64, d2)))
            out.append(S(array(rng, (3,), F32, d1), d2.scalar))
        if ints and d1.ints is not None and d2.ints is not None:
            out.append(S(array(rng, (2, 3), I64, d1), array(rng, (3,), I64, d2)))
            out.append(S(array(rng, (3,), F32, d1), array(rng, (3,), I32, d2)))
        if bools:
            out.append(S(array(rng, (3, 4), BOOL), array(rng, (4,), BOOL)))
        return out
    return samples


REDUCTION_CASES = [((2, 3, 4), {}), ((2, 3, 4), {"axis": 1}),
                   ((2, 3, 4), {"axis": -1, "keepdims": True}), ((2, 3, 4), {"axis": (0, 2)}),
                   ((5,), {"axis": 0}), ((), {}), ((0, 3), {"axis": 1})]


def reduction(domain=REAL, *, tuple_axes=True, keepdims=True, scalar=True, ints=True,
              bools=False, empty_axis=False, extra=()):
    """Samples of a reduction over `axis`: None, positive, negative (with keepdims) and tuple
    axes, a vector, a 0-d operand, a size-0 operand, float32, optionally integer and boolean
    operands. `empty_axis` adds a reduction over a size-0 axis (sum, prod, all, any).
    `extra` is a list of further (shape, kwargs) cases; `scalar=False` drops the 0-d case."""
    cases = [(s, k) for s, k in REDUCTION_CASES
             if (tuple_axes or not isinstance(k.get("axis"), tuple))
             and (keepdims or "keepdims" not in k) and (scalar or s != ())]
    cases += list(extra)

    def samples(rng):
        out = [S(array(rng, s, F64, domain), **k) for s, k in cases]
        if empty_axis:
            out.append(S(array(rng, (0, 3), F64, domain), axis=0))
        out.append(S(array(rng, (3, 4), F32, domain), axis=0))
        if ints:
            out.append(S(array(rng, (3, 4), I64, domain), axis=-1))
        if bools:
            out.append(S(array(rng, (3, 4), BOOL), axis=0))
        return out
    return samples


def fixed(*samples_fns):
    """Concatenate several sample functions."""
    def samples(rng):
        return [s for fn in samples_fns for s in fn(rng)]
    return samples
