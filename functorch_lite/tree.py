"""Pytree utilities, thin over optree (the library's own pytree machinery, so the trees the
transforms accept are exactly the trees these functions walk).

    ft.tree.map(f, params)              apply f to every leaf (several trees: f(*leaves))
    ft.tree.leaves(params)              the leaves, in the transforms' order
    ft.tree.structure(params)           the tree's shape without its leaves
    ft.tree.stack([p1, p2, p3])         one tree whose leaves carry a leading model axis
    ft.tree.unstack(stacked)            its inverse: a list of trees
    flat, unravel = ft.tree.ravel(p)    one flat vector and the function that rebuilds the tree

`stack` is what an ensemble needs (torch.func's `stack_module_state`): vmap over the stacked
parameters with in_dims=0 runs every model at once. `ravel` follows
`jax.flatten_util.ravel_pytree`, for optimizers that want one vector (scipy.optimize). Every
function works on wrappers as well as arrays, so they can be used inside transforms.
"""
import numpy as np
import optree

from . import numpy as fnp
from .numpy._util import dtype_of, shape, xp_of

__all__ = ["map", "leaves", "structure", "flatten", "unflatten", "stack", "unstack", "ravel",
           "register_pytree_node_class"]

_SCALARS = (int, float, complex, np.generic)


def map(f, tree, *rest, is_leaf=None):
    """f applied leaf by leaf; with several trees of one structure, f(leaf, *other_leaves).

    optree.tree_map: None is an empty node (f never sees it), dicts are walked in sorted key
    order, and the result has the first tree's structure.

    Args:
        f: a function of one leaf (of len(rest) + 1 leaves with several trees).
        tree: a pytree.
        *rest: further pytrees of tree's structure (or with tree as a prefix).
        is_leaf: a predicate that stops the walk at the subtrees it accepts.

    Returns:
        A pytree of tree's structure holding f's results.

    Raises:
        ValueError: a tree of `rest` does not match tree's structure.

    Examples:
        >>> import functorch_lite as ft
        >>> ft.tree.map(lambda a, b: a + b, {"w": 1.0, "b": 2.0}, {"w": 10.0, "b": 20.0})
        {'w': 11.0, 'b': 22.0}
    """
    return optree.tree_map(f, tree, *rest, is_leaf=is_leaf)


def leaves(tree, is_leaf=None):
    """The leaves of `tree`, in the order the transforms flatten it (None is an empty node).

    Dict leaves come in sorted key order, as the transforms flatten them.

    Args:
        tree: a pytree.
        is_leaf: a predicate that stops the walk at the subtrees it accepts.

    Returns:
        A list of the leaves.

    Examples:
        >>> import functorch_lite as ft
        >>> ft.tree.leaves({"b": 2.0, "w": (1.0, None)})
        [2.0, 1.0]
    """
    return optree.tree_leaves(tree, is_leaf=is_leaf)


def structure(tree, is_leaf=None):
    """The structure of `tree` (an optree PyTreeSpec): compare two with ==.

    Two trees with equal structures differ only in their leaves, so they can be mapped over
    together or unflattened from each other's leaves.

    Args:
        tree: a pytree.
        is_leaf: a predicate that stops the walk at the subtrees it accepts.

    Returns:
        An optree.PyTreeSpec.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.tree.structure({"w": 1.0, "b": (2.0, None)})
        PyTreeSpec({'b': (*, None), 'w': *})
        >>> ft.tree.structure([1.0]) == ft.tree.structure([np.ones(3)])
        True
    """
    return optree.tree_structure(tree, is_leaf=is_leaf)


def flatten(tree, is_leaf=None):
    """(leaves, structure): the leaves as `leaves` gives them and the structure `unflatten`
    needs to rebuild the tree.

    Args:
        tree: a pytree.
        is_leaf: a predicate that stops the walk at the subtrees it accepts.

    Returns:
        The pair (list of leaves, optree.PyTreeSpec).

    Examples:
        >>> import functorch_lite as ft
        >>> flat, treedef = ft.tree.flatten({"w": 1.0, "b": [2.0, 3.0]})
        >>> flat
        [2.0, 3.0, 1.0]
        >>> ft.tree.unflatten(treedef, [4.0, 5.0, 6.0])
        {'w': 6.0, 'b': [4.0, 5.0]}
    """
    return optree.tree_flatten(tree, is_leaf=is_leaf)


def unflatten(treedef, leaves):
    """The tree of structure `treedef` holding `leaves`.

    The inverse of flatten: leaves are placed in the order flatten lists them.

    Args:
        treedef: a structure from flatten or structure.
        leaves: an iterable of exactly as many leaves as treedef has.

    Returns:
        A pytree of structure treedef.

    Raises:
        ValueError: too few or too many leaves for treedef (from optree).

    Examples:
        >>> import functorch_lite as ft
        >>> ft.tree.unflatten(ft.tree.structure((1, [2, 3])), ["a", "b", "c"])
        ('a', ['b', 'c'])
    """
    return optree.tree_unflatten(treedef, list(leaves))


def stack(trees, axis=0):
    """Trees of one structure -> one tree whose every leaf stacks the trees' leaves on `axis`
    (the parameters of an ensemble, to vmap over).

    Args:
        trees: an iterable of pytrees of arrays, all of one structure and leaf shapes.
        axis: where the new axis goes in every leaf.

    Returns:
        One pytree of that structure; each leaf has one more axis, of size len(trees).

    Raises:
        ValueError: no trees, or trees of different structures (naming the first that differs).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.tree.stack([{"w": np.zeros(2)}, {"w": np.ones(2)}])["w"].shape
        (2, 2)
    """
    trees = list(trees)
    if not trees:
        raise ValueError("ft.tree.stack needs at least one tree")
    first = structure(trees[0])
    for i, t in enumerate(trees[1:], 1):
        if structure(t) != first:
            raise ValueError(f"ft.tree.stack: tree {i} has structure {structure(t)}, tree 0 "
                             f"has {first}")
    return optree.tree_map(lambda *xs: fnp.stack(xs, axis=axis), *trees)


