"""The XLA backend over the sample database: every op, and the compositions test_jit_ops.py checks,
jitted with backend="xla" give the reference result and the NumPy backend's (xla_checks.py: 1e-12
of the result's scale in float64), on the tracing call and on compiled replays; and every op has
a lowering."""
import numpy as np
import pytest

import functorch_lite as ft
from functorch_lite.ops import BUILTIN_OPS
from functorch_lite.testing.checks import assert_matches_reference
from test_jit_ops import DIFF_OPS, _cases
from test_compositions import f64_samples, flat_scalar_function
from test_jit_ops import _same_layout_copy
from xla_checks import assert_backends_agree

pytest.importorskip("jax", reason="the XLA backend needs JAX (pip install -e '.[xla]')")
from functorch_lite.jit.xla_lowerings import HOST_ONLY, LOWERINGS  # noqa: E402


def test_every_builtin_op_has_a_lowering_or_a_reason():
    """Like the rule-coverage checks: a new op without a lowering fails here."""
    missing = sorted(set(BUILTIN_OPS) - set(LOWERINGS) - set(HOST_ONLY))
    assert not missing, f"ops with no XLA lowering (add one to xla_lowerings.py): {missing}"
    assert not set(LOWERINGS) & set(HOST_ONLY), "an op both lowered and host-only"
    internal = {"identity_product", "diagonal_product"}   # made by jit's simplify pass
    assert set(LOWERINGS) | set(HOST_ONLY) <= set(BUILTIN_OPS) | internal, "a lowering for no op"
    assert all(isinstance(r, str) and len(r) > 20 for r in HOST_ONLY.values())


@pytest.mark.parametrize("info, sample", _cases(lambda i: not i.creation))
def test_jit_op_on_xla(info, sample):
    """jit(op, backend="xla") == the reference, == the NumPy backend, on replays too."""
    if info.skip_reason("test_kernel", sample.name):
        pytest.skip(info.skip_reason("test_kernel", sample.name))
    leaves = sample.leaves()
    fn = lambda *xs: sample.call(info.fn, list(xs))  # noqa: E731
    on_numpy, on_xla = ft.jit(fn, backend="numpy"), ft.jit(fn, backend="xla")
    try:
        on_numpy(*leaves)
    except ft.TracerConversionError:
        with pytest.raises(ft.TracerConversionError, match="static_argnums"):
            on_xla(*leaves)
        return
    on_xla(*leaves)   # the tracing call (NumPy kernels); the replays below run XLA's program
    for _ in range(2):
        got = on_xla(*[_same_layout_copy(x) for x in leaves])
        assert_matches_reference(info, sample, got)
        assert_backends_agree(got, on_numpy(*[_same_layout_copy(x) for x in leaves]),
                              f"{info.name}[{sample.name}]")
    assert on_xla.traces == 1


@pytest.mark.parametrize("info", DIFF_OPS, ids=lambda i: i.name)
def test_jit_compositions_on_xla(info):
    """jit of vmap(grad), jvp, hessian and grad(grad(sum)) on XLA == on NumPy (the first float64
    sample: each XLA compile costs a tenth of a second, test_jit_ops.py covers the rest; the four
    compositions are one jitted program, one compile)."""
    if info.skip_reason("test_jit_compositions"):
        pytest.skip(info.skip_reason("test_jit_compositions"))
    rng = np.random.default_rng(1)
    for sample in f64_samples(info, rng)[:1]:
        g, x = flat_scalar_function(info, sample, rng)
        t = rng.standard_normal(x.shape)
        xs = x + 0.01 * rng.standard_normal((3,) + x.shape)

        def compositions(x, xs, t):
            return {"vmap(grad)": ft.vmap(ft.grad(g))(xs), "jvp": ft.jvp(g, (x,), (t,)),
                    "hessian": ft.hessian(g)(x),
                    "grad(grad(sum))": ft.grad(lambda x: ft.grad(g)(x).sum())(x)}
        on_xla = ft.jit(compositions, backend="xla")
        on_xla(x, xs, t)
        got, want = on_xla(x, xs, t), ft.jit(compositions, backend="numpy")(x, xs, t)
        for name in want:
            assert_backends_agree(got[name], want[name], f"{info.name}/{sample.name}: jit({name})")
