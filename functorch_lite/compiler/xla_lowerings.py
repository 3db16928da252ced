"""The XLA backend's lowering table: each built-in op as jax.numpy / jax.lax calls.

LOWERINGS maps an op's name to `lower(ctx, *operands, **params)`, which receives the operands as
JAX values (or, for a constant of the program, its NumPy value) and returns what the op's kernel
returns. xla.py casts each result to the dtype the trace recorded, so JAX's promotion rules never
leak into the program's types; the values must still be computed in the dtype NumPy computes in
(a sum of int8 in int64, sin of int32 in float64, not in what jax.numpy would pick and the cast
would then only widen), which `ctx.out_dtypes` and `ctx.in_types` (what NumPy's promotion sees of
each operand: a dtype, or a Python scalar's type) let a lowering choose.

HOST_ONLY lists the ops that are not lowered, each with the reason: they run their NumPy kernel
on the host inside the compiled program (`jax.pure_callback`), so a program holding one still
compiles and gives the NumPy backend's result. An op registered outside the library is run the
same way.

A lowering raises NotLowered for operands it cannot express (a boolean mask computed by the
program, whose selection has a value-dependent size): that equation then runs on the host.
`ctx.check(flag)` records a boolean that is true when the op would have raised (an index out of
range): the compiled function returns it with the outputs, and a call whose flag is set is re-run
on NumPy, which raises the op's own error. `ctx.guards.append(flag)` records one that is true
when the op's result would not have the shape the trace recorded (loop_slots): such a call traces
again.
"""
import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
import jax.scipy.special as jss
import numpy as np
from jax import lax

from ..ops.conv import window_counts, window_offsets
from ..ops.indexing import ARRAY, build_index
from ..ops.random import _threefry2x32_kernel
from . import xla_conv

_HIGHEST = lax.Precision.HIGHEST

UFUNCS = (
    "negative", "positive", "abs", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
    "sqrt", "cbrt", "square", "reciprocal", "sin", "cos", "tan", "arcsin", "arccos", "arctan",
    "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "real", "imag", "conj", "sign",
    "floor", "ceil", "rint", "trunc", "isnan", "isinf", "isfinite", "logical_not", "add",
    "subtract", "multiply", "divide", "power", "remainder", "fmod", "maximum", "minimum", "fmax",
    "fmin", "arctan2", "hypot", "logaddexp", "logaddexp2", "copysign", "floor_divide", "equal",
    "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
    "logical_xor")
"""Ops whose kernel is the array module's function of the same name: jax.numpy's here."""

HOST_ONLY = {
    "eig": "the sign (phase) of each eigenvector is whatever the LAPACK build picks; XLA's "
           "differs from NumPy's in float32, so only NumPy's own call gives NumPy's vectors",
    "argpartition": "the order of each side of the partition is NumPy's introselect's own; "
                    "no XLA sort reproduces it, and a different valid order breaks equality "
                    "with the NumPy backend",
}
"""Ops run as their NumPy kernel through a host callback, with the reason."""


class NotLowered(Exception):
    """Raised by a lowering for operands it cannot express; the equation runs on the host."""


def _promote(*args):
    """The array operands cast to the dtype NumPy computes in (jax.numpy promotes differently:
    float32 with int32 is float64 in NumPy and float32 in JAX). Python scalars stay weak."""
    arrays = [a for a in args if hasattr(a, "dtype")]
    if len({a.dtype for a in arrays}) < 2:
        return args
    dtype = np.result_type(*[a if not hasattr(a, "dtype") else a.dtype for a in args])
    return [_cast(a, dtype) if hasattr(a, "dtype") else a for a in args]


def _cast(a, dtype):
    """a as dtype; a bool array made 1 or 0 by a select, not a convert: XLA rewrites
    v * convert(b), and v / x * convert(b), into select(b, v, 0), losing the NaN, inf and -0
    that NumPy's arithmetic keeps where b is False (a derivative's mask times a NaN, max's
    0 / 0 at a NaN)."""
    a, dtype = jnp.asarray(a), np.dtype(dtype)
    if a.dtype == np.bool_ and dtype.kind in "fc":
        return jnp.where(a, jnp.ones((), dtype), jnp.zeros((), dtype))
    return a.astype(dtype)


