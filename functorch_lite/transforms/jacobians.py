"""Jacobians and Hessians: jacrev (vmap over vjp) and hessian.

Layout (as torch.func and JAX): for an output leaf of shape `out` and an input leaf of shape
`in`, the Jacobian block has shape `out + in`. The result nests the output's pytree outside the
argnums tuple (when argnums is a tuple) outside the input's pytree.
"""
from typing import Callable, Optional, Sequence, Union

import numpy as np
import optree

from .. import numpy as fnp
from ..backend import module_of
from ..tensor import Tensor
from ._grad_options import check_holomorphic_inputs
from ._pytree import check_function, dtype_of, flatten_diff_args, normalize_argnums, replace_args
from .reverse import _vjp


Argnums = Union[int, Sequence[int]]


def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


def _standard_basis(out_leaves):
    """One cotangent per row of the stacked identity: for each output leaf, an array of shape
    (total,) + leaf.shape (rows of the other leaves are zero)."""
    sizes = [_size(o.shape) for o in out_leaves]
    total = sum(sizes)
    basis, offset = [], 0
    for o, n in zip(out_leaves, sizes):
        dt = np.dtype(o.dtype) if np.dtype(o.dtype).kind in "fc" else np.dtype(np.float64)
        xp = o.xp if isinstance(o, Tensor) else module_of(o)
        block = xp.zeros((total, n), dtype=dt)       # built on the output's device: no copy
        block[offset:offset + n] = xp.eye(n, dtype=dt)
        basis.append(block.reshape((total,) + tuple(o.shape)))
        offset += n
    return basis, sizes, total


def _pullback_rows(vjp_fn, out_spec, basis, total, chunk_size):
    """vjp_fn applied to every basis row, batched by vmap (in chunks of chunk_size)."""
    from .vmap import vmap

    def pull(*cts):
        return vjp_fn(optree.tree_unflatten(out_spec, list(cts)))
    if chunk_size is not None and chunk_size < 1:
        raise ValueError(f"jacrev: chunk_size must be a positive int or None, got {chunk_size}")
    return vmap(pull, chunk_size=chunk_size, axis_size=total)(*basis)


def _jacobian_from_rows(rows, out_leaves, out_spec, sizes, is_tuple):
    """Rows (a tuple of input pytrees, each leaf (total,) + in_shape) -> the nested Jacobian."""
    per_out, offset = [], 0
    for o, n in zip(out_leaves, sizes):
        def block(g, o=o, offset=offset, n=n):
            return fnp.reshape(g[offset:offset + n], tuple(o.shape) + tuple(g.shape[1:]))
        jac = optree.tree_map(block, rows)
        per_out.append(jac if is_tuple else jac[0])
        offset += n
    return optree.tree_unflatten(out_spec, per_out)


def jacrev(f: Callable, argnums: Argnums = 0, has_aux: bool = False,
           chunk_size: Optional[int] = None, *, holomorphic: bool = False) -> Callable:
    """The Jacobian of f by reverse mode: one vjp per output element, batched with vmap.

    Blocks have shape out.shape + in.shape; pytrees are allowed on both sides (output structure
    outermost). `chunk_size` bounds how many vjps run in one batch (memory). With has_aux=True
    the result is (jacobian, aux). With holomorphic=True (as JAX) inputs and outputs are
    complex and the blocks hold the complex derivatives df_i/dz_j.

    Args:
        f: the function; its output is any pytree of real arrays (complex with holomorphic).
        argnums: int or tuple of ints, the positional argument(s) to differentiate.
        has_aux: f returns (output, aux); aux is passed through, not differentiated.
        chunk_size: at most this many vjps per batch (None: all at once).
        holomorphic: f is holomorphic in its complex inputs: the Jacobian is the complex
            matrix of f'(z) (every differentiated input and every output must be complex).

    Returns:
        A function with f's arguments returning the Jacobian (a tuple of blocks per output
        leaf when argnums is a tuple), or (jacobian, aux) with has_aux=True.

    Raises:
        TypeError: a differentiated input that is not floating point, or a complex output
            (without holomorphic); a real input or output with holomorphic=True.
        ValueError: argnums out of range or repeated, or chunk_size not a positive int.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.jacrev(lambda x: x[:2] * x[1:])(np.array([1.0, 2.0, 3.0]))
        array([[2., 1., 0.],
               [0., 3., 2.]])
        >>> ft.jacrev(lambda z: z ** 2, holomorphic=True)(np.array([1j, 2.0 + 0j]))
        array([[0.+2.j, 0.+0.j],
               [0.+0.j, 4.+0.j]])
    """
    check_function(f, "jacrev")
    def jacrev_f(*args, **kwargs):
        nums, is_tuple = normalize_argnums(argnums, len(args), "jacrev")
        leaves, _ = flatten_diff_args(args, nums, "jacrev")  # errors name jacrev, not the vjp
        if holomorphic:
            check_holomorphic_inputs(leaves, "jacrev")

        def f_selected(*selected):
            return f(*replace_args(args, nums, selected), **kwargs)
        res = _vjp(f_selected, tuple(args[i] for i in nums), has_aux, snapshot=False)
        out, vjp_fn = res[0], res[1]
        out_leaves, out_spec = optree.tree_flatten(out)
        out_leaves = [o if hasattr(o, "shape") else np.asarray(o) for o in out_leaves]
        if holomorphic:
            _require_complex_outputs(out_leaves, "jacrev")
        else:
            _refuse_complex(out_leaves, "jacrev", "output", "use vjp, jacrev of the real and "
                            "imaginary parts, or holomorphic=True for a holomorphic f (as JAX)")
        basis, sizes, total = _standard_basis(out_leaves)
        rows = _pullback_rows(vjp_fn, out_spec, basis, total, chunk_size)  # total 0: empty
        jac = _jacobian_from_rows(rows, out_leaves, out_spec, sizes, is_tuple)
        return (jac, res[2]) if has_aux else jac
    jacrev_f.__name__ = f"jacrev({getattr(f, '__name__', 'f')})"
    return jacrev_f


