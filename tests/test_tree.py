"""ft.tree: pytree utilities over optree, against hand-built expectations and jax's semantics
of ravel_pytree (round trip, dtype of the vector, dtypes restored)."""
import collections

import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp


def _params(rng):
    return {"w": rng.standard_normal((3, 2)), "b": rng.standard_normal(2).astype(np.float32),
            "layers": [rng.standard_normal(4), (rng.standard_normal(()), None)]}


def test_map_leaves_structure():
    rng = np.random.default_rng(0)
    p = _params(rng)
    leaves = ft.tree.leaves(p)
    assert len(leaves) == 4                       # None is an empty node, as in JAX
    doubled = ft.tree.map(lambda x: 2 * x, p)
    np.testing.assert_array_equal(doubled["w"], 2 * p["w"])
    assert doubled["layers"][1][1] is None
    summed = ft.tree.map(lambda x, y: x + y, p, doubled)
    np.testing.assert_allclose(summed["layers"][0], 3 * p["layers"][0])
    assert ft.tree.structure(p) == ft.tree.structure(doubled)
    assert ft.tree.structure(p) != ft.tree.structure({"w": 1.0})
    flat, spec = ft.tree.flatten(p)
    back = ft.tree.unflatten(spec, flat)
    np.testing.assert_array_equal(back["b"], p["b"])


def test_stack_unstack_round_trip_and_ensemble():
    rng = np.random.default_rng(1)
    models = [_params(rng) for _ in range(3)]
    stacked = ft.tree.stack(models)
    assert stacked["w"].shape == (3, 3, 2) and stacked["b"].dtype == np.float32
    for i, m in enumerate(ft.tree.unstack(stacked)):
        for a, b in zip(ft.tree.leaves(m), ft.tree.leaves(models[i])):
            assert np.shape(a) == np.shape(b) and isinstance(a, np.ndarray)
            np.testing.assert_array_equal(a, b)
    # an ensemble: vmap over the stacked parameters == a loop over the models
    x = rng.standard_normal(3)

    def predict(p, x):
        return fnp.tanh(x @ p["w"] + p["b"]).sum() * p["layers"][1][0]
    out = ft.vmap(predict, in_dims=(0, None))(stacked, x)
    np.testing.assert_allclose(out, [predict(m, x) for m in models], rtol=1e-6)


def test_stack_errors():
    with pytest.raises(ValueError, match="structure"):
        ft.tree.stack([{"a": np.ones(2)}, {"b": np.ones(2)}])
    with pytest.raises(ValueError, match="at least one"):
        ft.tree.stack([])
    with pytest.raises(ValueError, match="share one size"):
        ft.tree.unstack({"a": np.ones(2), "b": np.ones(3)})


def test_ravel_round_trip_dtypes_and_order():
    rng = np.random.default_rng(2)
    p = _params(rng)
    vec, unravel = ft.tree.ravel(p)
    assert vec.shape == (6 + 2 + 4 + 1,) and vec.dtype == np.float64
    expected = np.concatenate([np.ravel(x).astype(np.float64) for x in ft.tree.leaves(p)])
    np.testing.assert_array_equal(vec, expected)
    back = unravel(vec)
    for a, b in zip(ft.tree.leaves(back), ft.tree.leaves(p)):
        assert a.dtype == b.dtype and a.shape == np.shape(b)
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="shape"):
        unravel(vec[:-1])
    f32_vec, _ = ft.tree.ravel({"a": np.ones(2, np.float32)})
    assert f32_vec.dtype == np.float32


def test_ravel_under_grad_matches_tree_grad():
    """grad through unravel gives the raveled gradient of the tree function."""
    rng = np.random.default_rng(3)
    Point = collections.namedtuple("Point", "x y")
    p = Point(rng.standard_normal((2, 2)), rng.standard_normal(3))

    def loss(p):
        return fnp.sum(fnp.sin(p.x)) + fnp.sum(p.y ** 3)
    vec, unravel = ft.tree.ravel(p)
    g_vec = ft.grad(lambda v: loss(unravel(v)))(vec)
    g_tree = ft.grad(loss)(p)
    np.testing.assert_allclose(g_vec, ft.tree.ravel(g_tree)[0], rtol=1e-12)
    # and ravel itself inside a transform
    g = ft.grad(lambda p: fnp.sum(ft.tree.ravel(p)[0] ** 2))(p)
    np.testing.assert_allclose(g.x, 2 * p.x)
    np.testing.assert_allclose(g.y, 2 * p.y)


