"""The eigendecomposition of general (non-symmetric) square matrices: complex eigenvalues and
unit-norm eigenvectors, as numpy.linalg.eig and eigvals (stacks of matrices too).

NumPy returns real arrays when every eigenvalue happens to be real; these kernels always return
complex ones (as JAX does), so the result's dtype never depends on the values."""
from ..dispatch import defop


def _complex(xp, x, a):
    return x.astype(xp.result_type(a.dtype, xp.complex64), copy=False)


def _eig_kernel(xp, a):
    w, v = xp.linalg.eig(a)
    return _complex(xp, w, a), _complex(xp, v, a)


eig = defop("eig", _eig_kernel, multiple_results=True,
            doc="(w, v): eigenvalues and unit-norm right eigenvectors, a v = v diag(w).")
eigvals = defop("eigvals", lambda xp, a: _complex(xp, xp.linalg.eigvals(a), a),
                doc="The eigenvalues of a general square matrix (complex).")
