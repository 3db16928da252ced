"""Linear and embedding layers, in torch.nn.functional's layouts and argument names: a weight
is (out_features, in_features), an embedding table is (num_embeddings, embedding_dim)."""
from .. import numpy as fnp
from ..numpy._util import dtype_of
from ..ops.checks import check_range
from ..ops.elementwise import stop_gradient


def linear(input, weight, bias=None):
    """Affine map input @ weight.T + bias, as torch.nn.functional.linear.

    PyTorch's weight layout (out_features, in_features), the transpose of the (in, out)
    kernel of flax.linen.Dense. Any leading dims of input pass through.

    Args:
        input: (..., in_features).
        weight: (out_features, in_features).
        bias: optional (out_features,).

    Returns:
        (..., out_features).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> ft.nn.linear(np.array([1.0, 2.0]), np.array([[1.0, 1.0], [0.0, 1.0]]),
        ...              np.array([0.0, 10.0]))
        array([ 3., 12.])
        >>> ft.nn.linear(np.ones((5, 3)), np.ones((2, 3))).shape
        (5, 2)
    """
    out = fnp.matmul(input, fnp.swapaxes(weight, -1, -2))
    return out if bias is None else out + bias


def embedding(input, weight, padding_idx=None):
    """Rows of the table `weight` picked by integer indices, as
    torch.nn.functional.embedding.

    The gradient with respect to weight scatters (adds) into the picked rows; the rows
    picked at `padding_idx` get no gradient, as in PyTorch (their values are still
    returned). An index outside 0..num_embeddings-1 is an error, -1 included (as PyTorch;
    NumPy's take would wrap it to the last row). max_norm and sparse gradients are not
    supported.

    Args:
        input: an integer array of any shape, with entries in 0..num_embeddings-1.
        weight: (num_embeddings, embedding_dim).
        padding_idx: optional row index (negative counts from the end) that gets no
            gradient.

    Returns:
        input.shape + (embedding_dim,), weight's dtype.

    Raises:
        IndexError: an index outside 0..num_embeddings-1 (negative ones included), or
            non-integer indices.
        ValueError: padding_idx outside -num_embeddings..num_embeddings-1 (as PyTorch).

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> table = np.arange(12.0).reshape(4, 3)
        >>> ft.nn.embedding(np.array([[0, 3], [1, 1]]), table).shape
        (2, 2, 3)
        >>> ft.grad(lambda w: ft.nn.embedding(np.array([0, 1]), w, padding_idx=0).sum())(table)
        array([[0., 0., 0.],
               [1., 1., 1.],
               [0., 0., 0.],
               [0., 0., 0.]])
    """
    rows = fnp.shape(weight)[0]
    if dtype_of(input).kind not in "iu":
        raise IndexError(f"embedding: indices must be integers, got dtype {dtype_of(input)}")
    input = check_range(input, low=0, high=rows - 1, error=IndexError,
                        message=f"embedding: index {{value}} is out of range: with {rows} rows "
                                f"in weight it must be in 0..{rows - 1}")
    out = fnp.take(weight, input, axis=0)
    if padding_idx is None:
        return out
    if not -rows <= padding_idx < rows:
        raise ValueError(f"embedding: padding_idx {padding_idx} is out of range: with {rows} "
                         f"rows in weight it must be in {-rows}..{rows - 1}")
    padding_idx = padding_idx % rows
    pad = fnp.expand_dims(fnp.equal(input, padding_idx), -1)
    return fnp.where(pad, stop_gradient(out), out)


__all__ = ["linear", "embedding"]
