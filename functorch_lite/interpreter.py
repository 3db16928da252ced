"""The level stack: one Interpreter per running transform.

Note [levels and escaped wrappers]
----------------------------------
Every running transform (vmap, grad, jvp, ...) enters an Interpreter as a context manager. The
interpreter is pushed on a thread-local stack and its *level* is its depth there (1 for the
outermost, 0 is plain arrays). A wrapper records the interpreter that made it, so a wrapper's
level is its interpreter's level.

1. An op whose arguments hold wrappers is processed by the interpreter of highest level among
   them. That interpreter unwraps its own level and applies the op's rule; the rule calls ops
   again on the unwrapped values, which are either raw arrays or wrappers of lower level, so the
   call descends one level at a time until the kernel runs on raw arrays.
2. A wrapper of lower level than the interpreter at hand is a constant to it. That is what keeps
   nested transforms apart (no perturbation confusion): `grad` inside `grad` sees the outer
   transform's values as constants and vice versa.
3. An interpreter has an identity beyond its depth. When its transform returns, it is marked dead;
   a wrapper that escaped the transform (kept in a closure, stored on an object) still points at
   it, and any op that meets it raises EscapedWrapperError instead of being mixed up with a later
   transform that happens to run at the same depth. Every transform also refuses such a wrapper
   wherever it shows up among its inputs, outputs, aux values or cotangents (`check_usable` in
   tensor.py), so it never comes back to the user as a result.
4. The stack is per thread, and so is a wrapper's validity: an interpreter records the thread
   that entered it (`thread`, None once dead), and a wrapper is usable only in that thread while
   its interpreter runs. A wrapper handed to another thread is refused there, with the same
   error, even while its transform is still running in its own thread: the other thread's
   levels are unrelated to its level. Dispatch pays one `get_ident()` per op for this.
5. Only entering and leaving an interpreter change the stack; rules never touch it. Both are
   written so that an exception landing at any point (KeyboardInterrupt, GeneratorExit), or
   code run there by a __del__ (a whole transform, say), leaves the stack consistent: an
   interpreter is complete before it is pushed; leaving marks it dead *before* removing it and
   removes every entry left above it too. An interrupt can still cut an exit short before its
   first line runs, so an entry also records the frame of the `with` statement that entered it
   (enter interpreters with a `with` statement in the function that runs the transform). The
   next enter, and `stack()`, drop the top entries that are dead or whose frame is not among the
   running callers: transforms that ended without leaving. `reset_level_stack()` empties the
   thread's stack by hand.
"""
import contextlib
import sys
import threading
from _thread import get_ident

_getframe = sys._getframe


class EscapedWrapperError(RuntimeError):
    """A wrapper was used after the transform that made it had returned, or in another thread.

    A transform's values exist only while it runs, in its own thread: one that leaks through a
    closure, a global or a side output cannot be used later. Return values from the
    transformed function instead. A subclass of RuntimeError.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> leaked = []
        >>> def f(x):
        ...     leaked.append(x)
        ...     return x.sum()
        >>> _ = ft.grad(f)(np.array([1.0]))
        >>> try:
        ...     np.sin(leaked[0])
        ... except ft.EscapedWrapperError:
        ...     print("escaped")
        escaped
    """


class _Stack(threading.local):
    def __init__(self):
        self.interpreters = []
        self.region = 0     # the recomputation running now (0: none), see `recomputation`
        self.regions = 0    # recomputations started so far


_STACK = _Stack()


@contextlib.contextmanager
def recomputation():
    """Mark the ops run inside as a recomputation of values computed before (a checkpointed
    segment replayed in the backward pass). An interpreter that records programs keeps them
    apart from the first computation, which would otherwise look equal and be merged (JAX's
    prevent_cse)."""
    s = _STACK
    outer = s.region
    s.regions += 1
    s.region = s.regions
    try:
        yield
    finally:
        s.region = outer


def recomputation_region():
    """The recomputation running now (a number unique within the thread), 0 outside one."""
    return _STACK.region


def current_level():
    """Depth of the level stack: 0 outside every transform."""
    stack = _STACK.interpreters
    if stack:
        _drop_finished(stack, _getframe(1))
    return len(stack)


def stack():
    """The running interpreters, outermost first (a copy)."""
    interpreters = _STACK.interpreters
    if interpreters:
        _drop_finished(interpreters, _getframe(1))
    return tuple(interpreters)


def reset_level_stack():
    """Empty this thread's level stack, marking every interpreter on it dead.

    Only needed to recover by hand from a stack left inconsistent (the transforms clean up
    after themselves); call it outside every transform.

    Returns:
        How many interpreters were removed (0 when the stack was already empty).

    Examples:
        >>> import functorch_lite as ft
        >>> ft.reset_level_stack()
        0
    """
    interpreters = _STACK.interpreters
    entries = interpreters[:]
    _remove_from(interpreters, entries, 0)
    return len(entries)


