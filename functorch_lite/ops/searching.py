"""Searching and selection primitives with integer results (no derivative): searchsorted and
argpartition. partition is their composite with take_along_axis (functorch_lite.numpy)."""
import numpy as np

from ..dispatch import defop

searchsorted = defop("searchsorted", lambda xp, a, v, side="left": xp.searchsorted(a, v, side),
                     differentiable=False, numpy_impl=np.searchsorted,
                     doc="Insertion indices of v into the sorted 1-d a (numpy.searchsorted).")
argpartition = defop("argpartition", lambda xp, x, kth, axis=-1: xp.argpartition(x, kth, axis),
                     differentiable=False,
                     doc="Indices that partition x around the kth element(s) along axis.")
