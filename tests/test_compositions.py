"""The composition suite: every differentiable op of the sample database through stacks of
transforms, in float64, against loops, finite differences and the other mode.

Per op, in one item (test_forward_ops.py has jvp vs finite differences and the transpose
identity):
  check_jacfwd_jacrev   jacfwd == jacrev (all samples)
  check_vmap_jvp        vmap of jvp over a batch of tangents == a loop of jvps
  check_jvp_vmap        jvp(vmap(f)) == vmap(jvp(f)) == a loop, batched primals and tangents
  check_hvp             jvp(grad(g)) == grad(<grad g, v>) == finite differences of grad g
  check_hessian         hessian(g) symmetric, == jacrev(jacrev(g)) == jacfwd(jacrev(g))
where g(x) = <u, f(x)> for a fixed random u makes any op a scalar function of one flat vector x
(all the float inputs concatenated). The batched and second-order checks use the first
SUBSET samples of each op to keep the suite fast (the first-order checks see all samples).

Whole programs: per-example HVPs vmap(hvp), per-example Jacobians vmap(jacrev(f)),
jacfwd(jacrev(loss)) of an MLP against finite differences, vmap(jvp(grad(f))); and hypothesis
draws random compositions of ops through random stacks of two or three transforms.
"""
import numpy as np
import optree
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.testing import (float_leaf_function, float_outputs, numerical_jvp,
                                    real_outputs)
from functorch_lite.testing.samples import OP_DB
from op_cases import check_each

DIFF_OPS = [info for info in OP_DB if info.differentiable and not info.creation]
SUBSET = 2
B = 3
RTOL, ATOL = 1e-7, 1e-9
OPS = pytest.mark.parametrize("info", DIFF_OPS, ids=lambda i: i.name)


def f64_samples(info, rng):
    out = []
    for s in info.samples(rng):
        floats = [x for x in s.leaves() if x.dtype.kind in "fc"]
        if floats and all(x.dtype == np.float64 for x in floats):
            out.append(s)
    return out


def skip_if_listed(info, name):
    if info.skips.get(name):
        pytest.skip(info.skips[name])


def assert_trees_close(actual, expected, what, rtol=RTOL, atol=ATOL):
    a_leaves, e_leaves = optree.tree_leaves(actual), optree.tree_leaves(expected)
    assert len(a_leaves) == len(e_leaves), what
    for k, (a, e) in enumerate(zip(a_leaves, e_leaves)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(e), rtol=rtol, atol=atol,
                                   err_msg=f"{what}, leaf {k}")


def flat_scalar_function(info, sample, rng):
    """(g, x0): g(x) = <u, f(x)> where x is every float input of the sample flattened and
    concatenated, u a fixed random weight per float output."""
    f, floats = float_leaf_function(info.fn, sample)
    f = real_outputs(float_outputs(f))
    shapes = [x.shape for x in floats]
    sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    u = [rng.standard_normal(np.shape(o)) for o in f(*floats)]

    def g(x):
        pieces, start = [], 0
        for shape, size in zip(shapes, sizes):
            pieces.append(fnp.reshape(x[start:start + size], shape))
            start += size
        return sum(fnp.sum(o * w) for o, w in zip(f(*pieces), u))
    return g, np.concatenate([x.ravel() for x in floats])


# ------------------------------------------------------------------------------------------
# Per-op compositions
# ------------------------------------------------------------------------------------------

def check_jacfwd_jacrev(info):
    skip_if_listed(info, "test_jacfwd_jacrev")
    rng = np.random.default_rng(3)
    for sample in f64_samples(info, rng):
        f, floats = float_leaf_function(info.fn, sample)
        f = real_outputs(float_outputs(f))   # jacrev refuses complex outputs (as JAX)
        nums = tuple(range(len(floats)))
        fwd = ft.jacfwd(f, argnums=nums)(*floats)
        rev = ft.jacrev(f, argnums=nums)(*floats)
        assert optree.tree_structure(fwd) == optree.tree_structure(rev), sample.name
        for a, b in zip(optree.tree_leaves(fwd), optree.tree_leaves(rev)):
            assert a.shape == b.shape, (sample.name, a.shape, b.shape)
        assert_trees_close(fwd, rev, f"{info.name} {sample.name}: jacfwd vs jacrev")


