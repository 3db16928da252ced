"""Per-example gradients of a small CNN on (1, 28, 28) inputs (float32): conv 3x3 (1 -> 8) +
relu + 2x2 max pool, conv 3x3 (8 -> 16) + group norm (4 groups) + relu + 2x2 max pool, linear
(784 -> 10), softmax cross-entropy. vmap(grad(loss)) against hand-written batched NumPy (im2col
from strided views, pooling by maxima of strided slices, the backward pass written out by hand,
per-example weight gradients as batched GEMMs) and a Python loop of grad, in one run;
torch.func's figure beside them when torch is importable.

    OPENBLAS_NUM_THREADS=1 python benchmarks/per_example_cnn.py [--batches 32 128]

With JAX installed, a second line per batch: ft.jit(per_example_grads, backend="xla") on NumPy
arrays and on JAX arrays against jax.jit of the same model written in JAX (xla_models.py).

Target (issue 9): at most 1.3x hand-written NumPy at both batch sizes.
"""
import argparse

import numpy as np

import functorch_lite as ft
import functorch_lite.numpy as fnp
from per_example_grads import timed
from xla_models import format_columns, jax_or_none, xla_columns

GROUPS = 4


def init_params(rng, dtype=np.float32):
    def he(*shape):
        return (rng.standard_normal(shape) * np.sqrt(2.0 / np.prod(shape[1:]))).astype(dtype)
    return {"c1": he(8, 1, 3, 3), "b1": np.zeros(8, dtype), "c2": he(16, 8, 3, 3),
            "b2": np.zeros(16, dtype), "gn_w": np.ones(16, dtype), "gn_b": np.zeros(16, dtype),
            "fc": he(10, 784).T.copy(), "fc_b": np.zeros(10, dtype)}


def loss(p, x, y):
    """Cross-entropy of one example x (1, 28, 28), run as a batch of one."""
    h = ft.nn.relu(ft.nn.conv2d(x[None], p["c1"], p["b1"], padding=1))
    h = ft.nn.max_pool2d(h, 2)
    h = ft.nn.conv2d(h, p["c2"], p["b2"], padding=1)
    h = ft.nn.relu(ft.nn.group_norm(h, GROUPS, p["gn_w"], p["gn_b"]))
    h = ft.nn.max_pool2d(h, 2)
    return ft.nn.cross_entropy(fnp.reshape(h, (-1,)) @ p["fc"] + p["fc_b"], y)


per_example_grads = ft.vmap(ft.grad(loss), in_dims=(None, 0, 0))


# -- hand-written NumPy: im2col from strided views, sliced pooling, backward by hand ----------

def _im2col(x):
    """(B, C, H, W) -> (B, C * 9, H * W) for a 3x3 'same' convolution: one copy whose inner
    runs are contiguous rows of x."""
    b, c, h, w = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(2, 3))
    return windows.transpose(0, 1, 4, 5, 2, 3).reshape(b, c * 9, h * w)


def _col2im(cols, c, h, w):
    """The adjoint of _im2col: (B, C * 9, H * W) -> (B, C, H, W), nine strided adds."""
    b = cols.shape[0]
    cols = cols.reshape(b, c, 3, 3, h, w)
    out = np.zeros((b, c, h + 2, w + 2), cols.dtype)
    for i in range(3):
        for j in range(3):
            out[:, :, i:i + h, j:j + w] += cols[:, :, i, j]
    return out[:, :, 1:-1, 1:-1]


_CORNERS = [(0, 0), (0, 1), (1, 0), (1, 1)]


def _pool(a):
    """2x2 max pool of (B, C, H, W) by three maxima of strided slices, and which corner won."""
    out = a[..., 0::2, 0::2]
    which = np.zeros(out.shape, np.int8)
    for k, (i, j) in enumerate(_CORNERS[1:], 1):
        better = a[..., i::2, j::2] > out
        out = np.where(better, a[..., i::2, j::2], out)
        which[better] = k
    return out, which


def _unpool(g, which):
    b, c, h, w = g.shape
    out = np.empty((b, c, 2 * h, 2 * w), g.dtype)
    for k, (i, j) in enumerate(_CORNERS):
        out[..., i::2, j::2] = np.where(which == k, g, 0)
    return out


