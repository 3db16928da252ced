"""Every differentiable op of the sample database under ft.jet: the Taylor coefficients of
t -> f(x(t)) for a random curve x(t) = x0 + x1 t + x2 t^2/2 + ..., against the derivatives of
the same function of t by nested jvp (order 4), or the op is refused with a JetRuleError naming
it (test_jet.py has jet's API, JAX comparisons and compositions)."""
import math

import numpy as np
import optree
import pytest

import functorch_lite as ft
from functorch_lite.testing import float_leaf_function, float_outputs
from functorch_lite.testing.samples import OP_DB

DIFF_OPS = [info for info in OP_DB if info.differentiable and not info.creation]

REFUSED = {
    "scipy.sparse.linalg.cg": "its solve is a custom_vjp, which has no forward-mode rule (jvp "
                              "refuses it too)",
}
"""Entries whose ops have no Taylor rule (jet raises JetRuleError naming the op), by name."""

def samples_of(info, rng, n=2):
    out = []
    for s in info.samples(rng):
        floats = [x for x in s.leaves() if x.dtype.kind in "fc"]
        if floats and all(x.dtype in (np.float64, np.complex128) for x in floats):
            out.append(s)
    return out[:n]


def nested_derivatives(g, order):
    """[g(0), g'(0), ..., g^(order)(0)] of a function of a scalar t, by nested jvp."""
    def deriv(h):
        return lambda t: ft.jvp(h, (t,), (np.ones_like(t),))[1]
    out, h = [], g
    for _ in range(order + 1):
        out.append(h(np.array(0.0)))
        h = deriv(h)
    return out


def curve(x0, terms):
    """t -> x0 + sum_k terms[k] t^(k+1) / (k+1)!, with library ops (t is traced)."""
    def x(t):
        acc = x0
        for k, c in enumerate(terms):
            acc = acc + c * (t ** (k + 1) / math.factorial(k + 1))
        return acc
    return x


def random_terms(x, rng, order):
    def one():
        if x.dtype.kind == "c":
            return (rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape)) * 0.3
        return rng.standard_normal(x.shape) * 0.3
    return [one().astype(x.dtype) for _ in range(order)]


def check_jet_against_nested_jvp(f, floats, rng, order):
    series = [random_terms(x, rng, order) for x in floats]
    out, out_series = ft.jet(f, tuple(floats), tuple(series))
    curves = [curve(x, s) for x, s in zip(floats, series)]
    ref = nested_derivatives(lambda t: f(*(c(t) for c in curves)), order)
    out_leaves = optree.tree_leaves(out)
    for i, o in enumerate(out_leaves):
        np.testing.assert_allclose(o, optree.tree_leaves(ref[0])[i], rtol=1e-12, atol=1e-12)
        terms = optree.tree_leaves(out_series, is_leaf=lambda v: isinstance(v, list))[i]
        assert len(terms) == order
        for k in range(order):
            expected = np.asarray(optree.tree_leaves(ref[k + 1])[i])
            scale = 1.0 + float(np.max(np.abs(expected), initial=0.0))
            np.testing.assert_allclose(terms[k], expected, rtol=1e-7, atol=1e-9 * scale,
                                       err_msg=f"term {k + 1}")


@pytest.mark.parametrize("info", DIFF_OPS, ids=lambda i: i.name)
def test_jet(info):
    rng = np.random.default_rng(0)
    order = 4
    for sample in samples_of(info, rng):
        f, floats = float_leaf_function(info.fn, sample)
        f = float_outputs(f)
        if info.name in REFUSED:
            with pytest.raises(ft.JetRuleError) as e:
                ft.jet(f, tuple(floats), tuple([np.ones_like(x)] for x in floats))
            assert e.value.op_name in str(e.value)
            continue
        try:
            check_jet_against_nested_jvp(f, floats, rng, order)
        except AssertionError as e:
            raise AssertionError(f"{info.name} sample {sample.name}: {e}") from None


CONSTANT_OPS = [info for info in OP_DB if not info.differentiable and not info.creation]


@pytest.mark.parametrize("info", CONSTANT_OPS, ids=lambda i: i.name)
def test_jet_of_constant_op(info):
    """Comparisons, rounding, argmax ...: piecewise constant, so every term out is zero and
    the primal is the op's value (as jvp's zero tangent)."""
    rng = np.random.default_rng(1)
    for sample in info.samples(rng)[:2]:
        f, floats = float_leaf_function(info.fn, sample)
        if not floats:
            continue
        series = tuple([np.ones_like(x)] * 2 for x in floats)
        out, terms = ft.jet(f, tuple(floats), series)
        expected = f(*floats)
        for o, e in zip(optree.tree_leaves(out), optree.tree_leaves(expected)):
            assert np.shape(o) == np.shape(e)
            if info.check_values:  # empty_like's values are undefined
                np.testing.assert_array_equal(o, e)
        for ts in optree.tree_leaves(terms, is_leaf=lambda v: isinstance(v, list)):
            for t in ts:
                if t.dtype != ft.float0:
                    assert not np.any(t), (info.name, sample.name)