def check_vmap_jvp(info):
    skip_if_listed(info, "test_vmap_jvp")
    rng = np.random.default_rng(4)
    for sample in f64_samples(info, rng)[:SUBSET]:
        f, floats = float_leaf_function(info.fn, sample)
        f = float_outputs(f)  # integer outputs have float0 tangents (test_forward.py)
        tangents = [rng.standard_normal((B,) + x.shape) for x in floats]
        batched = ft.vmap(lambda *ts: ft.jvp(f, tuple(floats), ts)[1])(*tangents)
        for b in range(B):
            _, expected = ft.jvp(f, tuple(floats), tuple(t[b] for t in tangents))
            got = optree.tree_map(lambda t: t[b], batched)
            assert_trees_close(got, expected, f"{info.name} {sample.name}: vmap(jvp) example {b}")


def check_jvp_vmap(info):
    skip_if_listed(info, "test_jvp_vmap")
    examples = [f64_samples(info, np.random.default_rng(10 + b))[:SUBSET] for b in range(B)]
    rng = np.random.default_rng(5)
    for k, sample in enumerate(examples[0]):
        f, floats = float_leaf_function(info.fn, sample)   # integer leaves of example 0
        f = float_outputs(f)  # integer outputs have float0 tangents (test_forward.py)
        per_example = [float_leaf_function(info.fn, ex[k])[1] for ex in examples]
        primals = tuple(np.stack(xs) for xs in zip(*per_example))
        tangents = tuple(rng.standard_normal(p.shape) for p in primals)
        out_a, t_a = ft.jvp(ft.vmap(f), primals, tangents)
        out_b, t_b = ft.vmap(lambda *pt: ft.jvp(f, pt[:len(floats)], pt[len(floats):]))(
            *primals, *tangents)
        what = f"{info.name} {sample.name}"
        assert_trees_close(out_a, out_b, what + ": jvp(vmap) vs vmap(jvp) primal")
        assert_trees_close(t_a, t_b, what + ": jvp(vmap) vs vmap(jvp) tangent")
        for b in range(B):
            _, expected = ft.jvp(f, tuple(p[b] for p in primals), tuple(t[b] for t in tangents))
            assert_trees_close(optree.tree_map(lambda t: t[b], t_a), expected,
                               what + f": jvp(vmap) vs loop, example {b}")


def check_hvp(info):
    skip_if_listed(info, "test_hvp")
    rng = np.random.default_rng(6)
    for sample in f64_samples(info, rng)[:SUBSET]:
        g, x = flat_scalar_function(info, sample, rng)
        v = rng.standard_normal(x.shape)
        fwd_over_rev = ft.jvp(ft.grad(g), (x,), (v,))[1]
        rev_over_rev = ft.grad(lambda x: fnp.sum(ft.grad(g)(x) * v))(x)
        fd = numerical_jvp(ft.grad(g), (x,), (v,), eps=1e-5)[0]
        what = f"{info.name} {sample.name}"
        np.testing.assert_allclose(fwd_over_rev, rev_over_rev, rtol=1e-6, atol=1e-8,
                                   err_msg=what + ": jvp(grad) vs grad(<grad, v>)")
        np.testing.assert_allclose(fwd_over_rev, fd, rtol=1e-4, atol=1e-5,
                                   err_msg=what + ": jvp(grad) vs finite differences of grad")


