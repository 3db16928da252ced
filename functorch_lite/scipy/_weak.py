"""Python numbers stay weak (NumPy's promotion, NEP 50; jax.scipy's weak types): a float32 array
with a Python-number parameter gives float32. A library op applied to Python numbers alone
returns a NumPy float64 scalar, which is strong and would raise the result to float64; `weak`
turns such a term back into a Python number."""
import numpy as np


def is_python_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def weak(fn, *args):
    """fn(*args), as a Python float when every argument is a Python number."""
    out = fn(*args)
    return float(out) if all(is_python_number(a) for a in args) else out


def float_dtype(*values):
    """The floating dtype NumPy's promotion gives the floating arrays among `values` (Python
    numbers are weak), float64 when there is none. Integer arrays are counts (the k and n of
    poisson and binom) and do not raise the precision, as in jax.scipy: integer counts with a
    float32 rate give float32."""
    floating = [v.dtype for v in values
                if hasattr(v, "dtype") and np.dtype(v.dtype).kind in "fc"]
    return np.result_type(*floating) if floating else np.dtype(np.float64)


def in_dtype_of(value, *operands):
    """A Python number `value` as a 0-d array of float_dtype(*operands), on the device of the
    first array among them, when there is one (`fnp.where(mask, 1.0, value)` of two Python
    numbers would otherwise make a strong float64 array); anything else unchanged."""
    arrays = [o for o in operands if hasattr(o, "dtype")]
    if not is_python_number(value) or not arrays:
        return value
    from .. import numpy as fnp
    return fnp.asarray(value, dtype=float_dtype(*operands), like=arrays[0])
