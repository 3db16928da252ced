"""Functional neural-network layers, activations and losses (as jax.nn and
torch.nn.functional), each usable on one example and under every transform.

One module per family; this module only re-exports their public names.
"""
from ._activations import *  # noqa: F401,F403
from ._activations import __all__ as _activations_all
from . import _attention, _dropout, _layer_batch_norm, _linear
from ._conv import *  # noqa: F401,F403
from ._conv import __all__ as _conv_all
from ._pooling import *  # noqa: F401,F403
from ._pooling import __all__ as _pooling_all
from ._normalization_group import *  # noqa: F401,F403
from ._normalization_group import __all__ as _normalization_group_all
from ._attention import *  # noqa: F401,F403
from ._dropout import *  # noqa: F401,F403
from ._layer_batch_norm import *  # noqa: F401,F403
from ._linear import *  # noqa: F401,F403
from ._losses import *  # noqa: F401,F403
from ._losses import __all__ as _losses_all
from ._state import stack_module_state  # noqa: F401
from . import init  # noqa: F401  (ft.nn.init: torch.nn.init's initializers, explicit keys)

__all__ = [*_activations_all, *_losses_all, *_conv_all, *_pooling_all, *_normalization_group_all,
           *_attention.__all__, *_dropout.__all__, *_layer_batch_norm.__all__, *_linear.__all__, "stack_module_state"]
