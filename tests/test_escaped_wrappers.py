"""Escaped wrappers (from a finished transform) and wrappers of another thread's running
transform are refused with EscapedWrapperError wherever they show up: as an op's operand, as a
transform's input, output, aux value, pytree leaf, tangent or cotangent. Note [levels and
escaped wrappers] in interpreter.py."""
import threading

import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.interpreter import stack

X = np.array([0.5, -1.0, 2.0])
XS = np.arange(6.0).reshape(2, 3)


def _escape(kind):
    """A wrapper of a finished transform of `kind`, 1-d of shape (3,), and a 0-d one."""
    kept = []

    def f(x):
        kept.append(x)
        kept.append(fnp.sum(x))
        return fnp.sum(x)
    if kind == "grad":
        ft.grad(f)(X)
    elif kind == "jvp":
        ft.jvp(f, (X,), (X,))
    elif kind == "vmap":
        ft.vmap(lambda x: (f(x), x)[1])(XS)
    elif kind == "vjp":
        ft.vjp(f, X)
    return kept[0], kept[1]


KINDS = ["grad", "jvp", "vmap", "vjp"]


def _custom_vjp_returning(w):
    @ft.custom_vjp
    def g(x):
        return x * 0 + w

    g.defvjp(lambda x: (g(x), None), lambda res, ct: (ct,))
    return g


def _custom_bwd_returning(w):
    @ft.custom_vjp
    def g(x):
        return x * 2.0

    g.defvjp(lambda x: (x * 2.0, None), lambda res, ct: (w,))
    return g


def _custom_jvp_returning(w):
    @ft.custom_jvp
    def g(x):
        return x * 2.0

    @g.defjvp
    def _(primals, tangents):
        return primals[0] * 2.0, w
    return g


