"""Reverse mode on every differentiable op of the sample database (float64 samples):
vjp against central finite differences, grad(grad) on a scalarized composition, vmap(grad) and
vmap(vjp) against a loop of grad, grad(vmap(f)) against the loop, jacrev against a
finite-difference Jacobian. Also: every differentiable op has a vjp rule."""
import warnings

import numpy as np
import optree
import pytest

import functorch_lite as ft
from functorch_lite.testing.grad_checks import gradcheck, numerical_jacobian
from op_cases import check_each, check_samples, op_params

B = 3  # batch size of the vmap compositions



def _float64_samples(info, rng):
    return [s for s in info.samples(rng)
            if any(x.dtype == np.float64 for x in s.leaves())]


OPS = op_params(lambda info: info.differentiable
                and _float64_samples(info, np.random.default_rng(0)))


def _named(info, seed):
    """The op's float64 samples drawn from default_rng(seed), by name."""
    return {s.name: s for s in _float64_samples(info, np.random.default_rng(seed))}


def _each(info, test, check):
    """check(sample) over the op's float64 samples drawn from default_rng(0)
    (op_cases.check_samples: every failure named); an entry's skips name whole tests here."""
    if test in info.skips:
        pytest.skip(info.skips[test])
    samples = _float64_samples(info, np.random.default_rng(0))
    check_samples(info, samples, check)


def _float_positions(sample):
    return [k for k, x in enumerate(sample.leaves()) if x.dtype.kind == "f"]


def _tolerance(out):
    """Finite differences of a float32 result are good to ~1e-3 only."""
    dts = {np.asarray(o).dtype for o in optree.tree_leaves(out)}
    return (2e-3, 2e-4) if np.dtype(np.float32) in dts else (1e-5, 1e-6)


def _float_fn(info, sample):
    """(f of the float leaves only, the float leaves)."""
    leaves = sample.leaves()
    pos = _float_positions(sample)

    def f(*floats):
        new = list(leaves)
        for k, x in zip(pos, floats):
            new[k] = x
        return sample.call(info.fn, new)
    return f, [leaves[k] for k in pos]


def _scalarized(f, out, rng):
    """x -> sum(f(x) * u) over the float outputs, with fixed random u: a scalar composition."""
    us = [rng.standard_normal(np.shape(o)) if np.asarray(o).dtype.kind == "f" else None
          for o in optree.tree_leaves(out)]

    def phi(*xs):
        total = 0.0
        for u, o in zip(us, optree.tree_leaves(f(*xs))):
            if u is not None:
                total = total + ft.numpy.sum(ft.numpy.astype(o, np.float64) * u)
        return total
    return phi


def test_every_differentiable_op_has_a_vjp_rule():
    # built-in ops only (tests and docs register their own example ops)
    missing = [name for name, op in sorted(ft.ops.BUILTIN_OPS.items())
               if op.differentiable and "vjp" not in op.rules]
    assert len(ft.ops.BUILTIN_OPS) > 50
    assert not missing, f"differentiable ops without a vjp rule: {missing}"


def check_vjp(info):
    def check(sample):
        f, xs = _float_fn(info, sample)
        rtol, atol = _tolerance(f(*xs))
        gradcheck(f, xs, rtol=rtol, atol=atol, rng=np.random.default_rng(1))
    _each(info, "test_vjp", check)


def check_grad_grad(info):
    def check(sample):
        f, xs = _float_fn(info, sample)
        out = f(*xs)
        if np.dtype(np.float32) in {np.asarray(o).dtype for o in optree.tree_leaves(out)}:
            pytest.skip("float32 result: second differences are too noisy")
        phi = _scalarized(f, out, np.random.default_rng(2))
        nums = tuple(range(len(xs)))
        gradient = ft.grad(phi, argnums=nums)
        gradcheck(gradient, xs, rtol=1e-4, atol=1e-5, rng=np.random.default_rng(3))
    _each(info, "test_grad_grad", check)


def _batches(info):
    """The op's float64 samples drawn B times (values from different rngs), by name."""
    return [_named(info, 10 + b) for b in range(B)]


def _batch(info, batches, name):
    """B examples of one sample (values from different rngs), stacked on axis 0."""
    samples = [batch[name] for batch in batches]
    per_example = [_float_fn(info, s) for s in samples]
    stacked = [np.stack(xs) for xs in zip(*(p[1] for p in per_example))]
    return samples, per_example, stacked