def _in_loop_dtypes(ctx, ufunc, args):
    """The array operands cast to the dtypes of the loop NumPy's ufunc runs for them
    (`ufunc.resolve_dtypes` of the traced operand types), so the op computes in NumPy's dtype:
    jax.numpy computes int32's sqrt, int8's division and uint32's sin in float32 where NumPy
    computes them in float64 (sin of 2**31 - 1 in float32 is sin of 2**31). Python scalars
    stay weak: they take the array operands' dtype in JAX as in NumPy (NEP 50)."""
    types = tuple(ctx.in_types)
    if len(types) != len(args) or not any(isinstance(t, np.dtype) for t in types):
        return _promote(*args)   # Python scalars only: no array dtype decides
    try:
        loop = ufunc.resolve_dtypes(types + (None,) * ufunc.nout)
    except (TypeError, ValueError):   # a Python bool, say: jax.numpy's promotion
        return _promote(*args)
    return [_cast(a, d) if hasattr(a, "dtype") else a for a, d in zip(args, loop)]


def _floor_divide(ctx, x, y):
    """NumPy's floor division: an integer x // 0 is 0 (XLA's division gives -1, and
    floor_divide's correction -2; MIN // -1 is MIN on both); a float quotient of zero has the
    sign of x / y (-1.0 // -3.0 is 0.0, jax.numpy's -0.0)."""
    if jnp.issubdtype(jnp.result_type(x, y), jnp.integer):
        zero = y == 0
        return jnp.where(zero, 0, jnp.floor_divide(x, jnp.where(zero, 1, y)))
    q = jnp.floor_divide(x, y)
    return jnp.where(q == 0, jnp.copysign(jnp.zeros_like(q), x / y), q)


def _remainder(ctx, x, y):
    """NumPy's remainder: an integer x % 0 is 0; a float remainder of zero has the sign of y
    (3.0 % -3.0 is -0.0, jax.numpy's 0.0)."""
    if jnp.issubdtype(jnp.result_type(x, y), jnp.integer):
        zero = y == 0
        return jnp.where(zero, 0, jnp.remainder(x, jnp.where(zero, 1, y)))
    r = jnp.remainder(x, y)
    return jnp.where(r == 0, jnp.copysign(jnp.zeros_like(r), y), r)


def _power(ctx, x, y):
    """NumPy's power; of integers exact modulo the dtype's width for every exponent (jax.numpy's
    squares six times only, so 3 ** 64 is 1), and a negative exponent raises ValueError
    (flagged: the call re-runs on NumPy, which raises it)."""
    if not jnp.issubdtype(jnp.result_type(x, y), jnp.integer):
        return jnp.power(x, y)
    if isinstance(y, int):   # a static exponent (a negative one raised while tracing)
        return _integer_pow(jnp.asarray(x), y)
    x, y = jnp.broadcast_arrays(jnp.asarray(x), jnp.asarray(y).astype(jnp.result_type(x)))
    if jnp.issubdtype(y.dtype, jnp.signedinteger):
        ctx.check(jnp.any(y < 0))
    acc = jnp.ones_like(x)
    for _ in range(8 * x.dtype.itemsize):   # square and multiply, one bit of y at a time
        acc = jnp.where((y & 1) == 1, acc * x, acc)
        x, y = _times(x, x), y >> 1
    return acc


def _reciprocal(ctx, x):
    """NumPy's integer reciprocal is its float64 reciprocal cast back: 1 and -1 give
    themselves, larger magnitudes 0, and 0 whatever the C cast of inf gives on this machine
    (NumPy's own answer, read once; XLA's saturates)."""
    if not jnp.issubdtype(x.dtype, jnp.integer):
        return jnp.reciprocal(x)
    with np.errstate(all="ignore"):
        at_zero = np.reciprocal(np.zeros(1, x.dtype))[0]
    unit = (x == 1) | (x == -1) if jnp.issubdtype(x.dtype, jnp.signedinteger) else x == 1
    return jnp.where(x == 0, at_zero, jnp.where(unit, x, 0))


