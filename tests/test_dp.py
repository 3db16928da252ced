"""functorch_lite.dp against materialized clipping: vmap(grad) per example, then a loop of
NumPy norms, clipping factors and sums (the reference never goes through dp's factors)."""
import inspect
import warnings

import numpy as np
import optree
import pytest
from hypothesis import given, settings, strategies as st

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite import nn

RTOL = 1e-9


def materialized(loss, params, *batch):
    """Per-example gradients as NumPy arrays and the (B,) norms of each example's leaves."""
    g = ft.vmap(ft.grad(loss), in_dims=(None,) + (0,) * len(batch))(params, *batch)
    leaves, spec = optree.tree_flatten(g)
    b = leaves[0].shape[0]
    leaf_sq = [np.array([np.sum(leaf[i] ** 2) for i in range(b)]) for leaf in leaves]
    return leaves, spec, leaf_sq


def reference_clipped(loss, params, max_norm, *batch):
    leaves, spec, leaf_sq = materialized(loss, params, *batch)
    norms = np.sqrt(sum(leaf_sq))
    scale = np.minimum(1.0, max_norm / norms)
    sums = [sum(scale[i] * leaf[i] for i in range(len(norms))) for leaf in leaves]
    return spec.unflatten(sums), norms


def assert_close(actual, expected, rtol=RTOL):
    a_leaves, a_spec = optree.tree_flatten(actual)
    e_leaves, e_spec = optree.tree_flatten(expected)
    assert a_spec == e_spec
    for a, e in zip(a_leaves, e_leaves):
        a, e = np.asarray(a), np.asarray(e)
        assert a.shape == e.shape and a.dtype == e.dtype
        scale = max(np.max(np.abs(e)), 1e-300)
        assert np.max(np.abs(a - e)) <= rtol * scale, (np.max(np.abs(a - e)), scale)


def check_model(loss, params, *batch, max_norm=1.0):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ft.dp.FallbackWarning)
        total, norms = ft.dp.clipped_grad_sum(loss, max_norm)(params, *batch)
        only_norms = ft.dp.per_example_grad_norms(loss)(params, *batch)
    ref_total, ref_norms = reference_clipped(loss, params, max_norm, *batch)
    assert_close(norms, ref_norms)
    assert_close(only_norms, ref_norms)
    assert_close(total, ref_total)


# -- models -----------------------------------------------------------------------------------

def mlp_params(rng, sizes=(5, 7, 3)):
    p = {}
    for k, (i, o) in enumerate(zip(sizes[:-1], sizes[1:])):
        p[f"w{k}"] = rng.standard_normal((o, i)) / np.sqrt(i)      # torch layout: linear
        p[f"b{k}"] = rng.standard_normal(o)
    return p


def mlp_loss(p, x, y):
    n = len(p) // 2
    h = x
    for k in range(n):
        h = nn.linear(h, p[f"w{k}"], p[f"b{k}"])
        if k < n - 1:
            h = np.tanh(h)
    return nn.cross_entropy(h, y)


def cnn_params(rng):
    return {"c1": rng.standard_normal((4, 2, 3, 3)) / 3, "b1": rng.standard_normal(4),
            "c2": rng.standard_normal((6, 4, 3, 3)) / 6, "b2": rng.standard_normal(6),
            "gn_w": 1 + 0.1 * rng.standard_normal(6), "gn_b": rng.standard_normal(6),
            "fc": rng.standard_normal((6 * 3 * 3, 5)) / 7, "fc_b": rng.standard_normal(5)}


def cnn_loss(p, x, y):
    h = nn.relu(nn.conv2d(x[None], p["c1"], p["b1"], padding=1))
    h = nn.conv2d(h, p["c2"], p["b2"], stride=2, padding=1)            # (1, 6, 4, 4)
    h = nn.relu(nn.group_norm(h, 3, p["gn_w"], p["gn_b"]))
    h = nn.avg_pool2d(nn.max_pool2d(h, 2, stride=1), 1)                # (1, 6, 3, 3)
    return nn.cross_entropy((fnp.reshape(h, (1, -1)) @ p["fc"] + p["fc_b"])[0], y)


