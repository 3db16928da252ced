"""The op sample database: one OpInfo per public function, driving the generic tests.

    from functorch_lite.testing.samples import OP_DB, op_info
    info = op_info("sin")
    for sample in info.samples(np.random.default_rng(0)):
        np.testing.assert_allclose(sample.call(info.fn), sample.call(info.ref))

Every public function of functorch_lite.numpy (its __all__), functorch_lite.numpy.linalg
("linalg.<name>") and functorch_lite.nn ("nn.<name>") has an entry, plus "getitem" (x[idx])
and the functional updates "at_set", "at_add", "at_multiply", "at_min", "at_max"
(fnp.at(x)[idx].<mode>(v)). See samples_base.py for Sample, OpInfo and the value domains.
"""
from . import (samples_arrays, samples_complex, samples_conv, samples_coverage,
               samples_elementwise, samples_empty, samples_fft, samples_linalg, samples_nn_layers,
               samples_numerical, samples_reductions, samples_scipy)
from .samples_base import OpInfo, Sample  # noqa: F401  (public API)

OP_DB = (samples_elementwise.ENTRIES + samples_reductions.ENTRIES + samples_arrays.ENTRIES
         + samples_linalg.ENTRIES + samples_conv.ENTRIES + samples_fft.ENTRIES
         + samples_scipy.ENTRIES + samples_coverage.ENTRIES + samples_nn_layers.ENTRIES
         + samples_numerical.ENTRIES)
OP_DB = samples_complex.add_complex_samples(OP_DB + samples_complex.complex_only_entries())
"""Every OpInfo, in a stable order."""
samples_empty.extend(OP_DB)

_BY_NAME = {info.name: info for info in OP_DB}
assert len(_BY_NAME) == len(OP_DB), "duplicate OpInfo names"

_SCIPY = ("SciPy's own implementation; the library's formula (SciPy is optional) agrees within "
          "the sample database's tolerances")
_COMPLEX_MOMENTS = ("complex input: NumPy divides by its count in double precision and forms "
                    "|x|^2 through a real view; the library computes in the input's precision")
JIT_NOT_NUMPY_BITS = {
    "mean": _COMPLEX_MOMENTS, "var": _COMPLEX_MOMENTS, "std": _COMPLEX_MOMENTS,
    "nanmean": _COMPLEX_MOMENTS,
    "dot": "n-d operands: NumPy loops over BLAS calls of its own, the library contracts with "
           "one matmul, which sums in another order",
    "inner": "n-d operands: as dot",
    "interp": "NumPy's C loop forms the slope and the line its own way",
    "gradient": "edge_order=2: NumPy groups the one-sided second-order terms otherwise",
    "logaddexp.reduce": "NumPy folds logaddexp along the axis, the library sums exponentials "
                        "(logsumexp)",
    "logaddexp.accumulate": "as logaddexp.reduce, for each prefix",
    "linalg.eig": "always complex results (as JAX), where NumPy gives real arrays when every "
                  "eigenvalue is real",
    "linalg.eigvals": "as linalg.eig",
    "linalg.lstsq": "NumPy calls LAPACK's gelsd, the library computes pinv(a) @ b: relative "
                    "differences of order cond(a) * eps (and the residuals its docstring states)",
    **{f"scipy.special.{name}": _SCIPY for name in (
        "expit", "logit", "xlogy", "xlog1py", "ndtr", "betaln", "i0", "entr", "gammainc",
        "gammaincc")},
}
"""NumPy (and SciPy) functions whose result under ft.jit, the library's computation, is not
the eager call's bit for bit: eager code on plain arrays runs NumPy's own routine, which the
library does not reproduce (docs/jit.md, "Functions that are not NumPy's bit for bit"). Their
samples skip test_jit_numpy_bits with the reason."""
for _name, _reason in JIT_NOT_NUMPY_BITS.items():
    if _name in _BY_NAME:      # the SciPy entries exist only where SciPy is installed
        _BY_NAME[_name].skips.setdefault("test_jit_numpy_bits", _reason)


def op_info(name):
    """The OpInfo called `name` ("sin", "linalg.solve", "nn.softmax", "at_add", ...).

    Args:
        name: the entry's name: a functorch_lite.numpy function, "linalg.<name>",
            "nn.<name>", "getitem" or "at_<mode>".

    Returns:
        The OpInfo of that name in OP_DB.

    Raises:
        KeyError: no entry has that name.

    Examples:
        >>> import numpy as np
        >>> from functorch_lite.testing import op_info
        >>> info = op_info("sin")
        >>> info.name, len(info.samples(np.random.default_rng(0))) > 1
        ('sin', True)
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no OpInfo named {name!r}") from None