def _times(x, y):
    """x * y; a signed integer square with its second factor behind an optimization barrier:
    XLA's simplifier takes multiply(a, a) for non-negative, which a wrapping integer square is
    not (int8 26 * 26 is -92), and folds `a * a >= 0` to True and `abs(a * a)` to `a * a`."""
    if x is y and jnp.issubdtype(jnp.asarray(x).dtype, jnp.signedinteger):
        return x * lax.optimization_barrier(y)
    return x * y


def _multiply(ctx, x, y):
    return _times(x, y)


def _square(ctx, x):
    return _times(x, x)


def _integer_pow(x, n):
    """x ** n for a static n >= 0 by squaring, each square through _times."""
    acc = None
    while n:
        if n & 1:
            acc = x if acc is None else acc * x
        n >>= 1
        if n:
            x = _times(x, x)
    return jnp.ones_like(x) if acc is None else acc


_NEGATED = {"greater_equal": (jnp.less, False), "greater": (jnp.less_equal, False),
            "less_equal": (jnp.less, True), "less": (jnp.less_equal, True)}
"""Comparison -> (the comparison whose negation it is, whether its operands swap)."""


def _order(name):
    """A float order comparison as NOT its negation, and neither operand NaN: XLA's simplifier
    folds `A >= 0`, `A > -1` and `0 <= A` to True for an A it takes for non-negative (abs,
    exp, a * a), which a NaN is not (jax.jit's `abs(nan) >= 0` is True, NumPy's False); the
    folds of the negation (`A < 0` to False) hold for NaN too. Integers compare as they are."""
    negation, swap = _NEGATED[name]
    compare = getattr(jnp, name)

    def lower(ctx, x, y):
        x, y = _in_loop_dtypes(ctx, getattr(np, name), (x, y))
        if not jnp.issubdtype(jnp.result_type(x, y), jnp.floating):
            return compare(x, y)
        a, b = (y, x) if swap else (x, y)
        return ~negation(a, b) & ~jnp.isnan(a) & ~jnp.isnan(b)
    return lower


def _abs(ctx, x):
    """A signed integer's abs as (x ^ s) - s with s its sign bits: XLA's simplifier takes
    abs(A) for non-negative and folds `abs(a) < 0` to False, which abs(MIN) (MIN itself, as in
    NumPy) is not; it does not see through the bit form."""
    if not jnp.issubdtype(x.dtype, jnp.signedinteger):
        return jnp.abs(x)
    s = lax.shift_right_arithmetic(x, jnp.asarray(8 * x.dtype.itemsize - 1, x.dtype))
    return (x ^ s) - s


_NUMPY_RULES = {"floor_divide": _floor_divide, "remainder": _remainder, "power": _power,
                "multiply": _multiply, "square": _square,
                "reciprocal": _reciprocal, "abs": _abs}
"""Lowerings of ufuncs whose jax.numpy function differs from NumPy's at the edges: integer
results XLA leaves undefined or defines otherwise (division by zero), jax.numpy's integer
power, the sign of a float zero."""


def _ufunc(name):
    """The op on operands in the dtypes of NumPy's loop: jax.numpy's function of that name, or
    NumPy's rule where the two differ (_NUMPY_RULES)."""
    ufunc = getattr(np, name)
    compute = _NUMPY_RULES.get(name, lambda ctx, *args: getattr(jnp, name)(*args))
    if not isinstance(ufunc, np.ufunc):   # real, imag: one operand, computed as it is
        return compute
    return lambda ctx, *args: compute(ctx, *_in_loop_dtypes(ctx, ufunc, args))


def _reduction(fn, dtype=False):
    if dtype:
        return lambda ctx, x, axis=None, keepdims=False, dtype=None: fn(
            x, axis=axis, keepdims=keepdims, dtype=_accumulator(ctx, x))
    return lambda ctx, x, axis=None, keepdims=False: fn(x, axis=axis, keepdims=keepdims)


def _accumulator(ctx, x):
    """The dtype sum/prod accumulate in: the result's (int8's sum is int64's, as NumPy's)
    where it is not the operand's; in the operand's own dtype jax.numpy already computes as
    NumPy does (float16 in float32, as NumPy's pairwise loop)."""
    dtype = ctx.out_dtypes[0]
    return None if dtype == x.dtype else dtype


