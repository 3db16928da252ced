"""Comparison helpers shared by the test suite: results against references, dtype and shape
included (a value that is right but of the wrong dtype or shape is wrong)."""
import numpy as np

from ..backend import module_of

DEFAULT_TOLERANCE = {np.dtype(np.float16): (1e-3, 1e-3), np.dtype(np.float32): (1e-5, 1e-6),
                     np.dtype(np.float64): (1e-7, 1e-10),
                     np.dtype(np.complex64): (1e-5, 1e-6), np.dtype(np.complex128): (1e-7, 1e-10)}
"""(rtol, atol) by result dtype; exact for integer and boolean results."""


def default_tolerance(dtype):
    """The (rtol, atol) the checks use for `dtype` by default: (0, 0) for exact types.

    float16, float32 and float64 (and complex64, complex128) have tolerances a little above
    their rounding error; integer and boolean results must match exactly.

    Args:
        dtype: anything np.dtype accepts.

    Returns:
        The pair (rtol, atol) of floats.

    Raises:
        TypeError: `dtype` is not something np.dtype understands.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import default_tolerance
        >>> default_tolerance(np.float32), default_tolerance(np.int64)
        ((1e-05, 1e-06), (0.0, 0.0))
    """
    return DEFAULT_TOLERANCE.get(np.dtype(dtype), (0.0, 0.0))


def to_numpy(x):
    """A NumPy array or scalar for a NumPy or CuPy value (other values unchanged)."""
    if hasattr(x, "shape") and module_of(x) is not np:
        return module_of(x).asnumpy(x)
    return x


def _is_sequence(x):
    return isinstance(x, (tuple, list))


def assert_close(actual, expected, rtol=None, atol=None, *, check_dtype=True,
                 check_values=True, path="result"):
    """Assert that `actual` matches `expected`, structure, shape and dtype included.

    Tuples, lists and namedtuples are compared element by element; arrays must have the same
    shape and dtype and values within rtol/atol (NaNs and infinities must sit at the same
    places); Python scalars the same type and value. Values from CuPy are copied to the host
    first.

    Args:
        actual: the value under test.
        expected: the reference value.
        rtol: relative tolerance, a number or a callable dtype -> number; default_tolerance
            of the expected dtype when None.
        atol: absolute tolerance, as rtol.
        check_dtype: compare the arrays' dtypes.
        check_values: compare values (False: structure, shapes and dtypes only).
        path: how the message names the compared value.

    Returns:
        None.

    Raises:
        AssertionError: a difference, with its path ("result[1]: dtype float32, expected ...").

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import assert_close
        >>> assert_close((np.array([1.0, 2.0]),), (np.array([1.0, 2.0 + 1e-12]),))
        >>> try:
        ...     assert_close(np.ones(2, np.float32), np.ones(2))
        ... except AssertionError as e:
        ...     print(e)
        result: dtype float32, expected float64
    """
    actual, expected = to_numpy(actual), to_numpy(expected)
    if _is_sequence(expected) or _is_sequence(actual):
        if not (_is_sequence(expected) and _is_sequence(actual)):
            raise AssertionError(f"{path}: got {type(actual).__name__}, expected "
                                 f"{type(expected).__name__}")
        if len(actual) != len(expected):
            raise AssertionError(f"{path}: got {len(actual)} items, expected {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_close(a, e, rtol, atol, check_dtype=check_dtype, check_values=check_values,
                         path=f"{path}[{i}]")
        return
    if not isinstance(expected, (np.ndarray, np.generic)):
        if type(actual) is not type(expected) or (check_values and actual != expected):
            raise AssertionError(f"{path}: got {actual!r} ({type(actual).__name__}), expected "
                                 f"{expected!r} ({type(expected).__name__})")
        return
    if not isinstance(actual, (np.ndarray, np.generic)):
        raise AssertionError(f"{path}: got {type(actual).__name__} {actual!r}, expected an "
                             f"array of dtype {expected.dtype}")
    if actual.shape != expected.shape:
        raise AssertionError(f"{path}: shape {actual.shape}, expected {expected.shape}")
    if check_dtype and actual.dtype != expected.dtype:
        raise AssertionError(f"{path}: dtype {actual.dtype}, expected {expected.dtype}")
    if not check_values or expected.dtype.kind == "V":   # float0 tangents carry no values
        return
    default_rtol, default_atol = default_tolerance(expected.dtype)
    rtol = default_rtol if rtol is None else rtol(expected.dtype) if callable(rtol) else rtol
    atol = default_atol if atol is None else atol(expected.dtype) if callable(atol) else atol
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True,
                               err_msg=f"{path} (dtype {expected.dtype})", strict=False)


def assert_matches_reference(info, sample, actual):
    """Assert that `actual` (the op's result on `sample`) matches the entry's reference.

    The reference `info.ref` runs on the sample's own NumPy leaves; the comparison is
    assert_close with the entry's per-dtype tolerances and its check_values.

    Args:
        info: the OpInfo of the op.
        sample: one Sample of that entry.
        actual: what the op (possibly under a transform) returned for the sample.

    Returns:
        None.

    Raises:
        AssertionError: `actual` differs from the reference (naming the op and sample).

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import assert_matches_reference, op_info
        >>> info = op_info("sin")
        >>> for sample in info.samples(np.random.default_rng(0)):
        ...     assert_matches_reference(info, sample, sample.call(info.fn))
    """
    expected = sample.call(info.ref)
    assert_close(actual, expected, rtol=lambda dt: info.tolerance(dt)[0],
                 atol=lambda dt: info.tolerance(dt)[1], check_values=info.check_values,
                 path=f"{info.name}[{sample.name}]")
