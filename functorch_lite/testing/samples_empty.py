"""Size-0 samples: operands with an empty dimension, for every op that allows one.

Empty dims are where reshapes with -1, flattening and batched matrix products meet ambiguous
shapes (a batch of 0 examples of shape (2, 3) is 0 elements, whatever -1 means). The samples
here are added to the entries of the other sample modules by `extend` (the generic tests then
run them through the kernel, vmap, jvp, vjp and the compositions). Reductions here never reduce
over the empty axis itself where the op has no value there (mean, max, quantile, ...);
np.average has no entry: NumPy itself divides by zero on any empty operand.
"""
import numpy as np

from .samples_base import F64, I64, S, array, spd, unique_names, well_conditioned


def _a(rng, *shape, dtype=F64):
    return array(rng, shape, dtype)


def _idx(*shape, high=3):
    return np.zeros(shape, dtype=I64) + (high - 1)


def _reduce_rows(r):
    """Reductions over the non-empty axes of (0, 3) and (2, 0, 3) operands."""
    return [S(_a(r, 0, 3), axis=1), S(_a(r, 2, 0, 3), axis=-1), S(_a(r, 2, 0, 3), axis=(0, 2))]


def _at_empty(r):
    """Updates at no index, and updates of an operand with an empty dim."""
    return [S(_a(r, 4, 3), _idx(0), _a(r, 0, 3)), S(_a(r, 0, 3), (slice(None), 1), _a(r, 0)),
            S(_a(r, 2, 0), 1, _a(r, 0))]


def _matrices(r):
    """Empty stacks of matrices and 0 x 0 matrices."""
    return [S(spd(r, 3, (0,))), S(np.zeros((0, 0)))]