def _cumulative(fn, combine):
    """cumsum/cumprod accumulated in the result's dtype, as NumPy's add/multiply.accumulate:
    jax.numpy keeps a narrow integer's dtype (int8's cumsum wraps at 127, NumPy's is int64).
    NumPy rounds each running value of a float16 scan to float16 in turn; XLA regroups a long
    scan (3000 x 0.1: 299.0, where NumPy's running sum stops at 256.0), which in float16 is
    far beyond rounding, so 16-bit floats accumulate one step at a time (lax.scan)."""
    def lower(ctx, x, axis=None, dtype=None):
        dtype = ctx.out_dtypes[0]
        x = jnp.asarray(x)
        if axis is None:
            x, axis = jnp.ravel(x), 0
        if dtype.kind != "f" or dtype.itemsize > 2 or x.shape[axis] < 2:
            return fn(x, axis=axis, dtype=dtype)
        steps = jnp.moveaxis(x.astype(dtype), axis, 0)

        def step(carry, value):
            carry = combine(carry, value)
            return carry, carry
        _, rest = lax.scan(step, steps[0], steps[1:])
        return jnp.moveaxis(jnp.concatenate([steps[:1], rest]), 0, axis)
    return lower


def _round(ctx, x, decimals=0):
    """NumPy's round: an integer array with decimals < 0 (which jax.numpy refuses) is
    rint(x / 10**-decimals) * 10**-decimals in float64, cast back. Only the multiple of
    10**-decimals next past the dtype's maximum (or minimum) can leave the range, as the
    rounding of that extreme itself: there the value is NumPy's own (its C cast, int8's 127
    gives -126 on x86), read once."""
    x = jnp.asarray(x)
    if decimals >= 0 or not jnp.issubdtype(x.dtype, jnp.integer):
        return jnp.round(x, decimals)
    # behind a barrier: XLA would divide by the constant as a product with its (inexact)
    # reciprocal, one last bit off NumPy's quotient a third of the time
    scale = lax.optimization_barrier(jnp.float64(10.0 ** -decimals))
    y = jnp.rint(x.astype(np.float64) / scale) * scale
    info = np.iinfo(x.dtype)
    with np.errstate(all="ignore"):
        high, low = (np.round(np.array(v, x.dtype), decimals) for v in (info.max, info.min))
    above, below = y >= float(info.max) + 1, y < float(info.min)   # 2**(bits-1), exactly
    inside = jnp.where(above | below, 0, y).astype(x.dtype)
    return jnp.where(above, high, jnp.where(below, low, inside))


# -- indexing --

def _consumed_axes(entry):
    if entry is None:
        return 0
    if isinstance(entry, (np.ndarray, jax.Array)) and entry.dtype == bool:
        return entry.ndim
    return 1


def _check_array_indices(ctx, x, index, arrays):
    """Flag integer index operands out of range for their axis (NumPy raises; XLA clamps)."""
    if not arrays:
        return
    full = build_index(index, arrays)
    full = full if isinstance(full, tuple) else (full,)
    used = sum(_consumed_axes(e) for e in full if e is not Ellipsis)
    axis, slots = 0, iter(arrays)
    for entry, static in zip(full, index if isinstance(index, tuple) else (index,)):
        if entry is Ellipsis:
            axis += x.ndim - used
            continue
        if static is ARRAY:
            a = next(slots)
            if isinstance(a, jax.core.Tracer) and jnp.issubdtype(a.dtype, jnp.integer):
                n = x.shape[axis]
                ctx.check(jnp.any((a < -n) | (a >= n)))
        axis += _consumed_axes(entry)


def _no_traced_masks(arrays):
    if any(not isinstance(a, np.ndarray) and a.dtype == bool for a in arrays):
        raise NotLowered("a boolean mask computed by the program")


def _getitem(ctx, x, *arrays, index):
    _no_traced_masks(arrays)
    _check_array_indices(ctx, x, index, arrays)
    return jnp.asarray(x)[build_index(index, arrays)]


