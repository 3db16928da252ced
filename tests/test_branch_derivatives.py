"""Derivatives through cond, switch and while_loop go only through the branch each example
takes (lax/branches.py's Note [branches and their derivatives]), and a jitted cond runs only the branch
each call takes (lax/lowering.py's Note [compiled branches]).

The reference is always eager code with a concrete predicate, one example at a time: there a
cond runs one branch in Python, so nothing of the other branch can reach the result. Every
check compares against that loop, under vmap, jvp, grad in both orders with vmap, second
order, and ft.jit on both backends, over calls that change which branch is taken."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.testing import assert_close

BACKENDS = ["numpy", pytest.param("xla", marks=pytest.mark.skipif(
    not __import__("importlib").util.find_spec("jax"), reason="the XLA backend needs JAX"))]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # the branches not taken make NaN
        yield


def sqrt_or_neg(x):
    return ft.cond(x > 0, np.sqrt, lambda x: -x, x)


def loop_of(fn, xs):
    """fn on each example eagerly (concrete predicates), stacked: the reference."""
    return np.stack([np.asarray(fn(x)) for x in xs])


X = np.array([-1.0, 4.0, -0.25, 2.25])


def test_cond_derivatives_under_vmap_in_both_orders():
    want = loop_of(ft.grad(sqrt_or_neg), X)
    assert_close(want, np.array([-1.0, 0.25, -1.0, 1.0 / 3.0]))
    assert_close(ft.vmap(ft.grad(sqrt_or_neg))(X), want)
    assert_close(ft.grad(lambda x: ft.vmap(sqrt_or_neg)(x).sum())(X), want)
    tangent = lambda x: ft.jvp(sqrt_or_neg, (x,), (1.0,))[1]   # noqa: E731
    assert_close(ft.vmap(tangent)(X), want)
    assert_close(ft.jvp(ft.vmap(sqrt_or_neg), (X,), (np.ones(4),))[1], want)
    assert_close(np.diag(ft.jacrev(ft.vmap(sqrt_or_neg))(X)), want)
    assert_close(np.diag(ft.jacfwd(ft.vmap(sqrt_or_neg))(X)), want)


def test_cond_second_order_under_vmap():
    f = lambda x: ft.cond(x > 0, lambda x: np.sqrt(x) ** 3, lambda x: x ** 2, x)  # noqa: E731
    want = loop_of(ft.grad(ft.grad(f)), X)
    assert np.isfinite(want).all()
    assert_close(ft.vmap(ft.grad(ft.grad(f)))(X), want)
    assert_close(ft.vmap(ft.hessian(f))(X), want)
    assert_close(ft.vmap(ft.jacfwd(ft.jacrev(f)))(X), want)


def test_cond_guards_the_values_a_branch_closes_over():
    """The closed-over weight's derivative is masked too (JAX makes closures operands)."""
    def loss(w, xs):
        return ft.vmap(lambda x: ft.cond(x > 0, lambda x: np.sqrt(x) * w,
                                         lambda x: -x * w, x))(xs).sum()
    want = sum(np.sqrt(x) if x > 0 else -x for x in X)
    assert_close(ft.grad(loss)(2.0, X), np.asarray(want))
    per_example = ft.vmap(ft.grad(lambda w, x: ft.cond(x > 0, lambda x: np.log(x) * w,
                                                        lambda x: x * w, x)),
                          in_dims=(None, 0))(2.0, X)
    assert_close(per_example, np.array([np.log(x) if x > 0 else x for x in X]))


