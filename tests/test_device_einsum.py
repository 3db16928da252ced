"""The per-backend einsum kernel: on a device an outer product (no summed index) is one batched
matmul, on NumPy it stays einsum. Checked on device_sim against NumPy's einsum."""
import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite import backend
from functorch_lite.ops import linalg as la
from functorch_lite.testing import device_sim
from functorch_lite.testing.checks import assert_close

OUTER = [
    ("bi,bj->bij", (4, 3), (4, 2)),            # per-example outer product (matmul's vjp)
    ("i,j->ij", (3,), (5,)),
    ("bi,bj->bji", (4, 3), (4, 2)),            # transposed outputs
    ("bi,bj->jbi", (4, 3), (4, 2)),
    ("ib,jb->bij", (3, 4), (2, 4)),            # batch letter last in the operands
    ("i,bj->bij", (3,), (4, 2)),               # one operand unbatched
    ("bi,j->ijb", (4, 3), (2,)),
    ("bi,bj->bij", (1, 3), (4, 2)),            # a size-1 batch broadcast, as einsum does
    ("bik,cj->cbjki", (2, 3, 2), (3, 4)),      # several letters of each kind
    ("bi,bj->bij", (0, 3), (0, 2)),            # empty batch
]


@pytest.fixture
def sim(monkeypatch):
    """device_sim, registered for this test only: a registered device module sends NumPy calls
    through the generic kernels too, which tests spying on NumPy's fast path must not see."""
    monkeypatch.setattr(backend, "_REGISTERED", [])
    device_sim.register()
    return device_sim


@pytest.fixture
def sim_without_einsum(sim, monkeypatch):
    """device_sim with einsum refused, so a passing outer product took the matmul path."""
    def refused(*args, **kwargs):
        raise AssertionError("einsum ran on the device for an outer product")
    monkeypatch.setattr(sim, "einsum", refused, raising=False)
    return sim


@pytest.mark.parametrize("dtypes", [("f8", "f8"), ("f4", "f4"), ("f4", "f8"), ("c16", "f8")],
                         ids=lambda d: "_".join(d))
@pytest.mark.parametrize("subscripts, sa, sb", OUTER, ids=[s for s, *_ in OUTER])
def test_outer_product_on_device_is_matmul(sim_without_einsum, subscripts, sa, sb, dtypes):
    sim = sim_without_einsum
    rng = np.random.default_rng(0)
    a = rng.standard_normal(sa).astype(dtypes[0])
    b = rng.standard_normal(sb).astype(dtypes[1])
    want = np.einsum(subscripts, a, b)
    got = fnp.einsum(subscripts, sim.asarray(a), sim.asarray(b))
    assert type(got) is sim.ndarray
    assert got.dtype == want.dtype and got.shape == want.shape
    assert_close(got.get(), want)


@pytest.mark.parametrize("subscripts, sa, sb", [("ij,jk->ik", (3, 4), (4, 2)),
                                                ("bi,bi->bi", (4, 3), (4, 3)),
                                                ("ii,j->ij", (3, 3), (2,)),
                                                ("i,j->i", (3,), (2,))])
def test_other_einsums_stay_einsum_on_device(sim, subscripts, sa, sb):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    assert la._outer_terms(subscripts) is None
    got = fnp.einsum(subscripts, sim.asarray(a), sim.asarray(b))
    assert_close(got.get(), np.einsum(subscripts, a, b))


def test_integer_outer_product_stays_einsum_on_device(sim):
    a, b = np.arange(6).reshape(2, 3), np.arange(4).reshape(2, 2)
    got = fnp.einsum("bi,bj->bij", sim.asarray(a), sim.asarray(b))
    np.testing.assert_array_equal(got.get(), np.einsum("bi,bj->bij", a, b))


def test_per_example_weight_gradients_on_device(sim_without_einsum):
    """vmap(grad) of a linear layer: the matmul vjp's outer product runs as a matmul."""
    rng = np.random.default_rng(2)
    w, x = rng.standard_normal((3, 2)), rng.standard_normal((5, 3))

    def loss(w, x):
        return fnp.sum(fnp.tanh(x @ w))
    per_example = ft.vmap(ft.grad(loss), in_dims=(None, 0))
    sim = sim_without_einsum
    got = per_example(sim.asarray(w), sim.asarray(x))
    assert type(got) is sim.ndarray
    assert_close(got.get(), per_example(w, x))


@pytest.mark.parametrize("subscripts, sa, sb", [c for c in OUTER if c[0] in (
    "bi,bj->bij", "bi,bj->bji", "i,j->ij")], ids=lambda v: str(v))
def test_outer_product_owns_its_memory(sim, subscripts, sa, sb):
    """A batch-then-operand-letters outer product (a per-example weight gradient) comes back
    as an array owning its memory, not a view of the product: ft.jit copies any output that is
    a view (`.base is not None`), which for this one, the largest of a per-example gradient,
    cost a copy of B * m * n floats on every call on CuPy."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    got = la.einsum(sim.asarray(a), sim.asarray(b), subscripts=subscripts)
    assert got.base is None
    np.testing.assert_allclose(got.get(), np.einsum(subscripts, a, b), rtol=1e-15)


def test_jitted_per_example_gradients_copy_no_output(sim, monkeypatch):
    """ft.jit of vmap(grad) of an MLP on the device returns its per-example weight gradients
    without copying them (it copied each one per call while the outer product was a view)."""
    copies = []

    def counted_copy(self, *args, **kwargs):
        copies.append(self.shape)
        return sim.ndarray(self._a.copy())
    monkeypatch.setattr(sim.ndarray, "copy", counted_copy, raising=False)

    def loss(params, x, y):
        (w1, b1), (w2, b2) = params
        return ft.nn.cross_entropy(fnp.tanh(x @ w1 + b1) @ w2 + b2, y)
    rng = np.random.default_rng(0)
    params = [(rng.standard_normal((6, 5)), np.zeros(5)), (rng.standard_normal((5, 3)),
                                                           np.zeros(3))]
    x, y = rng.standard_normal((4, 6)), rng.integers(0, 3, 4)
    per_example = ft.vmap(ft.grad(loss), in_dims=(None, 0, 0))
    jitted = ft.jit(per_example)
    on_device = ft.tree.map(sim.asarray, (params, x, y))
    jitted(*on_device)
    copies.clear()
    got = jitted(*on_device)
    assert copies == []
    for g, w in zip(ft.tree.leaves(got), ft.tree.leaves(per_example(params, x, y))):
        np.testing.assert_allclose(g.get(), w, rtol=1e-12)
