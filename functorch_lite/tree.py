"""Pytree utilities, thin over optree (the library's own pytree machinery, so the trees the
transforms accept are exactly the trees these functions walk).

    ft.tree.map(f, params)              apply f to every leaf (several trees: f(*leaves))
    ft.tree.leaves(params)              the leaves, in the transforms' order
    ft.tree.structure(params)           the tree's shape without its leaves
    ft.tree.stack([p1, p2, p3])         one tree whose leaves carry a leading model axis
    ft.tree.unstack(stacked)            its inverse: a list of trees
    flat, unravel = ft.tree.ravel(p)    one flat vector and the function that rebuilds the tree
    ft.tree.map_with_path(f, params)    f(path, leaf): path is the tuple of keys to the leaf
    ft.tree.reduce(f, params, init)     functools.reduce over the leaves
    ft.tree.save("p.npz", params)       one .npz entry per leaf, named by its path ("layers/0/w")
    ft.tree.load("p.npz", like=params)  the saved leaves in params' structure (checked)

`stack` is what an ensemble needs (torch.func's `stack_module_state`): vmap over the stacked
parameters with in_dims=0 runs every model at once. `ravel` follows
`jax.flatten_util.ravel_pytree`, for optimizers that want one vector (scipy.optimize). Every
function works on wrappers as well as arrays, so they can be used inside transforms.
"""
import functools
import os
from typing import Any, Callable, Iterable, List, Optional, Tuple, Union

import numpy as np
import optree

from . import numpy as fnp
from .backend import module_of
from .numpy._util import dtype_of, shape, xp_of

__all__ = ["map", "map_with_path", "reduce", "leaves", "structure", "flatten", "unflatten",
           "stack", "unstack", "ravel", "register_pytree_node", "register_pytree_node_class",
           "save", "load"]

PyTree = Any


class _NoInitializer:
    """reduce's default: no initializer, the first leaf starts the fold (as JAX's)."""

    def __repr__(self):
        return "no_initializer"     # what the signature shows (help(), the API reference)


_MISSING = _NoInitializer()


def __dir__():      # dir() and tab completion show the public API, not the module's imports
    return __all__


_SCALARS = (int, float, complex, np.generic)


def map(f: Callable, tree: PyTree, *rest: PyTree,
        is_leaf: Optional[Callable[[Any], bool]] = None) -> PyTree:
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


def map_with_path(f: Callable, tree: PyTree, *rest: PyTree,
                  is_leaf: Optional[Callable[[Any], bool]] = None) -> PyTree:
    """f(path, leaf, *other_leaves) leaf by leaf, where path is the tuple of keys from the root
    to the leaf (optree's paths: dict keys, sequence indices, a registered class's entries).

    JAX's tree_util.tree_map_with_path; its key objects (DictKey, SequenceKey) are plain keys
    here, so a path reads ("layers", 0, "w"). Use it to treat parameters by name (no weight
    decay on biases, a learning rate per layer).

    Args:
        f: a function of (path, leaf) (and one more leaf per tree of `rest`).
        tree: a pytree.
        *rest: further pytrees of tree's structure.
        is_leaf: a predicate that stops the walk at the subtrees it accepts.

    Returns:
        A pytree of tree's structure holding f's results.

    Raises:
        ValueError: a tree of `rest` does not match tree's structure.

    Examples:
        >>> import functorch_lite as ft
        >>> ft.tree.map_with_path(lambda path, x: path, {"layers": [{"w": 1.0}], "b": 2.0})
        {'layers': [{'w': ('layers', 0, 'w')}], 'b': ('b',)}
    """
    return optree.tree_map_with_path(f, tree, *rest, is_leaf=is_leaf)


def reduce(f: Callable[[Any, Any], Any], tree: PyTree, initializer: Any = _MISSING,
           is_leaf: Optional[Callable[[Any], bool]] = None) -> Any:
    """functools.reduce(f, leaves(tree)[, initializer]): fold the leaves into one value.

    As JAX's tree_util.tree_reduce: without an initializer the first leaf starts the fold (a
    tree without leaves then raises TypeError).

    Args:
        f: a function of (accumulated, leaf).
        tree: a pytree.
        initializer: the starting value (optional).
        is_leaf: a predicate that stops the walk at the subtrees it accepts.

    Returns:
        The folded value.

    Raises:
        TypeError: no initializer and no leaves (from functools.reduce).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.tree.reduce(lambda n, x: n + x.size, {"w": np.ones((2, 3)), "b": np.ones(3)}, 0)
        9
    """
    flat = leaves(tree, is_leaf=is_leaf)
    if initializer is _MISSING:
        return functools.reduce(f, flat)
    return functools.reduce(f, flat, initializer)


def leaves(tree: PyTree, is_leaf: Optional[Callable[[Any], bool]] = None) -> List[Any]:
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


def structure(tree: PyTree, is_leaf: Optional[Callable[[Any], bool]] = None) -> Any:
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


def flatten(tree: PyTree, is_leaf: Optional[Callable[[Any], bool]] = None
            ) -> Tuple[List[Any], Any]:
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


def unflatten(treedef: Any, leaves: Iterable[Any]) -> PyTree:
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


def stack(trees: Iterable[PyTree], axis: int = 0) -> PyTree:
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


def unstack(tree: PyTree, axis: int = 0) -> List[PyTree]:
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


