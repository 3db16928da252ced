"""torch.func.stack_module_state for models that are parameter pytrees."""
from typing import Any, Optional, Sequence, Tuple

from .. import tree


def stack_module_state(models: Sequence[Any], buffers: Optional[Sequence[Any]] = None
                       ) -> Tuple[Any, Any]:
    """(params, buffers) of an ensemble, each leaf stacked along a new leading model axis, as
    torch.func.stack_module_state returns them: vmap over the result with in_dims=0 runs every
    model at once.

    A model here is its parameter pytree (there are no Module objects), so `models` is a list of
    such trees; running statistics and other non-trained state come as a second list,
    `buffers` (torch finds them inside the modules). Without buffers the second result is {}
    as for torch modules that have none. ft.tree.stack stacks one list.

    Args:
        models: parameter pytrees of one structure and leaf shapes.
        buffers: optional buffer pytrees, one per model.

    Returns:
        (stacked params, stacked buffers or {}).

    Raises:
        ValueError: no models, trees of different structures, or a buffers list of another
            length.

    Examples:
        >>> import numpy as np, functorch_lite as ft
        >>> models = [{"weight": np.full((2, 3), float(i))} for i in range(4)]
        >>> params, buffers = ft.nn.stack_module_state(models)
        >>> params["weight"].shape, buffers
        ((4, 2, 3), {})
    """
    models = list(models)
    params = tree.stack(models)
    if buffers is None:
        return params, {}
    buffers = list(buffers)
    if len(buffers) != len(models):
        raise ValueError(f"stack_module_state: {len(models)} models but {len(buffers)} buffer "
                         "trees; give one per model")
    return params, tree.stack(buffers)


__all__ = ["stack_module_state"]
