"""ft.testing.check_grads (JAX's signature): passes on correct derivatives at every order and
mode, and raises AssertionError naming the order and modes where a derivative rule is wrong."""
import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.testing import check_grads

X = np.array([0.4, -1.3, 2.1])


def _f(x, p):
    return {"a": fnp.sin(x) * p["w"], "b": fnp.sum(fnp.exp(x * p["s"]))}


@pytest.mark.parametrize("order, modes", [(2, ("fwd",)), (2, "rev"), (3, ("fwd", "rev"))])
def test_correct_derivatives_pass(order, modes):
    check_grads(_f, (X, {"w": np.array([1.5, 0.5, -2.0]), "s": 0.3}), order, modes=modes)


def test_complex_and_float32_inputs():
    check_grads(lambda z: fnp.sin(z) * fnp.conj(z), (X + 0.5j,), order=2)
    check_grads(lambda x: fnp.tanh(x) ** 2, (X.astype(np.float32),), order=2)


def _wrong_first_derivative():
    @ft.custom_vjp
    def f(x):
        return fnp.sin(x)
    f.defvjp(lambda x: (fnp.sin(x), x), lambda x, ct: (ct * fnp.cos(x) * 1.01,))
    return f


def test_a_wrong_vjp_is_caught_in_reverse_mode():
    f = _wrong_first_derivative()
    with pytest.raises(AssertionError) as err:
        check_grads(f, (X,), order=1, modes=["rev"])
    msg = str(err.value)
    assert msg.startswith("check_grads: order 1, reverse mode (vjp) differs from finite "
                          "differences: <J^T u, v> vs finite differences: max abs error")


def test_a_wrong_second_derivative_is_caught_at_order_two():
    @ft.custom_jvp
    def f(x):
        return fnp.sin(x)

    @f.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return fnp.sin(x), fnp.cos(ft.stop_gradient(x)) * t    # d/dx of cos(x) lost
    check_grads(f, (X,), order=1)
    with pytest.raises(AssertionError, match=r"order 2, forward mode \(jvp\) of forward mode"):
        check_grads(f, (X,), order=2, modes=["fwd"])
    with pytest.raises(AssertionError, match=r"order 2, reverse mode \(vjp\) of reverse mode"):
        check_grads(f, (X,), order=2, modes=["rev"])


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="modes"):
        check_grads(fnp.sin, (X,), 1, modes=("forward",))
    with pytest.raises(ValueError, match="order"):
        check_grads(fnp.sin, (X,), 0)

