"""The compiler behind ft.jit: trace once, replay straight-line NumPy/CuPy (docs/architecture.md;
the contract is in docs/jit.md).

ir.py holds the program; trace.py records it; bodies.py traces functions into closed programs
(loop bodies, branches); fold/simplify/cse/dce.py are the passes; fuse.py groups elementwise
chains (one cupy.fuse kernel each on a device); codegen.py turns it into Python; xla*.py lower
it to JAX; api.py is jit and make_graph with their cache.
"""
from .api import jit, make_graph, Jitted, Graph, PASSES, optimize  # noqa: F401
from .trace import TracerConversionError  # noqa: F401
