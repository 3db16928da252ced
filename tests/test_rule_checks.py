"""User rules are checked where they return: custom_vjp fwd/bwd, custom_jvp rules, and the batch,
jvp and vjp rules a user attaches to an op. The error names the rule, the operand and both
shapes; the built-in rules are stored unchecked (no cost)."""
import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.ops import elementwise as ew
from functorch_lite.rule_checks import RuleError

X = np.array([0.5, -1.0, 2.0])
XS = np.stack([X, 2 * X])


# -- custom_jvp -------------------------------------------------------------------------------

def _custom_jvp_returning(tangent_of):
    @ft.custom_jvp
    def f(x):
        return fnp.sin(x)

    @f.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), tangent_of(x, t)
    return f


@pytest.mark.parametrize("run", [
    lambda f: ft.jvp(f, (X,), (X,)),
    lambda f: ft.grad(lambda x: fnp.sum(f(x)))(X),
    lambda f: ft.vmap(lambda x: ft.jvp(f, (x,), (x,)))(XS),
    lambda f: ft.jacfwd(ft.vmap(f))(XS),
], ids=["jvp", "grad", "vmap_jvp", "jacfwd_vmap"])
def test_custom_jvp_tangent_of_wrong_shape(run):
    f = _custom_jvp_returning(lambda x, t: fnp.concatenate([t, t[:2]]))
    with pytest.raises(RuleError, match=r"jvp rule of custom_jvp function 'f' returned shape "
                                        r"\(5,\) for the tangent of output, whose shape is \(3,\)"):
        run(f)


def test_custom_jvp_tangent_of_wrong_dtype():
    f = _custom_jvp_returning(lambda x, t: fnp.astype(t, np.float32))
    with pytest.raises(RuleError, match="returned dtype float32 .* whose dtype is float64"):
        ft.jvp(f, (X,), (X,))


def test_custom_jvp_correct_rule_still_works():
    f = _custom_jvp_returning(lambda x, t: fnp.cos(x) * t)
    np.testing.assert_allclose(ft.jvp(f, (X,), (X,))[1], np.cos(X) * X)


# -- custom_vjp -------------------------------------------------------------------------------

def _custom_vjp_with(bwd, fwd=None):
    @ft.custom_vjp
    def f(x, y):
        return fnp.sin(x) * y

    f.defvjp(fwd or (lambda x, y: (f(x, y), (x, y))), bwd)
    return f


@pytest.mark.parametrize("run", [
    lambda f: ft.grad(lambda x: fnp.sum(f(x, 2.0 * x)))(X),
    lambda f: ft.vmap(ft.grad(lambda x: fnp.sum(f(x, 2.0 * x))))(XS),
    lambda f: ft.grad(lambda x: fnp.sum(ft.vmap(f)(x, x)))(XS),
    lambda f: ft.jacrev(lambda x: f(x, x))(X),
], ids=["grad", "vmap_grad", "grad_vmap", "jacrev"])
def test_custom_vjp_cotangent_of_wrong_shape(run):
    f = _custom_vjp_with(lambda res, ct: (fnp.concatenate([ct, ct[:2]]), ct))
    with pytest.raises(RuleError, match=r"bwd of custom_vjp function 'f' returned shape \(5,\) "
                                        r"for argument 0, whose shape is \(3,\)"):
        run(f)


def test_custom_vjp_wrong_number_structure_and_dtype():
    grad = ft.grad(lambda x: fnp.sum(f(x, x)))
    f = _custom_vjp_with(lambda res, ct: (ct,))
    with pytest.raises(RuleError, match=r"returned 1 cotangent\(s\) for 2 differentiable"):
        grad(X)
    f = _custom_vjp_with(lambda res, ct: (ct, fnp.astype(ct, np.float32)))
    with pytest.raises(RuleError, match="dtype float32 for argument 1, whose dtype is float64"):
        grad(X)
    f = _custom_vjp_with(lambda res, ct: (ct, (ct, ct)))
    with pytest.raises(RuleError, match="returned a tuple for argument 1, which is not an array"):
        grad(X)
    f = _custom_vjp_with(lambda res, ct: (ct, ct), fwd=lambda x, y: x * y)
    with pytest.raises(RuleError, match=r"fwd of custom_vjp function 'f' must return a pair"):
        grad(X)


def test_custom_vjp_pytree_argument_names_the_leaf():
    @ft.custom_vjp
    def f(d):
        return d["a"] * d["b"]

    f.defvjp(lambda d: (f(d), d), lambda d, ct: ({"a": ct, "b": ct[:1]},))
    with pytest.raises(RuleError, match=r"shape \(1,\) for argument 0\['b'\], whose shape is "
                                        r"\(3,\)"):
        ft.grad(lambda d: fnp.sum(f(d)))({"a": X, "b": X})


# -- rules attached to ops --------------------------------------------------------------------

def _square_op(name):
    return ft.defop(name, lambda xp, x: x * x)