# Each case uses the escaped (3,) wrapper `w` and 0-d wrapper `s` in one place.
CASES = {
    # outputs and closures
    "grad_output": lambda w, s: ft.grad(lambda y: s)(X),
    "grad_and_value_output": lambda w, s: ft.grad_and_value(lambda y: s)(X),
    "value_and_grad_output": lambda w, s: ft.value_and_grad(lambda y: s)(X),
    "grad_aux": lambda w, s: ft.grad(lambda y: (fnp.sum(y), {"a": w}), has_aux=True)(X),
    "vjp_output": lambda w, s: ft.vjp(lambda y: w, X),
    "vjp_pytree_output": lambda w, s: ft.vjp(lambda y: {"a": y, "b": [w]}, X),
    "vjp_aux": lambda w, s: ft.vjp(lambda y: (y, (1, w)), X, has_aux=True),
    "jvp_output": lambda w, s: ft.jvp(lambda y: w, (X,), (X,)),
    "jvp_pytree_output": lambda w, s: ft.jvp(lambda y: (y, {"b": w}), (X,), (X,)),
    "jvp_aux": lambda w, s: ft.jvp(lambda y: (y, [w]), (X,), (X,), has_aux=True),
    "linearize_output": lambda w, s: ft.linearize(lambda y: w, X),
    "vmap_output": lambda w, s: ft.vmap(lambda y: w)(XS),
    "vmap_pytree_output": lambda w, s: ft.vmap(lambda y: (y, {"b": w}))(XS),
    "vmap_out_dims_none": lambda w, s: ft.vmap(lambda y: w, out_dims=None)(XS),
    "jacrev_output": lambda w, s: ft.jacrev(lambda y: w)(X),
    "jacrev_aux": lambda w, s: ft.jacrev(lambda y: (y, w), has_aux=True)(X),
    "jacfwd_output": lambda w, s: ft.jacfwd(lambda y: w)(X),
    "hessian_output": lambda w, s: ft.hessian(lambda y: s)(X),
    "vmap_of_grad_output": lambda w, s: ft.vmap(ft.grad(lambda y: s))(XS),
    "custom_vjp_output": lambda w, s: ft.grad(lambda y: fnp.sum(_custom_vjp_returning(w)(y)))(X),
    "custom_vjp_bwd": lambda w, s: ft.grad(lambda y: fnp.sum(_custom_bwd_returning(w)(y)))(X),
    "custom_jvp_rule": lambda w, s: ft.jvp(_custom_jvp_returning(w), (X,), (X,)),
    # inputs, tangents and cotangents
    "grad_input": lambda w, s: ft.grad(lambda y: s * 0.0 + 1.0)(w),
    "vjp_input": lambda w, s: ft.vjp(lambda y: y, w),
    "vjp_fn_cotangent": lambda w, s: ft.vjp(lambda y: y, X)[1](w),
    "vjp_fn_cotangent_pytree": lambda w, s: ft.vjp(lambda y: {"a": y * 2.0}, X)[1]({"a": w}),
    "jvp_primal": lambda w, s: ft.jvp(lambda y: y, (w,), (X,)),
    "jvp_tangent": lambda w, s: ft.jvp(lambda y: y, (X,), (w,)),
    "linearize_jvp_fn_tangent": lambda w, s: ft.linearize(lambda y: y * 2.0, X)[1](w),
    "vmap_input": lambda w, s: ft.vmap(lambda y: y, in_dims=None, axis_size=2)(w),
    # ops and conversions
    "op": lambda w, s: fnp.sin(w),
    "operator": lambda w, s: w + 1.0,
    "numpy_protocol": lambda w, s: np.sin(w),
    "op_inside_grad": lambda w, s: ft.grad(lambda y: fnp.sum(y * w))(X),
    "op_inside_vmap": lambda w, s: ft.vmap(lambda y: y + w)(XS),
    "variadic_op": lambda w, s: fnp.concatenate([X, w]),
    "float": lambda w, s: float(s),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_escaped_wrapper_is_refused(case, kind):
    w, s = _escape(kind)
    with pytest.raises(ft.EscapedWrapperError, match="after that transform returned"):
        CASES[case](w, s)
    assert stack() == ()
    np.testing.assert_allclose(ft.grad(lambda y: fnp.sum(y * y))(X), 2 * X)  # still works


def test_live_outer_wrapper_is_a_constant_not_an_error():
    # the rule is about finished transforms: a wrapper of a running outer transform of this
    # thread may be returned by an inner one (it is a constant there)
    def outer(x):
        return ft.grad(lambda y: fnp.sum(y * x))(X)
    np.testing.assert_allclose(ft.jacrev(outer)(X), np.eye(3))
    out = ft.vmap(lambda x: ft.vjp(lambda y: x, X)[0])(XS)
    np.testing.assert_allclose(out, XS)


# -- threads -----------------------------------------------------------------------------------

def _in_other_thread(kind, use):
    """Run a `kind` transform in another thread, pause it while its wrapper is shared, call
    `use(wrapper)` here, then let it finish. Returns (what use raised or returned, the other
    thread's result)."""
    shared, paused, resume, result = {}, threading.Event(), threading.Event(), {}

    def f(x):
        shared["w"] = x
        paused.set()
        assert resume.wait(10)
        return fnp.sum(x * x)

    def run():
        if kind == "grad":
            result["out"] = ft.grad(f)(X)
        elif kind == "jvp":
            result["out"] = ft.jvp(f, (X,), (np.ones(3),))[1]
        else:
            result["out"] = ft.vmap(f)(XS)
    t = threading.Thread(target=run)
    t.start()
    assert paused.wait(10)
    try:
        got = use(shared["w"])
    except BaseException as err:  # noqa: B902  (reported to the test)
        got = err
    finally:
        resume.set()
        t.join(10)
    return got, result["out"]


THREAD_USES = {
    "own_grad_constant": lambda w: ft.grad(lambda y: fnp.sum(y * w))(X),
    "own_grad_output": lambda w: ft.grad(lambda y: fnp.sum(y) + fnp.sum(w), has_aux=False)(X),
    "own_grad_returns_it": lambda w: ft.grad(lambda y: (fnp.sum(y), w), has_aux=True)(X),
    "own_vmap_constant": lambda w: ft.vmap(lambda y: y * w)(XS),
    "own_vmap_output": lambda w: ft.vmap(lambda y: w)(XS),
    "own_jvp_output": lambda w: ft.jvp(lambda y: w, (X,), (X,)),
    "own_vjp_output": lambda w: ft.vjp(lambda y: w, X),
    "top_level_op": lambda w: fnp.sin(w),
    "float": lambda w: float(fnp.sum(w)),
}


@pytest.mark.parametrize("kind", ["grad", "jvp", "vmap"])
@pytest.mark.parametrize("use", sorted(THREAD_USES))
def test_wrapper_of_another_threads_transform_is_refused(kind, use):
    got, other = _in_other_thread(kind, THREAD_USES[use])
    assert isinstance(got, ft.EscapedWrapperError), got
    assert "another thread" in str(got)
    # the owning thread is unaffected: its transform gives the right answer
    expected = {"grad": 2 * X, "jvp": np.sum(2 * X), "vmap": np.sum(XS * XS, axis=1)}[kind]
    np.testing.assert_allclose(other, expected)
    assert stack() == ()
