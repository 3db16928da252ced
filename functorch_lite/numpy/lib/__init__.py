"""functorch_lite.numpy.lib: the parts of numpy.lib that work under transforms."""
from . import stride_tricks  # noqa: F401