def handwritten_per_example_grads(p, X, Y):
    b = len(Y)
    w1, w2 = p["c1"].reshape(8, 9), p["c2"].reshape(16, 72)
    cols1 = _im2col(X)                                                # (B, 9, 784)
    z1 = w1 @ cols1 + p["b1"][:, None]                                # (B, 8, 784)
    a1 = np.maximum(z1, 0).reshape(b, 8, 28, 28)
    p1, which1 = _pool(a1)                                            # (B, 8, 14, 14)
    cols2 = _im2col(p1)                                               # (B, 72, 196)
    z2 = w2 @ cols2 + p["b2"][:, None]                                # (B, 16, 196)
    zg = z2.reshape(b, GROUPS, -1)
    mean = zg.mean(axis=2, keepdims=True)
    inv_std = 1.0 / np.sqrt(zg.var(axis=2, keepdims=True) + 1e-5)
    xhat = ((zg - mean) * inv_std).reshape(b, 16, 196)
    y2 = xhat * p["gn_w"][:, None] + p["gn_b"][:, None]
    a2 = np.maximum(y2, 0).reshape(b, 16, 14, 14)
    p2, which2 = _pool(a2)                                            # (B, 16, 7, 7)
    flat = p2.reshape(b, 784)
    logits = flat @ p["fc"] + p["fc_b"]
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    d_logits = e / e.sum(axis=1, keepdims=True)
    d_logits[np.arange(b), Y] -= 1.0
    g = {"fc": np.einsum("bi,bj->bij", flat, d_logits), "fc_b": d_logits}
    d_p2 = (d_logits @ p["fc"].T).reshape(b, 16, 7, 7)
    d_y2 = (_unpool(d_p2, which2) * (a2 > 0)).reshape(b, 16, 196)
    g["gn_w"], g["gn_b"] = (d_y2 * xhat).sum(axis=2), d_y2.sum(axis=2)
    d_xhat = (d_y2 * p["gn_w"][:, None]).reshape(b, GROUPS, -1)
    xg = xhat.reshape(d_xhat.shape)
    d_z2 = inv_std * (d_xhat - d_xhat.mean(axis=2, keepdims=True)
                      - xg * (d_xhat * xg).mean(axis=2, keepdims=True))
    d_z2 = d_z2.reshape(b, 16, 196)
    g["c2"] = (d_z2 @ cols2.transpose(0, 2, 1)).reshape(b, 16, 8, 3, 3)
    g["b2"] = d_z2.sum(axis=2)
    d_p1 = _col2im(w2.T @ d_z2, 8, 14, 14)
    d_z1 = (_unpool(d_p1, which1) * (a1 > 0)).reshape(b, 8, 784)
    g["c1"] = (d_z1 @ cols1.transpose(0, 2, 1)).reshape(b, 8, 1, 3, 3)
    g["b1"] = d_z1.sum(axis=2)
    return g


def loop_of_grad(params, X, Y):
    grads = [ft.grad(loss)(params, X[b], Y[b]) for b in range(len(Y))]
    return {k: np.stack([g[k] for g in grads]) for k in params}


def _torch_figure(params, X, Y, repeats):
    """Eager torch.func vmap(grad) of the same model, when torch is importable."""
    try:
        import torch
        from torch.func import grad, vmap
    except ImportError:
        return None
    F = torch.nn.functional
    tp = {k: torch.from_numpy(v) for k, v in params.items()}
    tx, ty = torch.from_numpy(X), torch.from_numpy(Y)

    def tloss(p, x, y):
        h = F.max_pool2d(F.relu(F.conv2d(x[None], p["c1"], p["b1"], padding=1)), 2)
        h = F.group_norm(F.conv2d(h, p["c2"], p["b2"], padding=1), GROUPS, p["gn_w"],
                         p["gn_b"])
        h = F.max_pool2d(F.relu(h), 2)
        return F.cross_entropy((h.reshape(1, -1) @ p["fc"] + p["fc_b"]), y[None])
    f = vmap(grad(tloss), in_dims=(None, 0, 0))
    return timed([lambda: f(tp, tx, ty)], repeats)[0]


def jax_per_example_grads():
    """The same model in JAX: jax.vmap(jax.grad(loss)), for the xla columns."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    def conv(x, w, b):
        return lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (1, 1))) + b[:, None, None]

    def pool(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def jloss(p, x, y):
        h = pool(jax.nn.relu(conv(x[None], p["c1"], p["b1"])))
        h = conv(h, p["c2"], p["b2"])
        g = h.reshape(1, GROUPS, -1)
        mu = g.mean(-1, keepdims=True)
        g = (g - mu) / jnp.sqrt(((g - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
        h = g.reshape(h.shape) * p["gn_w"][:, None, None] + p["gn_b"][:, None, None]
        h = pool(jax.nn.relu(h))
        return -jax.nn.log_softmax(h.reshape(-1) @ p["fc"] + p["fc_b"])[y]
    return jax.vmap(jax.grad(jloss), in_axes=(None, 0, 0))


def run(batch, repeats, rng):
    params = init_params(rng)
    X = rng.standard_normal((batch, 1, 28, 28)).astype(np.float32)
    Y = rng.integers(0, 10, batch)
    ours = per_example_grads(params, X, Y)
    ref = handwritten_per_example_grads(params, X, Y)
    for k in params:
        assert ours[k].dtype == np.float32 and ours[k].shape == ref[k].shape, k
        np.testing.assert_allclose(ours[k], ref[k], rtol=2e-3, atol=2e-4, err_msg=k)
    t_hand, t_ours = timed([lambda: handwritten_per_example_grads(params, X, Y),
                            lambda: per_example_grads(params, X, Y)], repeats)
    t_loop, = timed([lambda: loop_of_grad(params, X, Y)], max(2, repeats // 10))
    print(f"batch {batch:4d}: hand-written NumPy {t_hand * 1e3:8.2f} ms | "
          f"vmap(grad) {t_ours * 1e3:8.2f} ms ({t_ours / t_hand:.2f}x) | "
          f"loop of grad {t_loop * 1e3:8.1f} ms ({t_loop / t_hand:.1f}x)")
    t_torch = _torch_figure(params, X, Y, repeats)
    if t_torch is not None:
        print(f"            torch.func (eager): {t_torch * 1e3:.2f} ms "
              f"({t_torch / t_hand:.2f}x hand-written, vmap(grad) is "
              f"{t_ours / t_torch:.2f}x torch.func)")
    if jax_or_none() is not None:
        times, diffs = xla_columns(per_example_grads, jax_per_example_grads(),
                                   (params, X, Y), repeats)
        print(f"            {format_columns(times, diffs)}")
    return t_ours / t_hand


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[32, 128])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    for batch in args.batches:
        run(batch, args.repeats, rng)


if __name__ == "__main__":
    main()