def check_hessian(info):
    skip_if_listed(info, "test_hessian")
    rng = np.random.default_rng(7)
    for sample in f64_samples(info, rng)[:SUBSET]:
        g, x = flat_scalar_function(info, sample, rng)
        h = ft.hessian(g)(x)
        what = f"{info.name} {sample.name}"
        assert h.shape == x.shape * 2
        np.testing.assert_allclose(h, h.T, rtol=1e-6, atol=1e-8, err_msg=what + ": symmetry")
        np.testing.assert_allclose(h, ft.jacrev(ft.jacrev(g))(x), rtol=1e-6, atol=1e-8,
                                   err_msg=what + ": hessian vs jacrev(jacrev)")
        np.testing.assert_allclose(h, ft.jacfwd(ft.jacrev(g))(x), rtol=1e-6, atol=1e-8,
                                   err_msg=what + ": hessian vs jacfwd(jacrev)")


# ------------------------------------------------------------------------------------------
# Whole programs
# ------------------------------------------------------------------------------------------

def mlp_params(rng, sizes=(4, 6, 3)):
    return {f"w{i}": rng.standard_normal((m, n)) * 0.7 for i, (m, n) in
            enumerate(zip(sizes[:-1], sizes[1:]))} | {
        f"b{i}": rng.standard_normal(n) * 0.1 for i, n in enumerate(sizes[1:])}


def mlp_loss(params, x, y):
    h = fnp.tanh(x @ params["w0"] + params["b0"])
    logits = h @ params["w1"] + params["b1"]
    return ft.nn.cross_entropy(logits, y)


def test_per_example_hvp():
    rng = np.random.default_rng(8)
    a = rng.standard_normal((5, 5))

    def f(x):
        return fnp.sum(fnp.tanh(a @ x) ** 2)

    def hvp(x, v):
        return ft.jvp(ft.grad(f), (x,), (v,))[1]
    xs, vs = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    got = ft.vmap(hvp)(xs, vs)
    for b in range(4):
        t = np.tanh(a @ xs[b])
        analytic = a.T @ np.diag(2 * (1 - t ** 2) * (1 - 3 * t ** 2)) @ a
        np.testing.assert_allclose(got[b], analytic @ vs[b], rtol=1e-10)


def test_per_example_jacobians():
    rng = np.random.default_rng(9)
    w = rng.standard_normal((3, 4))

    def f(x):
        return fnp.sin(w @ x) * fnp.sum(x ** 2)
    xs = rng.standard_normal((5, 4))
    jacs = ft.vmap(ft.jacrev(f))(xs)
    fwd = ft.vmap(ft.jacfwd(f))(xs)
    for b in range(5):
        x = xs[b]
        expected = np.cos(w @ x)[:, None] * w * np.sum(x ** 2) + \
            np.sin(w @ x)[:, None] * 2 * x[None, :]
        np.testing.assert_allclose(jacs[b], expected, rtol=1e-10)
        np.testing.assert_allclose(fwd[b], expected, rtol=1e-10)