def ravel(tree: PyTree) -> Tuple[Any, Callable[[Any], PyTree]]:
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


def register_pytree_node(nodetype: type, flatten_func: Callable, unflatten_func: Callable) -> None:
    """Make `nodetype` a pytree node for every transform and ft.jit, JAX's function form:
    `flatten_func(x) -> (children, aux)` and `unflatten_func(aux, children) -> x`.

    The children (arrays, nested pytrees) are traced, differentiated and batched like any
    argument's leaves; aux is static (compared by ==, hashed by ft.jit). Use it for a class
    you cannot decorate (register_pytree_node_class is the decorator form).

    Args:
        nodetype: the class to register.
        flatten_func: x -> (iterable of children, aux data).
        unflatten_func: (aux data, children) -> an instance.

    Raises:
        ValueError: the type is already registered (from optree).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> class Affine:
        ...     def __init__(self, w, b):
        ...         self.w, self.b = w, b
        >>> ft.tree.register_pytree_node(Affine, lambda a: ((a.w, a.b), None),
        ...                              lambda aux, children: Affine(*children))
        >>> ft.grad(lambda a: np.sum(a.w * 3.0 + a.b))(Affine(np.ones(2), 1.0)).w
        array([3., 3.])
    """
    optree.register_pytree_node(nodetype, flatten_func, unflatten_func,
                                namespace=optree.registry.__GLOBAL_NAMESPACE)


def register_pytree_node_class(cls: type) -> type:
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


def _path_key(path):
    """The .npz entry name of a leaf: its path's keys joined by '/' ("layers/0/w")."""
    return "/".join(str(k) for k in path)


def _keyed_leaves(tree, what):
    paths, flat, _ = optree.tree_flatten_with_path(tree)
    keys = [_path_key(p) for p in paths]
    if len(set(keys)) != len(keys):
        dup = next(k for k in keys if keys.count(k) > 1)
        raise ValueError(f"ft.tree.{what}: two leaves have the entry name {dup!r} (keys that "
                         "print alike, such as 0 and '0', or a '/' inside a key); rename one")
    return keys, flat


def save(path: Union[str, os.PathLike], tree: PyTree) -> None:
    """Write the leaves of `tree` to a NumPy `.npz` file, one entry per leaf named by its path
    ("layers/0/w"), so the file reads with np.load alone.

    The structure is not stored: load it back with load(path, like=tree), which rebuilds it from
    a tree of the same shape (freshly initialized parameters). Device arrays are copied to the
    host; Python scalars become 0-d arrays.

    Args:
        path: the file (NumPy adds ".npz" when the name lacks it).
        tree: a pytree of arrays and numbers (no wrappers: save outside transforms).

    Raises:
        ValueError: two leaves would get the same entry name.

    Examples:
        >>> import numpy as np, os, tempfile, functorch_lite as ft
        >>> params = {"layers": [{"w": np.ones((2, 2)), "b": np.zeros(2)}]}
        >>> path = os.path.join(tempfile.mkdtemp(), "params.npz")
        >>> ft.tree.save(path, params)
        >>> sorted(np.load(path).files)
        ['layers/0/b', 'layers/0/w']
    """
    keys, flat = _keyed_leaves(tree, "save")
    arrays = {k: getattr(module_of(x), "asnumpy", np.asarray)(x) for k, x in zip(keys, flat)}
    np.savez(path, **arrays)


def load(path: Union[str, os.PathLike], like: PyTree) -> PyTree:
    """The tree saved by save(path, ...), rebuilt in the structure of `like`; each leaf is
    checked against like's (the same entry names and shapes) and placed on its device.

    Leaves keep the dtype they were saved with. Nothing is unpickled (allow_pickle=False).

    Args:
        path: an .npz file written by save.
        like: a pytree of the saved structure (its leaves give the shapes and devices).

    Returns:
        A pytree of like's structure holding the saved arrays.

    Raises:
        ValueError: the file's entries are not like's leaves (missing or extra names, named in
            the message) or a leaf's shape differs.

    Examples:
        >>> import numpy as np, os, tempfile, functorch_lite as ft
        >>> path = os.path.join(tempfile.mkdtemp(), "params.npz")
        >>> ft.tree.save(path, {"w": np.arange(3.0), "b": 1.5})
        >>> ft.tree.load(path, like={"w": np.zeros(3), "b": 0.0})
        {'w': array([0., 1., 2.]), 'b': array(1.5)}
    """
    keys, flat = _keyed_leaves(like, "load")
    with np.load(path, allow_pickle=False) as data:
        stored = set(data.files)
        missing, extra = [k for k in keys if k not in stored], sorted(stored - set(keys))
        if missing or extra:
            raise ValueError(f"ft.tree.load: {os.fspath(path)!r} does not hold the structure of "
                             f"`like`: missing entries {missing}, unexpected entries {extra}")
        out = []
        for k, x in zip(keys, flat):
            value = data[k]
            if tuple(value.shape) != tuple(shape(x)):
                raise ValueError(f"ft.tree.load: entry {k!r} has shape {value.shape}, the leaf "
                                 f"of `like` has shape {tuple(shape(x))}")
            out.append(value if module_of(x) is np else module_of(x).asarray(value))
    return optree.tree_unflatten(structure(like), out)