_AT = {"set": "set", "add": "add", "multiply": "multiply", "min": "min", "max": "max"}


def _scatter(ctx, x, values, *arrays, index, mode):
    x = jnp.asarray(x)
    _no_traced_masks(arrays)
    _check_array_indices(ctx, x, index, arrays)
    values = jnp.asarray(values).astype(x.dtype)
    return getattr(x.at[build_index(index, arrays)], _AT[mode])(values)


def _arg_extreme(fn, pick):
    """argmax/argmin; complex values compare as NumPy's do (real part, then imaginary part),
    which jax.numpy refuses."""
    def lower(ctx, x, axis=None, keepdims=False):
        if not jnp.iscomplexobj(x):
            return fn(x, axis=axis, keepdims=keepdims)
        if axis is None:
            x, axis = jnp.ravel(x), 0
        re = jnp.real(x)
        best = pick(re, axis=axis, keepdims=True)
        im = jnp.where(re == best, jnp.imag(x), jnp.where(pick is jnp.max, -jnp.inf, jnp.inf))
        out = fn(im, axis=axis)
        return jnp.expand_dims(out, axis) if keepdims else out
    return lower


def _special(name, *, takes_n=False):
    """A scipy.special function computed in the result's dtype (SciPy's loops are float64 for
    a float32 argument with a Python int n; JAX's would stay float32)."""
    fn = getattr(jss, name)
    if takes_n:
        return lambda ctx, x, n: fn(n, jnp.asarray(x, ctx.out_dtypes[0]))
    return lambda ctx, x: fn(jnp.asarray(x, ctx.out_dtypes[0]))


def _special_n_ary(name):
    """A scipy.special function of several broadcast operands, in the result's dtype."""
    fn = getattr(jss, name)
    return lambda ctx, *operands: fn(*(jnp.asarray(x, ctx.out_dtypes[0]) for x in operands))


def _check_range(ctx, x, *carry, low, high, message, error=ValueError):
    ctx.check(jnp.any(~((x >= low) & (x <= high))))   # NaN is out of range
    return carry[0] if carry else x


def _loop_slots(ctx, n, *, bound):
    """The range the trace recorded; a longer one is a changed shape (the call traces again)."""
    ctx.guards.append(jnp.max(n) > bound)
    return jnp.arange(bound)


def _identity_product(ctx, eye, x, *, left):
    return jnp.matmul(eye, x, precision=_HIGHEST) if left else \
        jnp.matmul(x, eye, precision=_HIGHEST)


def _diagonal_product(ctx, eye, v, x, *, left, eye_first, transpose, x_min=None):
    """simplify's guarded diag(v) @ x: the scaling where it equals the product (finite
    operands, no zero entry), else the product; lax.cond runs one of the two."""
    n = eye.shape[0]
    scaled = ((v.reshape(n, 1) * x if x.ndim == 2 else v.reshape(n) * x) if left
              else x * v.reshape(n))

    def product():
        d = eye * v if eye_first else v * eye
        if transpose is not None:
            d = jnp.transpose(d, dict(transpose).get("axes"))
        return jnp.matmul(d, x, precision=_HIGHEST) if left else \
            jnp.matmul(x, d, precision=_HIGHEST)
    exact = jnp.all(jnp.isfinite(v)) & jnp.all(jnp.isfinite(x)) & jnp.all(scaled != 0)
    return lax.cond(exact, lambda: scaled, product)


def _argsort(ctx, x, axis=-1, kind="stable"):
    """A stable argsort; NumPy's other kinds order ties their own way (introsort's for the
    default "quicksort"), which only NumPy's kernel gives: it runs on the host."""
    if kind not in ("stable", "mergesort"):
        raise NotLowered(f"argsort(kind={kind!r}) orders ties as only NumPy's kernel does")
    return jnp.argsort(x, axis=axis, stable=True)


# -- sliding windows (convolutions and pooling: xla_conv.py) --

def _slices(x, axes, window, stride, dilation):
    counts = window_counts([x.shape[a] for a in axes], window, stride, dilation)
    return [index for _, index in window_offsets(x.ndim, axes, counts, window, stride, dilation)]