def _refuse_complex(leaves, transform, what, advice):
    """A complex Jacobian is not one real matrix under the library's convention (vjp is the
    transpose of a real-linear map, docs/autodiff.md): refuse it, naming the leaf."""
    for k, x in enumerate(leaves):
        if np.dtype(x.dtype).kind == "c":
            raise TypeError(f"{transform}: {what} leaf {k} is complex ({x.dtype}); {transform} "
                            f"needs real {what}s: {advice}")


def _require_complex_outputs(leaves, transform):
    """holomorphic=True promises a complex function: a real output leaf is refused (as JAX)."""
    for k, x in enumerate(leaves):
        if dtype_of(x).kind != "c":
            raise TypeError(f"{transform} with holomorphic=True needs complex outputs; output "
                            f"leaf {k} has dtype {dtype_of(x)} (return a complex value, or drop "
                            "holomorphic=True for a real function)")


def hessian(f: Callable, argnums: Argnums = 0, has_aux: bool = False, *,
            holomorphic: bool = False) -> Callable:
    """The Hessian of a scalar f: forward over reverse, jacfwd(jacrev(f)) (as torch.func and
    JAX): one batched jvp of the gradient, n Hessian-vector products in one pass. For a
    non-scalar f the result is the Jacobian of the Jacobian (out.shape + in.shape + in.shape).

    Args:
        f: the function, real-valued (usually scalar).
        argnums: int or tuple of ints, the positional argument(s) to differentiate.
        has_aux: f returns (output, aux); aux is passed through, not differentiated.
        holomorphic: f is holomorphic in its complex inputs: the Hessian holds the complex
            second derivatives d2f/dz_i dz_j (inputs and output must be complex).

    Returns:
        A function with f's arguments returning the Hessian, of shape in.shape + in.shape for
        a scalar f (nested tuples of blocks when argnums is a tuple), or (hessian, aux) with
        has_aux=True.

    Raises:
        TypeError: a differentiated input that is not floating point or is complex (without
            holomorphic); a real input or output with holomorphic=True.
        ValueError: argnums out of range or repeated.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.hessian(lambda x: x[0] ** 2 * x[1])(np.array([1.0, 2.0]))
        array([[4., 2.],
               [2., 0.]])
        >>> ft.hessian(lambda z: z ** 3, holomorphic=True)(np.array(1j))   # 6z
        array(0.+6.j)
    """
    check_function(f, "hessian")
    h = _jacfwd(jacrev(f, argnums, has_aux=has_aux, holomorphic=holomorphic), argnums,
                has_aux, "hessian", holomorphic=holomorphic)
    h.__name__ = h.__qualname__ = f"hessian({getattr(f, '__name__', 'f')})"
    return h


# ---------------------------------------------------------------------------------------------
# jacfwd (forward-mode helper's part): vmap over jvp with the standard basis as tangents
# ---------------------------------------------------------------------------------------------

def _forward_basis(leaves):
    """One batch of tangents per input leaf: together they are the rows of the identity of
    size N = total size, the k-th example perturbing the k-th input element. A NumPy scalar
    leaf (a Python float) gets its block on the device of the other leaves, if any: the
    scalar mixes with device arrays, a NumPy block would not."""
    sizes = [int(np.prod(tuple(fnp.shape(x)), dtype=np.int64)) for x in leaves]
    n = sum(sizes)
    modules = [x.xp if isinstance(x, Tensor) else module_of(x) for x in leaves]
    device = next((xp for xp in modules if xp is not np), np)
    out, start = [], 0
    for x, xp, size in zip(leaves, modules, sizes):
        xp = device if isinstance(x, np.generic) else xp
        block = xp.zeros((n, size), dtype=x.dtype)
        block[start:start + size] = xp.eye(size, dtype=x.dtype)
        out.append(block.reshape((n,) + tuple(fnp.shape(x))))
        start += size
    return out, sizes


