"""Complex numbers (docs/autodiff.md, "Complex numbers"): every differentiable op of the sample
database on its complex samples, against finite differences along the real and the imaginary
directions and the transpose identity Re<u, J v> == Re<J^T u, v> (bilinear, no conjugation),
per op in one item:

  check_jvp_complex        jvp vs finite differences (jvp_complex64: in complex64)
  check_vjp_complex        vjp vs d/dx - i d/dy of Re<u, f>
  check_jvp_vjp_complex    the transpose identity between forward and reverse mode
  check_grad_real_loss     grad of the real loss sum |f(z)|^2 vs finite differences
  check_vjp_vjp_complex    second order: vjp of z -> J(z)^T u vs finite differences
  check_jvp_of_vjp_complex forward over reverse: jvp of z -> J(z)^T u vs finite differences
  check_vmap_vjp_complex   vmap of the vjp function over complex cotangents == a loop
  check_linearize_complex  linearize's tangent map == jvp

and the convention itself: the issue's examples, grad of a complex output is an error, jacrev
and jacfwd refuse what is not one real Jacobian.
"""
import warnings

import numpy as np
import optree
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.testing import (check_jvp, check_transpose, float_leaf_function,
                                    float_outputs, gradcheck)
from functorch_lite.testing.jvp_checks import random_like
from functorch_lite.testing.samples import OP_DB
from op_cases import check_each


def _complex_samples(info, rng, dtype=np.complex128):
    """The samples with a complex leaf, all inexact leaves complex128 or float64."""
    out = []
    for s in info.samples(rng):
        kinds = {x.dtype for x in s.leaves() if x.dtype.kind in "fc"}
        if np.dtype(dtype) in kinds and kinds <= {np.dtype(dtype), np.dtype(np.float64)}:
            out.append(s)
    return out


DIFF_OPS = [info for info in OP_DB if info.differentiable and not info.creation
            and _complex_samples(info, np.random.default_rng(0))]
OPS = pytest.mark.parametrize("info", DIFF_OPS, ids=lambda i: i.name)


def _each(info, rng, check, dtype=np.complex128, limit=None):
    for sample in _complex_samples(info, rng, dtype)[:limit]:
        f, leaves = float_leaf_function(info.fn, sample)
        try:
            check(float_outputs(f), leaves)
        except AssertionError as e:
            raise AssertionError(f"{info.name} sample {sample.name}: {e}") from None


def test_complex_samples_cover_the_database():
    assert len(DIFF_OPS) >= 80
    n = sum(len(_complex_samples(info, np.random.default_rng(0), dt)) for info in OP_DB
            for dt in (np.complex128, np.complex64))
    assert n >= 250


def check_jvp_complex(info):
    rng = np.random.default_rng(0)
    _each(info, rng, lambda f, xs: check_jvp(f, xs, rng=rng, rtol=1e-5, atol=1e-6))


def check_jvp_complex64(info):
    rng = np.random.default_rng(1)
    _each(info, rng, lambda f, xs: check_jvp(f, xs, rng=rng, rtol=2e-3, atol=2e-3),
          dtype=np.complex64)


def _tolerance(f, xs):
    """Finite differences of a single-precision result are good to ~1e-3 only."""
    dts = {np.asarray(o).dtype for o in list(xs) + list(f(*xs))}
    single = dts & {np.dtype(np.complex64), np.dtype(np.float32)}
    return dict(rtol=2e-3, atol=2e-4) if single else dict(rtol=1e-5, atol=1e-6)


def check_vjp_complex(info):
    rng = np.random.default_rng(2)
    _each(info, rng, lambda f, xs: gradcheck(f, xs, **_tolerance(f, xs), rng=rng))


def check_jvp_vjp_complex(info):
    rng = np.random.default_rng(3)
    _each(info, rng, lambda f, xs: check_transpose(f, xs, rng=rng, rtol=1e-8, atol=1e-10))


def _real_loss(f):
    """z -> sum over the outputs of sum |f(z)|^2 (real for any output dtype)."""
    def loss(*xs):
        return sum(fnp.sum(fnp.real(o * fnp.conj(o))) for o in f(*xs))
    return loss


def check_grad_real_loss(info):
    rng = np.random.default_rng(4)

    def check(f, xs):
        loss = _real_loss(f)
        gradcheck(loss, xs, **_tolerance(f, xs), rng=rng)   # vjp vs finite differences
        g = ft.grad(loss, argnums=tuple(range(len(xs))))(*xs)
        value, vjp_fn = ft.vjp(loss, *xs)
        assert np.asarray(value).dtype.kind == "f"
        for a, b, x in zip(g, vjp_fn(np.ones((), np.asarray(value).dtype)), xs):  # vjp of 1
            assert a.dtype == x.dtype
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    _each(info, rng, check, limit=2)


def _vjp_function(f, xs, rng):
    """(z -> J(z)^T u for a fixed random u, the float leaves)."""
    out = f(*xs)
    u = tuple(random_like(o, rng) for o in out)

    def jtu(*zs):
        return ft.vjp(f, *zs)[1](u)
    return jtu


