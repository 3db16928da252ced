"""Each platform's form of the XLA convolution and pooling lowerings (Note [convolutions on
XLA], Note [pooling on XLA's CPU]) against the NumPy kernels, whatever machine runs the test:
the lowerings are called in jax.jit with a context naming the platform, over random strides,
groups, dilations, paddings, windows (overlapping, disjoint, dilated), pooled axes, ties and
NaNs. The end-to-end fuzz (test_jit_xla_conv_fuzz.py) runs the form of the machine it is on."""
import math
import os
import types

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from functorch_lite.ops import conv as conv_ops, pool as pool_ops

jax = pytest.importorskip("jax", reason="the XLA backend needs JAX (pip install -e '.[xla]')")
from functorch_lite.compiler import xla_conv  # noqa: E402

EXAMPLES = max(1, int(os.environ.get("FT_FUZZ_EXAMPLES", "40")) // 2)
PLATFORMS = ["cpu", "gpu"]
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _lowered(name, platform, *operands, **params):
    ctx = types.SimpleNamespace(platform=platform)
    fn = jax.jit(lambda *a: xla_conv.LOWERINGS[name](ctx, *a, **params))
    return np.asarray(fn(*operands))


def _close(got, want, what):
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1.0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * scale, err_msg=what)


@st.composite
def weight_grads(draw):
    nd = draw(st.sampled_from([1, 2]))
    ints = lambda lo, hi: tuple(draw(st.integers(lo, hi)) for _ in range(nd))  # noqa: E731
    return dict(nd=nd, n=draw(st.integers(1, 3)), groups=draw(st.integers(1, 4)),
                cg=draw(st.integers(1, 6)), og=draw(st.integers(1, 3)), kernel=ints(1, 3),
                stride=ints(1, 3), dilation=ints(1, 2), padding=ints(0, 2), size=ints(3, 9),
                far_padding=ints(0, 2))


@pytest.mark.parametrize("platform, taps", [("cpu", None), ("cpu", 10 ** 9), ("gpu", None)])
@SETTINGS
@given(spec=weight_grads(), seed=st.integers(0, 2 ** 31))
def test_conv_weight_grad_forms_match_numpy(platform, taps, spec, seed):
    """The CPU's choice (the windows' product for few taps, no dilation, and one example or
    one group, else the feature-group convolution), its windows form for every kernel
    (`taps`), and the GPU's feature-group convolution, with paddings that the windows may
    not reach."""
    rng = np.random.default_rng(seed)
    c, o = spec["groups"] * spec["cg"], spec["groups"] * spec["og"]
    x = rng.standard_normal((spec["n"], c) + spec["size"]).astype(np.float32)
    padding = tuple(zip(spec["padding"], spec["far_padding"]))
    counts = conv_ops.window_counts(
        [n + lo + hi for n, (lo, hi) in zip(spec["size"], padding)], spec["kernel"],
        spec["stride"], spec["dilation"])
    assume(min(counts) > 0)
    g = rng.standard_normal((spec["n"], o) + tuple(counts)).astype(np.float32)
    params = dict(kernel_shape=spec["kernel"], stride=spec["stride"], padding=padding,
                  dilation=spec["dilation"], groups=spec["groups"])
    want = np.asarray(conv_ops.conv_weight_grad(x, g, **params))
    assert want.shape == (o, spec["cg"]) + spec["kernel"]
    with pytest.MonkeyPatch.context() as patch:
        if taps is not None:
            patch.setattr(xla_conv, "_FEW_TAPS", taps)
        got = _lowered("conv_weight_grad", platform, x, g, **params)
    _close(got, want, f"{platform} {spec}")


@st.composite
def pools(draw):
    nd = draw(st.sampled_from([1, 2]))
    ints = lambda lo, hi: tuple(draw(st.integers(lo, hi)) for _ in range(nd))  # noqa: E731
    lead = draw(st.integers(1, 2))
    shape = tuple(draw(st.integers(1, 3)) for _ in range(lead)) + ints(3, 9)
    axes = tuple(sorted(draw(st.permutations(range(len(shape))))[:nd]))
    return dict(shape=shape, axes=axes, window=ints(1, 3), stride=ints(1, 3),
                dilation=ints(1, 2), ties=draw(st.booleans()), nans=draw(st.booleans()))


@pytest.mark.parametrize("platform", PLATFORMS)
@SETTINGS
@given(spec=pools(), seed=st.integers(0, 2 ** 31))
def test_max_pool_derivative_forms_match_numpy(platform, spec, seed):
    """pool_max_select (jvp) and pool_max_scatter (vjp): the CPU's selects by block
    (disjoint windows) or by pads (overlapping), and the GPU's select-and-scatter, each
    window's first maximum taken in the NumPy kernels' order; a NaN window passes nothing."""
    rng = np.random.default_rng(seed)
    params = {k: spec[k] for k in ("axes", "window", "stride", "dilation")}
    counts = conv_ops.window_counts([spec["shape"][a] for a in spec["axes"]], spec["window"],
                                    spec["stride"], spec["dilation"])
    assume(min(counts) > 0)
    x = rng.standard_normal(spec["shape"]).astype(np.float32)
    if spec["ties"]:
        x = np.round(x)
    if spec["nans"]:
        x[rng.random(x.shape) < 0.1] = np.nan
    pooled = list(spec["shape"])
    for a, n in zip(spec["axes"], counts):
        pooled[a] = n
    g = rng.standard_normal(pooled).astype(np.float32)
    u = rng.standard_normal(spec["shape"]).astype(np.float32)
    what = f"{platform} {spec}"
    _close(_lowered("pool_max_scatter", platform, x, g, **params),
           np.asarray(pool_ops.pool_max_scatter(x, g, **params)), "scatter " + what)
    _close(_lowered("pool_max_select", platform, x, u, **params),
           np.asarray(pool_ops.pool_max_select(x, u, **params)), "select " + what)
    assert math.prod(pooled) == g.size
