"""functorch_lite: composable function transforms (vmap, grad, jvp, ...) over NumPy and CuPy.

Public API only: re-exports of the transforms, the extension API and the wrapper base classes.
"""
from ._version import __version__
from . import ops  # noqa: F401  (registers the primitives)
from . import numpy  # noqa: F401
from . import nn  # noqa: F401
from . import tree  # noqa: F401
from . import random  # noqa: F401
from . import optim  # noqa: F401
from . import dp  # noqa: F401
from . import scipy  # noqa: F401  (SciPy's functions on wrappers reach it)
import importlib.util as _importlib_util
if _importlib_util.find_spec("dask") is not None:
    from . import dask  # noqa: F401  (vmap hands Dask arrays to it)
from .tensor import Tensor, TransformTensor
from .dispatch import Op, OPS, defop
from .interpreter import Interpreter, EscapedWrapperError, reset_level_stack
from .backend import DeviceMismatchError
from .ops.elementwise import stop_gradient
from .transforms.vmap import vmap, register_batch_rule, BatchedTensor
from .batching_rules.fallback import (
    PerformanceWarning, MissingBatchRuleError, set_fallback_error, fallback_as_error,
    fallback_ops)
from .transforms.reverse import grad, grad_and_value, value_and_grad, vjp, GradTensor
from .transforms.forward import jvp, linearize, DualTensor, float0
from .transforms.jacobians import jacrev, jacfwd, hessian
from .transforms.taylor import jet, JetTensor, JetRuleError
from .transforms.laplacian import laplacian, forward_laplacian, LaplacianTensor
from .transforms.gauss_newton import make_ggnvp
from .transforms.custom import custom_vjp, custom_jvp
from .transforms.checkpoint import checkpoint, remat, checkpoint_policies
from .rule_checks import RuleError
from .compiler import jit, make_graph, TracerConversionError
from . import lax  # noqa: F401
from .lax import scan, fori_loop, while_loop, cond
from .compiler.xla import set_jit_backend


__all__ = [
    "make_ggnvp",
    # transforms
    "vmap", "grad", "grad_and_value", "value_and_grad", "vjp", "jvp", "linearize", "jacrev",
    "jacfwd", "hessian", "jet", "laplacian", "forward_laplacian", "custom_vjp", "custom_jvp", "stop_gradient", "jit", "make_graph",
    "set_jit_backend",
    "checkpoint", "remat", "checkpoint_policies",
    # structured control flow (also in the lax namespace, with switch and map)
    "scan", "fori_loop", "while_loop", "cond",
    # extension API
    "defop", "Op", "OPS", "register_batch_rule", "Tensor", "TransformTensor", "Interpreter",
    "BatchedTensor", "GradTensor", "DualTensor", "JetTensor", "LaplacianTensor", "float0", "reset_level_stack",
    # vmap's loop fallback
    "PerformanceWarning", "MissingBatchRuleError", "set_fallback_error", "fallback_as_error",
    "fallback_ops",
    # errors
    "EscapedWrapperError", "DeviceMismatchError", "TracerConversionError", "RuleError",
    "JetRuleError",
    # namespaces
    "numpy", "nn", "tree", "random", "optim", "dp", "lax",
]


def __dir__():      # dir() and tab completion show the public API, not the module's imports
    return __all__
