"""Linear-algebra primitives: products and the numpy.linalg factorizations and solvers.
All follow NumPy's stacking convention (leading dims are a batch of matrices)."""
import contextlib
import functools
import math

import numpy as np

from .. import backend
from ..dispatch import defop

matmul = defop("matmul", lambda xp, a, b: xp.matmul(a, b), numpy_impl=np.matmul,
               doc="""As numpy.matmul: the matrix product a @ b with NumPy's stacking rules.

    Args:
        a, b: arrays of at least 1 dimension; a 1-d operand is a vector, leading dimensions
            of n-d operands are batch dimensions broadcast against each other.

    Returns:
        The product; a 1-d operand's axis is removed from the result.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.matmul(np.array([[1, 2], [3, 4]]), np.array([1, 1]))
        array([3, 7])
        >>> fnp.matmul(np.ones((5, 2, 3)), np.ones((3, 4))).shape
        (5, 2, 4)
    """)
_NAIVE_LOOP_LIMIT = 1 << 16
"""Below this many iterations of einsum's one nested loop (the product of every index's size),
choosing an order costs more (tens of microseconds of path search) than it saves."""


@functools.lru_cache(maxsize=256)
def _outer_terms(subscripts):
    """(a's term, b's term, output) when `subscripts` is a product of two operands with no
    summed index and each operand has a letter of its own (a per-example outer product such as
    "bi,bj->bij"), else None. Repeated letters (diagonals) are left to einsum."""
    inputs, output = subscripts.split("->")
    terms = inputs.split(",")
    if len(terms) != 2 or any(len(set(t)) != len(t) for t in terms + [output]):
        return None
    ta, tb = terms
    if set(ta) | set(tb) != set(output) or not set(ta) - set(tb) or not set(tb) - set(ta):
        return None
    return ta, tb, output


def _outer_matmul(xp, a, b, ta, tb, output):
    """The outer product of _outer_terms as one batched matmul, (batch, i, 1) @ (batch, 1, j):
    on CuPy a GEMM beats einsum's elementwise kernel (issue 15 measured "bi,bj->bij" on an
    H100). Shared letters stay separate dims, so matmul broadcasts them as einsum does.

    Where the output lists the batch letters, then one operand's, then the other's (a
    per-example weight gradient "zk,zn->zkn"), the product is written straight into a new
    array of the output's shape, which owns its memory: a view of the product (the reshape)
    would make ft.jit copy this output, the largest of a per-example gradient, on every call
    (its outputs are copied unless `.base is None`)."""
    batch = [c for c in output if c in ta and c in tb]
    rows = [c for c in output if c not in tb]
    cols = [c for c in output if c not in ta]
    if "".join(batch + cols + rows) == output:      # b's letters first: swap the operands
        a, b, ta, tb, rows, cols = b, a, tb, ta, cols, rows
    size = dict(zip(ta, a.shape))
    size.update(zip(tb, b.shape))
    n_rows = math.prod(size[c] for c in rows)
    n_cols = math.prod(size[c] for c in cols)
    a = xp.transpose(a, [ta.index(c) for c in batch + rows])
    b = xp.transpose(b, [tb.index(c) for c in batch + cols])
    nb = len(batch)
    stack = np.broadcast_shapes(a.shape[:nb], b.shape[:nb])    # a size-1 batch broadcasts
    a, b = a.reshape(a.shape[:nb] + (n_rows, 1)), b.reshape(b.shape[:nb] + (1, n_cols))
    core = tuple(size[c] for c in rows + cols)
    if "".join(batch + rows + cols) == output:
        out = xp.empty(stack + core, dtype=xp.result_type(a, b))
        xp.matmul(a, b, out=out.reshape(stack + (n_rows, n_cols)))
        return out
    prod = xp.matmul(a, b).reshape(stack + core)
    return xp.transpose(prod, [(batch + rows + cols).index(c) for c in output])


