"""Batching rule of the Threefry primitive: its operands broadcast over their leading axes, so
a batch of keys (or of counters) is one call of the kernel (see ops/random.py)."""
from ..ops.random import threefry2x32
from .helpers import broadcasting

broadcasting(threefry2x32)