def _assert_trees_close(got, want, rtol=1e-6, atol=1e-8):
    got_l, want_l = optree.tree_leaves(got), optree.tree_leaves(want)
    assert len(got_l) == len(want_l)
    for g, w in zip(got_l, want_l):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=atol)


def check_vmap_grad(info):
    batches = _batches(info)

    def check(sample):
        samples, per_example, stacked = _batch(info, batches, sample.name)
        f0, xs0 = per_example[0]
        # the same function for every example: the static parts of the sample do not depend on rng
        phi = _scalarized(f0, f0(*xs0), np.random.default_rng(4))
        nums = tuple(range(len(xs0)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ft.PerformanceWarning)
            got = ft.vmap(ft.grad(phi, argnums=nums))(*stacked)
        want = [ft.grad(phi, argnums=nums)(*[x[b] for x in stacked]) for b in range(B)]
        _assert_trees_close(got, [np.stack(w) for w in zip(*want)])
    _each(info, "test_vmap_grad", check)


def check_vmap_vjp(info):
    def check(sample):
        f, xs = _float_fn(info, sample)
        out, vjp_fn = ft.vjp(f, *xs)
        rng = np.random.default_rng(5)
        out_leaves, spec = optree.tree_flatten(out)
        cts = [rng.standard_normal((B,) + np.shape(o)).astype(np.asarray(o).dtype)
               for o in out_leaves]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ft.PerformanceWarning)
            got = ft.vmap(lambda *c: vjp_fn(spec.unflatten(list(c))))(*cts)
        want = [vjp_fn(spec.unflatten([c[b] for c in cts])) for b in range(B)]
        _assert_trees_close(got, [np.stack(w) for w in zip(*want)])
    _each(info, "test_vmap_vjp", check)


def check_grad_vmap(info):
    batches = _batches(info)

    def check(sample):
        samples, per_example, stacked = _batch(info, batches, sample.name)
        f0, xs0 = per_example[0]
        out0 = f0(*xs0)
        rng = np.random.default_rng(6)
        us = [rng.standard_normal((B,) + np.shape(o)) for o in optree.tree_leaves(out0)]
        keep = [np.asarray(o).dtype.kind == "f" for o in optree.tree_leaves(out0)]

        def total(*batched):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ft.PerformanceWarning)
                outs = optree.tree_leaves(ft.vmap(f0)(*batched))
            return sum((ft.numpy.sum(ft.numpy.astype(o, np.float64) * u)
                       for o, u, k in zip(outs, us, keep) if k), 0.0)

        def one(b):
            def part(*xs):
                return sum((ft.numpy.sum(ft.numpy.astype(o, np.float64) * u[b])
                           for o, u, k in zip(optree.tree_leaves(f0(*xs)), us, keep) if k), 0.0)
            return part
        nums = tuple(range(len(xs0)))
        got = ft.grad(total, argnums=nums)(*stacked)
        want = [ft.grad(one(b), argnums=nums)(*[x[b] for x in stacked]) for b in range(B)]
        _assert_trees_close(got, [np.stack(w) for w in zip(*want)])
    _each(info, "test_grad_vmap", check)


def check_jacrev(info):
    def check(sample):
        f, xs = _float_fn(info, sample)
        out = f(*xs)
        if any(np.asarray(o).dtype.kind != "f" for o in optree.tree_leaves(out)):
            pytest.skip("non-float output")
        rtol, atol = _tolerance(out)
        nums = tuple(range(len(xs)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ft.PerformanceWarning)
            jac = ft.jacrev(f, argnums=nums)(*xs)
        numeric = numerical_jacobian(f, xs)
        out_leaves, out_spec = optree.tree_flatten(out)
        per_out = out_spec.flatten_up_to(jac)
        for j, blocks in enumerate(per_out):
            for k, block in enumerate(blocks):
                np.testing.assert_allclose(np.asarray(block), numeric[j][k], rtol=rtol,
                                           atol=max(atol, 1e-6))
    _each(info, "test_jacrev", check)


@pytest.mark.parametrize("info", OPS)
def test_reverse_mode(info):
    """vjp, grad(grad), vmap(grad), vmap(vjp), grad(vmap) and jacrev of the op: one item
    (op_cases.check_each)."""
    check_each(info, [check_vjp, check_grad_grad, check_vmap_grad, check_vmap_vjp, check_grad_vmap,
                      check_jacrev])
