"""The comparison the XLA backend tests share: its results against the NumPy backend's."""
import numpy as np
import optree

import functorch_lite as ft

RTOL = {np.dtype(np.float64): 1e-12, np.dtype(np.complex128): 1e-12,
        np.dtype(np.float32): 2e-6, np.dtype(np.complex64): 2e-6}
"""Relative to each result's largest magnitude (at least 1): XLA may reassociate sums and fuse
products."""


def assert_backends_agree(xla, numpy, what):
    """Same structure, shape and dtype, NaNs and infinities at the same places, exact integers
    and booleans, floats within RTOL of the result's scale (at least 1)."""
    a, e = optree.tree_leaves(xla), optree.tree_leaves(numpy)
    assert len(a) == len(e), f"{what}: {len(a)} outputs, the NumPy backend gives {len(e)}"
    for k, (x, y) in enumerate(zip(a, e)):
        where = f"{what}, output {k}"
        assert not isinstance(x, ft.Tensor), f"{where}: a wrapper leaked out"
        if type(y).__module__ == "builtins":
            assert type(x) is type(y) and x == y, f"{where}: {x!r}, NumPy backend {y!r}"
            continue
        assert type(x).__module__ == "numpy", f"{where}: a {type(x).__name__} came back"
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape, f"{where}: shape {x.shape}, NumPy backend {y.shape}"
        assert x.dtype == y.dtype, f"{where}: dtype {x.dtype}, NumPy backend {y.dtype}"
        rtol = RTOL.get(x.dtype)
        if rtol is None:
            np.testing.assert_array_equal(x, y, err_msg=where)
            continue
        np.testing.assert_array_equal(np.isnan(x), np.isnan(y), err_msg=where + ": NaNs")
        finite = np.isfinite(y)
        np.testing.assert_array_equal(x[~finite & ~np.isnan(y)], y[~finite & ~np.isnan(y)],
                                      err_msg=where + ": infinities")
        # of max(|result|, 1): a result that cancels to about 0 (the second derivative of a
        # logsumexp) is rounding noise on both backends, ~1e-17 here and there
        scale = max(np.max(np.abs(y[finite]), initial=0.0), 1.0)
        np.testing.assert_allclose(x[finite], y[finite], rtol=rtol, atol=rtol * scale,
                                   err_msg=where)


def from_jax(out, like):
    """The results of a call with JAX arrays (which are JAX arrays) as the NumPy-array call
    gives them (`like`): NumPy arrays, NumPy scalars for 0-d results, Python scalars where the
    NumPy backend gives one; anything else is left for assert_backends_agree to refuse."""
    import jax

    def convert(x, y):
        if not isinstance(x, jax.Array):
            return x
        if type(y).__module__ == "builtins":
            return np.asarray(x).item()
        return np.asarray(x)[()] if np.ndim(y) == 0 and not isinstance(y, np.ndarray) \
            else np.array(x)
    leaves, spec = optree.tree_flatten(out)
    return spec.unflatten([convert(x, y) for x, y in zip(leaves, optree.tree_leaves(like))])
