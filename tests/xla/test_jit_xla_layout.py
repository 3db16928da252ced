"""The XLA backend's lazy transposes (Note [lazy transposes in the XLA lowering] in
compiler/xla_layout.py): a vmap(hessian) MLP compiles with the one transpose JAX's own trace of it
has, not ten; programs that read transposed values through every kind of reader agree with the
NumPy backend and eager code; and the reshape of a lazily transposed value equals NumPy's
wherever it stays lazy."""
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import functorch_lite as ft
from xla_checks import assert_backends_agree

pytest.importorskip("jax", reason="the XLA backend needs JAX (pip install -e '.[xla]')")
import jax.numpy as jnp  # noqa: E402

from functorch_lite.compiler import xla_layout  # noqa: E402
from functorch_lite.compiler.xla_layout import Permuted, computed, permute  # noqa: E402

RNG = np.random.default_rng(0)


def _xla(fn, *args):
    """fn jitted on XLA, checked against the NumPy backend and eager fn; its optimized HLO."""
    on_xla = ft.jit(fn, backend="xla")
    got = on_xla(*args)
    assert_backends_agree(got, ft.jit(fn, backend="numpy")(*args), "against the NumPy backend")
    assert_backends_agree(got, fn(*args), "against eager")
    return on_xla.lower(*args).fn.compiled.as_text()


def _count(hlo, name):
    return len(re.findall(rf"= \S+ {name}\(", hlo))


def _laplacian_of_mlp(sizes, points):
    params = [(RNG.standard_normal((m, n)) / np.sqrt(m), 0.1 * RNG.standard_normal(n))
              for m, n in zip(sizes[:-1], sizes[1:])]

    def u(params, x):
        *hidden, (w, b) = params
        for wh, bh in hidden:
            x = np.tanh(x @ wh + bh)
        return (x @ w + b)[0]

    def laplacian(params, xs):
        return ft.vmap(lambda x: np.trace(ft.hessian(lambda y: u(params, y))(x)))(xs)
    return laplacian, (params, RNG.uniform(-1, 1, (points, sizes[0])))


def test_a_vmapped_hessian_of_an_mlp_compiles_without_its_batching_transposes(monkeypatch):
    fn, args = _laplacian_of_mlp([2, 16, 16, 1], 32)
    hlo = _xla(fn, *args)
    # JAX's jax.jit of the same program keeps one transpose (of the 2 x 2 Hessians)
    assert _count(hlo, "transpose") <= 1 and _count(hlo, "copy") <= 2
    monkeypatch.setattr(xla_layout, "LAZY", {})   # every transpose computed where written
    eager_hlo = _xla(fn, *args)
    assert _count(eager_hlo, "transpose") >= 8
    assert _count(hlo, "dot") == _count(eager_hlo, "dot")


X, Y = RNG.standard_normal((3, 4, 5)), RNG.standard_normal((5, 3, 4))
V, A, B = RNG.standard_normal(5), RNG.standard_normal((4, 3)), RNG.standard_normal((5, 4))
W, U, Z = RNG.standard_normal((6, 5)), RNG.standard_normal(4), RNG.standard_normal((4, 3, 1))

ROUND_TRIPS = {   # programs whose transposes all cancel: no transpose is left to compute
    "transpose of a transpose": (lambda x: x.transpose(2, 0, 1).transpose(1, 2, 0) * 2.0, X),
    "elementwise with a vector": (
        lambda x, v: np.tanh(x.transpose(2, 0, 1) + v[:, None, None]).transpose(1, 2, 0), X, V),
    "reshape merging base axes": (
        lambda x: np.exp(x.transpose(2, 0, 1).reshape(5, 12)).reshape(5, 3, 4)
        .transpose(1, 2, 0), X),
    "reshape adding unit axes": (
        lambda x: (x.transpose(0, 2, 1).reshape(3, 5, 1, 4) * 3.0).transpose(0, 3, 2, 1)
        .reshape(3, 4, 5), X),
    "product of a batch of vectors": (lambda w, b: (w @ b.T).T, W, B.T.copy()),
    "reduction": (lambda x: x.transpose(2, 0, 1).sum(axis=1).T + 1.0, X),
}

