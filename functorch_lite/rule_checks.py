"""Checks at the boundary of user-written rules.

The library's own rules are trusted (and tested op by op against loops and finite differences);
a user's rule is not: a batching rule that drops examples, a jvp rule whose tangent has the
wrong shape or a vjp rule returning one cotangent too few would otherwise propagate silently or
fail far away with a message about some internal reshape. So every rule a user attaches
(`Op.def_rule` with a function defined outside functorch_lite, which covers `def_batch_rule`,
`def_jvp`, `def_vjp` and `register_batch_rule`) is wrapped in a check of what it returns, and
custom_vjp / custom_jvp check their user functions with the same helpers. The built-in rules
are stored unwrapped, so they pay nothing.
"""
import numbers

import numpy

from .tensor import Tensor
from .backend import is_array


class RuleError(ValueError):
    """A user-written rule returned something of the wrong shape, dtype or structure.

    Raised when the rule runs (rules attached with def_rule / def_jvp / def_vjp /
    register_batch_rule, and custom_vjp / custom_jvp functions), naming the rule, the value
    and both shapes. A subclass of ValueError.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> @ft.custom_jvp
        ... def f(x):
        ...     return x * 2
        >>> @f.defjvp
        ... def f_jvp(primals, tangents):
        ...     return f(primals[0]), tangents[0][:1]
        >>> try:
        ...     ft.jvp(f, (np.ones(2),), (np.ones(2),))
        ... except ft.RuleError:
        ...     print("caught")
        caught
    """

    vmap_user_error = True   # vmap passes it on as it is (it is not a kernel's shape error)


def _is_value(x):
    return isinstance(x, (Tensor, numbers.Number)) or is_array(x)


def shape_of(x):
    return tuple(x.shape) if hasattr(x, "shape") else ()


def dtype_of(x):
    dt = getattr(x, "dtype", None)
    return numpy.dtype(dt) if dt is not None else None


def inexact(x):
    dt = dtype_of(x)
    return dt.kind in "fc" if dt is not None else isinstance(x, (float, complex))


def check_like(value, like, rule, what, *, broadcast=False):
    """`value` (a tangent or cotangent a rule returned for `what`) must be an array of the
    shape and dtype of `like`. With broadcast=True a shape that `like` broadcasts to is
    accepted (built-in rule contract: reverse mode sums it down). A Python number is accepted
    for a 0-d `like`. Raises RuleError naming the rule, the operand and both shapes."""
    if not _is_value(value):
        raise RuleError(f"{rule} returned a {type(value).__name__} for {what}, which is not an "
                        f"array (expected shape {shape_of(like)}, dtype {dtype_of(like)})")
    got, want = shape_of(value), shape_of(like)
    if got != want and not (broadcast and _broadcasts_to(want, got)):
        raise RuleError(f"{rule} returned shape {got} for {what}, whose shape is {want}")
    got_dt, want_dt = dtype_of(value), dtype_of(like)
    if got_dt is None or want_dt is None:
        return value
    if broadcast:   # the built-in contract: any inexact dtype, reverse mode casts
        if got_dt.kind not in "fc" and want_dt.kind in "fc":
            raise RuleError(f"{rule} returned dtype {got_dt} for {what}, whose dtype is "
                            f"{want_dt}; a (co)tangent must be floating point")
    elif got_dt != want_dt:
        raise RuleError(f"{rule} returned dtype {got_dt} for {what}, whose dtype is {want_dt}")
    return value


def _broadcasts_to(small, big):
    if len(small) > len(big):
        return False
    return all(s in (1, b) for s, b in zip(small[::-1], big[::-1]))


def batch_size_of(args, bdims):
    for a, d in zip(args, bdims):
        if d is not None:
            return shape_of(a)[d]
    return None