def test_unravel_keeps_the_imaginary_part_of_a_complex_vector():
    """A real leaf unraveled from a complex vector comes back complex (issue 20: the imaginary
    part was dropped silently)."""
    p = {"w": np.arange(4.0).reshape(2, 2), "b": np.ones(2, np.float32), "n": np.arange(2)}
    vec, unravel = ft.tree.ravel(p)
    back = unravel(vec * (1 + 2j))
    assert (back["w"].dtype, back["b"].dtype, back["n"].dtype) == \
        (np.complex128, np.complex64, np.complex128)
    for name in p:
        np.testing.assert_array_equal(back[name], p[name] * (1 + 2j))
    # a tree of real and complex leaves round-trips, its real leaves complex and exact
    mixed = {"re": np.array([1.5, -2.0]), "z": np.array([1 + 1j])}
    vec, unravel = ft.tree.ravel(mixed)
    assert vec.dtype == np.complex128
    back = unravel(vec)
    np.testing.assert_array_equal(back["re"], mixed["re"])
    assert back["re"].dtype == np.complex128 and back["z"].dtype == np.complex128
    np.testing.assert_array_equal(unravel(1j * vec)["re"], 1j * mixed["re"])
    # under grad, a real vector still gives real leaves (and real gradients)
    g = ft.grad(lambda v: fnp.sum(unravel(v)["re"].real ** 2))(vec.real.astype(np.float64))
    np.testing.assert_allclose(g, [3.0, -4.0, 0.0])


# -- issue 33: map_with_path, reduce, register_pytree_node, save / load ----------------------

def test_map_with_path_gives_the_keys_to_each_leaf_as_jax():
    rng = np.random.default_rng(1)
    p = _params(rng)
    paths = ft.tree.leaves(ft.tree.map_with_path(lambda path, x: repr(path), p))
    assert paths == [repr(("b",)), repr(("layers", 0)), repr(("layers", 1, 0)), repr(("w",))]
    out = ft.tree.map_with_path(lambda path, x, y: x + y if path[0] == "w" else x, p, p)
    np.testing.assert_array_equal(out["w"], 2 * p["w"])
    np.testing.assert_array_equal(out["b"], p["b"])
    jtu = pytest.importorskip("jax.tree_util")
    jax_paths = jtu.tree_leaves(jtu.tree_map_with_path(
        lambda path, x: repr(tuple(getattr(k, "key", getattr(k, "idx", None)) for k in path)),
        p))
    assert jax_paths == paths


def test_reduce_folds_the_leaves_as_functools_reduce():
    p = _params(np.random.default_rng(2))
    assert ft.tree.reduce(lambda n, x: n + np.size(x), p, 0) == 6 + 2 + 4 + 1
    total = ft.tree.reduce(lambda a, b: a + np.sum(b), p, 0.0)
    np.testing.assert_allclose(total, sum(np.sum(x) for x in ft.tree.leaves(p)), rtol=1e-6)
    assert ft.tree.reduce(max, [3, (7, 1)]) == 7                 # the first leaf starts the fold
    with pytest.raises(TypeError):
        ft.tree.reduce(max, {})


class _Pair:
    def __init__(self, a, b, name):
        self.a, self.b, self.name = a, b, name


ft.tree.register_pytree_node(_Pair, lambda p: ((p.a, p.b), p.name),
                             lambda name, children: _Pair(*children, name))


