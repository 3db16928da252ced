"""grad's JAX options, `holomorphic=` and `allow_int=`: which inputs are differentiated, what
their gradients are, and which outputs are accepted.

- holomorphic=True: every differentiated input and the output are complex; the result is
  f'(z), the vjp of the cotangent 1 (docs/autodiff.md, "Complex numbers"), as jax.grad.
- allow_int=True: integer and bool inputs are constants whose gradient is a float0 array of
  their shape (no data), as jax.grad; the floating ones are differentiated as usual.
"""
import numbers

import numpy as np
import optree

from ..backend import is_array
from ..tensor import Tensor
from ._pytree import as_differentiable_leaf, dtype_of


def is_integer_leaf(x):
    """An integer or bool array, wrapper or Python number: a constant under allow_int."""
    if isinstance(x, Tensor) or is_array(x) or isinstance(x, np.generic):
        return dtype_of(x).kind in "biu"
    return isinstance(x, numbers.Integral)


def float0_gradient(x):
    """The gradient of an integer input under allow_int: float0 zeros of its shape."""
    from .forward import float0
    return np.zeros(tuple(np.shape(x)) if not hasattr(x, "shape") else tuple(x.shape),
                    dtype=float0)


def flatten_allowing_ints(args, argnums, transform):
    """As flatten_diff_args, with integer and bool leaves passed through unchanged."""
    paths, leaves, spec = optree.tree_flatten_with_path(tuple(args[i] for i in argnums))
    out = []
    for path, leaf in zip(paths, leaves):
        if is_integer_leaf(leaf):
            out.append(leaf)
            continue
        where = f"argument {argnums[path[0]]}" + "".join(f"[{p!r}]" for p in path[1:])
        out.append(as_differentiable_leaf(leaf, where, transform))
    return out, spec


def check_holomorphic_inputs(leaves, transform):
    for k, x in enumerate(leaves):
        if dtype_of(x).kind != "c":
            raise TypeError(f"{transform} with holomorphic=True needs complex inputs; input leaf "
                            f"{k} has dtype {dtype_of(x)} (cast it with x.astype(complex), as "
                            "JAX asks)")


def check_holomorphic_output(out, transform):
    shape = tuple(getattr(out, "shape", np.shape(out)))
    if shape != ():
        raise ValueError(f"{transform} needs the function to return a scalar (a 0-d value); it "
                         f"returned shape {shape}")
    if dtype_of(out).kind != "c":
        raise TypeError(f"{transform} with holomorphic=True needs a complex output; the "
                        f"function returned dtype {dtype_of(out)}")
