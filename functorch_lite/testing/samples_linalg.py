"""Sample entries of products, numpy.linalg functions and functorch_lite.nn.

Matrices are well conditioned: A + n I for solve/inv/det, A A^T + n I for cholesky, and
eigh/svd inputs are built from random orthogonal factors and well separated spectra, so
derivatives exist and finite differences are accurate.
"""
import math

import numpy as np

from .. import nn
from .. import numpy as fnp
from ..ops import linalg as la, linalg_factored as lf
from .samples_base import (EVEN, F32, F64, I64, NONZERO, REAL, OpInfo, S, array, fixed, spd,
                           unary, well_conditioned)


def _same(name):
    return getattr(fnp, name), getattr(np, name)


def _a(rng, *shape, dtype=F64, domain=REAL):
    return array(rng, shape, dtype, domain)


# -- products ---------------------------------------------------------------------------------

def _matmul(r):
    return [S(_a(r, 3, 4), _a(r, 4, 5)), S(_a(r, 4), _a(r, 4, 3)), S(_a(r, 3, 4), _a(r, 4)),
            S(_a(r, 4), _a(r, 4)), S(_a(r, 2, 3, 4), _a(r, 4, 5)),
            S(_a(r, 2, 1, 3, 4), _a(r, 3, 4, 2)), S(_a(r, 0, 3), _a(r, 3, 2)),
            S(_a(r, 3, 0), _a(r, 0, 2)), S(_a(r, 3, 4, dtype=F32), _a(r, 4, 2, dtype=F32)),
            S(_a(r, 2, 3, dtype=I64), _a(r, 3, dtype=I64))]


def _dot(r):
    return [S(_a(r, 3), _a(r, 3)), S(_a(r, 2, 3), _a(r, 3, 4)), S(_a(r, 2, 3), _a(r, 3)),
            S(_a(r), _a(r, 3)), S(_a(r, 2, 3, 4), _a(r, 4)), S(_a(r, 2, 3, 4), _a(r, 5, 4, 2)),
            S(_a(r, 3, dtype=F32), _a(r, 3, 2, dtype=F32)), S(2.0, _a(r, 3))]


def _inner(r):
    return [S(_a(r, 3), _a(r, 3)), S(_a(r, 2, 3), _a(r, 4, 3)), S(_a(r), _a(r, 3)),
            S(_a(r, 2, 3, 4), _a(r, 4)), S(_a(r, 3, dtype=F32), _a(r, 3, dtype=F32))]


def _vdot(r):
    return [S(_a(r, 3), _a(r, 3)), S(_a(r, 2, 3), _a(r, 3, 2)), S(_a(r, 0), _a(r, 0)),
            S(_a(r, 4, dtype=F32), _a(r, 4, dtype=F32))]


def _outer(r):
    return [S(_a(r, 3), _a(r, 4)), S(_a(r, 2, 2), _a(r, 3)), S(_a(r), _a(r, 2)),
            S(_a(r, 3, dtype=F32), _a(r, 2, dtype=F32))]


def _tensordot(r):
    return [S(_a(r, 3, 4, 5), _a(r, 4, 5, 2)), S(_a(r, 3, 4), _a(r, 4, 5), 1),
            S(_a(r, 2), _a(r, 3), 0), S(_a(r, 3, 4), _a(r, 4, 3, 2), ([1, 0], [0, 1])),
            S(_a(r, 2, 3, 4), _a(r, 4, 5), axes=((2,), (0,))),
            S(_a(r, 3, 4), _a(r, 2, 3), axes=(0, 1)),
            S(_a(r, 3, 4, dtype=F32), _a(r, 4, 2, dtype=F32), 1)]


def _einsum(r):
    return [S("ij,jk->ik", _a(r, 2, 3), _a(r, 3, 4)), S("ij,jk", _a(r, 2, 3), _a(r, 3, 4)),
            S("ii->i", _a(r, 3, 3)), S("ii", _a(r, 3, 3)), S("ij->ji", _a(r, 2, 3)),
            S("i,i->", _a(r, 3), _a(r, 3)), S("i,j->ij", _a(r, 2), _a(r, 3)),
            S("bij,bjk->bik", _a(r, 2, 3, 4), _a(r, 2, 4, 2)),
            S("...ij,...jk->...ik", _a(r, 2, 3, 4), _a(r, 4, 2)),
            S("...i,...i", _a(r, 2, 3), _a(r, 3)), S("ij,jk,kl->il", _a(r, 2, 3), _a(r, 3, 3),
                                                     _a(r, 3, 2)),
            S("i->", _a(r, 0)), S("ij,j->i", _a(r, 2, 3, dtype=F32), _a(r, 3, dtype=F32))]


