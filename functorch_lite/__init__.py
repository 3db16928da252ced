"""functorch_lite: composable function transforms (vmap, grad, jvp, ...) over NumPy and CuPy."""
from . import ops  # noqa: F401  (registers the primitives)
from . import numpy  # noqa: F401
from . import nn  # noqa: F401
from .tensor import Tensor, TransformTensor, _install_array_methods
from .dispatch import Op, OPS, defop
from .interpreter import Interpreter, EscapedWrapperError
from .backend import DeviceMismatchError

_install_array_methods()

__all__ = ["Tensor", "TransformTensor", "Op", "OPS", "defop", "Interpreter",
           "EscapedWrapperError", "DeviceMismatchError", "numpy", "nn"]
from .transforms.vmap import vmap, register_batch_rule, BatchedTensor  # noqa: E402
from .batching_rules.fallback import PerformanceWarning  # noqa: E402
__all__ += ["vmap", "register_batch_rule", "BatchedTensor", "PerformanceWarning"]
from .transforms.forward import jvp, linearize, DualTensor, float0  # noqa: E402
__all__ += ["jvp", "linearize", "DualTensor", "float0"]
from .transforms.reverse import grad, grad_and_value, value_and_grad, vjp, GradTensor  # noqa: E402
from .transforms.jacobians import jacrev, hessian  # noqa: E402
from .transforms.custom import custom_vjp  # noqa: E402
__all__ += ["grad", "grad_and_value", "value_and_grad", "vjp", "GradTensor", "jacrev", "hessian",
            "custom_vjp"]
from .transforms.jacobians import jacfwd  # noqa: E402
from .transforms.custom import custom_jvp  # noqa: E402
__all__ += ["jacfwd", "custom_jvp"]
from .ops.elementwise import stop_gradient  # noqa: E402
__all__ += ["stop_gradient"]
