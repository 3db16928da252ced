"""Dispatch by level between transform wrappers and user-defined Tensor subclasses, escaped
wrappers, the level stack, and the array interface (methods, properties, operators) of
wrappers, each checked against NumPy on the plain arrays."""
import operator

import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.interpreter import current_level, stack
from functorch_lite.testing import PassThroughInterpreter, passthrough
from functorch_lite.testing.checks import assert_close


class LoggingTensor(ft.Tensor):
    """A user-defined wrapper: records each op it sees in `log`, then forwards the op to its
    unwrapped value (which may itself be a lower-level wrapper or a raw array)."""

    def __init__(self, value, log):
        self.value, self.log = value, log

    shape = property(lambda self: tuple(self.value.shape))
    dtype = property(lambda self: self.value.dtype)

    @classmethod
    def __tensor_function__(cls, op, types, args, params):
        log = next(a.log for a in args if type(a) is cls)
        log.append((cls.__name__, op.name))
        out = op(*(a.value if type(a) is cls else a for a in args), **params)
        if op.multiple_results:
            return tuple(cls(o, log) for o in out)
        return cls(out, log)

    def _concretize(self, kind):
        return np.asarray(self.value) if kind == "array" else {"float": float, "int": int,
                                                                 "bool": bool}[kind](self.value)


class EagerLoggingTensor(LoggingTensor):
    """The same, with a class level above any transform: it sees ops first."""

    level = 100


class LoggingInterpreter(PassThroughInterpreter):
    """A pass-through transform that logs the ops it processes into a shared list."""

    def __init__(self, log):
        super().__init__()
        self.log = log

    def process(self, op, args, params):
        self.log.append(("transform", op.name))
        return super().process(op, args, params)


def _raw(x):
    while isinstance(x, ft.Tensor):
        x = x.value
    return x


def test_transform_sees_the_op_before_a_logging_tensor():
    log, x, y = [], np.arange(3.0), np.ones(3)
    with LoggingInterpreter(log) as interp:
        out = fnp.add(interp.wrap(x), LoggingTensor(y, log))
        assert out.level == 1 and isinstance(out.value, LoggingTensor)
    assert log == [("transform", "add"), ("LoggingTensor", "add")]
    np.testing.assert_array_equal(_raw(out), x + y)


def test_higher_class_level_sees_the_op_first():
    log, x, y = [], np.arange(3.0), np.ones(3)
    with LoggingInterpreter(log) as interp:
        out = fnp.multiply(interp.wrap(x), EagerLoggingTensor(y, log))
        assert isinstance(out, EagerLoggingTensor) and out.value.level == 1
    assert log == [("EagerLoggingTensor", "multiply"), ("transform", "multiply")]
    np.testing.assert_array_equal(_raw(out), x * y)


def test_logging_tensor_alone_and_multiple_results():
    log = []
    a = np.array([[4.0, 1.0], [1.0, 3.0]])
    w, v = fnp.linalg.eigh(LoggingTensor(a, log))
    assert log == [("LoggingTensor", "eigh")]
    np.testing.assert_allclose(_raw(w), np.linalg.eigh(a)[0])
    assert isinstance(v, LoggingTensor)


class SelfOnlyTensor(ft.Tensor):
    """Handles ops among its own kind only; declines (NotImplemented) when another Tensor type
    is among the arguments, so dispatch falls through to the next type."""

    level = 50
    seen = []

    def __init__(self, value):
        self.value = value

    shape = property(lambda self: tuple(self.value.shape))
    dtype = property(lambda self: self.value.dtype)

    @classmethod
    def __tensor_function__(cls, op, types, args, params):
        if any(t is not cls for t in types):
            cls.seen.append(("declined", op.name))
            return NotImplemented
        cls.seen.append(("handled", op.name))
        return cls(op(*(a.value if isinstance(a, cls) else a for a in args), **params))


def test_not_implemented_falls_through_to_the_next_type():
    SelfOnlyTensor.seen = []
    log = []
    out = fnp.subtract(SelfOnlyTensor(np.array([5.0, 6.0])), LoggingTensor(np.ones(2), log))
    # SelfOnlyTensor (level 50) declines; LoggingTensor unwraps itself; SelfOnlyTensor then
    # handles the op alone.
    assert SelfOnlyTensor.seen == [("declined", "subtract"), ("handled", "subtract")]
    assert log == [("LoggingTensor", "subtract")]
    assert isinstance(out, LoggingTensor) and isinstance(out.value, SelfOnlyTensor)
    np.testing.assert_array_equal(out.value.value, [4.0, 5.0])


