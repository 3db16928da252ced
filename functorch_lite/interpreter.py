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
   transform that happens to run at the same depth.
4. Only `Interpreter.__enter__`/`__exit__` change the stack; rules never touch it.
"""
import threading


class EscapedWrapperError(RuntimeError):
    """A wrapper was used after the transform that made it had returned."""


class _Stack(threading.local):
    def __init__(self):
        self.interpreters = []


_STACK = _Stack()


def current_level():
    """Depth of the level stack: 0 outside every transform."""
    return len(_STACK.interpreters)


def stack():
    """The running interpreters, outermost first (a copy)."""
    return tuple(_STACK.interpreters)


class Interpreter:
    """Base of the transform interpreters. See Note [levels and escaped wrappers].

    Subclasses implement `process(op, args, params)` and may refine `concretize`.
    """

    name = "interpreter"

    def __init__(self):
        self.level = None
        self.alive = False

    def __enter__(self):
        interpreters = _STACK.interpreters
        interpreters.append(self)
        self.level = len(interpreters)
        self.alive = True
        return self

    def __exit__(self, *exc):
        interpreters = _STACK.interpreters
        if not interpreters or interpreters[-1] is not self:
            raise RuntimeError(f"{self} left the level stack out of order")
        interpreters.pop()
        self.alive = False
        return False

    def process(self, op, args, params):
        """Apply `op` to `args`, some of them wrappers of this interpreter."""
        raise NotImplementedError(f"{type(self).__name__} does not process ops")

    def concretize(self, tensor, kind):
        """Turn a wrapper into a Python value (`kind`: bool, int, float, complex, index) or a raw
        array (`kind` = "array"). Transforms where a wrapper has no single concrete value refuse."""
        raise TypeError(
            f"cannot convert a value under {self.name} (level {self.level}) to {_KIND_NAMES[kind]}")

    def check_alive(self, tensor):
        if not self.alive:
            raise EscapedWrapperError(
                f"a {type(tensor).__name__} from a {self.name} transform (level {self.level}) "
                "was used after that transform returned; it escaped through a closure, a global "
                "or a side output. Return it from the transformed function instead.")

    def __repr__(self):
        state = "" if self.alive else ", finished"
        return f"<{self.name} interpreter, level {self.level}{state}>"


_KIND_NAMES = {"bool": "a Python bool", "int": "a Python int", "float": "a Python float",
               "complex": "a Python complex", "index": "an index", "array": "a raw array"}
