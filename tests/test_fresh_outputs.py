"""Every array a transform returns is writable and shares memory with no input and no other
output (issue 20, item 7; Note [fresh outputs] in transforms/_pytree.py): `g = grad(f)(x);
g *= 0.1` used to fail on a read-only broadcast view, and the identity's jvp, vjp and vmap
handed back the user's own arrays."""
import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import functorch_lite as ft
import functorch_lite.numpy as fnp

# functions of two (3, 4) arrays, returning arrays that pass values through unchanged
FUNCTIONS = {
    "identity": lambda x, y: x,
    "second": lambda x, y: y,
    "pair": lambda x, y: (x, y),
    "twice": lambda x, y: (x, x),
    "row": lambda x, y: x[0],
    "transpose": lambda x, y: x.T,
    "reshape": lambda x, y: fnp.reshape(x, (4, 3)),
    "broadcast": lambda x, y: fnp.broadcast_to(x[0], (3, 4)),
    "sum": lambda x, y: fnp.sum(x) * fnp.ones((3, 4)),
    "add": lambda x, y: x + y,
    "where": lambda x, y: fnp.where(x > 0, x, y),
    "stack": lambda x, y: fnp.stack([x, y]),
    "dict": lambda x, y: {"a": x, "b": x[1:]},
    "scaled": lambda x, y: 2.0 * x,
}


def _scalar(f):
    def g(x, y):
        return sum(fnp.sum(o) for o in _leaves(f(x, y)))
    return g


def _leaves(out):
    import optree
    return optree.tree_leaves(out)


def _outputs(transform, f, x, y):
    """Every array the transform hands back for f at (x, y) (for vmap, at a batch of two
    examples each: the batches are then the inputs, `given`)."""
    if transform == "vmap":
        _INPUTS[:] = [np.stack([x, -x]), np.stack([y, 2 * y])]
        return ft.vmap(f)(*_INPUTS)
    if transform == "vmap_in_dims_none":
        _INPUTS[:] = [x, np.stack([y, 2 * y])]
        return ft.vmap(f, in_dims=(None, 0))(*_INPUTS)
    if transform == "grad":
        return ft.grad(_scalar(f), argnums=(0, 1))(x, y)
    if transform == "value_and_grad_aux":
        return ft.value_and_grad(lambda a, b: (_scalar(f)(a, b), f(a, b)), has_aux=True,
                                 argnums=(0, 1))(x, y)
    if transform == "vjp":
        out, vjp_fn = ft.vjp(f, x, y)
        return out, vjp_fn(ft.tree.map(lambda o: o, out))
    if transform == "vjp_fn_of_given_cotangent":
        out, vjp_fn = ft.vjp(f, x, y)
        ct = ft.tree.map(np.ones_like, out)
        return vjp_fn(ct), ct   # the cotangent itself is an input here
    if transform == "jvp":
        return ft.jvp(f, (x, y), (y, x))
    if transform == "linearize":
        out, jvp_fn = ft.linearize(f, x, y)
        return out, jvp_fn(y, x)
    if transform == "jacrev":
        return ft.jacrev(lambda a: f(a, y))(x)
    if transform == "jacfwd":
        return ft.jacfwd(lambda a: f(a, y))(x)
    if transform == "hessian":
        return ft.hessian(lambda a: _scalar(f)(a, y))(x)
    raise AssertionError(transform)


_INPUTS = []   # the inputs of the last _outputs call

TRANSFORMS = ["vmap", "vmap_in_dims_none", "grad", "value_and_grad_aux", "vjp",
              "vjp_fn_of_given_cotangent", "jvp", "linearize", "jacrev", "jacfwd", "hessian"]

_FINITE = st.floats(-3, 3, allow_nan=False, width=64)


def _check_fresh(out, given):
    arrays = [a for a in _leaves(out) if isinstance(a, np.ndarray)]
    for a in arrays:
        assert a.flags.writeable, a
        for g in given:
            assert not np.shares_memory(a, g)
    for a, b in itertools.combinations(arrays, 2):
        assert not np.shares_memory(a, b)
    for a in arrays:        # writing works and leaves the inputs unchanged
        a *= 0.5


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(sorted(FUNCTIONS)), transform=st.sampled_from(TRANSFORMS),
       values=st.lists(_FINITE, min_size=24, max_size=24))
def test_transform_outputs_are_fresh(name, transform, values):
    x = np.array(values[:12]).reshape(3, 4)
    y = np.array(values[12:]).reshape(3, 4)
    before = (x.copy(), y.copy())
    _INPUTS[:] = [x, y]
    out = _outputs(transform, FUNCTIONS[name], x, y)
    given = list(_INPUTS)
    if transform == "vjp_fn_of_given_cotangent":
        out, ct = out
        given += _leaves(ct)
    _check_fresh(out, given)
    np.testing.assert_array_equal(x, before[0])
    np.testing.assert_array_equal(y, before[1])


@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_function_under_every_transform(name, transform):
    rng = np.random.default_rng(len(name))
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    _INPUTS[:] = [x, y]
    out = _outputs(transform, FUNCTIONS[name], x, y)
    given = list(_INPUTS)
    if transform == "vjp_fn_of_given_cotangent":
        out, ct = out
        given += _leaves(ct)
    _check_fresh(out, given)


def test_grad_of_sum_is_writable():
    """The issue's example: it was a read-only zero-stride view of the seed."""
    x = np.arange(3.0)
    g = ft.grad(lambda x: x.sum())(x)
    g *= 0.1
    np.testing.assert_allclose(g, 0.1)
    assert g.strides == (8,)


def test_custom_vjp_rule_returning_a_residual_input():
    """A bwd that returns an input it saved as a residual: the gradient is a copy."""
    @ft.custom_vjp
    def f(x, w):
        return fnp.sum(x * w)
    f.defvjp(lambda x, w: (f(x, w), (x, w)), lambda res, ct: (res[1], res[0]))
    x, w = np.arange(3.0), np.ones(3)
    gx, gw = ft.grad(f, argnums=(0, 1))(x, w)
    _check_fresh((gx, gw), [x, w])


@pytest.mark.parametrize("chunk_size", [None, 2])
def test_vmap_unbatched_outputs_are_writable(chunk_size):
    w = np.ones(3)
    out = ft.vmap(lambda x: (x * 2, w), chunk_size=chunk_size, out_dims=(0, 0))(np.ones((4, 3)))
    _check_fresh(out, [w])
    w_out = ft.vmap(lambda x: w, in_dims=0, out_dims=None)(np.ones((4, 3)))
    assert w_out.flags.writeable
