"""ft.jit: trace once, replay straight-line NumPy/CuPy (see DESIGN.md section 7).

ir.py holds the program; trace.py records it; fold/simplify/cse/dce.py are the passes;
fuse.py groups elementwise chains (one cupy.fuse kernel each on a device);
codegen.py turns it into Python; api.py is jit and make_graph with their cache.
"""
from .api import jit, make_graph, Jitted, Graph, PASSES, optimize  # noqa: F401
from .trace import TracerConversionError  # noqa: F401