class NeverTensor(ft.Tensor):
    shape = property(lambda self: (2,))
    dtype = property(lambda self: np.dtype(np.float64))


def test_type_error_when_every_type_declines():
    with pytest.raises(TypeError, match=r"NeverTensor.*'sin'"):
        fnp.sin(NeverTensor())
    with pytest.raises(TypeError, match=r"no Tensor type among .*implements op 'add'"):
        fnp.add(NeverTensor(), SelfOnlyTensor(np.ones(2)))


# -- escaped wrappers and the level stack ------------------------------------------------------

def test_escaped_wrapper_is_refused():
    with PassThroughInterpreter() as interp:
        escaped = interp.wrap(np.ones(3))
        fnp.sin(escaped)  # fine inside
    with pytest.raises(ft.EscapedWrapperError, match="after that transform returned"):
        fnp.sin(escaped)
    with pytest.raises(ft.EscapedWrapperError):
        float(escaped[0])
    with pytest.raises(ft.EscapedWrapperError):
        escaped + 1


def test_escaped_wrapper_is_refused_by_a_new_transform_at_the_same_depth():
    with PassThroughInterpreter() as first:
        escaped = first.wrap(np.ones(3))
    with PassThroughInterpreter() as second:
        assert second.level == first.level == 1
        fresh = second.wrap(np.arange(3.0))
        with pytest.raises(ft.EscapedWrapperError):
            fnp.add(fresh, escaped)
        with pytest.raises(ft.EscapedWrapperError):
            fnp.add(escaped, fresh)


def test_escape_through_a_closure_of_a_transformed_function():
    kept = []

    def f(x):
        kept.append(x)
        return fnp.sin(x)
    np.testing.assert_allclose(passthrough(f)(np.ones(2)), np.sin(np.ones(2)))
    with pytest.raises(ft.EscapedWrapperError):
        fnp.cos(kept[0])


def test_level_stack_restored_after_exceptions():
    assert current_level() == 0
    with pytest.raises(ValueError, match="boom"):
        with PassThroughInterpreter():
            with PassThroughInterpreter() as inner:
                assert current_level() == 2 and stack()[-1] is inner
                raise ValueError("boom")
    assert current_level() == 0 and stack() == ()

    def bad(x):
        return fnp.add(x, np.ones(4))  # shapes (3,) and (4,) do not broadcast
    with pytest.raises(ValueError):
        passthrough(bad)(np.ones(3))
    assert current_level() == 0
    assert not inner.alive


def test_nested_levels_unwrap_one_at_a_time():
    log = []
    with LoggingInterpreter(log) as outer:
        with LoggingInterpreter(log) as inner:
            x = inner.wrap(outer.wrap(np.arange(3.0)))
            y = fnp.exp(x)
            assert y.level == 2 and y.value.level == 1
    assert log == [("transform", "exp"), ("transform", "exp")]
    np.testing.assert_allclose(y.value.value, np.exp(np.arange(3.0)))


# -- the array interface of wrappers, against NumPy on plain arrays ----------------------------

_X = np.array([[0.3, -1.2, 2.5], [1.7, -0.4, 0.9]])
_RAW = np.array([[1.5, 0.5, -2.0], [0.25, 3.0, 1.0]])