PRODUCTS = [OpInfo("matmul", *_same("matmul"), _matmul), OpInfo("dot", *_same("dot"), _dot),
            OpInfo("inner", *_same("inner"), _inner), OpInfo("vdot", *_same("vdot"), _vdot),
            OpInfo("outer", *_same("outer"), _outer),
            OpInfo("tensordot", *_same("tensordot"), _tensordot),
            OpInfo("einsum", *_same("einsum"), _einsum)]


# -- numpy.linalg -----------------------------------------------------------------------------

def _orthogonal(rng, n, batch=()):
    q, r = np.linalg.qr(rng.standard_normal(batch + (n, n)))
    return q * np.sign(np.diagonal(r, axis1=-2, axis2=-1))[..., None, :]


def _separated_spectrum(rng, n, batch=()):
    """1, 2, ..., n plus noise in [0, 0.3]: distinct and well separated."""
    return np.arange(1.0, n + 1) + rng.uniform(0.0, 0.3, batch + (n,))


def _sym_with_spectrum(rng, n, batch=(), dtype=F64):
    q = _orthogonal(rng, n, batch)
    w = _separated_spectrum(rng, n, batch)
    return np.asarray((q * w[..., None, :]) @ np.swapaxes(q, -1, -2), dtype=dtype)


def _with_singular_values(rng, m, n, batch=(), dtype=F64):
    k = min(m, n)
    u, v = _orthogonal(rng, m, batch)[..., :k], _orthogonal(rng, n, batch)[..., :k]
    s = _separated_spectrum(rng, k, batch)[..., ::-1]
    return np.asarray((u * s[..., None, :]) @ np.swapaxes(v, -1, -2), dtype=dtype)


def _square(r):
    return [S(well_conditioned(r, 3)), S(well_conditioned(r, 4, (2,))),
            S(well_conditioned(r, 1)), S(well_conditioned(r, 3, dtype=F32))]


def _solve(r):
    return [S(well_conditioned(r, 3), _a(r, 3)), S(well_conditioned(r, 3), _a(r, 3, 2)),
            S(well_conditioned(r, 3, (2,)), _a(r, 2, 3, 2)),
            S(well_conditioned(r, 3, dtype=F32), _a(r, 3, dtype=F32))]


def _factored_solve(a, b, trans=0):
    return lf.solve_factored(a, *lf.solve_factors(a), b, trans=trans)


def _np_op_solve(a, b, trans=0):
    return np.linalg.solve(np.swapaxes(a, -1, -2) if trans else a, b)


def _factored_samples(r):
    return _solve(r) + [S(well_conditioned(r, 3), _a(r, 3, 2), trans=1, name="f64_transposed"),
                        S(well_conditioned(r, 3, (2,)), _a(r, 3), trans=1,
                          name="f64_stack_transposed_vector")]


def _spd_samples(*extra_kwargs):
    def samples(r):
        out = [S(spd(r, 3)), S(spd(r, 4, (2,))), S(spd(r, 1)), S(spd(r, 3, dtype=F32))]
        return out + [S(spd(r, 3), **kw) for kw in extra_kwargs]
    return samples


def _eigh_samples(r):
    return [S(_sym_with_spectrum(r, 3)), S(_sym_with_spectrum(r, 4, (2,))),
            S(_sym_with_spectrum(r, 1)), S(_sym_with_spectrum(r, 3, dtype=F32)),
            S(_sym_with_spectrum(r, 3), UPLO="U")]


def _svd_samples(r):
    return [S(_with_singular_values(r, 4, 3)), S(_with_singular_values(r, 3, 4)),
            S(_with_singular_values(r, 3, 3, (2,))), S(_with_singular_values(r, 3, 2, dtype=F32)),
            S(_with_singular_values(r, 4, 3), compute_uv=False)]


def _qr_samples(r):
    return [S(_with_singular_values(r, 4, 3)), S(_with_singular_values(r, 3, 3)),
            S(_with_singular_values(r, 3, 3, (2,))), S(_with_singular_values(r, 3, 3),
                                                         mode="complete"),
            S(_with_singular_values(r, 4, 3), mode="r"),
            S(_with_singular_values(r, 4, 2, dtype=F32))]


