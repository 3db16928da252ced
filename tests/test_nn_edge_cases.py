"""ft.nn on unusual input (issue 20): attention rows that see no key, mask dtypes, embedding
indices out of range, and the torch.nn.functional defaults of the namespace. References are
loops written here (and torch.nn.functional where importable)."""
import inspect
import math

import numpy as np
import pytest

import functorch_lite as ft
from functorch_lite import nn
from functorch_lite.testing.grad_checks import gradcheck

RNG = np.random.default_rng(20)


def _masked_attention_loop(q, k, v, keep):
    """softmax over the kept keys of each query; a query that keeps none gives 0 (PyTorch
    2.5+'s behaviour for such rows)."""
    out = np.zeros((q.shape[0], v.shape[1]))
    for i in range(q.shape[0]):
        allowed = [j for j in range(k.shape[0]) if keep[i, j]]
        if not allowed:
            continue
        scores = {j: float(q[i] @ k[j]) / math.sqrt(q.shape[1]) for j in allowed}
        top = max(scores.values())
        weights = {j: math.exp(s - top) for j, s in scores.items()}
        total = sum(weights.values())
        for j in allowed:
            out[i] += weights[j] / total * v[j]
    return out


# -- attention: a row that sees no key ------------------------------------------------------------

def test_attention_row_with_no_key_is_zero_and_poisons_no_gradient():
    q = np.array([[1.0, 2.0], [3.0, -1.0]])
    keep = np.array([[False, False], [True, False]])
    f = lambda q: nn.scaled_dot_product_attention(q, q, q, attn_mask=keep)  # noqa: E731
    out = f(q)
    np.testing.assert_allclose(out, _masked_attention_loop(q, q, q, keep), rtol=1e-12)
    np.testing.assert_array_equal(out[0], 0.0)
    g = ft.grad(lambda q: np.sum(f(q) ** 2))(q)
    assert np.isfinite(g).all()
    gradcheck(lambda q: f(q) ** 2, (q,))
    # the float spelling of the same mask, and forward mode
    bias = np.where(keep, 0.0, -np.inf)
    np.testing.assert_array_equal(nn.scaled_dot_product_attention(q, q, q, attn_mask=bias), out)
    _, t = ft.jvp(f, (q,), (np.ones_like(q),))
    assert np.isfinite(t).all()


def test_attention_rows_with_no_key_under_vmap_and_jacobians():
    q, k, v = RNG.standard_normal((3, 4, 5)), RNG.standard_normal((3, 6, 5)), \
        RNG.standard_normal((3, 6, 2))
    keep = RNG.random((3, 4, 6)) < 0.4
    keep[:, 1] = False                         # query 1 of every example sees nothing
    out = ft.vmap(nn.scaled_dot_product_attention)(q, k, v, keep)
    for b in range(3):
        np.testing.assert_allclose(out[b], _masked_attention_loop(q[b], k[b], v[b], keep[b]),
                                   rtol=1e-10, atol=1e-14)
    jac = ft.jacrev(lambda q: nn.scaled_dot_product_attention(q, k[0], v[0], attn_mask=keep[0]))
    assert np.isfinite(jac(q[0])).all()
    gradcheck(lambda q, k, v: nn.scaled_dot_product_attention(q, k, v, attn_mask=keep[0]),
              (q[0], k[0], v[0]))