VOCAB, LENGTH, DIM = 11, 6, 8


def seq_params(rng):
    def w(*shape):
        return rng.standard_normal(shape) / np.sqrt(shape[-1])
    return {"tok": w(VOCAB, DIM), "pos": w(LENGTH, DIM), "ln_w": 1 + 0.1 * w(DIM),
            "ln_b": w(DIM), "wq": w(DIM, DIM), "wk": w(DIM, DIM), "wv": w(DIM, DIM),
            "wo": w(DIM, DIM), "w1": w(2 * DIM, DIM), "b1": w(2 * DIM), "out_b": w(VOCAB)}


def seq_loss(p, tokens):
    """Embedding, layer norm, causal attention, an MLP, tied unembedding."""
    h = nn.embedding(tokens, p["tok"]) + p["pos"]
    a = nn.layer_norm(h, DIM, p["ln_w"], p["ln_b"])
    q, k, v = nn.linear(a, p["wq"]), nn.linear(a, p["wk"]), nn.linear(a, p["wv"])
    h = h + nn.linear(nn.scaled_dot_product_attention(q, k, v, is_causal=True), p["wo"])
    h = h + nn.gelu(nn.linear(h, p["w1"], p["b1"])) @ p["w1"]   # w1 read twice (as w1.T, w1)
    logits = nn.linear(h, p["tok"], p["out_b"])                  # tied with the embedding
    return nn.cross_entropy(logits[:-1], tokens[1:])


def test_mlp_matches_materialized_clipping():
    rng = np.random.default_rng(0)
    p = mlp_params(rng, (5, 7, 4, 3))
    check_model(mlp_loss, p, rng.standard_normal((9, 5)), rng.integers(0, 3, 9), max_norm=0.7)


def test_cnn_matches_materialized_clipping():
    rng = np.random.default_rng(1)
    check_model(cnn_loss, cnn_params(rng), rng.standard_normal((5, 2, 8, 8)),
                rng.integers(0, 5, 5), max_norm=0.5)


def test_sequence_model_matches_materialized_clipping():
    rng = np.random.default_rng(2)
    check_model(seq_loss, seq_params(rng), rng.integers(0, VOCAB, (4, LENGTH)), max_norm=0.3)


# -- shapes, options, compositions ----------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(batch=st.integers(1, 6), tokens=st.integers(1, 5), width=st.integers(1, 6),
       out=st.integers(1, 6), vocab=st.integers(2, 9), max_norm=st.floats(1e-3, 1e3),
       seed=st.integers(0, 2 ** 16))
def test_factored_ops_match_materialized_clipping(batch, tokens, width, out, vocab, max_norm,
                                                  seed):
    """A matmul on either side, a 1-d weight, a gather and a bias over random shapes: the Gram
    (ghost) and direct forms are both reached as the shapes vary."""
    rng = np.random.default_rng(seed)
    p = {"emb": rng.standard_normal((vocab, width)), "w": rng.standard_normal((width, out)),
         "v": rng.standard_normal((width, out)), "u": rng.standard_normal(width),
         "b": rng.standard_normal(out)}

    def loss(p, idx, x):
        h = p["emb"][idx] + x                     # (T, width)
        z = np.tanh(h @ p["w"] + p["b"])          # (T, out)
        back = p["v"] @ z.T                       # (width, T): the weight on the left
        return np.sum(np.sin(back.T @ p["u"])) + np.sum(z ** 2)

    idx = rng.integers(-vocab, vocab, (batch, tokens))
    x = rng.standard_normal((batch, tokens, width))
    check_model(loss, p, idx, x, max_norm=max_norm)


@settings(max_examples=12, deadline=None)
@given(batch=st.integers(1, 4), size=st.integers(3, 6), cin=st.integers(1, 5),
       cout=st.integers(1, 9), stride=st.integers(1, 2), padding=st.integers(0, 1),
       seed=st.integers(0, 2 ** 16))
