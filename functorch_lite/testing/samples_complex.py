"""Complex samples for every entry whose function NumPy defines on complex input.

Most are made from an entry's own real samples: its float64 leaves become complex128 and its
float32 leaves complex64 by adding an imaginary part drawn in [-0.5, 0.5] (the real part stays
in the entry's domain, so the sample stays away from poles and branch cuts, which NumPy puts on
the real axis), plus one mixed sample where only the first float operand is complex (a real
operand meeting a complex one gets a real cotangent). Entries that need structure (Hermitian
matrices, complex-only functions such as angle) get hand-written samples. The generic jvp, vjp,
finite-difference and composition tests then run on them (tests/test_complex.py).

The functions NumPy refuses on complex input (floor, cbrt, arctan2, hypot, logaddexp, remainder,
fmod, quantile, rfft, ...) have no complex samples. Every function that has them is
differentiable on complex input.
"""
import numpy as np

from .samples_base import F32, F64, OpInfo, S, Sample, unique_names

C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)
_TO_COMPLEX = {F64: C128, F32: C64}

COMPLEXIFIED = """
negative positive abs absolute exp exp2 expm1 log log2 log10 log1p sqrt square reciprocal
sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh real imag conj
conjugate sign isnan isinf isfinite rint add subtract multiply divide true_divide power
float_power maximum minimum fmax fmin equal not_equal less less_equal greater greater_equal
logical_not logical_and logical_or logical_xor where clip round around stop_gradient
sum prod max min amax amin mean var std argmax argmin all any cumsum cumprod sort argsort
average ptp median nansum nanmean nanmax nanmin
shape ndim size zeros_like ones_like empty_like full_like asarray array copy at_min at_max
reshape ravel transpose moveaxis swapaxes expand_dims squeeze broadcast_to broadcast_arrays
concatenate stack hstack vstack split array_split flip roll tile repeat pad diagonal trace tril
triu atleast_1d atleast_2d getitem take take_along_axis put_along_axis at_set at_add
at_multiply diag diagflat kron diff cross
matmul dot inner vdot outer tensordot einsum
linalg.solve linalg.inv linalg.det linalg.trace linalg.diagonal linalg.outer linalg.vecdot
linalg.matrix_power linalg.norm linalg.vector_norm linalg.matrix_norm
linalg.slogdet linalg.cholesky linalg.eigh linalg.eigvalsh linalg.svd linalg.qr linalg.pinv
linalg.lstsq
""".split()
"""Entries whose real samples are turned complex as the module docstring says."""

_PER_DTYPE = 2
"""At most this many complex128 samples (and one complex64, one mixed) per entry: the vmap
tests try every subset of batched operands, so every sample costs."""


def _complexify(sample, rng, which=None):
    """sample with its float leaves (those at positions `which`, default all) made complex."""
    leaves = sample.leaves()
    name = ("c_" if which is None else "mixed_") + sample.name
    which = range(len(leaves)) if which is None else which
    new = [x + 1j * rng.uniform(-0.5, 0.5, x.shape).astype(x.dtype)
           if k in which and x.dtype in _TO_COMPLEX else x for k, x in enumerate(leaves)]
    new = [np.asarray(x, _TO_COMPLEX[leaves[k].dtype]) if k in which and
           leaves[k].dtype in _TO_COMPLEX else x for k, x in enumerate(new)]
    return Sample(sample.replace_leaves(new), dict(sample.kwargs), name)


def _float_kinds(sample):
    return {x.dtype for x in sample.leaves() if x.dtype.kind == "f"}


def complex_samples(real_samples):
    """A sample function of complex versions of `real_samples` (see the module docstring)."""
    def samples(rng):
        real = real_samples(rng)
        f64 = [s for s in real if _float_kinds(s) == {F64}]
        f32 = [s for s in real if _float_kinds(s) == {F32}]
        out = [_complexify(s, rng) for s in f64[:_PER_DTYPE] + f32[:1]]
        pairs = [s for s in f64 if sum(x.dtype == F64 for x in s.leaves()) >= 2]
        if pairs:
            first = next(k for k, x in enumerate(pairs[0].leaves()) if x.dtype == F64)
            out.append(_complexify(pairs[0], rng, which=[first]))
        return out
    return samples


def _angle_samples(rng):
    """Values off the negative real axis (where angle jumps by 2 pi)."""
    def z(shape, dtype=C128):
        mag = rng.uniform(0.3, 2.0, shape)
        phase = rng.uniform(-2.5, 2.5, shape)
        return np.asarray(mag * np.exp(1j * phase), dtype)
    return [S(z((3, 4))), S(z(())), S(z((0,))), S(z((5,), C64)), S(z((2, 3)), deg=True),
            S(np.asarray(rng.uniform(-2, 2, (4,)) + 0.0), name="f64_4"),
            S(np.asarray(rng.uniform(-2, 2, (3,)), np.float32), name="f32_3")]


def _astype_complex(rng):
    def z(shape, dtype=C128):
        return np.asarray(rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape), dtype)
    return [S(z((3, 4)), C64, name="c128_to_c64"), S(z((3,), C64), C128, name="c64_to_c128"),
            S(np.asarray(rng.uniform(-2, 2, (2, 3))), C128, name="f64_to_c128"),
            S(np.asarray(rng.uniform(-2, 2, (3,)), np.float32), C64, name="f32_to_c64")]


EXTRA_SAMPLES = {"astype": _astype_complex}
"""Entry name -> further hand-written complex samples."""


def add_complex_samples(entries):
    """The entries, those named in COMPLEXIFIED and EXTRA_SAMPLES with complex samples added
    after their own (the same OpInfo objects, so the database stays one list)."""
    for info in entries:
        extra = []
        if info.name in COMPLEXIFIED:
            extra.append(complex_samples(info.samples))
        if info.name in EXTRA_SAMPLES:
            extra.append(EXTRA_SAMPLES[info.name])
        if extra:
            info.samples = _joined(info.samples, extra)
    return entries


def _joined(own, extra):
    def samples(rng):
        out = own(rng)
        for fn in extra:
            out = out + fn(rng)
        return unique_names(out)
    samples.__doc__ = own.__doc__
    return samples


def complex_only_entries():
    """Entries of functions that exist for complex numbers only (angle)."""
    from .. import numpy as fnp
    return [OpInfo("angle", fnp.angle, np.angle, _angle_samples,
                   doc="values kept off the negative real axis, where the angle jumps")]