def test_attention_row_with_no_key_against_torch():
    torch = pytest.importorskip("torch")
    q = RNG.standard_normal((4, 3))
    keep = np.array([[False] * 4, [True, False, True, False], [False] * 4, [True] * 4])
    tq = torch.tensor(q, requires_grad=True)
    ref = torch.nn.functional.scaled_dot_product_attention(tq, tq, tq,
                                                           attn_mask=torch.from_numpy(keep))
    (ref ** 2).sum().backward()
    f = lambda q: nn.scaled_dot_product_attention(q, q, q, attn_mask=keep)  # noqa: E731
    np.testing.assert_allclose(f(q), ref.detach().numpy(), rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(ft.grad(lambda q: np.sum(f(q) ** 2))(q), tq.grad.numpy(),
                               rtol=1e-10, atol=1e-14)


# -- attention: mask dtypes ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint8, np.complex128])
def test_attention_refuses_masks_neither_boolean_nor_floating(dtype):
    q = RNG.standard_normal((3, 2))
    with pytest.raises(TypeError, match=r"attn_mask must be boolean .*astype\(bool\)"):
        nn.scaled_dot_product_attention(q, q, q, attn_mask=np.tril(np.ones((3, 3), dtype)))
    with pytest.raises(TypeError, match="attn_mask must be boolean"):
        ft.vmap(lambda q: nn.scaled_dot_product_attention(q, q, q, mask=np.eye(3, dtype=dtype)))(
            q[None])


def test_attention_float_mask_keeps_the_scores_dtype():
    q = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    keep = np.tril(np.ones((3, 3), bool))
    bias64 = np.where(keep, 0.0, -np.inf)                      # float64
    out = nn.scaled_dot_product_attention(q, q, q, attn_mask=bias64)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, nn.scaled_dot_product_attention(q, q, q, attn_mask=keep))
    assert nn.scaled_dot_product_attention(q, q, q, attn_mask=bias64.astype(np.float16)).dtype \
        == np.float32
    g = ft.grad(lambda q: np.sum(nn.scaled_dot_product_attention(q, q, q, attn_mask=bias64)))(q)
    assert g.dtype == np.float32


# -- embedding: indices out of range ---------------------------------------------------------------

@pytest.mark.parametrize("index", [-1, 4, -5, 100])
def test_embedding_refuses_an_index_out_of_range(index):
    table = RNG.standard_normal((4, 3))
    idx = np.array([0, index, 2])
    with pytest.raises(IndexError, match=f"embedding: index {index} is out of range: with 4 "
                                         r"rows in weight it must be in 0\.\.3"):
        nn.embedding(idx, table)
    with pytest.raises(IndexError, match="embedding: index"):
        ft.vmap(nn.embedding, in_dims=(0, None))(idx[:, None], table)
    with pytest.raises(IndexError, match="embedding: index"):
        ft.grad(lambda w: nn.embedding(idx, w).sum())(table)
    with pytest.raises(IndexError, match="embedding: index"):
        ft.jit(nn.embedding)(idx, table)


def test_embedding_refuses_non_integer_indices_and_a_bad_padding_idx():
    table = RNG.standard_normal((4, 3))
    with pytest.raises(IndexError, match="integers"):
        nn.embedding(np.array([0.0, 1.0]), table)
    with pytest.raises(IndexError, match="integers"):
        nn.embedding(np.array([True, False]), table)
    with pytest.raises(ValueError, match=r"padding_idx 4 is out of range.*-4\.\.3"):
        nn.embedding(np.array([0, 1]), table, padding_idx=4)
    # in range: negative padding_idx counts from the end, as PyTorch
    g = ft.grad(lambda w: nn.embedding(np.array([0, 3]), w, padding_idx=-1).sum())(table)
    np.testing.assert_array_equal(g, np.array([[1.0] * 3, [0] * 3, [0] * 3, [0] * 3]))


def test_embedding_index_errors_against_torch():
    torch = pytest.importorskip("torch")
    table = RNG.standard_normal((4, 3))
    for index in (-1, 4):
        with pytest.raises(IndexError):
            torch.nn.functional.embedding(torch.tensor([index]), torch.from_numpy(table))
        with pytest.raises(IndexError):
            nn.embedding(np.array([index]), table)


# -- one convention for the namespace: torch.nn.functional's defaults ------------------------------

def test_gelu_default_is_the_exact_erf_form_as_torch():
    x = np.linspace(-4, 4, 9)
    exact = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x])
    np.testing.assert_allclose(nn.gelu(x), exact, rtol=1e-14)
    tanh = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(nn.gelu(x, approximate="tanh"), tanh, rtol=1e-14)
    np.testing.assert_array_equal(nn.gelu(x, approximate=True), nn.gelu(x, approximate="tanh"))
    np.testing.assert_array_equal(nn.gelu(x, approximate=False), nn.gelu(x))