def _running(interp, start):
    """Whether `interp` runs: not dead, and the frame that entered it is `start` or one of its
    callers (its `with` statement has not finished)."""
    if interp.thread is None:
        return False
    frame = interp._frame
    while True:
        f = start
        while f is not None:
            if f is frame:
                return True
            f = f.f_back
        if frame.f_code.co_name not in ("__enter__", "enter_context"):
            return False
        frame = frame.f_back  # entered by a subclass's __enter__ or an ExitStack: their caller


def _drop_finished(interpreters, start):
    """Pop the top entries whose transform has ended without leaving the stack (dead, or their
    `with` frame is not among the callers of `start`). Note [levels and escaped wrappers], 5."""
    if _running(interpreters[-1], start):
        return  # the usual case: nothing to drop
    entries = interpreters[:]
    n = len(entries)
    while n and not _running(entries[n - 1], start):
        n -= 1
    _remove_from(interpreters, entries, n)


def _remove_from(interpreters, entries, k):
    """Mark `entries[k:]` (a copy of the stack) dead, then delete them from the stack in one
    step. Code that runs in between (a __del__ running a transform) completes before this goes
    on and only ever drops dead entries from the top, so the entries below k stay."""
    for interp in entries[k:]:
        interp._die()
    del interpreters[k:]


class Interpreter:
    """Base of the transform interpreters. See Note [levels and escaped wrappers].

    Subclasses implement `process(op, args, params)` and may refine `concretize`. Enter one with
    a `with` statement in the function that runs the transform: entering pushes it on this
    thread's level stack (it gets the next level), leaving pops it and marks it dead, so
    wrappers it made raise EscapedWrapperError afterwards.

    Raises:
        EscapedWrapperError: from `check_alive`, a wrapper used after its transform returned
            or in another thread.
        TypeError: from `concretize`, a wrapper converted to a Python value (bool, int, float)
            or a raw array.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> levels = []
        >>> def f(x):
        ...     levels.append((x._interpreter.name, x.level))
        ...     return x
        >>> _ = ft.vmap(f)(np.zeros(2))
        >>> levels
        [('vmap', 1)]
    """

    name = "interpreter"
    # Set per instance while it runs (by __enter__), reset when it dies.
    level = None
    thread = None      # the ident of the thread running it; None when not running
    _frame = None      # the frame of the `with` statement that entered it

    @property
    def alive(self):
        """Whether its transform is running (in some thread)."""
        return self.thread is not None

    def __enter__(self):
        frame = _getframe(1)
        interpreters = _STACK.interpreters
        try:
            if interpreters:
                _drop_finished(interpreters, frame)
            self._frame = frame
            self.level = len(interpreters) + 1
            self.thread = get_ident()
            interpreters.append(self)  # complete before it is on the stack
            return self
        except BaseException:
            self._leave()
            raise

    def __exit__(self, *exc):
        self._leave()
        return False

    def _die(self):
        self.thread = None
        self._frame = None

    def _leave(self):
        """Mark dead, then remove this interpreter and anything left above it. Code run in
        between (a __del__ running a transform) may drop it first, and only ever drops dead
        entries from the top: the entries below it stay, so deleting from its index is safe."""
        self.thread = self._frame = None  # dead
        interpreters = _STACK.interpreters
        try:
            k = interpreters.index(self)
        except ValueError:
            return  # dropped already
        if k + 1 < len(interpreters):
            for above in interpreters[k + 1:]:
                above._die()
        del interpreters[k:]

    def process(self, op, args, params):
        """Apply `op` to `args`, some of them wrappers of this interpreter."""
        raise NotImplementedError(f"{type(self).__name__} does not process ops")

    def concretize(self, tensor, kind):
        """Turn a wrapper into a Python value (`kind`: bool, int, float, complex, index) or a raw
        array (`kind` = "array"). Transforms where a wrapper has no single concrete value refuse."""
        raise TypeError(
            f"cannot convert a value under {self.name} (level {self.level}) to {_KIND_NAMES[kind]}")

    def check_alive(self, tensor):
        """Raise EscapedWrapperError unless `tensor` (a wrapper of this interpreter) may be used
        here: its transform is running, in the current thread."""
        if self.thread == get_ident():
            return
        what = f"a {type(tensor).__name__} from a {self.name} transform (level {self.level})"
        if self.thread is None:
            raise EscapedWrapperError(
                f"{what} was used after that transform returned; it escaped through a closure, "
                "a global or a side output. Return it from the transformed function instead.")
        raise EscapedWrapperError(
            f"{what} running in another thread was used in this thread; a transform's values "
            "belong to the thread running it. Share plain arrays between threads (return them "
            "from the transform first).")

    def __repr__(self):
        state = "" if self.alive else ", finished"
        return f"<{self.name} interpreter, level {self.level}{state}>"


_KIND_NAMES = {"bool": "a Python bool", "int": "a Python int", "float": "a Python float",
               "complex": "a Python complex", "index": "an index", "array": "a raw array"}