def _norm_samples(r):
    def a(*shape, dtype=F64, domain=NONZERO):
        return array(r, shape, dtype, domain)
    return [S(a(5)), S(a(3, 4)), S(a(3, 4), "fro"), S(a(5), 1), S(a(5, domain=EVEN), np.inf),
            S(a(5, domain=EVEN), -np.inf), S(a(5), 3), S(a(5), 0), S(a(3, 4), axis=1),
            S(a(3, 4), 2, axis=0, keepdims=True), S(a(2, 3, 4), axis=(1, 2)),
            S(a(4, dtype=F32))] + _matrix_norm_samples(r)


def _sym(ns):
    """(a + a^H) / 2: the Hermitian (for real a, symmetric) part."""
    return lambda a: (a + ns.conj(ns.swapaxes(a, -1, -2))) / 2


_fsym, _nsym = _sym(fnp), _sym(np)


def _eigh_invariant(ns):
    """eigh of the Hermitian part, returning (eigenvalues, v * conj(v)): eigenvectors are
    defined up to a sign (a phase for complex input), their squared moduli are not."""
    def fn(a, UPLO="L"):
        w, v = ns.linalg.eigh(_sym(ns)(a), UPLO)
        return w, v * ns.conj(v)
    return fn


def _svd_invariant(svd):
    def fn(a, compute_uv=True):
        out = svd(a, full_matrices=False, compute_uv=compute_uv)
        if not compute_uv:
            return out
        u, s, vh = out
        return s, u * u.conj(), vh * vh.conj()   # invariant under the phase of each pair
    return fn


_LINALG_TOL = {"rtol": {F32: 1e-4, F64: 1e-10}, "atol": {F32: 1e-5, F64: 1e-12}}


def _linalg(name, fn, ref, samples, doc="", **kw):
    return OpInfo(f"linalg.{name}", fn, ref, samples, doc=doc, **{**_LINALG_TOL, **kw})


LINALG = [
    _linalg("solve", fnp.linalg.solve, np.linalg.solve, _solve),
    _linalg("inv", fnp.linalg.inv, np.linalg.inv, _square),
    _linalg("det", fnp.linalg.det, np.linalg.det, _square),
    _linalg("slogdet", fnp.linalg.slogdet, np.linalg.slogdet, _square),
    _linalg("solve_factored", _factored_solve, _np_op_solve, _factored_samples,
            numpy_fn=None, internal=True, doc="the solve of solve's derivatives (one factorization, see "
                               "ops/linalg_factored.py); fn factors, then solves"),
    _linalg("adjugate", la.adjugate, lambda a: np.linalg.det(a)[..., None, None] *
            np.linalg.inv(a), _square, numpy_fn=None, internal=True,
            doc="the op behind det's derivative (no NumPy name); its values at singular "
                "matrices are tested in tests/test_det_singular.py"),
    _linalg("cholesky", lambda a, **kw: fnp.linalg.cholesky(_fsym(a), **kw),
            lambda a, **kw: np.linalg.cholesky(_nsym(a), **kw), _spd_samples({"upper": True}),
            doc="fn takes the Hermitian part ((a + a^H)/2) so derivatives stay symmetric"),
    _linalg("eigh", _eigh_invariant(fnp), _eigh_invariant(np), _eigh_samples,
            doc="fn takes the Hermitian part of its input and returns (eigenvalues, "
                "v * conj(v)): eigenvectors are defined up to a sign or phase, those are not"),
    _linalg("eigvalsh", lambda a, UPLO="L": fnp.linalg.eigvalsh(_fsym(a), UPLO),
            lambda a, UPLO="L": np.linalg.eigvalsh(_nsym(a), UPLO), _eigh_samples,
            doc="fn symmetrizes its input"),
    _linalg("svd", _svd_invariant(fnp.linalg.svd), _svd_invariant(np.linalg.svd), _svd_samples,
            doc="reduced SVD; fn returns (S, U * U, Vh * Vh), which are invariant under the "
                "sign ambiguity of singular vectors (singular values are well separated)"),
    _linalg("qr", fnp.linalg.qr, np.linalg.qr, _qr_samples,
            doc="full column rank inputs; mode='complete' only for square matrices (the extra "
                "columns of Q are not unique otherwise)"),
    _linalg("norm", fnp.linalg.norm, np.linalg.norm, _norm_samples),
]


# -- functorch_lite.nn ------------------------------------------------------------------------

