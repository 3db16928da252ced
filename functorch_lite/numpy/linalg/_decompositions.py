"""numpy.linalg's decompositions (cholesky, eigh, eig, svd, qr, slogdet) and their named results."""
from typing import NamedTuple

from ...ops import eig as eg, elementwise as ew, linalg as la
from .._shape import swapaxes
from .._util import as_operand


class EigResult(NamedTuple):
    """eig's result: eigenvalues and eigenvectors (columns)."""

    eigenvalues: object
    eigenvectors: object


class EighResult(NamedTuple):
    """eigh's result: eigenvalues (ascending) and eigenvectors (columns)."""

    eigenvalues: object
    eigenvectors: object


class SlogdetResult(NamedTuple):
    """slogdet's result: the sign and the log of the absolute determinant."""

    sign: object
    logabsdet: object


class SVDResult(NamedTuple):
    """svd's result: U, the singular values S (descending) and Vh."""

    U: object
    S: object
    Vh: object


class QRResult(NamedTuple):
    """qr's result: Q and R."""

    Q: object
    R: object


def cholesky(a, /, *, upper=False):
    """As numpy.linalg.cholesky: the Cholesky factor of Hermitian positive-definite matrices.

    Args:
        a: a (..., n, n) Hermitian positive-definite matrix or stack of them.
        upper: return the upper factor U (a = U^H U) instead of the lower L (a = L L^H).

    Returns:
        The (..., n, n) triangular factor.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.cholesky(np.array([[4.0, 2.0], [2.0, 2.0]]))
        array([[2., 0.],
               [1., 1.]])
    """
    low = la.cholesky(as_operand(a))
    return ew.conj(swapaxes(low, -1, -2)) if upper else low


def slogdet(a):
    """As numpy.linalg.slogdet: the sign and log of the absolute determinant.

    Args:
        a: a (..., n, n) square matrix or stack of them.

    Returns:
        A SlogdetResult (sign, logabsdet), each of shape (...); det = sign * exp(logabsdet).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> sign, logabsdet = fnp.linalg.slogdet(np.array([[2.0, 0.0], [0.0, 3.0]]))
        >>> float(sign), bool(np.allclose(logabsdet, np.log(6.0)))
        (1.0, True)
    """
    return SlogdetResult(*la.slogdet(as_operand(a)))


def eigh(a, UPLO="L"):
    """As numpy.linalg.eigh: eigenvalues and eigenvectors of Hermitian matrices.

    Derivatives assume distinct eigenvalues.

    Args:
        a: a (..., n, n) Hermitian (real symmetric) matrix or stack of them.
        UPLO: "L" or "U", the triangle of `a` that is read.

    Returns:
        An EighResult (eigenvalues (..., n) ascending, eigenvectors (..., n, n) as columns).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> w, v = fnp.linalg.eigh(np.array([[2.0, 0.0], [0.0, 1.0]]))
        >>> w
        array([1., 2.])
    """
    return EighResult(*la.eigh(as_operand(a), UPLO=UPLO))


def eig(a):
    """As numpy.linalg.eig: eigenvalues and eigenvectors of a general square matrix.

    Unlike NumPy, the results are always complex (as in JAX), so their dtype never depends on
    the values. Derivatives assume distinct eigenvalues; an eigenvector's phase is a free
    choice, so only phase-independent functions of eigenvectors have well-defined derivatives.

    Args:
        a: a (..., n, n) square matrix or stack of them.

    Returns:
        An EigResult (eigenvalues (..., n), unit-norm eigenvectors (..., n, n) as columns),
        with a v = v diag(w).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> w, v = fnp.linalg.eig(np.array([[1.0, 0.0], [0.0, 2.0]]))
        >>> w
        array([1.+0.j, 2.+0.j])
    """
    return EigResult(*eg.eig(as_operand(a)))


def eigvals(a):
    """As numpy.linalg.eigvals: the eigenvalues of a general square matrix.

    The result is always complex (as in JAX); derivatives assume distinct eigenvalues.

    Args:
        a: a (..., n, n) square matrix or stack of them.

    Returns:
        The (..., n) complex eigenvalues.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.eigvals(np.array([[1.0, 0.0], [0.0, 2.0]]))
        array([1.+0.j, 2.+0.j])
    """
    return eg.eigvals(as_operand(a))


def eigvalsh(a, UPLO="L"):
    """As numpy.linalg.eigvalsh: the eigenvalues (ascending) of Hermitian matrices.

    From LAPACK's values-only driver, as NumPy's (their last bits differ from eigh's).
    Derivatives assume distinct eigenvalues.

    Args:
        a: a (..., n, n) Hermitian (real symmetric) matrix or stack of them.
        UPLO: "L" or "U", the triangle of `a` that is read.

    Returns:
        The (..., n) real eigenvalues in ascending order.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.eigvalsh(np.array([[2.0, 1.0], [1.0, 2.0]]))
        array([1., 3.])
    """
    return la.eigvalsh(as_operand(a), UPLO=UPLO)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """As numpy.linalg.svd: the singular value decomposition a = U diag(S) Vh.

    Derivatives assume distinct singular values. With compute_uv=False the values come from
    LAPACK's values-only driver, as NumPy's (their last bits differ from those of S).

    Args:
        a: a (..., m, n) matrix or stack of them.
        full_matrices: U and Vh square (True) or reduced to min(m, n) columns/rows (False).
        compute_uv: return U, S, Vh (True) or only S (False).
        hermitian: accepted for NumPy compatibility and ignored.

    Returns:
        An SVDResult (U, S, Vh) with S (..., min(m, n)) descending, or S alone with
        compute_uv=False.

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> fnp.linalg.svd(np.array([[1.0, 0.0], [0.0, 3.0]]), compute_uv=False)
        array([3., 1.])
    """
    if not compute_uv:
        return la.svdvals(as_operand(a))
    return SVDResult(*la.svd(as_operand(a), full_matrices=full_matrices))


def qr(a, mode="reduced"):
    """As numpy.linalg.qr: the QR factorization a = Q R.

    Args:
        a: a (..., m, n) matrix or stack of them.
        mode: "reduced" (Q (..., m, k), R (..., k, n), k = min(m, n)), "complete"
            (Q (..., m, m), R (..., m, n)) or "r" (R alone, reduced).

    Returns:
        A QRResult (Q, R), or R alone with mode="r".

    Raises:
        ValueError: another mode (NumPy's "raw" is not supported).

    Examples:
        >>> import numpy as np, functorch_lite.numpy as fnp
        >>> q, r = fnp.linalg.qr(np.array([[3.0, 1.0], [4.0, 2.0]]))
        >>> bool(np.allclose(q @ r, [[3.0, 1.0], [4.0, 2.0]]))
        True
    """
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr mode {mode!r} is not supported (reduced, complete, r)")
    q, r = la.qr(as_operand(a), mode="complete" if mode == "complete" else "reduced")
    return r if mode == "r" else QRResult(q, r)