def _einsum_kernel(xp, *operands, subscripts, optimize="greedy"):
    if not backend.is_host(xp):
        outer = _outer_terms(subscripts)
        if outer is not None and xp.result_type(*operands).kind in "fc":
            return _outer_matmul(xp, *operands, *outer)
    if optimize is not False:
        sizes = {}
        for term, op in zip(subscripts.split("->")[0].split(","), operands):
            sizes.update(zip(term, op.shape))
        loop = 1
        for n in sizes.values():
            loop *= n
        if loop < _NAIVE_LOOP_LIMIT:
            optimize = False
    return xp.einsum(subscripts, *operands, optimize=optimize)


einsum = defop("einsum", _einsum_kernel,
               doc="einsum with explicit subscripts and no ellipsis (the public einsum "
                   "normalizes to that form). It chooses a contraction order by default "
                   "(optimize='greedy'), as torch and JAX do: NumPy's optimize=False runs one "
                   "nested loop over every index, where an order turns most products into "
                   "GEMMs. Small contractions skip the path search (see _NAIVE_LOOP_LIMIT). "
                   "On a device, an outer product (no summed index) is one batched matmul.")
def raising(xp):
    """A context where xp's inv, solve and cholesky raise LinAlgError for a singular or
    non-positive-definite matrix, as NumPy's do: cupyx.errstate(linalg="raise") on a device
    (CuPy returns NaN by default; checking cuSOLVER's status costs one device sync per call),
    nothing on NumPy. The rule is stated in docs/gpu.md."""
    if backend.is_host(xp):
        return contextlib.nullcontext()
    return backend.companion(xp, "cupyx").errstate(linalg="raise")


def solve_kernel(xp, a, b):
    """numpy.linalg.solve with a's and b's stacks broadcast first: CuPy's solve takes b of
    shape (n,) or exactly (..., n, k) with a's stack dims, where NumPy broadcasts them."""
    if b.ndim > 1 and a.shape[:-1] != b.shape[:-1] and a.shape[-1:] == b.shape[-2:-1]:
        stack = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = xp.broadcast_to(a, stack + a.shape[-2:])
        b = xp.broadcast_to(b, stack + b.shape[-2:])
    with raising(xp):
        return xp.linalg.solve(a, b)


def _raising_kernel(name):
    def kernel(xp, a):
        with raising(xp):
            return getattr(xp.linalg, name)(a)
    return kernel


solve = defop("solve", solve_kernel,
              doc="""As numpy.linalg.solve: x with a @ x == b for square matrices a.

    Args:
        a: a (..., n, n) nonsingular matrix or stack of them.
        b: an (n,) vector or (..., n, k) matrices, broadcast against a's batch.

    Returns:
        The solution x, of b's shape (broadcast).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.solve(np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([3.0, 3.0]))
        array([1., 1.])
    """)
inv = defop("inv", _raising_kernel("inv"),
            doc="""As numpy.linalg.inv: the inverse of square matrices.

    Args:
        a: a (..., n, n) nonsingular matrix or stack of them.

    Returns:
        The (..., n, n) inverses.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.inv(np.array([[2.0, 0.0], [0.0, 4.0]]))
        array([[0.5 , 0.  ],
               [0.  , 0.25]])
    """)
pinv = defop("pinv", lambda xp, a, rcond: xp.linalg.pinv(a, rcond),
             doc="""The Moore-Penrose pseudo-inverse of real matrices, singular values at or below
    rcond * max(s) dropped (numpy.linalg.pinv's kernel; fnp.linalg.pinv is the public name).

    Its derivative is the pseudo-inverse's own (Golub and Pereyra's formula, as JAX's), defined
    wherever the rank is locally constant, repeated singular values included.

    Args:
        a: a real (..., m, n) matrix or stack of them.
        rcond: the relative cutoff, a float.

    Returns:
        The (..., n, m) pseudo-inverse.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.pinv(2.0 * np.eye(2))
        array([[0.5, 0. ],
               [0. , 0.5]])
    """)
