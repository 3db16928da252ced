"""The level stack stays consistent whatever exception lands wherever: KeyboardInterrupt,
GeneratorExit or SystemExit raised at every line of entering and leaving a level (injected
with sys.settrace), or raised by the transformed function, or code run at those points (as a
__del__ would) that runs a transform itself. After each, the stack is empty and the next
transform gives the right answer. Note [levels and escaped wrappers], 5, in interpreter.py."""
import gc
import sys

import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite import interpreter
from functorch_lite.interpreter import _STACK, current_level, stack
from functorch_lite.testing import PassThroughInterpreter

X = np.array([0.3, -1.2, 2.0])
XS = np.arange(6.0).reshape(2, 3) / 5


def _f(x):
    return fnp.sum(fnp.sin(x) * x)


def _df(x):
    return np.cos(x) * x + np.sin(x)


# Each program runs transforms and checks its own result against NumPy.
PROGRAMS = {
    "grad": lambda: np.testing.assert_allclose(ft.grad(_f)(X), _df(X)),
    "vjp": lambda: np.testing.assert_allclose(ft.vjp(_f, X)[1](1.0)[0], _df(X)),
    "jvp": lambda: np.testing.assert_allclose(ft.jvp(_f, (X,), (np.ones(3),))[1], _df(X).sum()),
    "vmap": lambda: np.testing.assert_allclose(ft.vmap(_f)(XS), np.sum(np.sin(XS) * XS, 1)),
    "linearize": lambda: np.testing.assert_allclose(ft.linearize(_f, X)[1](np.ones(3)),
                                                    _df(X).sum()),
    "vmap_grad": lambda: np.testing.assert_allclose(ft.vmap(ft.grad(_f))(XS), _df(XS)),
    "hessian": lambda: np.testing.assert_allclose(
        ft.hessian(_f)(X), np.diag(2 * np.cos(X) - X * np.sin(X)), atol=1e-12),
}


class _AtLine:
    """A trace hook calling `action()` at the k-th line event of the code in interpreter.py
    (enter, leave, dropping finished entries), counting no events while the action runs."""

    def __init__(self, k, action):
        self.k, self.action, self.count, self.busy = k, action, 0, False

    def __call__(self, frame, event, arg):
        if frame.f_code.co_filename == interpreter.__file__:
            return self.local
        return None

    def local(self, frame, event, arg):
        if event == "line" and not self.busy:
            self.count += 1
            if self.count == self.k:
                self.busy = True
                try:
                    self.action()
                finally:
                    self.busy = False
        return self.local


def _run_traced(program, hook):
    old = sys.gettrace()
    sys.settrace(hook)
    try:
        program()
    finally:
        sys.settrace(old)


def _raise(cls):
    def action():
        raise cls("injected")
    return action


def _nested_transform(then_raise):
    def action():  # what a __del__ or a signal handler could run at that point
        np.testing.assert_allclose(ft.grad(lambda y: fnp.sum(y * y))(X), 2 * X)
        if then_raise:
            raise KeyboardInterrupt("injected after a nested transform")
    return action


ACTIONS = {
    "KeyboardInterrupt": _raise(KeyboardInterrupt),
    "GeneratorExit": _raise(GeneratorExit),
    "SystemExit": _raise(SystemExit),
    "nested_transform": _nested_transform(False),
    "nested_transform_then_interrupt": _nested_transform(True),
}


def _assert_clean():
    assert stack() == () and current_level() == 0
    assert _STACK.interpreters == []


@pytest.mark.parametrize("action", sorted(ACTIONS))
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_exception_at_every_line_of_enter_and_exit(program, action):
    run, k = PROGRAMS[program], 0
    while True:
        k += 1
        hook = _AtLine(k, ACTIONS[action])
        try:
            _run_traced(run, hook)
        except (KeyboardInterrupt, GeneratorExit, SystemExit):
            pass
        _assert_clean()
        run()  # the next transform works
        _assert_clean()
        if hook.count < k:  # the program ran through without reaching line k: all covered
            break
    assert k > 10  # the injection reached every line of entering and leaving


@pytest.mark.parametrize("cls", [KeyboardInterrupt, GeneratorExit, SystemExit, ValueError])
@pytest.mark.parametrize("program", ["grad", "vmap_grad", "hessian", "linearize"])
def test_exception_raised_by_the_function(program, cls):
    calls = []

    def f(x):
        calls.append(1)
        if len(calls) == 1:
            raise cls("from the user's function")
        return _f(x)
    transform = {"grad": lambda: ft.grad(f)(X), "vmap_grad": lambda: ft.vmap(ft.grad(f))(XS),
                 "hessian": lambda: ft.hessian(f)(X), "linearize": lambda: ft.linearize(f, X)}
    with pytest.raises(cls):
        transform[program]()
    _assert_clean()
    PROGRAMS[program]()


class _RaisesOnDel:
    """An object whose __del__ runs a transform and then raises (Python reports and ignores
    the error)."""

    def __init__(self, log):
        self.log = log

    def __del__(self):
        self.log.append(np.allclose(ft.grad(lambda y: fnp.sum(y * y))(X), 2 * X))
        raise RuntimeError("from __del__")


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_del_running_a_transform_and_raising_inside_transforms():
    log = []

    def f(x):
        _RaisesOnDel(log)       # freed at once, inside the transform
        holder = [_RaisesOnDel(log)]
        holder.append(holder)   # a cycle: freed by the collector, wherever it runs
        return _f(x)
    unraisable, old_hook = [], sys.unraisablehook
    sys.unraisablehook = lambda u: unraisable.append(type(u.exc_value))  # not the traceback:
    # it would keep f's frame, and so the cycle, alive
    try:
        np.testing.assert_allclose(ft.vmap(ft.grad(f))(XS), _df(XS))
        gc.collect()
    finally:
        sys.unraisablehook = old_hook
    assert log and all(log) and len(log) >= 2
    assert unraisable == [RuntimeError] * len(log)
    _assert_clean()


def test_reset_level_stack_recovers_by_hand():
    interp = ft.Interpreter()
    interp.__enter__()          # entered and never left, by hand
    _STACK.interpreters.append(ft.Interpreter())  # and a broken entry
    assert ft.reset_level_stack() == 2
    _assert_clean()
    assert not interp.alive
    PROGRAMS["vmap_grad"]()
    assert ft.reset_level_stack() == 0


def test_interpreter_entered_by_hand_stays_while_its_frame_runs():
    # the stack only drops an entry whose `with` frame has finished: one entered (without a
    # with statement) in the running frame stays, and a transform nests above it
    interp = PassThroughInterpreter()
    interp.__enter__()
    try:
        np.testing.assert_allclose(ft.grad(_f)(X), _df(X))
        assert stack() == (interp,) and interp.alive
    finally:
        interp.__exit__(None, None, None)
    _assert_clean()


def test_entry_whose_frame_finished_is_dropped():
    def enter_and_return():
        PassThroughInterpreter().__enter__()  # its exit never runs

    enter_and_return()
    _assert_clean()
    PROGRAMS["grad"]()