def _np_log_softmax(x, axis=-1):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _np_softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _np_logsumexp(x, axis=-1, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _np_sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _np_gelu(x, approximate="none"):
    if approximate in (False, "none"):
        erf = np.vectorize(math.erf, otypes=[np.float64])
        return (0.5 * x * (1 + erf(x / math.sqrt(2.0)))).astype(x.dtype)
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi).astype(x.dtype) *
                                  (x + 0.044715 * x ** 3)))


def _np_one_hot(labels, num_classes, dtype=np.float64, axis=-1):
    hot = (np.asarray(labels)[..., None] == np.arange(num_classes)).astype(dtype)
    return np.moveaxis(hot, -1, axis)


def _np_reduce(loss, reduction):
    return {"mean": np.mean, "sum": np.sum, "none": lambda v: v}[reduction](loss)


def _np_cross_entropy(logits, labels, reduction="mean", axis=-1):
    logp = _np_log_softmax(logits, axis)
    if labels.dtype.kind in "iu":
        picked = np.take_along_axis(logp, np.expand_dims(labels, axis), axis)
        loss = -np.squeeze(picked, axis)
    else:
        loss = -np.sum(labels * logp, axis=axis)
    return _np_reduce(loss, reduction)


def _np_nll_loss(log_probs, labels, weight=None, ignore_index=-100, reduction="mean",
                 axis=-1):
    """torch's formula by a loop over the examples: -w[y] x[y], ignored examples weigh 0, the
    mean divides by the total weight."""
    x = np.moveaxis(log_probs, axis, -1)
    w_class = np.ones(x.shape[-1], x.dtype) if weight is None else weight
    loss, w = np.zeros(labels.shape, x.dtype), np.zeros(labels.shape, w_class.dtype)
    for i in np.ndindex(labels.shape):
        if labels[i] != ignore_index:
            w[i] = w_class[labels[i]]
            loss[i] = -w[i] * x[i][labels[i]]
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.sum() / w.sum()


def _np_mse_loss(pred, target, reduction="mean"):
    return _np_reduce((pred - target) ** 2, reduction)


def _softmax_samples(r):
    return [S(_a(r, 3, 4)), S(_a(r, 3, 4), axis=0), S(_a(r, 5), axis=-1),
            S(_a(r, 2, 3, 4), axis=1), S(_a(r, 2, 3, 4), axis=(0, 2)),
            S(_a(r, 3, 4, dtype=F32), axis=-1), S(_a(r, 0, 3), axis=-1)]


def _logsumexp_samples(r):
    return [S(_a(r, 3, 4), axis=-1), S(_a(r, 3, 4), axis=0), S(_a(r, 5), axis=0),
            S(_a(r, 2, 3, 4), axis=1, keepdims=True), S(_a(r, 2, 3, 4), axis=(0, 2)),
            S(_a(r, 3, 4, dtype=F32), axis=-1)]


def _labels(r, n, *shape):
    return np.asarray(r.integers(0, n, shape), dtype=I64)


def _one_hot_samples(r):
    return [S(_labels(r, 5, 4), 5), S(_labels(r, 3, 2, 3), 3), S(_labels(r, 4), 4),
            S(_labels(r, 5, 4), 5, dtype=F32), S(_labels(r, 3, 2), 3, axis=0),
            S(_labels(r, 3, 0), 3)]


def _cross_entropy_samples(r):
    probs = _np_softmax(_a(r, 4, 5))
    return [S(_a(r, 4, 5), _labels(r, 5, 4)), S(_a(r, 4, 5), _labels(r, 5, 4), "sum"),
            S(_a(r, 4, 5), _labels(r, 5, 4), reduction="none"),
            S(_a(r, 5), _labels(r, 5), name="f64_single_example"),
            S(_a(r, 5, 4), _labels(r, 5, 4), axis=0), S(_a(r, 4, 5), probs, name="f64_probs"),
            S(_a(r, 2, 3, 5), _labels(r, 5, 2, 3)),
            S(_a(r, 4, 5, dtype=F32), _labels(r, 5, 4))]