def _split_forward_jacobian(t, out_shape, in_leaves, sizes, in_spec):
    """A tangent batch (N,) + out_shape -> the in_spec pytree of blocks out_shape + in.shape.
    An integer output (a float0 tangent) gets zero blocks in the input's dtype, as jacrev."""
    if np.dtype(t.dtype).kind == "V":
        return optree.tree_unflatten(in_spec, [
            fnp.zeros(tuple(out_shape) + tuple(fnp.shape(x)), dtype=x.dtype,
                      like=None if isinstance(x, np.generic) else x) for x in in_leaves])
    t = fnp.moveaxis(t, 0, -1) if len(out_shape) else t
    blocks, start = [], 0
    for x, size in zip(in_leaves, sizes):
        block = fnp.getitem(t, (Ellipsis, slice(start, start + size)))
        blocks.append(fnp.reshape(block, tuple(out_shape) + tuple(fnp.shape(x))))
        start += size
    return optree.tree_unflatten(in_spec, blocks)


def jacfwd(f: Callable, argnums: Argnums = 0, has_aux: bool = False,
           chunk_size: Optional[int] = None, *, holomorphic: bool = False) -> Callable:
    """The Jacobian of f by forward mode: vmap of jvp over the standard basis of the inputs.

    Same layout as jacrev: for every output leaf, a pytree like the differentiated argument (a
    tuple of them when argnums is a tuple) whose leaves have shape out.shape + in.shape. Costs
    one batched jvp with as many examples as the inputs have elements: prefer it to jacrev when
    inputs are smaller than outputs. With holomorphic=True (as JAX) inputs and outputs are
    complex and the blocks hold the complex derivatives df_i/dz_j.

    Args:
        f: the function; its output is any pytree of arrays.
        argnums: int or tuple of ints, the positional argument(s) to differentiate.
        has_aux: f returns (output, aux); aux is passed through, not differentiated.
        chunk_size: at most this many jvps per batch (None: all at once), as torch.func.
        holomorphic: f is holomorphic in its complex inputs: the Jacobian is the complex
            matrix of f'(z) (every differentiated input and every output must be complex).

    Returns:
        A function with f's arguments returning the Jacobian, or (jacobian, aux) with
        has_aux=True.

    Raises:
        TypeError: a differentiated input that is not floating point, or a complex input
            (without holomorphic); a real input or output with holomorphic=True.
        ValueError: argnums out of range or repeated, or chunk_size not a positive int.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.jacfwd(lambda x: np.stack([x[0] * x[1], np.sin(x[0])]))(np.array([0.0, 2.0]))
        array([[2., 0.],
               [1., 0.]])
        >>> ft.jacfwd(lambda z: z ** 2, holomorphic=True)(np.array(1.0 + 1j))   # 2z
        array(2.+2.j)
    """
    check_function(f, "jacfwd")
    return _jacfwd(f, argnums, has_aux, "jacfwd", chunk_size, holomorphic)


def _jacfwd(f, argnums, has_aux, transform, chunk_size=None, holomorphic=False):
    """jacfwd, its errors naming `transform` (hessian is jacfwd of jacrev)."""
    from .forward import jvp
    from .vmap import vmap
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"jacfwd: chunk_size must be a positive int or None, got {chunk_size!r}")

    def jacfwd_f(*args, **kwargs):
        nums, is_tuple = normalize_argnums(argnums, len(args), transform)
        leaves, spec = flatten_diff_args(args, nums, transform)
        if holomorphic:
            check_holomorphic_inputs(leaves, transform)
        else:
            _refuse_complex(leaves, transform, "input", "use jvp along the real and the "
                            "imaginary directions, jacrev for a real output, or "
                            "holomorphic=True for a holomorphic f (as JAX)")
        selected = optree.tree_unflatten(spec, leaves)

        def pushforward(*basis_leaves):
            tangents = optree.tree_unflatten(spec, list(basis_leaves))

            def g(*sel):
                return f(*replace_args(args, nums, sel), **kwargs)
            res = jvp(g, tuple(selected), tuple(tangents), has_aux=has_aux)
            return (res[1], res[2]) if has_aux else (res[1],)

        basis, sizes = _forward_basis(leaves)  # no input elements: a batch of 0 tangents
        outs = vmap(pushforward, in_dims=0, out_dims=(0, None) if has_aux else 0,
                    axis_size=sum(sizes), chunk_size=chunk_size)(*basis)
        out_leaves, out_def = optree.tree_flatten(outs[0])
        if holomorphic:
            _require_complex_outputs(out_leaves, transform)
        jac_leaves = []
        for t in out_leaves:
            out_shape = tuple(fnp.shape(t))[1:]
            jac = _split_forward_jacobian(t, out_shape, leaves, sizes, spec)
            jac_leaves.append(jac if is_tuple else jac[0])
        jac = out_def.unflatten(jac_leaves)
        if has_aux:
            return jac, outs[1]
        return jac

    name = getattr(f, "__name__", type(f).__name__)
    jacfwd_f.__name__ = jacfwd_f.__qualname__ = f"{transform}({name})"
    return jacfwd_f