def test_conv_matches_materialized_clipping(batch, size, cin, cout, stride, padding, seed):
    """Small outputs take the im2col Gram form, large ones the direct weight gradient."""
    rng = np.random.default_rng(seed)
    p = {"w": rng.standard_normal((cout, cin, 3, 3)), "b": rng.standard_normal(cout)}

    def loss(p, x):
        return np.sum(np.tanh(nn.conv2d(x, p["w"], p["b"], stride=stride, padding=padding)))

    check_model(loss, p, rng.standard_normal((batch, cin, size, size)), max_norm=0.5)


@settings(max_examples=20, deadline=None)
@given(batch=st.integers(1, 4), tokens=st.integers(1, 4), width=st.integers(1, 5),
       heads=st.integers(1, 3), out=st.integers(1, 5), max_norm=st.floats(1e-3, 1e3),
       seed=st.integers(0, 2 ** 16))
def test_einsum_matches_materialized_clipping(batch, tokens, width, heads, out, max_norm, seed):
    """Weights read by einsum: on the right, on the left (passed indices first), with several
    contracted and passed indices (attention heads), an index the activation sums alone, and
    no token index; both the Gram and the direct forms are reached as the shapes vary."""
    rng = np.random.default_rng(seed)
    p = {"w": rng.standard_normal((width, heads, out)), "v": rng.standard_normal((out, width)),
         "u": rng.standard_normal((heads, out, width)), "s": rng.standard_normal((width, out))}

    def loss(p, x):                                           # x (tokens, 2, width)
        h = np.tanh(fnp.einsum("tsd,dhk->thk", x, p["w"]))    # (tokens, heads, out)
        back = fnp.einsum("kd,thk->td", p["v"], h)            # the weight on the left
        z = fnp.einsum("thk,hkd->td", h, p["u"]) + back
        pooled = fnp.einsum("td->d", np.sin(z))
        return np.sum(fnp.einsum("d,dk->k", pooled, p["s"]) ** 2)

    check_model(loss, p, rng.standard_normal((batch, tokens, 2, width)), max_norm=max_norm)


def test_einsum_outside_the_factored_forms_falls_back_exactly():
    """A weight index shared with activation and output (a per-head weight) is no outer
    product: materialized, with the warning, and still exact."""
    rng = np.random.default_rng(9)
    p = {"w": rng.standard_normal((2, 3, 4))}
    x = rng.standard_normal((5, 2, 6, 3))

    def loss(p, x):
        return np.sum(np.tanh(fnp.einsum("hti,hij->htj", x, p["w"])))

    with pytest.warns(ft.dp.FallbackWarning, match="einsum"):
        total, norms = ft.dp.clipped_grad_sum(loss, 0.5)(p, x)
    ref_total, ref_norms = reference_clipped(loss, p, 0.5, x)
    assert_close(norms, ref_norms)
    assert_close(total, ref_total)


@pytest.mark.parametrize("axes, w_shape, x_shape, perm", [
    (1, (3, 4), (2, 3), None),                  # x (T, p) . W (p, q)
    (([0], [1]), (4, 3), (3, 2), None),         # W's first axis with x's last: W.T inside
    (2, (2, 3, 4), (2, 2, 3), None),            # a 3-d weight reshaped to (6, 4)
    (1, (3, 4), (2, 3), (0, 1)),                # an identity transpose of a 2-d weight
])
def test_tensordot_and_views_match_materialized_clipping(axes, w_shape, x_shape, perm):
    """tensordot composes transpose, reshape and matmul: the weight's layout-only views are
    followed to its leaf (an identity 2-d transpose is no transpose)."""
    rng = np.random.default_rng(10)
    p = {"w": rng.standard_normal(w_shape), "v": rng.standard_normal((4, 4))}

    def loss(p, x):
        w = p["w"] if perm is None else fnp.transpose(p["w"], perm)
        h = np.tanh(fnp.tensordot(x, w, axes=axes))
        return np.sum(np.sin(fnp.tensordot(h, fnp.transpose(p["v"], (0, 1)), axes=1)))

    check_model(loss, p, rng.standard_normal((3,) + x_shape), max_norm=0.5)