def test_mlp_hessian_by_jacfwd_jacrev_matches_finite_differences():
    rng = np.random.default_rng(10)
    params = mlp_params(rng)
    x, y = rng.standard_normal((5, 4)), rng.integers(0, 3, 5)
    w0 = params["w0"]

    def loss_w0(w0):
        return mlp_loss(params | {"w0": w0}, x, y)
    h = ft.jacfwd(ft.jacrev(loss_w0))(w0)
    assert h.shape == (4, 6, 4, 6)
    # column (i, j) of the Hessian = finite difference of the gradient along e_ij
    grad_fn = ft.grad(loss_w0)
    for i, j in [(0, 0), (1, 3), (3, 5)]:
        e = np.zeros_like(w0)
        e[i, j] = 1.0
        fd = numerical_jvp(grad_fn, (w0,), (e,), eps=1e-5)[0]
        np.testing.assert_allclose(h[..., i, j], fd, rtol=1e-5, atol=1e-7)
    flat = h.reshape(24, 24)
    np.testing.assert_allclose(flat, flat.T, atol=1e-12)
    # the whole parameter pytree: blocks nest output-structure outside input-structure
    full = ft.jacfwd(ft.jacrev(mlp_loss))(params, x, y)
    np.testing.assert_allclose(full["w0"]["w0"], h, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(full["b1"]["w0"].transpose(1, 2, 0),
                               full["w0"]["b1"], rtol=1e-10, atol=1e-12)


def test_vmap_jvp_grad_three_levels():
    rng = np.random.default_rng(11)
    params = mlp_params(rng)
    xs, ys = rng.standard_normal((3, 2, 4)), rng.integers(0, 3, (3, 2))
    v = optree.tree_map(lambda p: rng.standard_normal(p.shape), params)

    def hvp(x, y):
        return ft.jvp(lambda p: ft.grad(mlp_loss)(p, x, y), (params,), (v,))[1]
    got = ft.vmap(hvp)(xs, ys)
    for b in range(3):
        expected = numerical_jvp(lambda p: ft.grad(mlp_loss)(p, xs[b], ys[b]), (params,),
                                 (v,), eps=1e-5)
        for key, g, e in zip(sorted(params), optree.tree_leaves(got), expected):
            np.testing.assert_allclose(g[b], e, rtol=1e-5, atol=1e-7, err_msg=key)


# ------------------------------------------------------------------------------------------
# Hypothesis: random programs through random stacks of transforms
# ------------------------------------------------------------------------------------------

# smooth and value-bounded (no exp(exp(exp(x))) overflow) so finite differences stay accurate
UNARY = [fnp.sin, fnp.tanh, lambda x: fnp.exp(fnp.tanh(x)), lambda x: x * fnp.tanh(x),
         lambda x: fnp.log1p(x * x),
         lambda x: fnp.cumsum(x, axis=-1), lambda x: fnp.flip(x, -1) * 0.5 + x,
         lambda x: fnp.sort(x, axis=-1), lambda x: ft.nn.softmax(x),
         lambda x: fnp.roll(x, 1, axis=-1), lambda x: x / (1.0 + x * x)]


def build_program(choices, w):
    """x (n,) -> scalar: a chain of unary ops and a matrix product, summed with weights."""
    def f(x):
        h = x
        for k in choices:
            h = UNARY[k](h) if k < len(UNARY) else w @ h
        return fnp.sum(h * fnp.cos(x))
    return f


TRANSFORM_STACKS = ["grad", "jvp_grad", "vmap_grad", "vmap_jvp", "jacfwd", "jacfwd_jacrev",
                    "vmap_jvp_grad", "grad_grad_dot", "vmap_jacfwd", "vmap_linearize",
                    "jvp_jvp"]


def run_stack(stack, f, xs, vs):
    """The stack applied to f on a batch xs (B, n) with directions vs, and a loop reference."""
    def hvp(x, v):
        return ft.jvp(ft.grad(f), (x,), (v,))[1]
    if stack == "grad":
        return [ft.grad(f)(x) for x in xs], [numerical_grad(f, x) for x in xs]
    if stack == "jvp_grad":
        return [hvp(x, v) for x, v in zip(xs, vs)], [fd_hvp(f, x, v) for x, v in zip(xs, vs)]
    if stack == "vmap_grad":
        return list(ft.vmap(ft.grad(f))(xs)), [numerical_grad(f, x) for x in xs]
    if stack == "vmap_jvp":
        got = ft.vmap(lambda x, v: ft.jvp(f, (x,), (v,))[1])(xs, vs)
        return list(got), [numerical_jvp(f, (x,), (v,))[0] for x, v in zip(xs, vs)]
    if stack == "jacfwd":
        return [ft.jacfwd(f)(x) for x in xs], [numerical_grad(f, x) for x in xs]
    if stack == "jacfwd_jacrev":
        return ([ft.jacfwd(ft.jacrev(f))(x) @ v for x, v in zip(xs, vs)],
                [fd_hvp(f, x, v) for x, v in zip(xs, vs)])
    if stack == "vmap_jvp_grad":
        return list(ft.vmap(hvp)(xs, vs)), [fd_hvp(f, x, v) for x, v in zip(xs, vs)]
    if stack == "grad_grad_dot":
        got = [ft.grad(lambda x, v=v: fnp.sum(ft.grad(f)(x) * v))(x) for x, v in zip(xs, vs)]
        return got, [fd_hvp(f, x, v) for x, v in zip(xs, vs)]
    if stack == "vmap_jacfwd":
        return list(ft.vmap(ft.jacfwd(f))(xs)), [numerical_grad(f, x) for x in xs]
    if stack == "vmap_linearize":   # one linearization, a batch of directions replayed
        _, jvp_fn = ft.linearize(f, xs[0])
        return (list(ft.vmap(jvp_fn)(vs)),
                [numerical_jvp(f, (xs[0],), (v,))[0] for v in vs])
    if stack == "jvp_jvp":          # second directional derivative v^T H v
        got = [ft.jvp(lambda y, v=v: ft.jvp(f, (y,), (v,))[1], (x,), (v,))[1]
               for x, v in zip(xs, vs)]
        return got, [fd_hvp(f, x, v) @ v for x, v in zip(xs, vs)]
    raise AssertionError(stack)


def numerical_grad(f, x, eps=1e-6):
    return np.array([numerical_jvp(f, (x,), (e,), eps)[0] for e in np.eye(x.size)])


def fd_hvp(f, x, v):
    return numerical_jvp(ft.grad(f), (x,), (v,), eps=1e-5)[0]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(choices=st.lists(st.integers(0, len(UNARY)), min_size=1, max_size=4),
       stack=st.sampled_from(TRANSFORM_STACKS), seed=st.integers(0, 2 ** 16))
def test_random_compositions(choices, stack, seed):
    rng = np.random.default_rng(seed)
    n = 4
    w = rng.standard_normal((n, n)) * 0.5
    f = build_program(choices, w)
    xs = rng.standard_normal((2, n))
    vs = rng.standard_normal((2, n))
    got, expected = run_stack(stack, f, xs, vs)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-4, atol=1e-6,
                                   err_msg=f"{stack} of ops {choices}")