def test_user_batch_rule_dropping_examples():
    op = _square_op("rule_checks_square_batch")

    @op.def_batch_rule
    def short_rule(args, bdims):
        return op(args[0])[:-1], bdims[0]
    with pytest.raises(RuleError, match=r"batch rule of op 'rule_checks_square_batch' "
                                        r"\(short_rule\) returned output 0 of shape \(1, 3\) "
                                        r"with batch dim 0 of size 1, but the batch has 2"):
        ft.vmap(op)(XS)

    @op.def_batch_rule
    def bad_dim(args, bdims):
        return op(args[0]), 2
    with pytest.raises(RuleError, match=r"batch dim 2 for output 0 of shape \(2, 3\)"):
        ft.vmap(op)(XS)


def test_register_batch_rule_on_a_builtin_is_checked():
    builtin = ew.sin.rules["batch"]
    ft.register_batch_rule(fnp.sin, lambda args, bdims: (fnp.sin(args[0])[:1], bdims[0]))
    try:
        with pytest.raises(RuleError, match="but the batch has 2 examples"):
            ft.vmap(fnp.sin)(XS)
    finally:
        ft.register_batch_rule(fnp.sin, builtin)
    np.testing.assert_allclose(ft.vmap(fnp.sin)(XS), np.sin(XS))


def test_user_jvp_and_vjp_rules_of_an_op():
    op = _square_op("rule_checks_square_diff")
    op.def_jvp(lambda primals, tangents: (op(primals[0]), tangents[0][:2]))
    with pytest.raises(RuleError, match=r"jvp rule of op 'rule_checks_square_diff'.* returned "
                                        r"shape \(2,\) for the tangent of output 0, whose shape "
                                        r"is \(3,\)"):
        ft.jvp(op, (X,), (X,))
    op.def_vjp(lambda ct, primals, out: (ct[:2],))
    with pytest.raises(RuleError, match=r"returned shape \(2,\) for operand 0, whose shape is "
                                        r"\(3,\)"):
        ft.grad(lambda x: fnp.sum(op(x)))(X)
    op.def_vjp(lambda ct, primals, out: (ct, ct))
    with pytest.raises(RuleError, match=r"one cotangent \(or None\) per operand, 1 here; it "
                                        r"returned 2 cotangents"):
        ft.grad(lambda x: fnp.sum(op(x)))(X)
    # correct rules pass through the check (a broadcast cotangent is summed, as for built-ins)
    op.def_jvp(lambda primals, tangents: (op(primals[0]), 2 * primals[0] * tangents[0]))
    op.def_vjp(lambda ct, primals, out: (2 * primals[0] * ct,))
    np.testing.assert_allclose(ft.jvp(op, (X,), (X,))[1], 2 * X * X)
    np.testing.assert_allclose(ft.grad(lambda x: fnp.sum(op(x)))(X), 2 * X)


def test_takes_needed_reaches_a_checked_vjp_rule():
    op = _square_op("rule_checks_square_needed")
    seen = []

    @op.def_vjp
    def rule(ct, primals, out, needed):
        seen.append(needed)
        return (2 * primals[0] * ct,)
    rule.takes_needed = True     # set after registration, as a decorator user would
    np.testing.assert_allclose(ft.grad(lambda x: fnp.sum(op(x)))(X), 2 * X)
    assert seen == [(True,)]


def test_builtin_rules_are_stored_unchecked():
    assert ew.sin.rules["batch"].__module__.startswith("functorch_lite.")
    assert ew.sin.rules["vjp"].__module__.startswith("functorch_lite.")
    op = _square_op("rule_checks_square_stored")
    rule = op.def_batch_rule(lambda args, bdims: (op(args[0]), bdims[0]))
    assert rule.__name__ == "<lambda>"             # the decorator hands back the user's rule
    assert op.rules["batch"] is not rule           # the table holds its checked form


# -- closures over transformed values ---------------------------------------------------------

def test_custom_functions_closing_over_a_transformed_value_are_refused():
    # the rules cannot see a closed-over wrapper: refused (as JAX) instead of an escaped
    # wrapper, a DualTensor handed to the user or a lost derivative
    def with_vjp(w):
        @ft.custom_vjp
        def f(y):
            return y * w
        f.defvjp(lambda y: (y * w, y), lambda y, ct: (ct * w,))
        return fnp.sum(f(X * w))

    def with_jvp(w):
        @ft.custom_jvp
        def f(y):
            return y * w
        f.defjvp(lambda p, t: (p[0] * w, t[0] * w))
        return fnp.sum(f(X * w))
    w = np.array(3.0)
    with pytest.raises(TypeError, match="fwd of custom_vjp function 'f' returned a value of the "
                                        "grad transform at level 1 .* closes over"):
        ft.grad(with_vjp)(w)
    with pytest.raises(TypeError, match="custom_jvp function 'f' returned a value of the grad"):
        ft.grad(with_jvp)(w)
    with pytest.raises(TypeError, match="jvp rule of custom_jvp function 'f' returned a value "
                                        "of the jvp transform"):
        ft.jvp(with_jvp, (w,), (np.array(1.0),))
    # a closure over a constant (no transform is watching it) is fine
    @ft.custom_vjp
    def scale(y):
        return y * w
    scale.defvjp(lambda y: (scale(y), None), lambda _, ct: (2.0 * ct * w,))
    np.testing.assert_allclose(ft.grad(lambda x: fnp.sum(ft.vmap(scale)(x)))(XS),
                               np.full((2, 3), 6.0))