def test_attention_takes_torchs_positional_order():
    q, k, v = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3)), RNG.standard_normal((4, 2))
    causal = nn.scaled_dot_product_attention(q, k, v, is_causal=True)
    # torch's order: (query, key, value, attn_mask, dropout_p, is_causal, scale)
    np.testing.assert_array_equal(nn.scaled_dot_product_attention(q, k, v, None, 0.0, True),
                                  causal)
    with pytest.raises(NotImplementedError, match="dropout_p=0.1 .*ft.nn.dropout"):
        nn.scaled_dot_product_attention(q, k, v, None, 0.1)


# every default a function shares with its torch.nn.functional namesake is torch's
_TORCH_DEFAULT_EXCEPTIONS = {
    # (function, parameter): why it differs (docs/layers.md, "Conventions")
    ("one_hot", "num_classes"): "jax.nn.one_hot's signature: the class count is required",
}


def test_defaults_match_torch_functional():
    torch = pytest.importorskip("torch")
    checked = 0
    for name in nn.__all__:
        theirs_fn = getattr(torch.nn.functional, name, None)
        try:
            theirs = inspect.signature(theirs_fn).parameters
        except (TypeError, ValueError):   # a builtin: parse its documented signature
            doc = (theirs_fn.__doc__ or "").strip().splitlines()
            if not doc or "(" not in doc[0]:
                continue
            theirs = {p.split("=")[0].strip(): p.split("=")[1].strip()
                      for p in doc[0].split("(", 1)[1].rsplit(")", 1)[0].split(",") if "=" in p}
            theirs = {k: inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY,
                                           default=eval(v)) for k, v in theirs.items()}
        for pname, ours in inspect.signature(getattr(nn, name)).parameters.items():
            if pname not in theirs or (name, pname) in _TORCH_DEFAULT_EXCEPTIONS:
                continue
            assert ours.default == theirs[pname].default, (name, pname)
            checked += 1
    assert checked >= 40


def test_exact_gelu_without_scipy_matches_the_erf_form(monkeypatch):
    """ft.nn is core (NumPy and optree): its default gelu must not need the scipy extra."""
    special = pytest.importorskip("scipy.special")
    from functorch_lite.nn import _activations
    x = np.linspace(-9.0, 9.0, 301)
    cdf, pdf = special.ndtr(x), np.exp(-x * x / 2) / np.sqrt(2 * np.pi)
    np.testing.assert_allclose(ft.nn.gelu(x), x * cdf, rtol=1e-14, atol=1e-15)
    monkeypatch.setattr(_activations, "_scipy_installed", lambda: False)
    monkeypatch.setattr(_activations, "erf", None)   # any use of SciPy's erf would fail
    np.testing.assert_allclose(ft.nn.gelu(x), x * cdf, rtol=1e-13)   # also in the far tail
    np.testing.assert_allclose(ft.vmap(ft.grad(ft.nn.gelu))(x), cdf + x * pdf, rtol=1e-12)
    assert ft.nn.gelu(x.astype(np.float32)).dtype == np.float32


def test_nll_loss_torch_edge_semantics():
    """torch.nn.functional.nll_loss's documented edges: out-of-range labels are an IndexError
    (ignore_index is not), a mean over only ignored examples is 0/0 = NaN, and cross_entropy is
    nll_loss of log_softmax (also with the gradient)."""
    rng = np.random.default_rng(0)
    logits, labels = rng.standard_normal((4, 3)), np.array([0, 2, 1, 2])
    with pytest.raises(IndexError, match="nll_loss: label 3 is out of range"):
        ft.nn.nll_loss(logits, np.array([0, 3, 1, 1]))
    assert np.isnan(ft.nn.nll_loss(logits, np.full(4, -100)))
    assert float(ft.nn.nll_loss(logits, np.full(4, -100), reduction="sum")) == 0.0
    np.testing.assert_allclose(ft.nn.nll_loss(ft.nn.log_softmax(logits), labels),
                               ft.nn.cross_entropy(logits, labels))
    np.testing.assert_allclose(
        ft.grad(lambda z: ft.nn.nll_loss(ft.nn.log_softmax(z), labels))(logits),
        ft.grad(lambda z: ft.nn.cross_entropy(z, labels))(logits))
    with pytest.raises(ValueError, match="reduction"):
        ft.nn.nll_loss(logits, labels, reduction="avg")