def _sliding_window(ctx, x, *, axes, window, stride, dilation):
    x = jnp.asarray(x)
    parts = [x[index] for index in _slices(x, axes, window, stride, dilation)]
    return jnp.stack(parts, axis=-1).reshape(parts[0].shape + tuple(window))


def _sliding_window_sum(ctx, ct, *, shape, axes, window, stride, dilation):
    out = jnp.zeros(shape, ct.dtype)
    counts = [ct.shape[a] for a in axes]
    for offset, index in window_offsets(len(shape), axes, counts, window, stride, dilation):
        out = out.at[index].add(ct[(Ellipsis,) + offset])
    return out


# -- linear algebra --

def _solve_triangular(ctx, a, b, *, lower, trans, unit_diagonal):
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    dtype = jnp.result_type(a, b, jnp.float32)
    a = jnp.broadcast_to(a, batch + a.shape[-2:]).astype(dtype)
    b = jnp.broadcast_to(b, batch + b.shape[-2:]).astype(dtype)
    if a.size == 0 or b.size == 0:
        return jnp.zeros(batch + b.shape[-2:], dtype)
    return jsl.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit_diagonal)


def _solve(ctx, a, b):
    """numpy.linalg.solve; a result that is not finite is flagged, so the call re-runs on
    NumPy, whose answer it then is (LinAlgError for an exactly singular matrix)."""
    x = jnp.linalg.solve(a, b)
    ctx.check(~jnp.all(jnp.isfinite(x)))
    return x


def _solve_factors(ctx, a):
    """XLA's LU (packed factors and row swaps, LAPACK getrf's format) where the trace factored
    a; where it did not (a stack, mixed precision: the int8 marker), a itself, for
    solve_factored's plain solve. A singular matrix is flagged (NumPy raises LinAlgError)."""
    if ctx.out_dtypes[1] == np.int8:
        return a, jnp.zeros(a.shape[:-1], np.int8)
    lu, piv = jsl.lu_factor(a)
    ctx.check(jnp.any(jnp.diagonal(lu, axis1=-2, axis2=-1) == 0))
    return lu, piv


def _solve_factored(ctx, a, lu, piv, b, *, trans=0):
    """op(a) x = b with solve_factors' factors: two triangular solves (lu_solve); b of more
    than two dims is one (n, batch * k) right-hand side, as the NumPy kernel."""
    if piv.dtype == np.int8 or jnp.result_type(a, b) != lu.dtype:
        return _solve(ctx, a if trans == 0 else jnp.swapaxes(a, -1, -2), b)
    if b.ndim <= 2:
        return jsl.lu_solve((lu, piv), b, trans=trans)
    cols = jnp.moveaxis(b, -2, 0)
    x = jsl.lu_solve((lu, piv), cols.reshape((lu.shape[-1], -1)), trans=trans)
    return jnp.moveaxis(x.reshape(cols.shape), 0, -2)


