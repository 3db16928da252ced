"""Structured control flow with JAX's names and semantics (`functorch_lite.lax`, as `jax.lax`):
`cond`, `switch`, `while_loop`, `fori_loop`, `scan`, `map`, `select` and `stop_gradient`,
and the array functions `associative_scan`, `dynamic_slice` and `dynamic_update_slice`.

Called on plain arrays they are Python loops and `if` statements; under the transforms they
work per example (vmap), differentiate (while_loop in reverse mode too) and, under `ft.jit`,
stay one loop or branch of the compiled program.

The package holds every part of control flow, one module each: `branches` and `loops` (the
functions), `checks` (of their arguments), `guards` (derivatives only through the branch
taken), `lowering` (a call as one ft.jit equation), `rules` (the transform rules of those
equations), `xla` (the equations as jax.lax loops) and `array_ops` (the array functions). The compiler and the transforms know none of
them: `lowering`, `rules` and this module register into them at import.
"""
from ..compiler import xla as _compiler_xla
from ..ops.elementwise import stop_gradient
from . import rules as _rules  # noqa: F401  (registers the loop ops' transform rules)
from .branches import cond, select, switch
from .loops import fori_loop, map, scan, while_loop
from .array_ops import associative_scan, dynamic_slice, dynamic_update_slice

__all__ = ["scan", "fori_loop", "while_loop", "cond", "switch", "map", "select",
           "stop_gradient", "associative_scan", "dynamic_slice", "dynamic_update_slice"]


def _lower_loop(ctx, eqn, ins):
    from . import xla   # imports JAX, only when a program with loops is lowered to XLA
    return xla.lower_loop(ctx, eqn, ins)


_compiler_xla.set_loop_lowering(_lower_loop)


def __dir__():      # dir() and tab completion show the public API, not the module's imports
    return __all__