READERS = {   # every kind of reader of a transposed value, and the ones that compute it
    "reduction keeping dims": (
        lambda x: (x.transpose(2, 0, 1) ** 2).sum(axis=(0, -1), keepdims=True), X),
    "reduction over all": (lambda x: np.max(x.transpose(2, 0, 1)), X),
    "prod, min, any": (lambda x: (x.T.prod(axis=0), x.T.min(axis=1), (x.T > 0).any(axis=2)), X),
    "elementwise with a full operand": (lambda x, y: x.transpose(2, 0, 1) + y, X, Y),
    "elementwise of two permutations": (
        lambda x: x.transpose(2, 0, 1) * x.transpose(2, 1, 0).transpose(0, 2, 1), X),
    "one permutation, broadcast": (lambda x: x.transpose(2, 0, 1) * x[:1].transpose(2, 0, 1), X),
    "mixed permutations": (lambda x, z: x.transpose(2, 0, 1) * z.T, X, Z),
    "where and astype": (
        lambda x: np.where(x.T > 0, x.T, 0.5).astype(np.float32) * np.float32(2), X),
    "reshape that must compute": (lambda x: x.transpose(1, 2, 0).reshape(10, 6), X),
    "reshape in Fortran order": (lambda x: x.transpose(1, 2, 0).reshape((20, 3), order="F"), X),
    "both operands transposed": (lambda a, b: a.T @ b.T, A, B),
    "left operand transposed": (lambda a, w: a.T @ w[:4, :3], A, W),
    "vector times a transposed matrix": (lambda u, b: u @ b.T, U, B),
    "transposed matrix times a vector": (lambda a, u: a.T @ u, A, U),
    "one transpose read by two products": (
        lambda b, w: w[:, :4] @ b.T + w[:, 1:] @ b.T, B, W),
    "integer product": (lambda b: b.astype(np.int64).T @ b.astype(np.int64), B),
    "transposed float32 and float64 operands": (lambda a, b: a.astype(np.float32).T @ b.T, A, B),
    "a product whose result is an output": (lambda w, b: w @ b.T, W, B.T.copy()),
}


@pytest.mark.parametrize("name", list(ROUND_TRIPS))
def test_transposes_that_cancel_are_never_computed(name):
    fn, *args = ROUND_TRIPS[name]
    assert _count(_xla(fn, *args), "transpose") == 0


@pytest.mark.parametrize("name", list(READERS))
def test_every_reader_of_a_transposed_value_agrees_with_numpy(name):
    fn, *args = READERS[name]
    _xla(fn, *args)


def test_a_transpose_that_moves_only_unit_axes_is_a_reshape():
    x = jnp.zeros((3, 1, 4))
    assert not isinstance(permute(x, (1, 0, 2)), Permuted)
    assert permute(x, (1, 0, 2)).shape == (1, 3, 4)
    assert isinstance(permute(x, (2, 1, 0)), Permuted)


def test_a_reshape_that_splits_runs_across_base_axes_computes_the_transpose():
    lazy = permute(jnp.zeros((2, 3, 4)), (2, 0, 1))   # logical (4, 2, 3)
    assert xla_layout._reshape(lazy, (4, 6)) is not None      # merges base axes 0, 1
    assert xla_layout._reshape(lazy, (8, 3)) is None          # would merge base axes 2, 0


@st.composite
def _reshapes(draw):
    base_shape = tuple(draw(st.lists(st.sampled_from([1, 2, 3, 4, 6]), min_size=2,
                                     max_size=4)))
    perm = tuple(draw(st.permutations(range(len(base_shape)))))
    size, target = int(np.prod(base_shape)), []
    while size > 1 and len(target) < 5:
        d = draw(st.sampled_from([d for d in (1, 2, 3, 4, 6, 8, 12, size) if size % d == 0]))
        target.append(d)
        size //= d
    target += [size] + [1] * draw(st.integers(0, 1))
    order = draw(st.permutations(range(len(target))))
    return base_shape, perm, tuple(target[k] for k in order)


@settings(max_examples=60, deadline=None)
@given(_reshapes())
def test_a_lazy_reshape_equals_numpys_reshape_of_the_transpose(case):
    base_shape, perm, shape = case
    base = np.arange(np.prod(base_shape), dtype=np.float64).reshape(base_shape)
    want = np.transpose(base, perm).reshape(shape)
    x = permute(jnp.asarray(base), perm)
    got = x if not isinstance(x, Permuted) else xla_layout._reshape(x, shape)
    if got is not None:
        got = computed(got) if isinstance(x, Permuted) else jnp.reshape(got, shape)
        np.testing.assert_array_equal(np.asarray(got), want)
