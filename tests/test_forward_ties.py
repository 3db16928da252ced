"""Forward and reverse mode agree at kinks, ties and zeros (the subgradient conventions of the
common brief): the transpose identity <u, J v> == <J^T u, v> between jvp and vjp, and
jacfwd == jacrev, at points the sample database avoids on purpose."""
import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.testing import check_transpose

TIE = np.array([1.0, 2.0, 3.0, 3.0, 0.0])
OTHER = np.array([1.0, 0.5, 3.0, 4.0, 0.0])
ZEROS = np.array([0.0, 2.0, 0.0, -1.5])

CASES = {
    "abs_at_zero": (fnp.abs, (ZEROS,)),
    "maximum_ties": (fnp.maximum, (TIE, OTHER)),
    "minimum_ties": (fnp.minimum, (TIE, OTHER)),
    "fmax_ties": (fnp.fmax, (TIE, OTHER)),
    "fmin_ties": (fnp.fmin, (TIE, OTHER)),
    "max_reduction_ties": (lambda x: fnp.max(x), (TIE,)),
    "min_reduction_ties": (lambda x: fnp.min(x.reshape(5, 1) * np.ones(3), axis=1), (TIE,)),
    "max_axis_ties": (lambda x: fnp.max(fnp.stack([x, x[::-1]]), axis=0), (TIE,)),
    "clip_at_bounds": (lambda x: fnp.clip(x, 0.0, 3.0), (TIE,)),
    "relu_at_zero": (ft.nn.relu, (ZEROS,)),
    "where_branches": (lambda a, b: fnp.where(a > 1.5, a * b, b - a), (TIE, OTHER)),
    "sort_with_ties": (lambda x: fnp.sort(x) * np.arange(5.0), (TIE,)),
    "prod_with_zero": (lambda x: fnp.prod(x), (ZEROS,)),
    "prod_two_zeros_axis": (lambda x: fnp.prod(x.reshape(2, 2), axis=1), (ZEROS,)),
    "cumprod_with_zero": (fnp.cumprod, (ZEROS,)),
    "norm_of_zero": (fnp.linalg.norm, (np.zeros(3),)),
    "power_zero_exponent": (lambda x: x ** 0.0 + x ** 1.0, (ZEROS,)),
    "power_zero_base": (lambda x, y: fnp.power(x * x, y), (ZEROS, np.array([2.0, 1.5, 3.0, 2.0]))),
    "copysign_at_zero": (lambda x: fnp.copysign(x, -1.0), (ZEROS,)),
    "at_max_ties": (lambda x, v: fnp.at(x)[np.array([0, 0, 2])].max(v),
                    (np.array([1.0, 5.0, 2.0]), np.array([1.0, 1.0, 2.0]))),
    "at_min_ties": (lambda x, v: fnp.at(x)[np.array([1, 1])].min(v),
                    (np.array([1.0, 0.5, 2.0]), np.array([0.5, 0.7]))),
}


NAMES = sorted(CASES)


@pytest.mark.parametrize("name", NAMES)
def test_jvp_vjp_at_ties(name):
    f, args = CASES[name]
    for seed in range(3):
        check_transpose(f, args, rng=np.random.default_rng(seed), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_jacfwd_jacrev_at_ties(name):
    f, args = CASES[name]
    nums = tuple(range(len(args)))
    fwd = ft.jacfwd(f, argnums=nums)(*args)
    rev = ft.jacrev(f, argnums=nums)(*args)
    for a, b in zip(fwd, rev):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