# -- regressions found by exercising realistic user code ----------------------------------------

def test_copy_method_and_np_copy_under_transforms():
    # x.copy() is in every NumPy user's code; it used to raise AttributeError on wrappers
    x = np.random.default_rng(0).standard_normal((3, 4))

    def f(a):
        b = a.copy()
        return np.copy(b) * a
    np.testing.assert_allclose(ft.vmap(f)(x), x * x)
    np.testing.assert_allclose(ft.grad(lambda a: f(a).sum())(x), 2 * x)
    _, t = ft.jvp(f, (x,), (np.ones_like(x),))
    np.testing.assert_allclose(t, 2 * x)
    raw = fnp.copy(x)
    assert raw is not x and np.shares_memory(raw, x) is False


def test_singular_values_of_non_square_matrix_are_differentiable():
    # np.linalg.svd(a, compute_uv=False) (full_matrices defaults to True) of a 3x4 matrix: the
    # singular values do not depend on full_matrices, yet the vjp used to refuse them
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4))
    w = rng.standard_normal(3)

    def f(a):
        return np.linalg.svd(a, compute_uv=False) @ w
    expected = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[i] = 1e-6
        expected[i] = (np.linalg.svd(a + e, compute_uv=False) @ w
                       - np.linalg.svd(a - e, compute_uv=False) @ w) / 2e-6
    np.testing.assert_allclose(ft.grad(f)(a), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ft.jacfwd(f)(a), expected, rtol=1e-6, atol=1e-8)
    batch = np.stack([a, 2 * a])
    np.testing.assert_allclose(ft.vmap(ft.grad(f))(batch)[1], ft.grad(f)(2 * a), atol=1e-12)


@OPS
def test_compositions(info):
    """jacfwd == jacrev, vmap(jvp), jvp(vmap), hvp and hessian of the op: one item
    (op_cases.check_each)."""
    check_each(info, [check_jacfwd_jacrev, check_vmap_jvp, check_jvp_vmap, check_hvp,
                      check_hessian])