def _adjugate(ctx, a):
    """det(a) inv(a), and where a matrix is singular its SVD form (ops/linalg.py's kernel):
    adj = det(U) det(Vh) Vh^H diag(products of all singular values but one) U^H, which does
    not depend on the singular vectors' signs or phases (each pair's flips cancel), so XLA's
    SVD gives NumPy's adjugate. The SVD runs only when some matrix is singular (lax.cond)."""
    a = a if jnp.issubdtype(a.dtype, jnp.inexact) else a.astype(np.float64)
    n = a.shape[-1]
    sign, logdet = jnp.linalg.slogdet(a)
    singular = (sign == 0)[..., None, None]
    eye = jnp.eye(n, dtype=a.dtype)
    regular = (sign * jnp.exp(logdet))[..., None, None] * jnp.linalg.inv(
        jnp.where(singular, eye, a))

    def through_svd():
        u, s, vh = jnp.linalg.svd(a)
        ones = jnp.ones(s.shape[:-1] + (1,), s.dtype)
        before = jnp.cumprod(jnp.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
        after = jnp.cumprod(jnp.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
        unit = jnp.linalg.det(u) * jnp.linalg.det(vh)
        vs = jnp.conj(jnp.swapaxes(vh, -1, -2)) * (before * after)[..., None, :].astype(a.dtype)
        adj = unit[..., None, None] * jnp.matmul(vs, jnp.conj(jnp.swapaxes(u, -1, -2)),
                                                 precision=_HIGHEST)
        return jnp.where(singular, adj.astype(a.dtype), regular)
    if a.size == 0:
        return regular
    return lax.cond(jnp.any(singular), through_svd, lambda: regular)


def _lu_factor(ctx, a):
    if a.size == 0:
        return jnp.zeros(a.shape, jnp.result_type(a, jnp.float32)), jnp.zeros(a.shape[:-1],
                                                                              jnp.int32)
    return tuple(jsl.lu_factor(a))


def _pivots_to_permutation(ctx, piv):
    return lax.linalg.lu_pivots_to_permutation(jnp.asarray(piv, jnp.int32), piv.shape[-1])


def _sliding_product(fn, default_mode):
    """correlate/convolve in NumPy's dtype: jax.numpy computes integers in floats, whose cast
    back saturates where NumPy's integer loop wraps (int8's [100, 33, 100] correlated with
    itself gave 127s); an XLA integer convolution wraps as NumPy's does. NumPy's correlate of
    booleans is whether any product is true: the count of true products, compared to 0."""
    def lower(ctx, a, v, mode=default_mode):
        a, v = _promote(a, v)
        dtype = ctx.out_dtypes[0]
        if dtype.kind == "b":
            counts = fn(_cast(a, np.int64), _cast(v, np.int64), mode=mode,
                        preferred_element_type=np.int64)
            return counts != 0
        kind = {"preferred_element_type": dtype} if dtype.kind in "iu" else {}
        return fn(a, v, mode=mode, precision=_HIGHEST, **kind)
    return lower


def _einsum(ctx, *operands, subscripts, optimize="greedy"):
    return jnp.einsum(subscripts, *_promote(*operands), precision=_HIGHEST)


def _threefry(ctx, key, counts):
    # the kernel is pure array arithmetic on uint32: jax.numpy runs it as written
    return _threefry2x32_kernel(jnp, key, counts)


LOWERINGS = {name: _ufunc(name) for name in UFUNCS}
LOWERINGS.update({name: _order(name) for name in ("greater", "greater_equal", "less",
                                                  "less_equal")})
LOWERINGS.update({
    "stop_gradient": lambda ctx, x: x,
    "round": _round,
    "where": lambda ctx, cond, x, y: jnp.where(cond, *_promote(x, y)),
    "lax_select": lambda ctx, cond, x, y: jnp.where(cond, *_promote(x, y)),
    "astype": lambda ctx, x, dtype: _cast(x, dtype),
    # reductions and scans
    "sum": _reduction(jnp.sum, dtype=True),
    "prod": _reduction(jnp.prod, dtype=True),
    "max": _reduction(jnp.max),
    "min": _reduction(jnp.min),
    "argmax": _arg_extreme(jnp.argmax, jnp.max),
    "argmin": _arg_extreme(jnp.argmin, jnp.min),
    "all": _reduction(jnp.all),
    "any": _reduction(jnp.any),
    "cumsum": _cumulative(jnp.cumsum, jnp.add),
    "cumprod": _cumulative(jnp.cumprod, jnp.multiply),
    "sort": lambda ctx, x, axis=-1: jnp.sort(x, axis=axis),
    "argsort": _argsort,
    "searchsorted": lambda ctx, a, v, side="left": jnp.searchsorted(a, v, side=side),
    # shapes
    "reshape": lambda ctx, x, shape, order="C": jnp.reshape(x, shape, order=order),
    "transpose": lambda ctx, x, axes=None: jnp.transpose(x, axes),
    "copy": lambda ctx, x, order="K": x,   # XLA chooses layouts itself
    "broadcast_to": lambda ctx, x, shape: jnp.broadcast_to(x, shape),
    "concatenate": lambda ctx, *xs, axis=0: jnp.concatenate(_promote(*xs), axis=axis),
    "pad": lambda ctx, x, pad_width, constant_values=0: jnp.pad(
        x, pad_width, mode="constant", constant_values=constant_values),
    "diagonal": lambda ctx, x, offset=0, axis1=0, axis2=1: jnp.diagonal(x, offset, axis1, axis2),
    "roll": lambda ctx, x, shift, axis=None: jnp.roll(x, shift, axis),
    "getitem": _getitem,
    "scatter": _scatter,
    "check_range": _check_range,
    "loop_slots": _loop_slots,
    "identity_product": _identity_product,
    "diagonal_product": _diagonal_product,
    "unstack": lambda ctx, x, axis=0: tuple(jnp.moveaxis(x, axis, 0)),
    "split": lambda ctx, x, points, axis=0: tuple(
        jnp.asarray(x)[(slice(None),) * axis + (slice(lo, hi),)]
        for lo, hi in zip(points[:-1], points[1:])),
    # convolution and pooling
    "conv": xla_conv.conv,
    "conv_transpose": xla_conv.conv_transpose,
    "conv_weight_grad": xla_conv.conv_weight_grad,
    "sliding_window": _sliding_window,
    "sliding_window_sum": _sliding_window_sum,
    "pool_sum": xla_conv.pool_sum,
    "pool_max": xla_conv.pool_max,
    "pool_max_select": xla_conv.pool_max_select,
    "pool_max_scatter": xla_conv.pool_max_scatter,
    # linear algebra
    "matmul": lambda ctx, a, b: jnp.matmul(*_promote(a, b), precision=_HIGHEST),
    "einsum": _einsum,
    "solve": _solve,
    "inv": lambda ctx, a: jnp.linalg.inv(a),
    "pinv": lambda ctx, a, rcond: jnp.linalg.pinv(a, rtol=rcond),
    "det": lambda ctx, a: jnp.linalg.det(a),
    "slogdet": lambda ctx, a: tuple(jnp.linalg.slogdet(a)),
    "cholesky": lambda ctx, a: jnp.linalg.cholesky(a),
    "eigh": lambda ctx, a, UPLO="L": tuple(jnp.linalg.eigh(a, UPLO=UPLO)),
    "svd": lambda ctx, a, full_matrices=True: tuple(jnp.linalg.svd(a, full_matrices)),
    "correlate": _sliding_product(jnp.correlate, "valid"),
    "convolve": _sliding_product(jnp.convolve, "full"),
    "eigvalsh": lambda ctx, a, UPLO="L": jnp.linalg.eigvalsh(a, UPLO=UPLO),
    "svdvals": lambda ctx, a: jnp.linalg.svd(a, compute_uv=False),
    "qr": lambda ctx, a, mode="reduced": tuple(jnp.linalg.qr(a, mode)),
    "eigvals": lambda ctx, a: jnp.linalg.eigvals(a),
    "solve_triangular": _solve_triangular,
    "lu_factor": _lu_factor,
    "solve_factors": _solve_factors,
    "solve_factored": _solve_factored,
    "adjugate": _adjugate,
    "pivots_to_permutation": _pivots_to_permutation,
    "expm": lambda ctx, a: jsl.expm(a),
    # FFT
    "fftn": lambda ctx, x, axes, norm=None: jnp.fft.fftn(x, axes=axes, norm=norm),
    "ifftn": lambda ctx, x, axes, norm=None: jnp.fft.ifftn(x, axes=axes, norm=norm),
    "rfftn": lambda ctx, x, axes, norm=None: jnp.fft.rfftn(x, axes=axes, norm=norm),
    "irfftn": lambda ctx, x, axes, n, norm=None: jnp.fft.irfftn(
        x, s=[x.shape[a] for a in axes[:-1]] + [n], axes=axes, norm=norm),
    # special functions
    "erf": _special("erf"),
    "erfc": _special("erfc"),
    "erfinv": _special("erfinv"),
    "gammaln": _special("gammaln"),
    "digamma": _special("digamma"),
    "ndtri": _special("ndtri"),
    "gamma": _special("gamma"),
    "log_ndtr": _special("log_ndtr"),
    "polygamma": _special("polygamma", takes_n=True),
    "gammainc": _special_n_ary("gammainc"),
    "gammaincc": _special_n_ary("gammaincc"),
    "betainc": _special_n_ary("betainc"),
    # random bits
    "threefry2x32": _threefry,
})
