"""Primitives behind functorch_lite.scipy.linalg: the LU factorization (LAPACK's packed form,
as scipy.linalg.lu_factor), the permutation its pivots describe, and the matrix exponential.
Kernels call scipy.linalg on NumPy arrays and cupyx.scipy.linalg on CuPy arrays; both take
stacks of matrices (leading dims are a batch)."""
from ..dispatch import defop


def linalg_module(xp):
    """scipy.linalg for NumPy arrays, cupyx.scipy.linalg for CuPy arrays."""
    try:
        if xp.__name__ == "cupy":
            import cupyx.scipy.linalg as linalg
        else:
            import scipy.linalg as linalg
    except ImportError as e:
        raise ImportError("functorch_lite.scipy.linalg needs SciPy for this function: "
                          "pip install 'functorch-lite[scipy]'") from e
    return linalg


def _stacked(xp, fn, a):
    """fn over the matrices of a stack (for kernels that take one matrix only)."""
    if a.ndim == 2 or xp.__name__ != "cupy":
        return fn(a)
    flat = a.reshape((-1,) + a.shape[-2:])
    outs = [fn(m) for m in flat]
    if isinstance(outs[0], tuple):
        return tuple(xp.stack(parts).reshape(a.shape[:-2] + parts[0].shape)
                     for parts in zip(*outs))
    return xp.stack(outs).reshape(a.shape)


def _lu_factor_kernel(xp, a):
    lu, piv = _stacked(xp, linalg_module(xp).lu_factor, a)
    return lu, piv


def _pivots_to_permutation_kernel(xp, piv):
    """Row i was swapped with row piv[i], in order: the rows of A in the order of P A."""
    n = piv.shape[-1]
    flat = piv.reshape(-1, n)
    rows = xp.arange(flat.shape[0])
    perm = xp.broadcast_to(xp.arange(n), flat.shape).copy()
    for i in range(n):
        j = flat[:, i]
        pi, pj = perm[:, i].copy(), perm[rows, j].copy()
        perm[:, i], perm[rows, j] = pj, pi
    return perm.reshape(piv.shape)


lu_factor = defop("lu_factor", _lu_factor_kernel, multiple_results=True,
                  doc="(lu, piv): L (unit diagonal, strictly lower part) and U packed in one "
                      "matrix, and LAPACK's row interchanges, with A[perm] = L U.")
pivots_to_permutation = defop("pivots_to_permutation", _pivots_to_permutation_kernel,
                              differentiable=False,
                              doc="The permutation perm of LAPACK pivots: A[perm] = L U.")
expm = defop("expm", lambda xp, a: _stacked(xp, linalg_module(xp).expm, a),
             doc="The matrix exponential (scaling and squaring with a Pade approximant).")
