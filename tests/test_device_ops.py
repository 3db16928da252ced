"""Every op of the sample database on a device backend, under every transform.

Runs on CuPy when a GPU is present and always on device_sim, the strict CPU stand-in for CuPy
(functorch_lite/testing/device_sim.py), so CI exercises the device code paths: constants built
with the array module of the inputs, no host round trips, only functions CuPy has.

For each sample the inputs are moved to the device and the transform's result must (a) be
made of device arrays and (b) equal the same transform run on NumPy, which the NumPy suites
check against references, loops and finite differences. The transforms: the kernel itself,
vmap (batch dim first and last), vjp, jvp, vmap(grad), grad(grad) and ft.jit of the kernel
and of vmap(grad).
"""
import warnings

import numpy as np
import optree
import pytest

import functorch_lite as ft
from functorch_lite.testing import float_leaf_function
from functorch_lite.testing.checks import assert_close
from op_cases import check_each, check_samples, op_params

B = 2


def _selected(info, limit=None, float64=False):
    """The op's samples (seed 0) these tests check: all of them, or the first `limit` (float64
    ones only when asked); the NumPy suites cover every sample under every transform, these
    check the device paths the op takes."""
    samples = [s for s in info.samples(np.random.default_rng(0))
               if not float64 or _all_float64(s)]
    return samples[:limit]


def _all_float64(sample):
    floats = [x for x in sample.leaves() if x.dtype.kind in "fc"]
    return bool(floats) and all(x.dtype == np.float64 for x in floats)


TRANSFORM_PARAMS = op_params(lambda info: not info.creation)
DIFF_PARAMS = op_params(lambda info: info.differentiable and not info.creation)


def _check(info, test, samples, check):
    """check(sample) over the samples, honouring the entry's skips for `test` and for every
    device test ("test_device")."""
    def checked(sample):
        reason = info.skip_reason("test_device", sample.name)
        if reason:
            pytest.skip(reason)
        check(sample)
    check_samples(info, samples, checked, test)


def _to(xp, tree):
    return optree.tree_map(lambda x: xp.asarray(x) if isinstance(x, np.ndarray) else x, tree)


def _host(tree):
    return optree.tree_map(lambda x: x.get() if hasattr(x, "get") and hasattr(x, "shape")
                           else x, tree)


def _assert_on_device(xp, tree, what):
    """Every array leaf is a device array; float0 tangents (of integer outputs) hold no data and
    stay NumPy arrays on every backend, as in JAX (CuPy has no void dtype)."""
    for leaf in optree.tree_leaves(tree):
        if getattr(leaf, "dtype", None) == ft.float0:
            continue
        assert not isinstance(leaf, (np.ndarray, ft.Tensor)), \
            f"{what}: a {type(leaf).__name__} came back where a {xp.__name__} array belongs"


def _assert_same(info, got, want, what):
    assert_close(_host(got), want, rtol=lambda dt: info.tolerance(dt)[0],
                 atol=lambda dt: info.tolerance(dt)[1], check_values=info.check_values,
                 path=what)


def _quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ft.PerformanceWarning)
        return fn(*args)


def _compare(info, dxp, run, args, what):
    """run(*args) on NumPy and on the device: same structure, dtypes and values."""
    want = _quiet(run, *args)
    got = _quiet(run, *_to(dxp, list(args)))
    _assert_on_device(dxp, got, what)
    _assert_same(info, got, want, what)


@pytest.mark.parametrize("info", op_params())
def test_device_kernel(info, dxp):
    def check(sample):
        if info.creation and not sample.leaves():
            pytest.skip("a creation function without array inputs makes NumPy arrays")
        _compare(info, dxp, lambda *leaves: sample.call(info.fn, list(leaves)),
                 sample.leaves(), f"{info.name}[{sample.name}] kernel")
    _check(info, "test_kernel", _selected(info), check)


def check_vmap(info, dxp):
    """vmap with the batch dim first and last."""
    later = [{s.name: s for s in info.samples(np.random.default_rng(seed))}
             for seed in range(1, B)]

    def check(sample):
        examples = [sample] + [by_name[sample.name] for by_name in later]
        for where in (0, -1):
            leaves = [np.stack(xs, axis=where if where == 0 else np.ndim(xs[0]))
                      for xs in zip(*(s.leaves() for s in examples))]
            dims = tuple(0 if where == 0 else np.ndim(x) - 1 for x in leaves)
            fn = ft.vmap(lambda *xs: sample.call(info.fn, list(xs)), in_dims=dims)
            _compare(info, dxp, fn, leaves, f"vmap {info.name}[{sample.name}] at {where}")
    _check(info, "test_vmap", _selected(info, limit=3), check)