def unstack(tree, axis=0):
    """The inverse of stack: a list of trees, one per index along `axis` of every leaf.

    Args:
        tree: a pytree whose leaves all have the same size n along `axis`.
        axis: the axis to split every leaf along.

    Returns:
        A list of n pytrees of tree's structure, each leaf without `axis`.

    Raises:
        ValueError: a tree without leaves, or leaves of different sizes along `axis`.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> [t["w"].tolist() for t in ft.tree.unstack({"w": np.arange(4.0).reshape(2, 2)})]
        [[0.0, 1.0], [2.0, 3.0]]
    """
    flat, treedef = flatten(tree)
    if not flat:
        raise ValueError("ft.tree.unstack needs a tree with at least one leaf")
    sizes = {shape(x)[axis] if len(shape(x)) else None for x in flat}
    if len(sizes) != 1 or None in sizes:
        raise ValueError(f"ft.tree.unstack: the leaves must share one size along axis {axis}; "
                         f"got sizes {sorted(s for s in sizes if s is not None)} "
                         f"{'and 0-d leaves' if None in sizes else ''}".rstrip())
    (n,) = sizes
    moved = [fnp.moveaxis(x, axis, 0) for x in flat]
    return [unflatten(treedef, [x[i, ...] for x in moved]) for i in range(n)]


def _complex_of(dtype):
    """NumPy's smallest complex dtype that holds `dtype`'s values (float32 -> complex64)."""
    return np.result_type(dtype, np.complex64)


def ravel(tree):
    """(flat, unravel): every leaf raveled and concatenated into one 1-d vector, and the
    function that splits such a vector back into the tree (as jax.flatten_util.ravel_pytree).

    The vector has the leaves' common result dtype; `unravel` gives each leaf its own shape and
    dtype back (a vector of another shape raises ValueError). Python scalars count as 0-d
    leaves. An imaginary part is never dropped: a real leaf unraveled from a complex vector
    comes back complex (of the leaf's precision), so a tree of real and complex leaves
    round-trips with its real leaves complex (where jax.flatten_util discards the imaginary
    parts silently).

    Args:
        tree: a pytree of arrays and Python scalars.

    Returns:
        The pair (flat, unravel): flat a 1-d array of the total size, unravel a function from
        such a vector to a tree like `tree`.

    Raises:
        ValueError: (from unravel) the vector does not have shape (total size,).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> vector, unravel = ft.tree.ravel({"w": np.ones((2, 2)), "b": np.zeros(2)})
        >>> vector.tolist()
        [0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
        >>> unravel(2 * vector)["w"].shape
        (2, 2)
        >>> unravel(1j * vector)["w"].dtype
        dtype('complex128')
    """
    flat, treedef = flatten(tree)
    shapes = [shape(x) for x in flat]
    dtypes = [dtype_of(x) for x in flat]
    sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    common = np.result_type(*dtypes) if dtypes else np.dtype(np.float64)
    if flat:
        # Python and NumPy scalar leaves join the array leaves on their device
        device = next((x for x in flat if hasattr(x, "shape") and xp_of(x) is not np), None)
        vector = fnp.concatenate([fnp.ravel(fnp.asarray(
            x, dtype=common, like=device if isinstance(x, _SCALARS) else None)) for x in flat])
    else:
        vector = np.zeros(0, common)
    offsets = np.cumsum([0] + sizes)

    def unravel(vec):
        if shape(vec) != (int(offsets[-1]),):
            raise ValueError(f"unravel: expected a vector of shape ({int(offsets[-1])},), got "
                             f"shape {shape(vec)}")
        keep_imag = dtype_of(vec).kind == "c"
        pieces = fnp.split(vec, [int(k) for k in offsets[1:-1]]) if shapes else []
        parts = [fnp.asarray(fnp.reshape(piece, s), dtype=_complex_of(dt) if keep_imag else dt)
                 for piece, s, dt in zip(pieces, shapes, dtypes)]
        return unflatten(treedef, parts)
    return vector, unravel


def register_pytree_node_class(cls):
    """Class decorator: make `cls` a pytree node for every transform and ft.jit (optree's
    decorator, in the namespace the library flattens with). The class defines
    `tree_flatten(self) -> (children, aux)` and the classmethod `tree_unflatten(aux, children)`,
    as in JAX; its children (arrays, nested pytrees) are then traced, differentiated and
    batched like any argument's leaves, and read by ft.jit on every call.

    Args:
        cls: the class to register.

    Returns:
        cls, registered.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> @ft.tree.register_pytree_node_class
        ... class Linear:
        ...     def __init__(self, w):
        ...         self.w = w
        ...     def tree_flatten(self):
        ...         return (self.w,), None
        ...     @classmethod
        ...     def tree_unflatten(cls, aux, children):
        ...         return cls(*children)
        >>> ft.grad(lambda m: np.sum(m.w ** 2))(Linear(np.ones(2))).w
        array([2., 2.])
    """
    return optree.register_pytree_node_class(cls, namespace=optree.registry.__GLOBAL_NAMESPACE)
