"""Differential privacy at scale: per-example gradient norms and clipped gradient sums without
materializing per-example gradients (ghost and book-keeping clipping), and DP-SGD's noise.

    norms = dp.per_example_grad_norms(loss)(params, x, y)
    total, norms = dp.clipped_grad_sum(loss, max_norm=1.0)(params, x, y)
    noisy = dp.add_noise(key, total, noise_multiplier=1.0, max_norm=1.0)

See docs/dp_sgd.md, Note [the capture pass] (_trace.py) and Note [factored pieces]
(_pieces.py).
"""
from ._api import add_noise, clipped_grad_sum, per_example_grad_norms
from ._trace import FallbackError, FallbackWarning

__all__ = ["per_example_grad_norms", "clipped_grad_sum", "add_noise", "FallbackWarning",
           "FallbackError"]