SAMPLES = {
    "median": lambda r: [S(_a(r, 0, 3), axis=1), S(_a(r, 2, 0, 3), axis=-1)],
    "quantile": lambda r: [S(_a(r, 0, 3), 0.3, axis=1), S(_a(r, 2, 0, 3), [0.2, 0.7], axis=-1)],
    "percentile": lambda r: [S(_a(r, 0, 3), 30.0, axis=1)],
    "nansum": lambda r: [S(_a(r, 0, 3), axis=1), S(_a(r, 0, 3), axis=0), S(_a(r, 0))],
    "nanmean": _reduce_rows,
    "nanmax": _reduce_rows,
    "nanmin": _reduce_rows,
    "moveaxis": lambda r: [S(_a(r, 0, 3, 2), 0, -1), S(_a(r, 2, 0), 1, 0)],
    "swapaxes": lambda r: [S(_a(r, 0, 3, 2), 0, 2), S(_a(r, 2, 0), -1, 0)],
    "expand_dims": lambda r: [S(_a(r, 0, 3), 1), S(_a(r, 0), -1)],
    "squeeze": lambda r: [S(_a(r, 0, 1, 3), axis=1), S(_a(r, 1, 0))],
    "broadcast_to": lambda r: [S(_a(r, 0, 1), (0, 4)), S(_a(r, 3), (0, 3)),
                               S(_a(r, 1, 0), (2, 3, 0))],
    "broadcast_arrays": lambda r: [S(_a(r, 0, 1), _a(r, 3)), S(_a(r, 2, 0), _a(r, 1, 1))],
    "stack": lambda r: [S([_a(r, 0, 2), _a(r, 0, 2)]), S([_a(r, 2, 0), _a(r, 2, 0)], axis=-1)],
    "hstack": lambda r: [S([_a(r, 2, 0), _a(r, 2, 3)]), S([_a(r, 0), _a(r, 3)])],
    "vstack": lambda r: [S([_a(r, 0, 3), _a(r, 2, 3)]), S([_a(r, 0, 2), _a(r, 0, 2)])],
    "split": lambda r: [S(_a(r, 0, 4), 2, axis=1), S(_a(r, 6, 0), [1, 4])],
    "array_split": lambda r: [S(_a(r, 0, 5), 3, axis=1), S(_a(r, 0), 2)],
    "flip": lambda r: [S(_a(r, 0, 3)), S(_a(r, 2, 0), axis=1)],
    "tile": lambda r: [S(_a(r, 0, 3), 2), S(_a(r, 2), (0, 2))],
    "repeat": lambda r: [S(_a(r, 0, 3), 2, axis=1), S(_a(r, 0), 3)],
    "diagonal": lambda r: [S(_a(r, 0, 3, 3), axis1=1, axis2=2), S(_a(r, 3, 0))],
    "trace": lambda r: [S(_a(r, 0, 3, 3), axis1=1, axis2=2), S(_a(r, 3, 0))],
    "tril": lambda r: [S(_a(r, 0, 3, 3)), S(_a(r, 3, 0))],
    "triu": lambda r: [S(_a(r, 0, 3, 3), 1), S(_a(r, 0, 2))],
    "atleast_1d": lambda r: [S(_a(r, 0)), S(_a(r, 0, 2))],
    "atleast_2d": lambda r: [S(_a(r, 0)), S(_a(r, 2, 0))],
    "take": lambda r: [S(_a(r, 0, 3), _idx(2), axis=1), S(_a(r, 4), _idx(0)),
                       S(_a(r, 2, 3), _idx(0, 2), axis=0)],
    "take_along_axis": lambda r: [S(_a(r, 0, 3), _idx(0, 2), axis=1),
                                  S(_a(r, 2, 3), _idx(2, 0), axis=1)],
    "put_along_axis": lambda r: [S(_a(r, 0, 3), _idx(0, 1), _a(r, 0, 1), axis=1),
                                 S(_a(r, 2, 3), _idx(2, 0), _a(r, 2, 0), axis=1)],
    "copy": lambda r: [S(_a(r, 0, 3))],
    "diagflat": lambda r: [S(_a(r, 0)), S(_a(r, 0, 2), 1)],
    "kron": lambda r: [S(_a(r, 0, 2), _a(r, 2, 2)), S(_a(r, 3), _a(r, 0))],
    "diff": lambda r: [S(_a(r, 0, 3), axis=1), S(_a(r, 2, 0), axis=0)],
    "dot": lambda r: [S(_a(r, 0, 3), _a(r, 3)), S(_a(r, 0), _a(r, 0)),
                      S(_a(r, 2, 0), _a(r, 0, 3))],
    "inner": lambda r: [S(_a(r, 0, 3), _a(r, 3)), S(_a(r, 2, 0), _a(r, 4, 0))],
    "outer": lambda r: [S(_a(r, 0), _a(r, 3)), S(_a(r, 2, 0), _a(r, 4))],
    "tensordot": lambda r: [S(_a(r, 0, 3), _a(r, 3, 4), axes=1), S(_a(r, 2, 0), _a(r, 0, 3),
                                                                   axes=1),
                            S(_a(r, 0, 3, 4), _a(r, 3, 4, 2), axes=2)],
    "linalg.solve": lambda r: [S(spd(r, 3, (0,)), _a(r, 0, 3, 2)), S(np.zeros((0, 0)),
                                                                     _a(r, 0))],
    "linalg.inv": _matrices,
    "linalg.det": _matrices,
    "linalg.slogdet": _matrices,
    "linalg.cholesky": _matrices,
    "linalg.eigh": _matrices,
    "linalg.eigvalsh": _matrices,
    "linalg.svd": lambda r: [S(_a(r, 0, 3, 2)), S(_a(r, 0, 3, 2), compute_uv=False)],
    "linalg.qr": lambda r: [S(_a(r, 0, 3, 2))],
    "linalg.norm": lambda r: [S(_a(r, 0, 3), axis=1), S(_a(r, 0))],
    "nn.logsumexp": lambda r: [S(_a(r, 0, 3)), S(_a(r, 2, 0, 3), axis=-1)],
    "nn.cross_entropy": lambda r: [S(_a(r, 0, 5), _idx(0), reduction="none"),
                                   S(_a(r, 0, 5), _idx(0), "sum")],
    "nn.nll_loss": lambda r: [S(_a(r, 0, 5), _idx(0), reduction="none"),
                              S(_a(r, 0, 5), _idx(0), _a(r, 5), reduction="sum")],
    "nn.mse_loss": lambda r: [S(_a(r, 0, 3), _a(r, 0, 3), reduction="sum"),
                              S(_a(r, 2, 0), _a(r, 2, 0), reduction="none")],
    "cross": lambda r: [S(_a(r, 0, 3), _a(r, 0, 3)), S(_a(r, 0, 3), _a(r, 3))],
    "linalg.matrix_norm": lambda r: [S(_a(r, 0, 3, 3)), S(_a(r, 0, 2, 2), ord="fro")],
    "linalg.vector_norm": lambda r: [S(_a(r, 0, 3), axis=1), S(_a(r, 0)),
                                     S(_a(r, 0, 3, 4), axis=(1, 2)), S(_a(r, 2, 0, 4), axis=(0, 2))],
    "linalg.trace": lambda r: [S(_a(r, 0, 3, 3))],
    "linalg.diagonal": lambda r: [S(_a(r, 0, 3, 3)), S(_a(r, 3, 0))],
    "linalg.vecdot": lambda r: [S(_a(r, 0, 3), _a(r, 0, 3)), S(_a(r, 2, 0), _a(r, 0))],
    "linalg.matrix_power": lambda r: [S(_a(r, 0, 3, 3), 2), S(np.zeros((0, 0)), 3)],
    "linalg.pinv": lambda r: [S(_a(r, 0, 3, 2))],
    "linalg.lstsq": lambda r: [S(well_conditioned(r, 3), _a(r, 3, 0))],
    "getitem": lambda r: [S(_a(r, 4, 3), _idx(0)), S(_a(r, 4, 3), (slice(None), _idx(0, 2))),
                          S(_a(r, 0, 3), (slice(None), 1))],
    "at_set": lambda r: _at_empty(r),
    "at_add": lambda r: _at_empty(r),
    "at_multiply": lambda r: _at_empty(r),
    # ops whose entries have size-0 samples already, with the shapes the fuzz found
    "reshape": lambda r: [S(_a(r, 0, 3), (-1,)), S(_a(r, 2, 0), (3, 0, 2)),
                          S(_a(r, 4, 0), (2, -1, 3))],
    "pad": lambda r: [S(_a(r, 0, 3), ((1, 1), (0, 2))), S(_a(r, 2, 0), ((0, 0), (1, 0)))],
    "prod": lambda r: [S(_a(r, 0, 3), axis=1), S(_a(r, 2, 0), axis=1)],
    "cumprod": lambda r: [S(_a(r, 0, 3), axis=1), S(_a(r, 2, 0)), S(_a(r, 2, 0), axis=0)],
    "cumsum": lambda r: [S(_a(r, 2, 0)), S(_a(r, 0, 3), axis=-1)],
    "ravel": lambda r: [S(_a(r, 2, 0)), S(_a(r, 0, 3))],
    "sort": lambda r: [S(_a(r, 2, 0), axis=None), S(_a(r, 0, 3), axis=0)],
    "argsort": lambda r: [S(_a(r, 2, 0), axis=None), S(_a(r, 0, 3))],
    "matmul": lambda r: [S(_a(r, 0, 3), _a(r, 3, 4)), S(_a(r, 2, 0), _a(r, 0, 3)),
                         S(_a(r, 2, 3), _a(r, 3, 0)), S(_a(r, 0, 2, 3), _a(r, 3)),
                         S(_a(r, 0, 3), _a(r, 2, 3, 4)), S(_a(r, 2, 0), _a(r, 2, 0, 4)),
                         S(_a(r, 2, 3, 0), _a(r, 0)), S(_a(r, 2, 3, 0), _a(r, 0, 4)),
                         S(_a(r, 2, 3, 4), _a(r, 4, 0)), S(_a(r, 0, 3, 4), _a(r, 4, 2)),
                         S(_a(r, 3), _a(r, 0, 3, 2))],
    "einsum": lambda r: [S("ij,jk->ik", _a(r, 2, 0), _a(r, 0, 3)),
                         S("ij,j->i", _a(r, 0, 3), _a(r, 3))],
}
"""Op name -> sample function of its size-0 samples."""


def extend(op_db):
    """Add the size-0 samples to the entries of `op_db` (in place; names stay unique)."""
    for info in op_db:
        extra = SAMPLES.get(info.name)
        if extra is None:
            continue
        base = info.samples

        def samples(rng, base=base, extra=extra):
            return unique_names(base(rng) + extra(rng))
        samples.__doc__ = base.__doc__
        info.samples = samples