def test_per_layer_thresholds_clip_each_leaf():
    rng = np.random.default_rng(3)
    p = mlp_params(rng)
    x, y = rng.standard_normal((6, 5)), rng.integers(0, 3, 6)
    limits = {k: 0.1 * (i + 1) for i, k in enumerate(sorted(p))}
    total, norms = ft.dp.clipped_grad_sum(mlp_loss, limits)(p, x, y)
    leaves, spec, leaf_sq = materialized(mlp_loss, p, x, y)
    limit_leaves = optree.tree_leaves(limits)
    expected = []
    for leaf, sq, limit in zip(leaves, leaf_sq, limit_leaves):
        scale = np.minimum(1.0, limit / np.sqrt(sq))
        expected.append(sum(scale[i] * leaf[i] for i in range(len(sq))))
    assert_close(total, spec.unflatten(expected))
    assert_close(norms, spec.unflatten([np.sqrt(sq) for sq in leaf_sq]))
    _, per_leaf = ft.dp.per_example_grad_norms(mlp_loss, per_leaf=True)(p, x, y)
    assert_close(per_leaf, norms)


def test_argnums_tuple_float32_and_zero_gradient():
    rng = np.random.default_rng(4)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    unused = np.ones(2, np.float32)
    x = rng.standard_normal((5, 4)).astype(np.float32)

    def loss(unused, w, x):
        return np.sum((x @ w) ** 2)

    (g_unused, g_w), norms = ft.dp.clipped_grad_sum(loss, 1.0, argnums=(0, 1))(unused, w, x)
    assert g_unused.dtype == g_w.dtype == np.float32
    np.testing.assert_array_equal(g_unused, np.zeros(2, np.float32))
    per = ft.vmap(ft.grad(loss, argnums=1), in_dims=(None, None, 0))(unused, w, x)
    ref_norms = np.sqrt((per.astype(np.float64) ** 2).sum(axis=(1, 2)))
    np.testing.assert_allclose(norms, ref_norms, rtol=1e-5)
    ref = np.tensordot(np.minimum(1, 1 / ref_norms), per.astype(np.float64), axes=1)
    np.testing.assert_allclose(g_w, ref, rtol=1e-5, atol=1e-6)


def test_jitted_dp_step_equals_eager():
    rng = np.random.default_rng(5)
    p = seq_params(rng)
    step = ft.dp.clipped_grad_sum(seq_loss, 0.3)
    jitted = ft.jit(step)
    for _ in range(2):
        tokens = rng.integers(0, VOCAB, (3, LENGTH))
        assert_close(jitted(p, tokens), step(p, tokens), rtol=1e-12)


def test_checkpointed_segments_are_factored_too():
    rng = np.random.default_rng(6)
    p = mlp_params(rng, (5, 6, 3))

    def loss(p, x, y):
        h = ft.checkpoint(lambda x, w, b: np.tanh(nn.linear(x, w, b)))(x, p["w0"], p["b0"])
        return nn.cross_entropy(nn.linear(h, p["w1"], p["b1"]), y)

    check_model(loss, p, rng.standard_normal((7, 5)), rng.integers(0, 3, 7))


def fallback_loss(p, x):
    """A weight read through exp before its matrix product: no factor rule covers it."""
    return np.sum(np.tanh(x @ np.exp(p["w"])))


def test_fallback_warns_and_stays_exact():
    rng = np.random.default_rng(7)
    p = {"w": rng.standard_normal((3, 4))}
    x = rng.standard_normal((5, 3))
    with pytest.warns(ft.dp.FallbackWarning, match="matmul"):
        total, norms = ft.dp.clipped_grad_sum(fallback_loss, 0.5)(p, x)
    ref_total, ref_norms = reference_clipped(fallback_loss, p, 0.5, x)
    assert_close(norms, ref_norms)
    assert_close(total, ref_total)


def test_strict_switch_refuses_the_fallback():
    rng = np.random.default_rng(8)
    p = {"w": rng.standard_normal((3, 4))}
    x = rng.standard_normal((5, 3))
    with pytest.raises(ft.dp.FallbackError, match="matmul"):
        ft.dp.clipped_grad_sum(fallback_loss, 0.5, strict=True)(p, x)
    with pytest.raises(ft.dp.FallbackError, match="sum"):
        ft.dp.per_example_grad_norms(lambda p, x: np.sum(p["w"]) * np.sum(x),
                                     strict=True)(p, x)


