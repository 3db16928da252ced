"""angle: the argument of complex numbers (0 or pi for real ones), as arctan2(imag, real)."""
import math

from ..ops import elementwise as ew
from ._util import as_operand, dtype_of


def angle(z, deg=False):
    """The counterclockwise angle from the positive real axis, in radians (degrees with deg)."""
    z = as_operand(z)
    if dtype_of(z).kind == "c":
        out = ew.arctan2(ew.imag(z), ew.real(z))
    else:
        out = ew.arctan2(ew.subtract(z, z), z)      # +0 (x * 0 is -0 for x < 0)
    return ew.multiply(out, 180.0 / math.pi) if deg else out
