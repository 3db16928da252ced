"""Hypothesis properties: random shapes, in_dims/out_dims and compositions of elementwise,
reduction and shape ops, vmapped, against a Python loop over the batch."""
import warnings

import numpy as np
from hypothesis import given, settings, strategies as st

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.testing import check_vmap

SETTINGS = settings(max_examples=60, deadline=None)


def _axis(draw, rank):
    return draw(st.integers(-rank, rank - 1))


def _step(draw, shape):
    """One op valid for an example of `shape`, as (description, fn)."""
    rank = len(shape)
    choices = ["sin", "exp_tanh", "square_plus", "where_pos"]
    if rank >= 1:
        choices += ["sum", "max", "mean", "cumsum", "flip", "slice", "concat", "sort",
                    "argmax", "roll", "pad", "take"]
    if rank >= 2:
        choices += ["transpose", "swapaxes", "reshape_flat", "diagonal", "matmul_self"]
    if rank <= 2:
        choices += ["expand_dims", "broadcast"]
    name = draw(st.sampled_from(choices))
    if name in ("sum", "max", "mean"):
        axis = draw(st.one_of(st.none(), st.just(_axis(draw, rank)),
                              st.just(tuple(sorted({_axis(draw, rank) % rank
                                                    for _ in range(2)})))))
        keepdims = draw(st.booleans())
        fn = {"sum": fnp.sum, "max": fnp.max, "mean": fnp.mean}[name]
        return f"{name}({axis}, {keepdims})", lambda x: fn(x, axis=axis, keepdims=keepdims)
    if name in ("cumsum", "sort", "flip", "roll", "argmax"):
        axis = _axis(draw, rank)
        fn = {"cumsum": lambda x: fnp.cumsum(x, axis=axis),
              "sort": lambda x: fnp.sort(x, axis=axis),
              "flip": lambda x: fnp.flip(x, axis=axis),
              "roll": lambda x: fnp.roll(x, 1, axis=axis),
              "argmax": lambda x: fnp.argmax(x, axis=axis) * 1.0}[name]
        return f"{name}({axis})", fn
    if name == "slice":
        return "x[..., 1:]", lambda x: x[..., 1:]
    if name == "take":
        idx = np.array(draw(st.lists(st.integers(0, shape[0] - 1), min_size=1, max_size=3))) \
            if shape[0] else np.zeros(0, int)
        return f"x[{idx.tolist()}]", lambda x: x[idx]
    if name == "concat":
        axis = _axis(draw, rank)
        return f"concat({axis})", lambda x: fnp.concatenate([x, 2 * x], axis=axis)
    if name == "pad":
        return "pad", lambda x: fnp.pad(x, 1)
    if name == "transpose":
        return "transpose", lambda x: x.T
    if name == "swapaxes":
        a, b = _axis(draw, rank), _axis(draw, rank)
        return f"swapaxes({a}, {b})", lambda x: fnp.swapaxes(x, a, b)
    if name == "reshape_flat":
        return "reshape(-1)", lambda x: fnp.reshape(x, (-1,))
    if name == "diagonal":
        return "diagonal", lambda x: fnp.diagonal(x, axis1=0, axis2=-1)
    if name == "matmul_self":
        return "x @ x.T", lambda x: x @ fnp.swapaxes(x, -1, -2)
    if name == "expand_dims":
        axis = draw(st.integers(0, rank))
        return f"expand_dims({axis})", lambda x: fnp.expand_dims(x, axis)
    if name == "broadcast":
        return "broadcast", lambda x: fnp.broadcast_to(x, (2,) + tuple(x.shape))
    return name, {"sin": fnp.sin, "exp_tanh": lambda x: fnp.exp(fnp.tanh(x)),
                  "square_plus": lambda x: x * x + 1.0,
                  "where_pos": lambda x: fnp.where(x > 0, x, 0.5 * x)}[name]


@st.composite
def programs(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=3)))
    size = draw(st.integers(1, 4))
    y_rank = draw(st.integers(0, len(shape)))
    y_shape = shape[len(shape) - y_rank:]
    y_batched = draw(st.booleans())
    steps = []
    probe = np.zeros(shape)
    for _ in range(draw(st.integers(1, 4))):
        desc, fn = _step(draw, probe.shape)
        try:
            probe = np.asarray(fn(probe), dtype=float)
        except (ValueError, IndexError):
            break
        steps.append((desc, fn))
    x_dim = draw(st.integers(-len(shape) - 1, len(shape)))
    y_dim = draw(st.integers(-y_rank - 1, y_rank)) if y_batched else None
    out_dim = draw(st.integers(-probe.ndim - 1, probe.ndim))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    x = rng.standard_normal(_insert(shape, size, x_dim))
    y = rng.standard_normal(_insert(y_shape, size, y_dim) if y_batched else y_shape)
    return steps, x, y, (x_dim, y_dim), out_dim


def _insert(shape, size, dim):
    dim %= len(shape) + 1
    return shape[:dim] + (size,) + shape[dim:]


@SETTINGS
@given(programs())
def test_random_programs_match_the_loop(program):
    steps, x, y, in_dims, out_dim = program

    def f(x, y):
        x = x * y
        for _, step in steps:
            x = step(x)
        return x

    with warnings.catch_warnings():
        warnings.simplefilter("error", ft.PerformanceWarning)
        check_vmap(f, (x, y), in_dims=in_dims, out_dims=out_dim, rtol=1e-10, atol=1e-12)


@SETTINGS
@given(programs(), st.integers(1, 3))
def test_chunking_does_not_change_results(program, chunk_size):
    steps, x, y, in_dims, out_dim = program

    def f(x, y):
        x = x + y
        for _, step in steps:
            x = step(x)
        return x

    full = ft.vmap(f, in_dims=in_dims, out_dims=out_dim)(x, y)
    chunked = ft.vmap(f, in_dims=in_dims, out_dims=out_dim, chunk_size=chunk_size)(x, y)
    np.testing.assert_allclose(chunked, full, rtol=1e-12, atol=1e-14)


@SETTINGS
@given(programs())
def test_nested_vmap_matches_flat(program):
    """vmap(vmap(f)) over a (2, B) batch equals vmap(f) over the flattened 2*B batch."""
    steps, x, y, (x_dim, _), _ = program

    def f(x):
        for _, step in steps:
            x = step(x)
        return x

    x = np.moveaxis(x, x_dim, 0)
    xx = np.stack([x, -x])
    nested = ft.vmap(ft.vmap(f, in_dims=-1), in_dims=0)(np.moveaxis(xx, 1, -1))
    flat = ft.vmap(f)(xx.reshape((-1,) + xx.shape[2:]))
    np.testing.assert_allclose(nested.reshape(flat.shape), flat, rtol=1e-12, atol=1e-14)
