"""Functional neural-network layers, activations and losses (as jax.nn and
torch.nn.functional), each usable on one example and under every transform.

One module per family; this module only re-exports their public names.
"""
from ._activations import *  # noqa: F401,F403
from ._activations import __all__ as _activations_all

__all__ = [*_activations_all]
