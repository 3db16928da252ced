"""Differential fuzz of the XLA lowerings of convolutions and pooling (compiler/xla_conv.py): random
layers (1-d or 2-d, plain or transposed convolution with random groups, strides, dilations,
paddings and output paddings, then max or average pooling with random windows, strides,
paddings and dilations) under value, grad, jvp and per-example vmap(grad) (whose weight
gradient is the grouped conv_weight_grad of Note [convolutions on XLA]), float32: ft.jit on
XLA equals the NumPy backend, and jax.jit of the same layer written in JAX, within 1e-5 of
each result's scale. FT_FUZZ_EXAMPLES sets the count, as in test_fuzz_compositions."""
import math
import os
import re

import numpy as np
import optree
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

import functorch_lite as ft
import functorch_lite.numpy as fnp

jax = pytest.importorskip("jax", reason="the XLA backend needs JAX (pip install -e '.[xla]')")
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

EXAMPLES = max(1, int(os.environ.get("FT_FUZZ_EXAMPLES", "40")) // 3)
RTOL = 1e-5


@st.composite
def layers(draw):
    nd = draw(st.sampled_from([1, 2]))
    ints = lambda lo, hi: tuple(draw(st.integers(lo, hi)) for _ in range(nd))  # noqa: E731
    spec = dict(nd=nd, groups=draw(st.integers(1, 3)), cg=draw(st.integers(1, 2)),
                og=draw(st.integers(1, 2)), kernel=ints(1, 3), stride=ints(1, 3),
                dilation=ints(1, 2), padding=ints(0, 2), size=ints(3, 8),
                transposed=draw(st.booleans()), batch=draw(st.integers(1, 3)))
    spec["output_padding"] = tuple(draw(st.integers(0, max(s, d) - 1)) for s, d in
                                   zip(spec["stride"], spec["dilation"]))
    spec["pool"] = draw(st.sampled_from([None, "max", "avg"]))
    window = ints(1, 2)
    spec.update(window=window, pool_stride=ints(1, 2),
                pool_padding=tuple(draw(st.integers(0, k // 2)) for k in window),
                pool_dilation=ints(1, 2) if spec["pool"] == "max" else (1,) * nd)
    return spec


def _ft_layer(spec):
    nd = spec["nd"]
    conv = getattr(ft.nn, f"conv_transpose{nd}d" if spec["transposed"] else f"conv{nd}d")
    extra = {"output_padding": spec["output_padding"]} if spec["transposed"] else {}

    def layer(w, x):
        h = conv(x[None], w, stride=spec["stride"], padding=spec["padding"],
                 dilation=spec["dilation"], groups=spec["groups"], **extra)
        h = fnp.tanh(h)
        if spec["pool"] == "max":
            h = getattr(ft.nn, f"max_pool{nd}d")(h, spec["window"], spec["pool_stride"],
                                                 spec["pool_padding"], spec["pool_dilation"])
        elif spec["pool"] == "avg":
            h = getattr(ft.nn, f"avg_pool{nd}d")(h, spec["window"], spec["pool_stride"],
                                                 spec["pool_padding"])
        return fnp.sum(h * h * np.float32(0.5))
    return layer


def _jax_layer(spec):
    nd = spec["nd"]
    dims = lax.ConvDimensionNumbers(tuple(range(nd + 2)), tuple(range(nd + 2)),
                                    tuple(range(nd + 2)))

    def conv(x, w, extra=(0,) * nd):
        return lax.conv_general_dilated(
            x, w, spec["stride"], [(p, p - e) for p, e in zip(spec["padding"], extra)],
            rhs_dilation=spec["dilation"], feature_group_count=spec["groups"],
            dimension_numbers=dims, precision=lax.Precision.HIGHEST)

    def conv_transpose(x, w):
        """The adjoint of conv in its input, as torch defines it: output_padding extra
        positions at the far end, which that conv (its far padding less by as much) reads."""
        out = tuple((n - 1) * s - 2 * p + d * (k - 1) + o + 1 for n, s, p, d, k, o in zip(
            x.shape[2:], spec["stride"], spec["padding"], spec["dilation"], w.shape[2:],
            spec["output_padding"]))
        z = jnp.zeros((x.shape[0], w.shape[1] * spec["groups"]) + out, x.dtype)
        return jax.vjp(lambda z: conv(z, w, spec["output_padding"]), z)[1](x)[0]

    def layer(w, x):
        h = jnp.tanh((conv_transpose if spec["transposed"] else conv)(x[None], w))
        if spec["pool"] is not None:
            pads = ((0, 0), (0, 0)) + tuple((p, p) for p in spec["pool_padding"])
            big = spec["pool"] == "max"
            h = jnp.pad(h, pads, constant_values=-jnp.inf if big else 0.0)
            h = lax.reduce_window(h, -jnp.inf if big else 0.0, lax.max if big else lax.add,
                                  (1, 1) + spec["window"], (1, 1) + spec["pool_stride"],
                                  "VALID", window_dilation=(1, 1) + spec["pool_dilation"])
            if not big:
                h = h / math.prod(spec["window"])
        return jnp.sum(h * h * np.float32(0.5))
    return layer


def _operands(spec, rng):
    g, cg, og = spec["groups"], spec["cg"], spec["og"]
    if spec["transposed"]:    # weight (C_in, C_out / groups, *k)
        w_shape, channels = (g * cg, og) + spec["kernel"], g * cg
    else:                     # weight (C_out, C_in / groups, *k)
        w_shape, channels = (g * og, cg) + spec["kernel"], g * cg
    w = rng.standard_normal(w_shape).astype(np.float32)
    xs = rng.standard_normal((spec["batch"], channels) + spec["size"]).astype(np.float32)
    return w, xs


def _transforms(layer, grad, jvp, vmap):
    return {
        "value": layer,
        "grad": grad(layer, argnums=(0, 1)),
        "jvp": lambda w, x, t: jvp(lambda w: layer(w, x), (w,), (t,)),
        "vmap(grad)": vmap(grad(layer), (None, 0)),
    }


def _agree(got, want, what):
    for k, (a, b) in enumerate(zip(optree.tree_leaves(got), optree.tree_leaves(want))):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape, f"{what}, output {k}: shape {a.shape} vs {b.shape}"
        scale = max(float(np.max(np.abs(b), initial=0.0)), 1.0)
        np.testing.assert_allclose(a, b, rtol=RTOL, atol=RTOL * scale,
                                   err_msg=f"{what}, output {k}")


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(spec=layers(), seed=st.integers(0, 2 ** 31))
def test_random_conv_and_pool_layers_on_xla_match_numpy_and_jax(spec, seed):
    rng = np.random.default_rng(seed)
    w, xs = _operands(spec, rng)
    layer = _ft_layer(spec)
    try:
        layer(w, xs[0])
    except ValueError:   # an empty output or a window larger than the input: no layer
        assume(False)
    t = rng.standard_normal(w.shape).astype(np.float32)
    ours = _transforms(layer, ft.grad, ft.jvp,
                       lambda f, axes: ft.vmap(f, in_dims=axes))
    theirs = _transforms(_jax_layer(spec), jax.grad, jax.jvp,
                         lambda f, axes: jax.vmap(f, in_axes=axes))
    for name, fn in ours.items():
        args = (w, xs) if name == "vmap(grad)" else (w, xs[0]) + ((t,) if name == "jvp" else ())
        what = f"{name} of {spec}"
        on_xla = ft.jit(fn, backend="xla")
        on_xla(*args)
        got = on_xla(*args)
        _agree(got, ft.jit(fn, backend="numpy")(*args), what + ": XLA vs the NumPy backend")
        try:
            want = jax.jit(theirs[name])(*args)
        except NotImplementedError:   # JAX has no vjp of a max pool over dilated windows
            continue
        _agree(got, want, what + ": XLA vs jax.jit")


@pytest.mark.parametrize("platform", ["cpu", "gpu"])
def test_vmap_grad_compiles_to_each_platforms_form(platform, monkeypatch):
    """Note [convolutions on XLA]: per-example weight gradients compile to convolutions with
    feature groups, none with batch groups (2.6 s against 3.8 ms for the one in issue 31),
    or on the CPU, for a strided convolution, to one batched product of its windows; max
    pooling's vjp is XLA's select-and-scatter, or on the CPU a select (Note [pooling on XLA's
    CPU])."""
    from functorch_lite.compiler import xla
    monkeypatch.setattr(xla, "target_platform", lambda jax: platform)
    spec = dict(nd=2, groups=1, cg=1, og=4, kernel=(3, 3), stride=(2, 2), dilation=(1, 1),
                padding=(1, 1), size=(8, 8), transposed=False, batch=5, output_padding=(0, 0),
                pool="max", window=(2, 2), pool_stride=(2, 2), pool_padding=(0, 0),
                pool_dilation=(1, 1))
    w, xs = _operands(spec, np.random.default_rng(0))
    fn = ft.vmap(ft.grad(_ft_layer(spec)), in_dims=(None, 0))
    hlo = ft.make_graph(fn, backend="xla")(w, xs).source
    counts = re.findall(r"batch_group_count = (\d+)", hlo)
    assert set(counts) <= {"1"}, counts
    assert "reduce_window" in hlo
    if platform == "gpu":
        assert "feature_group_count = 5" in hlo and "select_and_scatter" in hlo
    else:
        assert "feature_group_count = 5" not in hlo and "select_and_scatter" not in hlo
        assert re.search(r"dot_general.*batching_dims = \[1\] x \[1\]", hlo)
    got = ft.jit(fn, backend="xla")(w, xs)
    _agree(got, ft.jit(fn, backend="numpy")(w, xs), f"vmap(grad) on the {platform} form")


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(window=st.tuples(st.integers(1, 3), st.integers(2, 3)),
       stride=st.tuples(st.integers(1, 3), st.integers(1, 3)),
       dilation=st.tuples(st.integers(1, 2), st.integers(1, 2)),
       ties=st.booleans(), seed=st.integers(0, 2 ** 31))
def test_a_max_pool_window_holding_nan_passes_no_derivative_on_both_backends(
        window, stride, dilation, ties, seed):
    """Note [NaN in a max pool]: a window whose maximum is NaN gives its derivative to no
    element (NumPy's kernels: no element equals NaN); XLA, whose select-and-scatter would
    pick one, is masked to agree. grad, jvp and vmap(grad), overlapping and dilated windows,
    with ties."""
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal((3, 2, 7, 8)).astype(np.float32)
    if ties:
        xs = np.round(xs)
    xs[rng.random(xs.shape) < 0.15] = np.nan
    xs[0, 0, :3, :3] = np.nan   # some windows all NaN or partly NaN whatever the draw
    pool = lambda x: ft.nn.max_pool2d(x, window, stride, 0, dilation)   # noqa: E731
    try:
        w = rng.standard_normal(pool(xs[0]).shape).astype(np.float32)
    except ValueError:   # a window larger than the input
        assume(False)
    loss = lambda x: fnp.sum(fnp.where(fnp.isnan(pool(x)), 0.0, pool(x)) * w)  # noqa: E731
    t = rng.standard_normal(xs[0].shape).astype(np.float32)
    cases = {"grad": (ft.grad(loss), (xs[0],)),
             "jvp": (lambda x, t: ft.jvp(pool, (x,), (t,))[1], (xs[0], t)),
             "vmap(grad)": (ft.vmap(ft.grad(loss)), (xs,))}
    for name, (fn, args) in cases.items():
        on_xla = ft.jit(fn, backend="xla")
        on_xla(*args)   # the tracing call runs NumPy's kernels
        got, want = on_xla(*args), fn(*args)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL, equal_nan=True,
                                   err_msg=f"{name}, window {window} stride {stride} "
                                           f"dilation {dilation}")
    nan_windows = np.isnan(pool(xs[0]))
    assert nan_windows.any() and np.all(np.asarray(ft.jvp(pool, (xs[0],), (t,))[1])[
        nan_windows] == 0)   # the rule itself, eagerly: no tangent through a NaN window
