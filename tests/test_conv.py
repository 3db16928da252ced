"""Convolution, pooling and group norm beyond the generic sample tests: against
torch.nn.functional (when torch is importable), random configurations against the direct-loop
references, the structure of the per-example weight gradient (one batched product, no loop),
a convolution written in plain NumPy over sliding_window_view, and the error messages."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.ops import conv as cv
from functorch_lite.testing.samples import op_info
from functorch_lite.testing.samples_conv import ref_conv, ref_conv_transpose

LAYERS = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "max_pool1d",
          "max_pool2d", "avg_pool1d", "avg_pool2d", "group_norm"]


def _torch_cases():
    for name in LAYERS:
        info = op_info(f"nn.{name}")
        for sample in info.samples(np.random.default_rng(0)):
            if all(x.dtype == np.float64 for x in sample.leaves()):
                yield pytest.param(name, sample, id=f"{name}-{sample.name}")


@pytest.mark.parametrize("name, sample", list(_torch_cases()))
def test_layer_matches_torch(name, sample):
    torch = pytest.importorskip("torch")
    fn = getattr(torch.nn.functional, name)
    args = [torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in sample.args]
    expected = fn(*args, **sample.kwargs).numpy()
    np.testing.assert_allclose(sample.call(getattr(ft.nn, name)), expected, rtol=1e-10,
                               atol=1e-12)


@st.composite
def _conv_config(draw):
    nd = draw(st.sampled_from([1, 2]))
    groups = draw(st.sampled_from([1, 2]))
    cin, cout = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    stride = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    padding = tuple(draw(st.integers(0, 2)) for _ in range(nd))
    sizes = tuple(d * (k - 1) + 1 + draw(st.integers(0, 3)) for k, d in zip(kernel, dilation))
    return nd, draw(st.integers(1, 2)), cin, cout, sizes, kernel, stride, dilation, padding, \
        groups


@settings(max_examples=30, deadline=None)
@given(config=_conv_config(), seed=st.integers(0, 2 ** 16))
def test_random_convolutions_match_the_loop_and_their_transpose(config, seed):
    """conv == the direct loop; <conv(x, w), g> == <x, conv_transpose(g, w)> (adjoints)."""
    nd, n, cin, cout, sizes, kernel, stride, dilation, padding, groups = config
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, cin) + sizes)
    w = rng.standard_normal((cout, cin // groups) + kernel)
    conv = getattr(ft.nn, f"conv{nd}d")
    kw = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    y = conv(x, w, **kw)
    np.testing.assert_allclose(y, ref_conv(nd)(x, w, **kw), rtol=1e-10, atol=1e-12)
    g = rng.standard_normal(y.shape)
    pads = tuple((p, p) for p in padding)
    xt = cv.conv_transpose(g, w, input_shape=sizes, stride=stride, padding=pads,
                           dilation=dilation, groups=groups)
    np.testing.assert_allclose(np.sum(y * g), np.sum(x * xt), rtol=1e-10)
    wt = cv.conv_weight_grad(x, g, kernel_shape=kernel, stride=stride, padding=pads,
                             dilation=dilation, groups=groups)
    np.testing.assert_allclose(np.sum(y * g), np.sum(w * wt), rtol=1e-10)


def test_conv_transpose_is_the_input_gradient_of_conv():
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 3, 7, 6)), rng.standard_normal((4, 3, 3, 3))
    g = rng.standard_normal((2, 4, 4, 3))
    _, vjp_fn = ft.vjp(lambda v: ft.nn.conv2d(v, w, stride=2, padding=1), x)
    expected = ft.nn.conv_transpose2d(g, w, stride=2, padding=1, output_padding=(0, 1))
    np.testing.assert_allclose(vjp_fn(g)[0], expected, rtol=1e-12)
    np.testing.assert_allclose(expected, ref_conv_transpose(2)(
        g, w, stride=2, padding=1, output_padding=(0, 1)), rtol=1e-10)


# -- per-example gradients of a CNN -----------------------------------------------------------

def _cnn_params(rng, dtype=np.float64):
    def a(*shape):
        return (rng.standard_normal(shape) / np.sqrt(np.prod(shape[1:]))).astype(dtype)
    return {"c1": a(4, 1, 3, 3), "b1": a(4), "c2": a(6, 4, 3, 3), "b2": a(6),
            "gn_w": 1 + a(6), "gn_b": a(6), "fc": a(6 * 2 * 2, 3)}


def _cnn_loss(p, x, y):
    """One example (1, 8, 8): conv, relu, max pool, conv, group norm, relu, avg pool, linear."""
    h = ft.nn.relu(ft.nn.conv2d(x[None], p["c1"], p["b1"], padding=1))
    h = ft.nn.max_pool2d(h, 2)
    h = ft.nn.conv2d(h, p["c2"], p["b2"], padding="same")
    h = ft.nn.relu(ft.nn.group_norm(h, 2, p["gn_w"], p["gn_b"]))
    h = ft.nn.avg_pool2d(h, 2)
    return ft.nn.cross_entropy(fnp.reshape(h, (-1,)) @ p["fc"], y)


def _record(op, calls):
    """Count the level-0 kernel calls of `op` (with their static params)."""
    kernel = op.numpy_impl

    def recording(*args, **params):
        calls.append((tuple(a.shape for a in args), params))
        return kernel(*args, **params)
    op.numpy_impl = recording
    return kernel


def test_per_example_cnn_gradients_are_batched_products():
    """vmap(grad) equals a loop of grad, never falls back to a loop, and each conv layer's
    per-example weight gradient is one conv_weight_grad call with groups = batch size."""
    rng = np.random.default_rng(0)
    params, batch = _cnn_params(rng), 5
    x, y = rng.standard_normal((batch, 1, 8, 8)), rng.integers(0, 3, batch)
    calls = []
    kernel = _record(cv.conv_weight_grad, calls)
    try:
        with ft.fallback_as_error():
            got = ft.vmap(ft.grad(_cnn_loss), in_dims=(None, 0, 0))(params, x, y)
    finally:
        cv.conv_weight_grad.numpy_impl = kernel
    assert [c[1]["groups"] for c in calls] == [batch, batch], calls
    for b in range(batch):
        one = ft.grad(_cnn_loss)(params, x[b], y[b])
        for k in params:
            np.testing.assert_allclose(got[k][b], one[k], rtol=1e-10, atol=1e-12, err_msg=k)


def test_ensemble_of_cnns_is_one_grouped_convolution():
    """vmap over stacked weights (a model ensemble): one conv call per layer, not one per
    model, and the same values as a loop over the models."""
    rng = np.random.default_rng(1)
    models = [_cnn_params(rng) for _ in range(3)]
    stacked = {k: np.stack([m[k] for m in models]) for k in models[0]}
    x, y = rng.standard_normal((1, 8, 8)), np.int64(1)
    calls = []
    kernel = _record(cv.conv, calls)
    try:
        with ft.fallback_as_error():
            got = ft.vmap(_cnn_loss, in_dims=(0, None, None))(stacked, x, y)
    finally:
        cv.conv.numpy_impl = kernel
    assert len(calls) == 2
    np.testing.assert_allclose(got, [_cnn_loss(m, x, y) for m in models], rtol=1e-12)


def test_second_order_and_forward_compose():
    rng = np.random.default_rng(2)
    params = _cnn_params(rng)
    x, y = rng.standard_normal((1, 8, 8)), np.int64(2)

    def of_c2(c2):
        return _cnn_loss({**params, "c2": c2}, x, y)
    v = rng.standard_normal(params["c2"].shape)
    _, hvp = ft.jvp(ft.grad(of_c2), (params["c2"],), (v,))
    eps = 1e-5
    fd = (ft.grad(of_c2)(params["c2"] + eps * v) - ft.grad(of_c2)(params["c2"] - eps * v)) / \
        (2 * eps)
    np.testing.assert_allclose(hvp, fd, rtol=1e-5, atol=1e-7)
    gg = ft.grad(lambda c: fnp.sum(ft.grad(of_c2)(c) * v))(params["c2"])
    np.testing.assert_allclose(gg, hvp, rtol=1e-8, atol=1e-10)


# -- a convolution in plain NumPy ---------------------------------------------------------------

def numpy_conv2d(x, w):
    """A 'valid' convolution in NumPy: windows, then one einsum."""
    windows = np.lib.stride_tricks.sliding_window_view(x, w.shape[-2:], axis=(-2, -1))
    return np.einsum("chwij,ocij->ohw", windows, w)


def test_plain_numpy_convolution_transforms():
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((4, 2, 6, 6)), rng.standard_normal((3, 2, 3, 3))

    def loss(w, x):
        return np.sum(np.tanh(numpy_conv2d(x, w)))

    def ours(w, x):
        return fnp.sum(fnp.tanh(ft.nn.conv2d(x, w)))
    with ft.fallback_as_error():
        got = ft.vmap(ft.grad(loss), in_dims=(None, 0))(w, x)
    np.testing.assert_allclose(got, ft.vmap(ft.grad(ours), in_dims=(None, 0))(w, x),
                               rtol=1e-10)
    np.testing.assert_allclose(numpy_conv2d(x[0], w), ft.nn.conv2d(x[0], w), rtol=1e-12)


# -- errors ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda x, w: ft.nn.conv2d(x, w[:, :2]), "input has 3 channels"),
    (lambda x, w: ft.nn.conv2d(x, w, groups=2), "groups=2"),
    (lambda x, w: ft.nn.conv2d(x, w, padding="full"), "padding must be"),
    (lambda x, w: ft.nn.conv2d(x, w, stride=2, padding="same"), "strided"),
    (lambda x, w: ft.nn.conv2d(x[0, 0], w), r"input must have shape \(N, C"),
    (lambda x, w: ft.nn.conv2d(x, w, stride=(1, 2, 3)), "stride must be"),
    (lambda x, w: ft.nn.conv2d(x[..., :2, :2], w), "larger than the input"),
    (lambda x, w: ft.nn.max_pool2d(x, 2, padding=2), "at most half"),
    (lambda x, w: ft.nn.group_norm(x, 2), "do not split"),
    (lambda x, w: ft.nn.conv_transpose2d(x, w[:3], stride=2, output_padding=2),
     "output_padding"),
    (lambda x, w: ft.nn.conv_transpose2d(x, w[:3], stride=2, dilation=3, output_padding=3),
     r"smaller than stride \(2, 2\) or dilation \(3, 3\)"),
    (lambda x, w: ft.nn.conv2d(x, w, stride=0), "conv2d: stride must be positive ints .* got 0"),
    (lambda x, w: ft.nn.conv2d(x, w, stride=(1, 0)), r"stride must be positive .*\(1, 0\)"),
    (lambda x, w: ft.nn.conv1d(x[:, :, 0], w[..., 0], stride=0), "conv1d: stride must be positive"),
    (lambda x, w: ft.nn.conv2d(x, w, dilation=0), "dilation must be positive"),
    (lambda x, w: ft.nn.conv2d(x, w, padding=-1), "padding must be non-negative .* got -1"),
    (lambda x, w: ft.nn.conv_transpose2d(x, w[:3], stride=0), "stride must be positive"),
    (lambda x, w: ft.nn.conv_transpose2d(x, w[:3], output_padding=-1),
     "output_padding must be non-negative"),
    (lambda x, w: ft.nn.max_pool2d(x, 0), "max_pool2d: kernel_size must be positive .* got 0"),
    (lambda x, w: ft.nn.avg_pool2d(x, (2, 0)), "avg_pool2d: kernel_size must be positive"),
    (lambda x, w: ft.nn.avg_pool1d(x[0], 0), "avg_pool1d: kernel_size must be positive"),
    (lambda x, w: ft.nn.max_pool2d(x, 2, stride=0), "stride must be positive"),
    (lambda x, w: ft.nn.max_pool1d(x[0], 2, dilation=0), "dilation must be positive"),
    (lambda x, w: ft.nn.avg_pool2d(x, 2, padding=-1), "padding must be non-negative"),
])
def test_errors_name_the_problem(call, message):
    """Zero strides, kernels and dilations and negative paddings used to raise
    ZeroDivisionError or NumPy's 'index can't contain negative values'."""
    x, w = np.zeros((2, 3, 5, 5)), np.zeros((4, 3, 3, 3))
    with pytest.raises(ValueError, match=message):
        call(x, w)


@pytest.mark.parametrize("nd, stride, dilation, output_padding, padding", [
    (1, 1, 2, 1, 0), (1, 1, 3, 2, 1), (1, 2, 3, 2, 0), (2, 1, 2, (1, 0), 1),
    (2, (1, 2), (3, 1), (2, 1), 0)])
def test_conv_transpose_output_padding_below_dilation(nd, stride, dilation, output_padding,
                                                      padding):
    """PyTorch allows output_padding < max(stride, dilation); it used to be refused unless below
    the stride. Forward against the direct scatter, gradients against finite differences."""
    rng = np.random.default_rng(nd)
    x = rng.normal(size=(2, 2) + (3,) * nd)
    w = rng.normal(size=(2, 3) + (2,) * nd)
    fn = ft.nn.conv_transpose1d if nd == 1 else ft.nn.conv_transpose2d
    kw = dict(stride=stride, dilation=dilation, output_padding=output_padding, padding=padding)
    np.testing.assert_allclose(fn(x, w, **kw), ref_conv_transpose(nd)(x, w, **kw), rtol=1e-12)
    ct = rng.normal(size=fn(x, w, **kw).shape)
    gx, gw = ft.grad(lambda a, b: fnp.sum(fn(a, b, **kw) * ct), argnums=(0, 1))(x, w)
    for arg, got in [(0, gx), (1, gw)]:
        want = _finite_difference_grad(
            lambda a, b: float(np.sum(ref_conv_transpose(nd)(a, b, **kw) * ct)), (x, w), arg)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def _finite_difference_grad(f, args, arg, h=1e-6):
    args = list(args)
    base = args[arg]
    out = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        step = np.zeros_like(base)
        step[i] = h
        up = f(*[base + step if k == arg else a for k, a in enumerate(args)])
        down = f(*[base - step if k == arg else a for k, a in enumerate(args)])
        out[i] = (up - down) / (2 * h)
    return out