def check_batched(rule, out, out_bdim, size, what):
    """A batching rule's result: `out_bdim` a valid dim of `out` holding `size` examples."""
    if out_bdim is None:
        return
    if not _is_value(out):
        raise RuleError(f"{rule} returned a {type(out).__name__} for {what}, not an array")
    shape = shape_of(out)
    if not isinstance(out_bdim, int) or isinstance(out_bdim, bool) or not (
            0 <= out_bdim < len(shape)):
        raise RuleError(f"{rule} returned batch dim {out_bdim!r} for {what} of shape {shape}; "
                        f"it must be an int in 0..{len(shape) - 1} or None")
    if shape[out_bdim] != size:
        raise RuleError(f"{rule} returned {what} of shape {shape} with batch dim {out_bdim} of "
                        f"size {shape[out_bdim]}, but the batch has {size} examples")


# -- wrappers for the rules a user attaches to an op --------------------------------------------

def is_user_rule(rule):
    module = getattr(rule, "__module__", None) or ""
    return not (module == "functorch_lite" or module.startswith("functorch_lite.")) \
        and not isinstance(rule, _CheckedRule)


class _CheckedRule:
    """A user rule and the check of its result; `takes_needed` is read through to the rule."""

    def __init__(self, op, kind, rule):
        self.op, self.kind, self.rule = op, kind, rule
        self.__wrapped__ = rule

    @property
    def takes_needed(self):
        return getattr(self.rule, "takes_needed", False)

    def name(self):
        rule_name = getattr(self.rule, "__name__", repr(self.rule))
        return f"the {self.kind} rule of op {self.op.name!r} ({rule_name})"


class _CheckedBatchRule(_CheckedRule):
    def __call__(self, args, bdims, **params):
        result = self.rule(args, bdims, **params)
        if not (isinstance(result, tuple) and len(result) == 2):
            raise RuleError(f"{self.name()} must return (out, out_bdim); it returned "
                            f"{type(result).__name__}")
        out, out_bdim = result
        size = batch_size_of(args, bdims)
        if self.op.multiple_results:
            outs, out_bdims = tuple(out), tuple(out_bdim)
            if len(outs) != len(out_bdims):
                raise RuleError(f"{self.name()} returned {len(outs)} outputs but "
                                f"{len(out_bdims)} batch dims")
        else:
            outs, out_bdims = (out,), (out_bdim,)
        for k, (o, b) in enumerate(zip(outs, out_bdims)):
            check_batched(self.name(), o, b, size, f"output {k}")
        return result


class _CheckedJvpRule(_CheckedRule):
    def __call__(self, primals, tangents, **params):
        result = self.rule(primals, tangents, **params)
        if not (isinstance(result, tuple) and len(result) == 2):
            raise RuleError(f"{self.name()} must return (out, tangent_out); it returned "
                            f"{type(result).__name__}")
        out, t_out = result
        if t_out is None:
            return result
        if self.op.multiple_results:
            outs, t_outs = tuple(out), tuple(t_out)
            if len(outs) != len(t_outs):
                raise RuleError(f"{self.name()} returned {len(t_outs)} tangents for "
                                f"{len(outs)} outputs")
        else:
            outs, t_outs = (out,), (t_out,)
        for k, (o, t) in enumerate(zip(outs, t_outs)):
            if t is not None and inexact(o):
                check_like(t, o, self.name(), f"the tangent of output {k}")
        return result


class _CheckedVjpRule(_CheckedRule):
    def __call__(self, ct, primals, out, **params):
        cts = self.rule(ct, primals, out, **params)
        if not isinstance(cts, (tuple, list)) or len(cts) != len(primals):
            got = (f"{len(cts)} cotangents" if isinstance(cts, (tuple, list))
                   else f"a {type(cts).__name__}")
            raise RuleError(f"{self.name()} must return a tuple with one cotangent (or None) "
                            f"per operand, {len(primals)} here; it returned {got}")
        for k, (c, p) in enumerate(zip(cts, primals)):
            if c is not None and inexact(p):
                check_like(c, p, self.name(), f"operand {k}", broadcast=True)
        return cts


_WRAPPERS = {"batch": _CheckedBatchRule, "jvp": _CheckedJvpRule, "vjp": _CheckedVjpRule}


def checked(op, kind, rule):
    """`rule` as stored in op's table: user rules of a checked kind get a check of their
    result; library rules are stored as they are."""
    wrapper = _WRAPPERS.get(kind)
    if wrapper is None or not is_user_rule(rule):
        return rule
    return wrapper(op, kind, rule)