def _nll_samples(r):
    def log_probs(*shape, dtype=F64):
        return _np_log_softmax(_a(r, *shape, dtype=dtype), -1)
    some_ignored = _labels(r, 5, 6)
    some_ignored[[1, 4]] = -100
    weight = r.uniform(0.5, 2.0, 5)
    return [S(log_probs(6, 5), _labels(r, 5, 6)),
            S(log_probs(6, 5), _labels(r, 5, 6), reduction="sum"),
            S(log_probs(6, 5), some_ignored, reduction="none"),
            S(log_probs(6, 5), some_ignored, weight, name="f64_weighted_ignored"),
            S(log_probs(6, 5), _labels(r, 5, 6), weight, reduction="sum"),
            S(log_probs(6, 5), np.where(some_ignored < 0, 3, some_ignored), ignore_index=3,
              name="f64_ignore_index_3"),
            S(log_probs(5), _labels(r, 5), weight, name="f64_single_example"),
            S(np.moveaxis(log_probs(2, 3, 5), -1, 1), _labels(r, 5, 2, 3), axis=1,
              name="f64_class_axis_1"),
            S(log_probs(4, 5, dtype=F32), _labels(r, 5, 4), weight.astype(F32))]


def _mse_samples(r):
    return [S(_a(r, 3, 4), _a(r, 3, 4)), S(_a(r, 3, 4), _a(r, 4)),
            S(_a(r, 3, 4), _a(r, 3, 4), reduction="sum"),
            S(_a(r, 5), _a(r, 5), reduction="none"), S(_a(r), _a(r)),
            S(_a(r, 3, dtype=F32), _a(r, 3, dtype=F32))]


def _nn(name, ref, samples, **kw):
    return OpInfo(f"nn.{name}", getattr(nn, name), ref, samples, numpy_fn=None, **kw)


NN = [
    _nn("relu", lambda x: np.maximum(x, 0), unary(NONZERO), doc="samples avoid the kink at 0"),
    _nn("gelu", _np_gelu, fixed(unary(REAL), unary(REAL, approximate=False),
                                unary(REAL, approximate="tanh"))),
    _nn("sigmoid", _np_sigmoid, unary(REAL)),
    _nn("softplus", lambda x: np.logaddexp(x, 0), unary(REAL)),
    _nn("silu", lambda x: x * _np_sigmoid(x), unary(REAL)),
    _nn("softmax", _np_softmax, _softmax_samples),
    _nn("log_softmax", _np_log_softmax, _softmax_samples),
    _nn("logsumexp", _np_logsumexp, _logsumexp_samples),
    _nn("one_hot", _np_one_hot, _one_hot_samples, differentiable=False),
    _nn("cross_entropy", _np_cross_entropy, _cross_entropy_samples,
        doc="integer labels (one per example, also a single 1-d example) or class probabilities"),
    _nn("nll_loss", _np_nll_loss, _nll_samples,
        doc="torch's weighted mean, ignore_index, a single example, the class axis anywhere"),
    _nn("mse_loss", _np_mse_loss, _mse_samples),
]

ENTRIES = PRODUCTS + LINALG + NN


# -- composites over the linalg primitives (functorch_lite/numpy/linalg.py) ------------------

def _cross(r):
    return [S(_a(r, 3), _a(r, 3)), S(_a(r, 2, 3), _a(r, 3)), S(_a(r, 4, 1, 3), _a(r, 2, 3)),
            S(_a(r, 3, dtype=F32), _a(r, 2, 3, dtype=F32)),
            S(_a(r, 3, dtype=I64), _a(r, 3, dtype=I64))]


def _matrix_norm_samples(r):
    def a(*shape, dtype=F64):
        return array(r, shape, dtype, NONZERO)
    sv = _with_singular_values
    return [S(a(3, 4), 1), S(a(3, 4), -1), S(a(3, 4), np.inf), S(a(3, 4), -np.inf),
            S(a(2, 3, 4), 1, axis=(2, 1)), S(a(2, 3, 4), np.inf, axis=(0, 2), keepdims=True),
            S(sv(r, 4, 3), "nuc"), S(sv(r, 3, 4), 2), S(sv(r, 4, 3), -2),
            S(np.moveaxis(sv(r, 3, 3, (2,)), 0, -1), "nuc", axis=(0, 1), keepdims=True),
            S(a(3, 4, dtype=F32), 1), S(sv(r, 3, 2, dtype=F32), 2)]


def _matrix_power(r):
    return [S(well_conditioned(r, 3), 3), S(well_conditioned(r, 3), 1),
            S(well_conditioned(r, 3), 0), S(well_conditioned(r, 3, (2,)), 2),
            S(well_conditioned(r, 3), -2), S(well_conditioned(r, 2, dtype=F32), 5),
            S(well_conditioned(r, 3) / 3, 4)]


def _repeated_singular_values(rng, m, n, value=2.0):
    """value times m x n orthonormal columns (or rows): every singular value equal, where
    derivatives through the SVD divide by zero."""
    q = _orthogonal(rng, max(m, n))[:, :min(m, n)]
    return value * (q if m >= n else q.T)


