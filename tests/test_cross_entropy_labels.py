"""Class labels out of range are an error in nn.cross_entropy (as PyTorch), under every
transform: the check is a primitive, so it runs on the raw labels in the kernel, on the whole
batch under vmap."""
import numpy as np
import pytest

import functorch_lite as ft
from functorch_lite import nn

RNG = np.random.default_rng(0)
LOGITS = RNG.standard_normal((4, 3))


def _np_cross_entropy(logits, labels):
    z = logits - logits.max(-1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(-1, keepdims=True))
    return -np.take_along_axis(logp, labels[..., None], -1)[..., 0]


BAD = [5, 3, -1, -4]

CALLS = {
    "plain_single": lambda lab: nn.cross_entropy(LOGITS[0], np.array(lab)),
    "plain_batch": lambda lab: nn.cross_entropy(LOGITS, np.array([0, 2, lab, 1])),
    "axis0": lambda lab: nn.cross_entropy(LOGITS.T, np.array([0, 2, lab, 1]), axis=0),
    "grad": lambda lab: ft.grad(nn.cross_entropy)(LOGITS, np.array([0, lab, 1, 1])),
    "jvp": lambda lab: ft.jvp(lambda l: nn.cross_entropy(l, np.array([lab, 0, 0, 0])),
                              (LOGITS,), (LOGITS,)),
    "vjp": lambda lab: ft.vjp(lambda l: nn.cross_entropy(l, np.array(lab)), LOGITS[0]),
    "jacrev": lambda lab: ft.jacrev(nn.cross_entropy)(LOGITS[1], np.array(lab)),
    "jacfwd": lambda lab: ft.jacfwd(nn.cross_entropy)(LOGITS[1], np.array(lab)),
    "hessian": lambda lab: ft.hessian(nn.cross_entropy)(LOGITS[1], np.array(lab)),
    "vmap_one_bad_label": lambda lab: ft.vmap(nn.cross_entropy)(LOGITS, np.array([0, 1, lab, 2])),
    "vmap_labels_only": lambda lab: ft.vmap(nn.cross_entropy, in_dims=(None, 0))(
        LOGITS[0], np.array([lab, 1])),
    "vmap_grad_per_example": lambda lab: ft.vmap(ft.grad(nn.cross_entropy))(
        LOGITS, np.array([2, 1, 0, lab])),
    "vmap_vmap": lambda lab: ft.vmap(ft.vmap(nn.cross_entropy))(
        LOGITS.reshape(2, 2, 3), np.array([[0, 1], [lab, 2]])),
    "grad_of_vmap": lambda lab: ft.grad(lambda l: ft.vmap(nn.cross_entropy)(
        l, np.array([0, 1, 2, lab])).sum())(LOGITS),
}


@pytest.mark.parametrize("label", BAD)
@pytest.mark.parametrize("call", sorted(CALLS))
def test_out_of_range_label_is_an_error(call, label):
    with pytest.raises(IndexError, match=rf"cross_entropy: label {label} is out of range: "
                                         r"with 3 classes it must be in 0\.\.2"):
        CALLS[call](label)


@pytest.mark.parametrize("call", sorted(CALLS))
def test_labels_in_range_still_work(call):
    CALLS[call](2)  # the last class: the boundary is inclusive
    CALLS[call](0)


def test_values_and_per_example_gradients_match_numpy():
    labels = np.array([2, 0, 1, 2])
    np.testing.assert_allclose(nn.cross_entropy(LOGITS, labels, reduction="none"),
                               _np_cross_entropy(LOGITS, labels), rtol=1e-12)
    p = np.exp(LOGITS) / np.exp(LOGITS).sum(-1, keepdims=True)
    np.testing.assert_allclose(ft.vmap(ft.grad(nn.cross_entropy))(LOGITS, labels),
                               p - np.eye(3)[labels], rtol=1e-12, atol=1e-15)


def test_empty_batch_of_labels_is_fine():
    out = nn.cross_entropy(np.zeros((0, 3)), np.zeros(0, dtype=int), reduction="none")
    assert out.shape == (0,)


def test_one_hot_keeps_jax_convention_for_out_of_range_labels():
    # one_hot follows jax.nn.one_hot: a row of zeros, no error (its docstring says so)
    np.testing.assert_array_equal(nn.one_hot(np.array([0, 5, -1, 2]), 3),
                                  [[1, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 1]])


def test_a_python_int_label_is_one_example():
    row = LOGITS[0]
    want = _np_cross_entropy(row[None], np.array([1]))[0]
    np.testing.assert_allclose(nn.cross_entropy(row, 1), want, rtol=1e-12)
    p = np.exp(row) / np.exp(row).sum()
    np.testing.assert_allclose(ft.grad(nn.cross_entropy)(row, 1), p - np.eye(3)[1], rtol=1e-12)