def test_switch_derivatives_take_each_examples_branch():
    branches = [lambda x: np.sqrt(-x), lambda x: np.arcsin(x), lambda x: np.log(x)]

    def f(x):
        return ft.lax.switch((x > -1.0).astype(int) + (x > 1.0).astype(int), branches, x)
    xs = np.array([-4.0, 0.5, 3.0, -0.25, 2.0])
    want = loop_of(ft.grad(f), xs)
    assert np.isfinite(want).all()
    assert_close(ft.vmap(ft.grad(f))(xs), want)
    assert_close(ft.grad(lambda x: ft.vmap(f)(x).sum())(xs), want)
    assert_close(ft.vmap(lambda x: ft.jvp(f, (x,), (1.0,))[1])(xs), want)
    for backend in ("numpy", "xla"):
        assert_close(ft.jit(ft.vmap(ft.grad(f)), backend=backend)(xs), want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_jitted_cond_derivatives(backend):
    g = ft.jit(ft.grad(sqrt_or_neg), backend=backend)
    for x in (-1.0, 4.0, -0.25, 2.25):    # the branch taken changes from call to call
        assert_close(g(np.array(x)), np.asarray(ft.grad(sqrt_or_neg)(x)))
    want = loop_of(ft.grad(sqrt_or_neg), X)
    assert_close(ft.jit(ft.vmap(ft.grad(sqrt_or_neg)), backend=backend)(X), want)
    assert_close(ft.jit(ft.grad(lambda x: ft.vmap(sqrt_or_neg)(x).sum()), backend=backend)(X),
                 want)


SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
REGULAR = np.array([[2.0, 1.0], [1.0, 4.0]])


def safe_inv(a):
    return ft.cond(abs(np.linalg.det(a)) > 1e-12, np.linalg.inv, lambda a: 0 * a, a)


def safe_cholesky(a):
    return ft.cond(np.all(np.linalg.eigvalsh(a) > 0), np.linalg.cholesky, lambda a: 0 * a, a)


def safe_read(x, i):
    return ft.cond(i < x.shape[0], lambda x: x[i], lambda x: x[0] * 0, x)


def clipped_switch(x, i):
    return ft.lax.switch(i, [lambda x: x[0], lambda x: np.linalg.inv(x[:1, None])[0, 0],
                             lambda x: x[3]], x)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("first", ["guarded", "other"])
def test_jitted_cond_runs_only_the_branch_taken(backend, first):
    """The other branch's error never happens, whichever call the program was traced on."""
    cases = [
        (safe_inv, [(SINGULAR,), (REGULAR,)]),
        (safe_cholesky, [(-np.eye(2),), (REGULAR,)]),
        (safe_read, [(np.arange(3.0), np.int64(7)), (np.arange(3.0), np.int64(1))]),
        (clipped_switch, [(np.zeros(2), np.int64(0)), (np.ones(2), np.int64(1))]),
    ]
    for fn, calls in cases:
        jitted = ft.jit(fn, backend=backend)
        order = calls if first == "guarded" else calls[::-1]
        for args in order + order:
            assert_close(jitted(*args), fn(*args), path=f"{fn.__name__}{args}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_jitted_cond_is_one_equation(backend):
    jitted = ft.jit(safe_inv, backend=backend)
    jitted(REGULAR)
    names = [e.op.name for e in jitted.lower(REGULAR).optimized.eqns]
    assert any(n.startswith("switch[") for n in names), names
    assert "inv" not in names   # inside the branch's own program


def halving_sqrt(x):
    return ft.while_loop(lambda c: c > 1.0, lambda c: np.sqrt(c - 1.0), x)


W = np.array([10.0, 1.5, 1e6, 3.0])


def test_while_loop_finished_examples_do_not_poison_derivatives():
    want = loop_of(ft.grad(halving_sqrt), W)
    assert np.isfinite(want).all()
    assert_close(ft.vmap(ft.grad(halving_sqrt))(W), want)
    assert_close(ft.grad(lambda x: ft.vmap(halving_sqrt)(x).sum())(W), want)
    assert_close(ft.vmap(lambda x: ft.jvp(halving_sqrt, (x,), (1.0,))[1])(W), want)
    assert_close(ft.jvp(ft.vmap(halving_sqrt), (W,), (np.ones(4),))[1], want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_jitted_while_loop_gradient_does_not_depend_on_earlier_calls(backend):
    want = {x: np.asarray(ft.grad(halving_sqrt)(x)) for x in W}
    reused = ft.jit(ft.grad(halving_sqrt), backend=backend)
    for x in (10.0, 3.0, 1e6, 1.5, 10.0):
        assert_close(reused(np.array(x)), want[x], rtol=1e-12)
        assert_close(ft.jit(ft.grad(halving_sqrt), backend=backend)(np.array(x)), want[x],
                     rtol=1e-12)
    assert_close(ft.jit(ft.vmap(ft.grad(halving_sqrt)), backend=backend)(W),
                 loop_of(ft.grad(halving_sqrt), W), rtol=1e-12)


# -- random programs -------------------------------------------------------------------------

# Functions undefined (or with infinite derivatives) outside their guard, with the guard.
GUARDED = [
    ("sqrt", lambda x: x > 0.05, lambda x: np.sqrt(x)),
    ("log", lambda x: x > 0.05, lambda x: np.log(x)),
    ("arcsin", lambda x: np.abs(x) < 0.95, lambda x: np.arcsin(x)),
    ("pow1.5", lambda x: x > 0.05, lambda x: x ** 1.5),
    ("recip", lambda x: np.abs(x) > 0.05, lambda x: 1.0 / x),
]
SAFE = [lambda x: -x, lambda x: np.tanh(x), lambda x: x * x + 1.0]

STACKS = {
    "grad": (lambda f: ft.grad(f), False),
    "grad_w": (lambda f: ft.grad(f, argnums=1), False),
    "vmap_grad": (lambda f: ft.vmap(ft.grad(f), in_dims=(0, None)), True),
    "vmap_grad_w": (lambda f: ft.vmap(ft.grad(f, argnums=1), in_dims=(0, None)), True),
    "grad_vmap": (lambda f: ft.grad(lambda x, w: ft.vmap(f, in_dims=(0, None))(x, w).sum()),
                  True),
    "grad_w_vmap": (lambda f: ft.grad(lambda x, w: ft.vmap(f, in_dims=(0, None))(x, w).sum(),
                                      argnums=1), True),
    "vmap_jvp": (lambda f: ft.vmap(lambda x, w: ft.jvp(lambda x: f(x, w), (x,), (1.0,))[1],
                                   in_dims=(0, None)), True),
    "jvp_vmap": (lambda f: (lambda x, w: ft.jvp(lambda x: ft.vmap(f, in_dims=(0, None))(x, w),
                                                (x,), (fnp.ones_like(x),))[1]), True),
    "vmap_hessian": (lambda f: ft.vmap(ft.hessian(f), in_dims=(0, None)), True),
}


def _program(draw):
    """f(x, w) of scalars: a cond, a switch or a while_loop whose branches are undefined
    outside their guards, reading the weight w from outside."""
    kind = draw(st.sampled_from(["cond", "switch", "while_loop"]))
    name, guard, risky = GUARDED[draw(st.integers(0, len(GUARDED) - 1))]
    safe = SAFE[draw(st.integers(0, len(SAFE) - 1))]
    if kind == "cond":
        def f(x, w):
            return ft.cond(guard(x), lambda x: risky(x) * w, lambda x: safe(x) + w, x)
    elif kind == "switch":
        other = GUARDED[draw(st.integers(0, len(GUARDED) - 1))]

        def f(x, w):
            index = guard(x).astype(int) + 2 * (guard(x) & other[1](x)).astype(int)
            return ft.lax.switch(index, [lambda x: safe(x) * w, lambda x: risky(x) + w,
                                         lambda x: other[2](x) * w], x)
    else:   # each step halves the distance to the guard's edge until it is crossed
        def f(x, w):
            return ft.while_loop(lambda c: c > 1.0, lambda c: np.sqrt(c - 1.0) * w, x * x + x)
    return f"{kind} of {name}", f


def _reference(stack, f, xs, w):
    """The stack applied one example at a time, eagerly (the predicates concrete)."""
    transform, batched = STACKS[stack]
    if not batched:
        return transform(f)(xs, w)
    single = {"vmap_grad": lambda: ft.grad(f), "vmap_grad_w": lambda: ft.grad(f, argnums=1),
              "grad_vmap": lambda: ft.grad(f), "grad_w_vmap": lambda: ft.grad(f, argnums=1),
              "vmap_jvp": lambda: ft.grad(f), "jvp_vmap": lambda: ft.grad(f),
              "vmap_hessian": lambda: ft.hessian(f)}[stack]()
    parts = [np.asarray(single(x, w)) for x in xs]
    return np.sum(parts, axis=0) if stack == "grad_w_vmap" else np.stack(parts)


EXAMPLES = 40


@settings(max_examples=EXAMPLES, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2 ** 16))
def test_guarded_programs_equal_their_per_example_reference(data, seed):
    """Random guarded programs under random stacks: eager, jitted on NumPy and jitted on XLA
    against the per-example loop, over calls whose examples take different branches."""
    desc, f = _program(data.draw)
    stack = data.draw(st.sampled_from(sorted(STACKS)))
    transform, batched = STACKS[stack]
    rng = np.random.default_rng(seed)
    g = transform(f)
    jitted = {b: ft.jit(g, backend=b) for b in ("numpy", "xla")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for call in range(3):
            xs = rng.uniform(-2.5, 2.5, 5 if batched else ())
            w = rng.uniform(0.5, 1.0)
            want = np.asarray(_reference(stack, f, xs, w))
            path = f"{desc} under {stack}, call {call}"
            assert_close(np.asarray(g(xs, w)), want, rtol=1e-10, atol=1e-12, path=path)
            for backend, fn in jitted.items():
                assert_close(np.asarray(fn(xs, w)), want, rtol=1e-10, atol=1e-12,
                             path=f"{path}, jit {backend}")