def _recurrent_loss(p, xs, y):
    h = fnp.zeros(4)
    for t in range(xs.shape[0]):                        # a recurrent cell: factored matmuls
        h = fnp.tanh(h @ p["cell"]["w"] + xs[t] @ p["cell"]["u"])
    gate = fnp.sum(fnp.exp(p["cell"]["gate"]))          # THE FALLBACK LINE: a reduction
    return nn.cross_entropy(gate * h @ p["out"], y)


def test_fallback_names_the_parameter_path_the_op_and_the_loss_line():
    """Issue 33: a recurrent model's FallbackWarning names the leaf by its pytree path, the op,
    and the line of the loss that read the parameter (also the warning's own location)."""
    rng = np.random.default_rng(9)
    p = {"cell": {"w": 0.3 * rng.standard_normal((4, 4)), "u": rng.standard_normal((3, 4)),
                  "gate": rng.standard_normal(4)}, "out": rng.standard_normal((4, 2))}
    xs, y = rng.standard_normal((6, 5, 3)), rng.integers(0, 2, 6)
    source = inspect.getsource(_recurrent_loss).splitlines()
    line = _recurrent_loss.__code__.co_firstlineno + next(
        i for i, text in enumerate(source) if "THE FALLBACK LINE" in text)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        norms = ft.dp.per_example_grad_norms(_recurrent_loss)(p, xs, y)
    fallbacks = [w for w in caught if issubclass(w.category, ft.dp.FallbackWarning)]
    assert len(fallbacks) == 1, [str(w.message) for w in caught]
    message = str(fallbacks[0].message)
    assert message.startswith(f"op 'sum' at {__file__}:{line} (gate = fnp.sum(fnp.exp(p["
                              f"\"cell\"][\"gate\"]))"), message
    assert "reads argument 0['cell']['gate'] (operand 0)" in message
    assert (fallbacks[0].filename, fallbacks[0].lineno) == (__file__, line)
    ref = [np.sqrt(sum(np.sum(g ** 2) for g in optree.tree_leaves(
        ft.grad(_recurrent_loss)(p, xs[i], y[i])))) for i in range(6)]
    assert_close(norms, np.array(ref))
    with pytest.raises(ft.dp.FallbackError, match=r"reads argument 0\['cell'\]\['gate'\]"):
        ft.dp.per_example_grad_norms(_recurrent_loss, strict=True)(p, xs, y)


def test_add_noise_has_the_gaussian_mechanism_scale():
    total = {"a": np.zeros((200, 100)), "b": np.zeros(3, np.float32)}
    noisy = ft.dp.add_noise(ft.random.key(1), total, 2.0, 0.5)
    assert noisy["b"].dtype == np.float32
    assert abs(noisy["a"].std() - 1.0) < 0.02 and abs(noisy["a"].mean()) < 0.02
    per_layer = ft.dp.add_noise(ft.random.key(1), total, 1.0, {"a": 3.0, "b": 4.0})
    assert abs(per_layer["a"].std() - 5.0) < 0.1


# -- max_norm: its values, its structure (issue 30) ---------------------------------------------

def zero_row_batch(rng):
    """An MLP batch whose first example is all zeros through a bias-free model: its gradient
    is exactly zero, the case that made 0 / 0 in the clipping factor."""
    w = {"w0": rng.standard_normal((4, 3)), "w1": rng.standard_normal((3, 2))}
    x = rng.standard_normal((5, 4))
    x[0] = 0.0
    return w, x


def zero_row_loss(p, x):
    return np.sum(np.tanh(x @ p["w0"]) @ p["w1"]) ** 2