def check_vjp_vjp_complex(info):
    rng = np.random.default_rng(5)
    _each(info, rng, lambda f, xs: gradcheck(_vjp_function(f, xs, rng), xs, rtol=1e-4,
                                             atol=1e-5, rng=rng), limit=2)


def check_jvp_of_vjp_complex(info):
    rng = np.random.default_rng(6)
    _each(info, rng, lambda f, xs: check_jvp(_vjp_function(f, xs, rng), xs, rng=rng,
                                             rtol=1e-4, atol=1e-5), limit=2)


def check_vmap_vjp_complex(info):
    rng = np.random.default_rng(7)

    def check(f, xs):
        out, vjp_fn = ft.vjp(f, *xs)
        cts = tuple(np.stack([random_like(o, rng) for _ in range(3)]) for o in out)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ft.PerformanceWarning)
            got = ft.vmap(lambda *c: vjp_fn(c))(*cts)
        want = [vjp_fn(tuple(c[b] for c in cts)) for b in range(3)]
        for g, *w in zip(optree.tree_leaves(got), *(optree.tree_leaves(x) for x in want)):
            np.testing.assert_allclose(g, np.stack(w), rtol=1e-10, atol=1e-12)
    _each(info, rng, check, limit=2)


def check_linearize_complex(info):
    """linearize's replayed tangent map == a fresh jvp, on complex tangents."""
    rng = np.random.default_rng(8)

    def check(f, xs):
        _, jvp_fn = ft.linearize(f, *xs)
        v = [random_like(x, rng) for x in xs]
        for a, b in zip(optree.tree_leaves(jvp_fn(*v)),
                        optree.tree_leaves(ft.jvp(f, tuple(xs), tuple(v))[1])):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    _each(info, rng, check, limit=1)


# -- the convention itself ----------------------------------------------------------------

def test_issue_examples():
    z, t = np.array(1 + 2j), np.array(0.3 - 0.1j)
    _, dt = ft.jvp(fnp.abs, (z,), (t,))
    assert np.isclose(dt, np.real(np.conj(z) * t) / np.abs(z))        # 0.0447
    g1 = ft.grad(lambda z: fnp.sum(fnp.abs(z) ** 2))(z)
    g2 = ft.grad(lambda z: fnp.real(fnp.conj(z) * z))(z)
    assert np.isclose(g1, 2 * np.conj(z)) and np.isclose(g2, 2 * np.conj(z))


def test_holomorphic_vjp_is_the_derivative_times_the_cotangent():
    z, ct = np.array([0.5 + 1j, -1 + 0.3j]), np.array([1.0 + 2j, -0.5j])
    _, vjp_fn = ft.vjp(fnp.sin, z)
    np.testing.assert_allclose(vjp_fn(ct)[0], ct * np.cos(z))       # no conjugate


def test_grad_of_a_complex_output_is_an_error():
    with pytest.raises(TypeError, match="complex"):
        ft.grad(lambda z: fnp.sum(z * z))(np.array([1 + 1j]))


def test_real_input_gets_a_real_cotangent():
    x = np.array([0.5, -1.5])
    g = ft.grad(lambda x: fnp.sum(fnp.abs(fnp.exp(1j * x) * (2 + x))))(x)
    assert g.dtype == np.float64
    np.testing.assert_allclose(g, np.sign(2 + x))


def test_jacobians_refuse_what_is_not_one_real_matrix():
    z = np.array([1.0 + 2j, -0.5j])
    with pytest.raises(TypeError, match="jacrev: output leaf 0 is complex"):
        ft.jacrev(lambda x: x * (1 + 1j))(np.array([1.0, 2.0]))
    with pytest.raises(TypeError, match="jacfwd: input leaf 0 is complex"):
        ft.jacfwd(fnp.abs)(z)
    # what they do accept: jacrev of a real output of complex input, rows in grad's convention
    rows = ft.jacrev(fnp.abs)(z)
    np.testing.assert_allclose(rows, np.diag(np.conj(z) / np.abs(z)))


def test_complex_methods_on_wrappers():
    z = np.array([1 + 2j, -0.5 + 0.3j])
    for method in ("conj", "conjugate"):
        g = ft.grad(lambda z: (getattr(z, method)() * z).real.sum())(z)
        np.testing.assert_allclose(g, 2 * np.conj(z))
    np.testing.assert_allclose(ft.grad(lambda z: z.imag.sum())(z), [-1j, -1j])


@OPS
def test_complex_derivatives(info):
    """The op's complex derivatives, every check above: one item (op_cases.check_each)."""
    check_each(info, [check_jvp_complex, check_jvp_complex64, check_vjp_complex,
                      check_jvp_vjp_complex, check_grad_real_loss, check_vjp_vjp_complex,
                      check_jvp_of_vjp_complex, check_vmap_vjp_complex, check_linearize_complex])
