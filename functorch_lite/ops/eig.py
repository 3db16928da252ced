"""The eigendecomposition of general (non-symmetric) square matrices: complex eigenvalues and
unit-norm eigenvectors, as numpy.linalg.eig and eigvals (stacks of matrices too)."""
from ..dispatch import defop

eig = defop("eig", lambda xp, a: tuple(xp.linalg.eig(a)), multiple_results=True,
            doc="(w, v): eigenvalues and unit-norm right eigenvectors, a v = v diag(w).")
eigvals = defop("eigvals", lambda xp, a: xp.linalg.eigvals(a),
                doc="The eigenvalues of a general square matrix (complex in general).")