def _pinv(r):
    return [S(_with_singular_values(r, 4, 3)), S(_with_singular_values(r, 3, 4)),
            S(2.0 * np.eye(3)), S(_repeated_singular_values(r, 4, 3)),
            S(_with_singular_values(r, 3, 3, (2,))), S(_with_singular_values(r, 4, 2), 1e-3),
            S(_with_singular_values(r, 4, 2), rtol=1e-3),
            S(_with_singular_values(r, 3, 2, dtype=F32))]


def _lstsq(r):
    return [S(_with_singular_values(r, 5, 3), _a(r, 5)),
            S(_with_singular_values(r, 5, 3), _a(r, 5, 2)),
            S(_with_singular_values(r, 3, 3), _a(r, 3, 2)),
            S(_with_singular_values(r, 2, 4), _a(r, 2)),
            S(_with_singular_values(r, 4, 3), _a(r, 4), rcond=1e-3),
            S(_with_singular_values(r, 4, 3, dtype=F32), _a(r, 4, dtype=F32))]


def _last2(r):
    return [S(_a(r, 3, 4)), S(_a(r, 2, 3, 3)), S(_a(r, 3, 4), offset=1),
            S(_a(r, 2, 4, 3), offset=-1), S(_a(r, 3, 3, dtype=F32))]


def _vecdot(r):
    return [S(_a(r, 3), _a(r, 3)), S(_a(r, 2, 3), _a(r, 3)), S(_a(r, 3, 2), _a(r, 3, 2), axis=0),
            S(_a(r, 2, 1, 4), _a(r, 3, 4), axis=-1), S(_a(r, 4, dtype=F32), _a(r, 4, dtype=F32)),
            S(_a(r, 3, dtype=I64), _a(r, 3, dtype=I64))]


def _matrix_norm_api(r):
    sv = _with_singular_values
    return [S(_a(r, 3, 4, domain=NONZERO)), S(_a(r, 2, 3, 4, domain=NONZERO), keepdims=True),
            S(_a(r, 3, 4, domain=NONZERO), ord=1), S(sv(r, 3, 3, (2,)), ord="nuc"),
            S(sv(r, 4, 3), ord=2), S(_a(r, 3, 3, dtype=F32, domain=NONZERO), ord=np.inf)]


def _vector_norm(r):
    def a(*shape, dtype=F64, domain=NONZERO):
        return array(r, shape, dtype, domain)
    return [S(a(5)), S(a(3, 4)), S(a(3, 4), keepdims=True), S(a(3, 4), axis=1, ord=1),
            S(a(2, 3, 4), axis=(0, 2), ord=3), S(a(2, 3, 4), axis=(-1, 0), keepdims=True),
            S(a(2, 3, domain=EVEN), axis=-1, ord=np.inf), S(a(4, dtype=F32), ord=2)]


_SVD_DOC = "derivatives through the SVD: samples have well separated singular values"

COMPOSITES = [
    OpInfo("cross", *_same("cross"), _cross),
    _linalg("matrix_norm", fnp.linalg.matrix_norm, np.linalg.matrix_norm, _matrix_norm_api,
            doc=_SVD_DOC),
    _linalg("vector_norm", fnp.linalg.vector_norm, np.linalg.vector_norm, _vector_norm),
    _linalg("trace", fnp.linalg.trace, np.linalg.trace, _last2),
    _linalg("diagonal", fnp.linalg.diagonal, np.linalg.diagonal, _last2),
    _linalg("outer", fnp.linalg.outer, np.linalg.outer,
            lambda r: [S(_a(r, 3), _a(r, 4)), S(_a(r, 0), _a(r, 2)),
                       S(_a(r, 2, dtype=F32), _a(r, 3, dtype=F32))]),
    _linalg("vecdot", fnp.linalg.vecdot, np.linalg.vecdot, _vecdot),
    _linalg("matrix_power", fnp.linalg.matrix_power, np.linalg.matrix_power, _matrix_power),
    _linalg("pinv", fnp.linalg.pinv, np.linalg.pinv, _pinv, doc=_SVD_DOC),
    _linalg("lstsq", fnp.linalg.lstsq, np.linalg.lstsq, _lstsq,
            doc=_SVD_DOC + "; full rank a (NumPy returns empty residuals for rank-deficient "
                "a with m > n, functorch_lite returns them: see lstsq's docstring)"),
]

ENTRIES = ENTRIES + COMPOSITES