det = defop("det", lambda xp, a: xp.linalg.det(a),
            doc="""As numpy.linalg.det: the determinant of square matrices.

    Args:
        a: a (..., n, n) matrix or stack of them.

    Returns:
        The (...) determinants.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> bool(np.allclose(fnp.linalg.det(np.array([[2.0, 1.0], [1.0, 2.0]])), 3.0))
        True
    """)
def _adjugate_kernel(xp, a):
    """det(a) inv(a) where a is invertible; through the SVD where it is not (a = U S Vh gives
    adj(a) = det(U) det(Vh) Vh^H adj(S) U^H, adj(S) holding the products of all singular
    values but one), so that det's derivative is defined at every matrix (as torch and JAX)."""
    if a.dtype.kind not in "fc":
        a = a.astype(np.float64)
    sign, logdet = xp.linalg.slogdet(a)
    singular = sign == 0
    n = a.shape[-1]
    eye = xp.eye(n, dtype=a.dtype)
    safe = xp.where(singular[..., None, None], eye, a) if singular.any() else a
    out = (sign * xp.exp(logdet))[..., None, None] * xp.linalg.inv(safe)
    if singular.any():
        rows = a.reshape((-1, n, n))[singular.reshape(-1)]
        u, s, vh = xp.linalg.svd(rows)
        ones = xp.ones(s.shape[:-1] + (1,), dtype=s.dtype)
        before = xp.cumprod(xp.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
        after = xp.cumprod(xp.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
        unit = xp.linalg.det(u) * xp.linalg.det(vh)
        vs = xp.conj(xp.swapaxes(vh, -1, -2)) * (before * after)[..., None, :]
        adj = unit[..., None, None] * (vs @ xp.conj(xp.swapaxes(u, -1, -2)))
        flat = out.reshape((-1, n, n))
        flat[singular.reshape(-1)] = adj.astype(out.dtype)
        out = flat.reshape(out.shape)
    return out


adjugate = defop("adjugate", _adjugate_kernel,
                 doc="The adjugate (the transposed cofactor matrix) of each square matrix: "
                     "det(a) inv(a) where a is invertible, and defined at singular matrices too "
                     "(rank n - 1: rank one; rank n - 2 or less: zero). det's derivative is "
                     "adjugate(a)^T; there is no NumPy name for it.")
slogdet = defop("slogdet", lambda xp, a: tuple(xp.linalg.slogdet(a)), multiple_results=True,
                doc="(sign, logabsdet) of each square matrix (numpy.linalg.slogdet's kernel).")
cholesky = defop("cholesky", _raising_kernel("cholesky"),
                 doc="The lower Cholesky factor L (a = L L^H) of each Hermitian "
                     "positive-definite matrix.")
eigh = defop("eigh", lambda xp, a, UPLO="L": tuple(xp.linalg.eigh(a, UPLO)),
             multiple_results=True,
             doc="(w, v): ascending eigenvalues and eigenvector columns of each Hermitian "
                 "matrix; derivatives assume distinct eigenvalues.")
svd = defop("svd", lambda xp, a, full_matrices=True: tuple(xp.linalg.svd(a, full_matrices)),
            multiple_results=True,
            doc="(U, S, Vh) of each matrix, S descending; derivatives assume distinct "
                "singular values.")
eigvalsh = defop("eigvalsh", lambda xp, a, UPLO="L": xp.linalg.eigvalsh(a, UPLO),
                 doc="The ascending eigenvalues of each Hermitian matrix, from LAPACK's "
                     "values-only driver as numpy.linalg.eigvalsh (its last bits are not "
                     "eigh's); derivatives assume distinct eigenvalues.")
svdvals = defop("svdvals", lambda xp, a: xp.linalg.svd(a, compute_uv=False),
                doc="The descending singular values of each matrix, from LAPACK's values-only "
                    "driver as numpy.linalg.svd(a, compute_uv=False) (its last bits are not "
                    "svd's); derivatives assume distinct singular values.")
qr = defop("qr", lambda xp, a, mode="reduced": tuple(xp.linalg.qr(a, mode)),
           multiple_results=True,
           doc="(Q, R) of each matrix, mode 'reduced' or 'complete'.")
