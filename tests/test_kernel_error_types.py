"""A kernel's error keeps its type under every transform and under jit (issue 20, item 8): code
that catches np.linalg.LinAlgError in a loop catches it under vmap too, while vmap's restated
message (per-example shapes) and its own error classes stay."""
import numpy as np
import pytest

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite.transforms.vmap import VmapIndexError, VmapShapeError

SINGULAR = np.zeros((2, 3, 3))


def _inv_sum(a):
    return fnp.sum(fnp.linalg.inv(a))


TRANSFORMS = {
    "vmap": lambda: ft.vmap(fnp.linalg.inv)(SINGULAR),
    "vmap_vmap": lambda: ft.vmap(ft.vmap(fnp.linalg.inv))(np.zeros((2, 2, 3, 3))),
    "vmap_grad": lambda: ft.vmap(ft.grad(_inv_sum))(SINGULAR),
    "grad_vmap": lambda: ft.grad(lambda a: fnp.sum(ft.vmap(fnp.linalg.inv)(a)))(SINGULAR),
    "jvp_vmap": lambda: ft.jvp(ft.vmap(fnp.linalg.inv), (SINGULAR,), (SINGULAR,)),
    "vmap_jvp": lambda: ft.vmap(lambda a: ft.jvp(fnp.linalg.inv, (a,), (a,)))(SINGULAR),
    "grad": lambda: ft.grad(_inv_sum)(SINGULAR[0]),
    "jacrev": lambda: ft.jacrev(fnp.linalg.inv)(SINGULAR[0]),
    "jacfwd": lambda: ft.jacfwd(fnp.linalg.inv)(SINGULAR[0]),
    "hessian": lambda: ft.hessian(_inv_sum)(SINGULAR[0]),
    "jit": lambda: ft.jit(fnp.linalg.inv)(SINGULAR[0]),
    "jit_vmap": lambda: ft.jit(ft.vmap(fnp.linalg.inv))(SINGULAR),
    "vmap_chunked": lambda: ft.vmap(fnp.linalg.inv, chunk_size=1)(SINGULAR),
}


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
def test_linalg_error_is_caught_as_linalg_error(transform):
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        TRANSFORMS[transform]()


def test_vmap_restates_the_error_and_keeps_both_types():
    with pytest.raises(np.linalg.LinAlgError) as info:
        ft.vmap(fnp.linalg.inv)(SINGULAR)
    err = info.value
    assert isinstance(err, VmapShapeError) and isinstance(err, ValueError)
    assert type(err).__name__ == "LinAlgError"
    assert "inv failed under vmap" in str(err) and "(3, 3)" in str(err)
    assert isinstance(err.__cause__, np.linalg.LinAlgError)


def test_plain_value_and_index_errors_keep_vmaps_classes():
    with pytest.raises(VmapShapeError):
        ft.vmap(lambda x: x @ np.ones((3, 2)))(np.ones((4, 2)))
    with pytest.raises(VmapIndexError):
        ft.vmap(lambda x: x[5])(np.ones((4, 2)))


class _KernelError(IndexError):
    """A user's own error class raised by a user-defined op's kernel."""


@pytest.mark.filterwarnings("ignore::functorch_lite.PerformanceWarning")
def test_a_user_kernels_error_class_survives_vmap():
    def kernel(xp, x):
        raise _KernelError("bad row")
    op = ft.defop("raises_kernel_error_20", kernel)
    with pytest.raises(_KernelError, match="bad row") as info:
        ft.vmap(op)(np.ones((2, 3)))
    assert isinstance(info.value, VmapIndexError)
    with pytest.raises(_KernelError):
        ft.vmap(ft.vmap(op))(np.ones((2, 2, 3)))


def test_the_restated_error_pickles():
    """A Dask cluster sends errors back pickled: the class made at run time survives."""
    import pickle
    with pytest.raises(np.linalg.LinAlgError) as info:
        ft.vmap(fnp.linalg.inv)(SINGULAR)
    back = pickle.loads(pickle.dumps(info.value))
    assert type(back) is type(info.value) and str(back) == str(info.value)
    assert back.kernel_message == "Singular matrix"