def _float_cases(info, sample):
    f, xs = float_leaf_function(info.fn, sample)
    if not xs or any(x.dtype != np.float64 for x in xs):
        pytest.skip("derivatives are checked on the float64 samples")
    return f, xs


def _scalarized(f, xs, xp):
    """x -> sum of f(x) * u over the float outputs, u fixed and on the array module xp."""
    rng = np.random.default_rng(7)
    us = [xp.asarray(rng.standard_normal(np.shape(o))) if np.asarray(o).dtype.kind == "f"
          else None for o in optree.tree_leaves(_quiet(f, *xs))]

    def phi(*args):
        total = 0.0
        for u, o in zip(us, optree.tree_leaves(f(*args))):
            if u is not None:
                total = total + ft.numpy.sum(o * u)
        return total
    return phi


def _derivative_compare(info, dxp, make, xs, what):
    """make(xp) -> a function of xs; its NumPy and device runs agree."""
    want = _quiet(make(np), *xs)
    got = _quiet(make(dxp), *_to(dxp, list(xs)))
    _assert_on_device(dxp, got, what)
    _assert_same(info, got, want, what)


def _check_derivatives(info, test, check):
    """check(sample, f, xs) on the op's first two float64 samples, f and xs their float leaf
    function and float leaves."""
    _check(info, test, _selected(info, limit=2, float64=True),
           lambda sample: check(sample, *_float_cases(info, sample)))


def check_vjp(info, dxp):
    def check(sample, f, xs):
        nums = tuple(range(len(xs)))
        _derivative_compare(info, dxp, lambda xp: ft.grad(_scalarized(f, xs, xp), argnums=nums),
                            xs, f"grad {info.name}[{sample.name}]")
    _check_derivatives(info, "test_vjp", check)


def check_jvp(info, dxp):
    def check(sample, f, xs):
        rng = np.random.default_rng(3)
        ts = [rng.standard_normal(x.shape) for x in xs]
        _compare(info, dxp, lambda *a: ft.jvp(f, tuple(a[:len(xs)]), tuple(a[len(xs):])),
                 xs + ts, f"jvp {info.name}[{sample.name}]")
    _check_derivatives(info, "test_jvp", check)


def check_vmap_grad(info, dxp):
    def check(sample, f, xs):
        stacked = [np.stack([x, x + 0.01 * np.random.default_rng(k).standard_normal(x.shape)])
                   for k, x in enumerate(xs)]
        nums = tuple(range(len(xs)))
        _derivative_compare(
            info, dxp, lambda xp: ft.vmap(ft.grad(_scalarized(f, xs, xp), argnums=nums)),
            stacked, f"vmap(grad) {info.name}[{sample.name}]")
    _check_derivatives(info, "test_vmap_grad", check)


def check_grad_grad(info, dxp):
    def check(sample, f, xs):
        nums = tuple(range(len(xs)))

        def make(xp):
            g = ft.grad(_scalarized(f, xs, xp), argnums=nums)
            return ft.grad(lambda *a: sum(ft.numpy.sum(t * t) for t in g(*a)), argnums=nums)
        _derivative_compare(info, dxp, make, xs, f"grad(grad) {info.name}[{sample.name}]")
    _check_derivatives(info, "test_grad_grad", check)


def check_jit(info, dxp):
    def check(sample):
        _compare(info, dxp, ft.jit(lambda *leaves: sample.call(info.fn, list(leaves))),
                 sample.leaves(), f"jit {info.name}[{sample.name}]")
    _check(info, "test_jit", _selected(info, limit=3), check)


def check_jit_vmap_grad(info, dxp):
    def check(sample, f, xs):
        stacked = [np.stack([x, 1.01 * x]) for x in xs]
        nums = tuple(range(len(xs)))
        _derivative_compare(
            info, dxp,
            lambda xp: ft.jit(ft.vmap(ft.grad(_scalarized(f, xs, xp), argnums=nums))),
            stacked, f"jit(vmap(grad)) {info.name}[{sample.name}]")
    _check_derivatives(info, "test_jit", check)


@pytest.mark.parametrize("info", TRANSFORM_PARAMS)
def test_device_transforms(info, dxp):
    """vmap (batch dim first and last) and jit of the op: one item (op_cases.check_each)."""
    check_each(info, [check_vmap, check_jit], dxp)


@pytest.mark.parametrize("info", DIFF_PARAMS)
def test_device_derivatives(info, dxp):
    """vjp, jvp, vmap(grad), grad(grad) and jit(vmap(grad)) of the op: one item
    (op_cases.check_each)."""
    check_each(info, [check_vjp, check_jvp, check_vmap_grad, check_grad_grad,
                      check_jit_vmap_grad], dxp)