def test_max_norm_inf_is_the_plain_sum_and_zero_gives_zeros():
    p, x = zero_row_batch(np.random.default_rng(9))
    leaves, spec, leaf_sq = materialized(zero_row_loss, p, x)
    assert np.sum(leaf_sq, axis=0)[0] == 0.0                  # example 0: a zero gradient
    plain = spec.unflatten([leaf.sum(axis=0) for leaf in leaves])
    total, norms = ft.dp.clipped_grad_sum(zero_row_loss, np.inf)(p, x)
    assert_close(total, plain)
    assert_close(norms, np.sqrt(sum(leaf_sq)))
    total, _ = ft.dp.clipped_grad_sum(zero_row_loss, 0.0)(p, x)
    for leaf in optree.tree_leaves(total):
        np.testing.assert_array_equal(leaf, np.zeros_like(leaf))
    # per layer, an inf and a 0 threshold side by side; a zero gradient keeps factor 1
    total, _ = ft.dp.clipped_grad_sum(zero_row_loss, {"w0": np.inf, "w1": 0.0})(p, x)
    assert_close(total["w0"], plain["w0"])
    np.testing.assert_array_equal(total["w1"], np.zeros((3, 2)))
    total, _ = ft.dp.clipped_grad_sum(zero_row_loss, 0.5)(p, x)
    with np.errstate(divide="ignore"):
        ref, _ = reference_clipped(zero_row_loss, p, 0.5, x)  # min(1, 0.5 / 0) = 1 at norm 0
    assert_close(total, ref)


@pytest.mark.parametrize("bad", [-1.0, np.nan, -np.inf, "1", None, True, np.array([1.0, 2.0]),
                                 {}, 1 + 2j, {"w0": -0.5, "w1": 1.0}])
def test_max_norm_is_validated_once_naming_it(bad):
    with pytest.raises(ValueError, match="max_norm"):
        ft.dp.clipped_grad_sum(zero_row_loss, bad)          # refused before any call
    with pytest.raises(ValueError, match="max_norm"):
        ft.dp.add_noise(ft.random.key(0), {"w0": np.zeros(2), "w1": np.zeros(2)}, 1.0, bad)


def test_add_noise_refuses_an_unbounded_sensitivity_and_another_structure():
    total = {"w0": np.zeros(3), "w1": np.zeros(2)}
    with pytest.raises(ValueError, match="max_norm=inf"):
        ft.dp.add_noise(ft.random.key(0), total, 1.0, np.inf)
    with pytest.raises(ValueError, match=r"structure of clipped_sum.*'w0'.*got PyTreeSpec\(\["):
        ft.dp.add_noise(ft.random.key(0), total, 1.0, [1.0, 2.0])
    np.testing.assert_array_equal(ft.dp.add_noise(ft.random.key(0), total, 1.0, 0.0)["w1"],
                                  np.zeros(2))


@pytest.mark.parametrize("limits", [[0.5, 100.0], (0.5, 100.0), {"a": 0.5, "b": 100.0},
                                    {"w0": 0.5}, {"w0": 0.5, "w1": 1.0, "w2": 1.0},
                                    {"w0": [0.5], "w1": 1.0}])
def test_per_layer_max_norm_must_have_the_params_structure(limits):
    p, x = zero_row_batch(np.random.default_rng(10))
    fn = ft.dp.clipped_grad_sum(zero_row_loss, limits)
    with pytest.raises(ValueError, match=r"structure of the differentiated arguments "
                                         r"\(argnums=0\), PyTreeSpec\(\{'w0': \*, 'w1': \*\}\); "
                                         r"got PyTreeSpec"):
        fn(p, x)


def test_dp_errors_speak_of_dp_arguments():
    p, x = zero_row_batch(np.random.default_rng(11))
    for make in (lambda loss: ft.dp.clipped_grad_sum(loss, 1.0),
                 ft.dp.per_example_grad_norms):
        with pytest.raises(ValueError, match="no per-example argument.*argnums=0") as err:
            make(lambda p: np.sum(p["w0"]))(p)
        assert "axis_size" not in str(err.value)
        with pytest.raises(ValueError, match=r"argument 2 is a float.*functools.partial") as err:
            make(lambda p, x, s: zero_row_loss(p, x) * s)(p, x, 2.0)
        assert "in_dims" not in str(err.value)
        with pytest.raises(ValueError, match=r"argument 1\['x'\] has 5, argument 2 has 4"):
            make(lambda p, b, y: zero_row_loss(p, b["x"]) * y)(p, {"x": x}, np.ones(4))
        with pytest.raises(TypeError, match="needs a function, got 5"):
            make(5)
