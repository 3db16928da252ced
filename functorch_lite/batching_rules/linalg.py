"""Batching rules of the products and linalg ops.

NumPy's linalg and matmul already loop over leading "stack" dims, but a stack of small
products is many small BLAS calls. So when only one operand is batched and the other is a
single matrix or vector, the batch is folded into a matrix dimension and the kernel is one
GEMM (or one LAPACK solve with many right-hand sides): a matrix times a batch of vectors is
`W @ X.T`, not B matrix-vector products. Otherwise batch dims go first and the stack dims are
aligned with unit dims, so NumPy's broadcasting does the rest.
"""
import math

from .. import numpy as fnp
from ..ops import linalg as la, linalg_factored as lf, shape as sh
from ..numpy._util import ndim, shape
from .helpers import move_bdim, move_bdim_to_front, stacked_matrix

for _op in [lf.solve_factors, la.inv, la.pinv, la.det, la.adjugate, la.slogdet, la.cholesky, la.eigh,
            la.eigvalsh, la.svd, la.svdvals, la.qr]:
    stacked_matrix(_op)


def _reshape(x, new_shape):
    return sh.reshape(x, shape=tuple(new_shape))


def _stack_front(x, bdim, stack, target_stack, vector_as=None):
    """Batched x with its batch dim first and its stack dims padded by unit dims to
    `target_stack`; a per-example vector becomes a row (vector_as="row") or a column."""
    x = move_bdim_to_front(x, bdim)
    s = tuple(shape(x))
    core = s[1 + stack:]
    if vector_as is not None:
        core = (1,) + core if vector_as == "row" else core + (1,)
    return _reshape(x, (s[0],) + (1,) * (target_stack - stack) + s[1:1 + stack] + core)


def _as_matrix_operands(a, ab, ra, b, bb, rb):
    """Both operands as stacks of matrices, batch first where batched, stacks aligned."""
    sa, sb = max(ra - 2, 0), max(rb - 2, 0)
    stack = max(sa, sb)
    if ab is not None:
        a = _stack_front(a, ab, sa, stack, "row" if ra == 1 else None)
    elif ra == 1:
        a = _reshape(a, (1,) + tuple(shape(a)))
    if bb is not None:
        b = _stack_front(b, bb, sb, stack, "column" if rb == 1 else None)
    elif rb == 1:
        b = _reshape(b, tuple(shape(b)) + (1,))
    return a, b


@la.matmul.def_batch_rule
def matmul_batch_rule(args, bdims):
    (a, b), (ab, bb) = args, bdims
    ra, rb = ndim(a) - (ab is not None), ndim(b) - (bb is not None)
    if bb is None and rb <= 2:          # batch of rows/matrices times one matrix or vector
        a = move_bdim_to_front(a, ab)
        sa = shape(a)
        rows = math.prod(sa[:-1])
        out = la.matmul(_reshape(a, (rows, sa[-1])) if ra >= 2 else a, b)
        if ra >= 2:
            out = _reshape(out, tuple(sa[:-1]) + tuple(shape(b)[1:]))
        return out, 0
    if ab is None and ra <= 2 and rb <= 2:   # one matrix or vector times a batch
        if rb == 1:                          # columns: (n, B)
            return la.matmul(a, move_bdim(b, bb, 1)), ra - 1
        b = move_bdim(b, bb, 1)              # (n, B, p) -> (n, B*p)
        n, size, p = shape(b)
        out = la.matmul(a, _reshape(b, (n, size * p)))
        return _reshape(out, tuple(shape(out)[:-1]) + (size, p)), ra - 1
    a2, b2 = _as_matrix_operands(a, ab, ra, b, bb, rb)
    out = la.matmul(a2, b2)
    s = shape(out)
    if ra == 1 or rb == 1:
        out = _reshape(out, tuple(s[:-2]) + _drop_vector_dims(s[-2:], ra, rb))
    return out, 0


def _drop_vector_dims(core, ra, rb):
    rows, cols = core
    return (() if ra == 1 else (rows,)) + (() if rb == 1 else (cols,))


@la.einsum.def_batch_rule
def einsum_batch_rule(args, bdims, subscripts, optimize="greedy"):
    """A fresh letter for the batch in every batched operand (at its batch dim: no move) and
    first in the output. With one batched operand of two, the batch letter is just one more
    free index, and the optimized path contracts it in one GEMM (so even optimize=False
    becomes "greedy" then)."""
    letter = next(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA"
                  if c not in subscripts)
    inputs, output = subscripts.split("->")
    terms = [t if d is None else t[:d] + letter + t[d:]
             for t, d in zip(inputs.split(","), bdims)]
    if optimize is False and len(args) == 2 and sum(d is not None for d in bdims) == 1:
        optimize = "greedy"
    return la.einsum(*args, subscripts=",".join(terms) + "->" + letter + output,
                     optimize=optimize), 0


@la.solve.def_batch_rule
def solve_batch_rule(args, bdims):
    """NumPy 2's solve: b is a vector only when it is 1-d. One matrix with a batch of right-hand
    sides is one solve with the batch folded into the columns."""
    (a, b), (ab, bb) = args, bdims
    ra, rb = ndim(a) - (ab is not None), ndim(b) - (bb is not None)
    if ab is None and ra == 2 and rb <= 2:
        b = move_bdim(b, bb, 1)
        if rb == 1:
            return la.solve(a, b), 1
        m, size, k = shape(b)
        out = la.solve(a, _reshape(b, (m, size * k)))
        return _reshape(out, (m, size, k)), 1
    sa, sb = ra - 2, max(rb - 2, 0)
    stack = max(sa, sb)
    if ab is not None:
        a = _stack_front(a, ab, sa, stack)
    if rb == 1:
        b = _stack_front(b, bb, 0, stack, "column") if bb is not None else \
            _reshape(b, tuple(shape(b)) + (1,))
    elif bb is not None:
        b = _stack_front(b, bb, sb, stack)
    out = la.solve(a, b)
    if rb == 1:
        out = _reshape(out, tuple(shape(out)[:-1]))
    return out, 0


@lf.solve_factored.def_batch_rule
def solve_factored_batch_rule(args, bdims, trans=0):
    """One matrix (its factors unbatched) with a batch of right-hand sides: the batch folded
    into the columns, one solve with the factors. A batched matrix has batched factors, which
    are the matrices themselves (a stack is not factored): solve's rule then applies."""
    (a, lu, piv, b), (ab, lb, pb, bb) = args, bdims
    if ab is None and lb is None and pb is None and ndim(a) == 2 and ndim(b) - 1 <= 2:
        b = move_bdim(b, bb, 1)
        if ndim(b) == 2:
            return lf.solve_factored(a, lu, piv, b, trans=trans), 1
        m, size, k = shape(b)
        out = lf.solve_factored(a, lu, piv, _reshape(b, (m, size * k)), trans=trans)
        return _reshape(out, (m, size, k)), 1
    if trans:
        if ab is not None:
            a, ab = move_bdim_to_front(a, ab), 0
        a = fnp.swapaxes(a, -1, -2)
    return solve_batch_rule((a, b), (ab, bb))
