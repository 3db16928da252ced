"""Public testing helpers: the op sample database and the checks the test suite runs on every op."""
from .pass_through import PassThroughInterpreter, PassThroughTensor, passthrough  # noqa: F401
from .jvp_checks import (  # noqa: F401
    check_jvp, check_transpose, float_leaf_function, float_outputs, numerical_jvp,
    random_tangents, real_outputs)
from .vmap_checks import check_vmap, loop_reference  # noqa: F401
from .grad_checks import check_grad_transpose, gradcheck, numerical_jacobian  # noqa: F401
from .order_checks import check_grads  # noqa: F401
from .checks import assert_close, assert_matches_reference, default_tolerance  # noqa: F401
from .samples import OP_DB, OpInfo, Sample, op_info  # noqa: F401

__all__ = [
    "check_vmap", "loop_reference", "check_jvp", "check_transpose", "check_grad_transpose",
    "check_grads", "gradcheck", "numerical_jacobian", "numerical_jvp", "random_tangents", "float_leaf_function",
    "float_outputs", "real_outputs", "assert_close", "assert_matches_reference",
    "default_tolerance", "OP_DB", "OpInfo", "Sample", "op_info", "passthrough",
    "PassThroughInterpreter", "PassThroughTensor"]


def __dir__():      # dir() and tab completion show the public API, not the module's imports
    return __all__