METHODS = {
    "sum": lambda t: t.sum(), "sum_axis": lambda t: t.sum(axis=0),
    "mean": lambda t: t.mean(axis=1, keepdims=True), "max": lambda t: t.max(),
    "min": lambda t: t.min(axis=0), "prod": lambda t: t.prod(axis=-1),
    "argmax": lambda t: t.argmax(), "argmin": lambda t: t.argmin(axis=1),
    "reshape_args": lambda t: t.reshape(3, 2), "reshape_tuple": lambda t: t.reshape((3, 2)),
    "reshape_minus1": lambda t: t.reshape(-1), "transpose": lambda t: t.transpose(),
    "transpose_args": lambda t: t.transpose(1, 0), "transpose_tuple": lambda t: t.transpose((1, 0)),
    "swapaxes": lambda t: t.swapaxes(0, 1), "squeeze": lambda t: t[None].squeeze(),
    "squeeze_axis": lambda t: t[:, None].squeeze(1), "astype": lambda t: t.astype(np.float32),
    "clip": lambda t: t.clip(-0.5, 0.5), "cumsum": lambda t: t.cumsum(axis=1),
    "all": lambda t: (t > -2).all(), "any": lambda t: (t > 2).any(axis=0),
    "var": lambda t: t.var(ddof=1), "std": lambda t: t.std(axis=0), "ravel": lambda t: t.ravel(),
    "flatten": lambda t: t.flatten(),
    "T": lambda t: t.T, "shape": lambda t: t.shape, "ndim": lambda t: t.ndim,
    "dtype": lambda t: t.dtype, "size": lambda t: t.size, "len": lambda t: len(t),
    "iter": lambda t: list(t), "getitem": lambda t: t[1, ::-1],
    "add": lambda t: t + 1, "radd": lambda t: 1 + t, "sub": lambda t: t - 0.5,
    "rsub": lambda t: 0.5 - t, "mul": lambda t: t * 2, "rmul": lambda t: 2 * t,
    "truediv": lambda t: t / 3, "rtruediv": lambda t: 3 / t, "floordiv": lambda t: t // 0.7,
    "rfloordiv": lambda t: 5 // t, "mod": lambda t: t % 0.7, "rmod": lambda t: 5.0 % t,
    "pow": lambda t: t ** 2, "rpow": lambda t: 2.0 ** t, "matmul": lambda t: t @ t.T,
    "rmatmul_ndarray": lambda t: _RAW.T @ t, "neg": lambda t: -t, "pos": lambda t: +t,
    "abs": lambda t: abs(t), "lt": lambda t: t < 0, "le": lambda t: t <= 0.3,
    "gt": lambda t: t > 0, "ge": lambda t: t >= 0.3, "eq": lambda t: t == 0.3,
    "ne": lambda t: t != 0.3, "ndarray_add": lambda t: _RAW + t, "ndarray_sub": lambda t: _RAW - t,
    "ndarray_mul": lambda t: _RAW * t, "ndarray_truediv": lambda t: _RAW / t,
    "ndarray_lt": lambda t: _RAW < t, "ndarray_pow": lambda t: np.abs(_RAW) ** t,
    "and": lambda t: (t > 0) & (t < 1), "or": lambda t: (t > 2) | (t < -1),
    "xor": lambda t: (t > 0) ^ (t > 1), "invert": lambda t: ~(t > 0),
    "rand_ndarray": lambda t: (_RAW > 0) & (t > 0), "ror_ndarray": lambda t: (_RAW > 0) | (t > 1),
    "np_invert_bool": lambda t: np.invert(t > 0), "np_add_reduce": lambda t: np.add.reduce(t),
    "np_maximum_reduce": lambda t: np.maximum.reduce(t, axis=1),
    "np_multiply_accumulate": lambda t: np.multiply.accumulate(t, axis=1),
    "np_sum_method_route": lambda t: np.sum(t, axis=-1, keepdims=True),
    "np_bitwise_xor_bool": lambda t: np.bitwise_xor(_RAW > 0, t > 0),
}


@pytest.mark.parametrize("name", list(METHODS))
def test_wrapper_array_interface_matches_numpy(name):
    fn = METHODS[name]
    expected = fn(_X.copy())
    if isinstance(expected, list):  # iteration: rows
        expected = [np.asarray(row) for row in expected]
    out = passthrough(fn)(_X.copy())
    if name == "dtype":
        assert out == expected
        return
    assert_close(out, expected)


def test_wrapper_methods_on_a_wrapper_are_wrappers():
    with PassThroughInterpreter() as interp:
        t = interp.wrap(_X)
        for name in ["sum", "mean", "max", "min", "prod", "ravel", "flatten", "cumsum", "var"]:
            assert isinstance(getattr(t, name)(), ft.Tensor), name
        assert isinstance(t.T, ft.Tensor) and isinstance(_RAW + t, ft.Tensor)
        assert isinstance(_RAW @ t.T, ft.Tensor) and isinstance(_RAW < t, ft.Tensor)
        with pytest.raises(TypeError, match="0-d"):
            len(t.sum())
        with pytest.raises(TypeError, match="boolean"):
            t & t


@pytest.mark.parametrize("op", [operator.add, operator.mul, operator.truediv, operator.sub])
def test_operators_between_wrappers_of_two_levels(op):
    x, y = _X, _RAW
    with PassThroughInterpreter() as outer:
        with PassThroughInterpreter() as inner:
            out = op(inner.wrap(x), outer.wrap(y))
            assert out.level == 2 and out.value.level == 1
            np.testing.assert_allclose(out.value.value, op(x, y))
