"""functorch_lite.numpy.linalg: numpy.linalg's names over the linalg primitives."""
from ...ops import linalg as la
from ._decompositions import (  # noqa: F401
    EigResult, EighResult, QRResult, SlogdetResult, SVDResult, cholesky, eig, eigh, eigvals,
    eigvalsh, qr, slogdet, svd)
from ._least_squares import LstsqResult, lstsq, pinv  # noqa: F401
from ._norms import matrix_norm, norm, vector_norm  # noqa: F401
from ._products import diagonal, matrix_power, outer, trace, vecdot  # noqa: F401

solve = la.solve
inv = la.inv
det = la.det


__all__ = ["solve", "inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "eig", "eigvals",
           "EigResult", "svd", "qr",
           "norm", "EighResult", "SlogdetResult", "SVDResult", "QRResult", "matrix_norm",
           "vector_norm", "trace", "diagonal", "outer", "vecdot", "matrix_power", "pinv",
           "lstsq", "LstsqResult"]


def __dir__():      # dir() and tab completion show the public API, not the module's imports
    return __all__
