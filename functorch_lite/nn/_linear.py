"""Linear and embedding layers, in torch.nn.functional's layouts and argument names: a weight
is (out_features, in_features), an embedding table is (num_embeddings, embedding_dim)."""
from .. import numpy as fnp
from ..ops.elementwise import stop_gradient


def linear(input, weight, bias=None):
    """input @ weight.T + bias (torch.nn.functional.linear): input (..., in_features), weight
    (out_features, in_features), bias (out_features,)."""
    out = fnp.matmul(input, fnp.swapaxes(weight, -1, -2))
    return out if bias is None else out + bias


def embedding(input, weight, padding_idx=None):
    """Rows of `weight` (num_embeddings, embedding_dim) picked by the integer indices `input`:
    the result has shape input.shape + (embedding_dim,) (torch.nn.functional.embedding). The
    rows picked at `padding_idx` get no gradient, as in PyTorch."""
    out = fnp.take(weight, input, axis=0)
    if padding_idx is None:
        return out
    padding_idx = padding_idx % fnp.shape(weight)[0]
    pad = fnp.expand_dims(fnp.equal(input, padding_idx), -1)
    return fnp.where(pad, stop_gradient(out), out)


__all__ = ["linear", "embedding"]
