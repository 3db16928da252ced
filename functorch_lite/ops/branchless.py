"""A branch-free numpy.where for the CPU kernel of the `where` op.

NumPy's where branches on every element: with an unpredictable condition (relu's x > 0 on
random data) it runs about 20 times slower than a multiply. Selecting bit patterns through an
integer mask, y ^ ((x ^ y) & mask), gives identical results (NaNs, infinities and signed zeros
are copied bit for bit) at the cost of a few streaming passes.
"""
import numpy as np

_MIN_SIZE = 4096      # below this, numpy.where's branches cost less than the extra passes


def where(cond, x, y):
    """numpy.where(cond, x, y), branch-free for large numeric arrays."""
    dtype = np.result_type(x, y)
    size = max(getattr(cond, "size", 1), getattr(x, "size", 1), getattr(y, "size", 1))
    if size < _MIN_SIZE or dtype.kind not in "fiu" or dtype.itemsize not in (2, 4, 8):
        return np.where(cond, x, y)
    bits = np.dtype(f"i{dtype.itemsize}")
    try:
        xb = np.asarray(x, dtype).view(bits)
        yb = np.asarray(y, dtype).view(bits)
    except (OverflowError, TypeError, ValueError):   # a scalar numpy.where converts otherwise
        return np.where(cond, x, y)
    mask = np.negative(np.asarray(cond, bool), dtype=bits)   # all ones where cond holds
    out = np.bitwise_and(np.bitwise_xor(xb, yb), mask)       # the full broadcast shape
    return np.bitwise_xor(out, yb, out=out).view(dtype)