def test_register_pytree_node_function_form_under_transforms():
    pair = _Pair(np.array([1.0, 2.0]), np.array(3.0), "p")
    g = ft.grad(lambda p: fnp.sum(p.a ** 2) * p.b)(pair)
    assert isinstance(g, _Pair) and g.name == "p"
    np.testing.assert_allclose(g.a, 2 * pair.a * 3.0)
    np.testing.assert_allclose(g.b, 5.0)
    batched = ft.vmap(lambda p: p.a * p.b)(_Pair(np.ones((2, 2)), np.array([1.0, 2.0]), "q"))
    np.testing.assert_array_equal(batched, [[1, 1], [2, 2]])
    assert ft.tree.leaves(pair)[1] is pair.b
    np.testing.assert_allclose(ft.jit(lambda p: p.a * p.b)(pair), pair.a * 3.0)


def test_save_load_round_trip_with_readable_keys(tmp_path):
    rng = np.random.default_rng(3)
    params = {"layers": [{"w": rng.standard_normal((3, 2)), "b": np.zeros(2, np.float32)},
                         {"w": rng.standard_normal((2, 1)), "b": np.zeros(1, np.float32)}],
              "scale": 0.5}
    path = tmp_path / "params.npz"
    ft.tree.save(path, params)
    with np.load(path) as raw:
        assert sorted(raw.files) == ["layers/0/b", "layers/0/w", "layers/1/b", "layers/1/w",
                                     "scale"]
        np.testing.assert_array_equal(raw["layers/1/w"], params["layers"][1]["w"])
    like = ft.tree.map(np.zeros_like, params)
    back = ft.tree.load(path, like=like)
    assert ft.tree.structure(back) == ft.tree.structure(params)
    for a, b in zip(ft.tree.leaves(back), ft.tree.leaves(params)):
        np.testing.assert_array_equal(a, b)
        assert np.asarray(a).dtype == np.asarray(b).dtype


def test_load_refuses_a_structure_or_shape_mismatch(tmp_path):
    path = tmp_path / "p.npz"
    ft.tree.save(path, {"w": np.ones((2, 2)), "b": np.ones(2)})
    with pytest.raises(ValueError, match=r"missing entries \['c'\], unexpected entries \['b'\]"):
        ft.tree.load(path, like={"w": np.ones((2, 2)), "c": np.ones(2)})
    with pytest.raises(ValueError, match=r"unexpected entries \['b'\]"):
        ft.tree.load(path, like={"w": np.ones((2, 2))})
    with pytest.raises(ValueError, match=r"entry 'w' has shape \(2, 2\).*shape \(3,\)"):
        ft.tree.load(path, like={"w": np.ones(3), "b": np.ones(2)})
    with pytest.raises(ValueError, match="entry name '0'"):
        ft.tree.save(tmp_path / "q.npz", {0: np.ones(1), "0": np.ones(1)})


def test_the_gradient_through_unravel_is_one_concatenation():
    """unravel splits the vector with one op, whose vjp concatenates the pieces' cotangents:
    no scatter-add per leaf (issue 31), and the gradient is the leaves' gradients raveled."""
    rng = np.random.default_rng(3)
    p = {"w": rng.standard_normal((3, 2)), "b": rng.standard_normal(2), "c": rng.standard_normal(4)}
    vec, unravel = ft.tree.ravel(p)

    def f(v):
        t = unravel(v)
        return fnp.sum(fnp.sin(t["w"])) + fnp.sum(t["b"] ** 3) + fnp.sum(t["c"] * t["c"])
    graph = ft.make_graph(ft.grad(f))(vec)
    ops = [e.op.name for e in graph.optimized.eqns]
    assert "scatter" not in ops and ops.count("concatenate") == 1, ops
    want = np.concatenate([np.cos(p["b"]) * 0 + 3 * p["b"] ** 2, 2 * p["c"],
                           np.cos(p["w"]).ravel()])
    np.testing.assert_allclose(ft.grad(f)(vec), want, rtol=1e-12)
    np.testing.assert_allclose(ft.jit(ft.grad(f))(vec), want, rtol=1e-12)
    # per-example under vmap: each row's gradient
    vs = vec + rng.standard_normal((3, vec.size))
    rows = ft.vmap(ft.grad(f))(vs)
    for v, row in zip(vs, rows):
        np.testing.assert_allclose(row, ft.grad(f)(v), rtol=1e-12)
