"""The XLA backend over the sample database: every op, and the compositions test_jit_ops.py checks,
jitted with backend="xla" give the reference result and the NumPy backend's (xla_checks.py: 1e-12
of the result's scale in float64), on the tracing call and on compiled replays; and every op has
a lowering."""
import os
import subprocess
import sys

import numpy as np
import pytest

import functorch_lite as ft
from functorch_lite.ops import BUILTIN_OPS
from functorch_lite.testing.checks import assert_matches_reference
from functorch_lite.testing.samples import OP_DB
from test_jit_ops import DIFF_OPS
from test_compositions import f64_samples, flat_scalar_function
from test_jit_ops import _same_layout_copy
from xla_checks import assert_backends_agree

pytest.importorskip("jax", reason="the XLA backend needs JAX (pip install -e '.[xla]')")
from functorch_lite.compiler.xla_lowerings import HOST_ONLY, LOWERINGS  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def test_every_builtin_op_has_a_lowering_or_a_reason():
    """Like the rule-coverage checks: a new op without a lowering fails here."""
    missing = sorted(set(BUILTIN_OPS) - set(LOWERINGS) - set(HOST_ONLY))
    assert not missing, f"ops with no XLA lowering (add one to xla_lowerings.py): {missing}"
    assert not set(LOWERINGS) & set(HOST_ONLY), "an op both lowered and host-only"
    internal = {"identity_product", "diagonal_product"}   # made by jit's simplify pass
    assert set(LOWERINGS) | set(HOST_ONLY) <= set(BUILTIN_OPS) | internal, "a lowering for no op"
    assert all(isinstance(r, str) and len(r) > 20 for r in HOST_ONLY.values())


def _check_sample_on_xla(info, sample):
    """jit(op, backend="xla") on one sample == the reference, == the NumPy backend, on replays
    too; a sample the tracer refuses is refused on XLA as well."""
    leaves = sample.leaves()
    fn = lambda *xs: sample.call(info.fn, list(xs))  # noqa: E731
    on_numpy, on_xla = ft.jit(fn, backend="numpy"), ft.jit(fn, backend="xla")
    try:
        on_numpy(*leaves)
    except ft.TracerConversionError:
        with pytest.raises(ft.TracerConversionError, match="static_argnums"):
            on_xla(*leaves)
        return False
    on_xla(*leaves)   # the tracing call (NumPy kernels); the replays below run XLA's program
    for _ in range(2):
        got = on_xla(*[_same_layout_copy(x) for x in leaves])
        assert_matches_reference(info, sample, got)
        assert_backends_agree(got, on_numpy(*[_same_layout_copy(x) for x in leaves]),
                              f"{info.name}[{sample.name}]")
    assert on_xla.traces == 1
    return True


def _check_together_on_xla(cases):
    """_check_sample_on_xla for many (info, sample) cases at once: one program calling each
    op on its sample's own leaves, so one XLA compile."""
    sizes = [len(s.leaves()) for _, s in cases]

    def program(*leaves):
        outs, start = [], 0
        for (info, sample), n in zip(cases, sizes):
            outs.append(sample.call(info.fn, list(leaves[start:start + n])))
            start += n
        return outs
    leaves = [x for _, s in cases for x in s.leaves()]
    on_numpy, on_xla = ft.jit(program, backend="numpy"), ft.jit(program, backend="xla")
    on_xla(*leaves)
    for _ in range(2):
        got = on_xla(*[_same_layout_copy(x) for x in leaves])
        want = on_numpy(*[_same_layout_copy(x) for x in leaves])
        for (info, sample), g, w in zip(cases, got, want, strict=True):
            assert_matches_reference(info, sample, g)
            assert_backends_agree(g, w, f"{info.name}[{sample.name}]")
    assert on_xla.traces == 1


@pytest.mark.parametrize("info", [i for i in OP_DB if not i.creation], ids=lambda i: i.name)
def test_jit_op_on_xla(info):
    """Every sample of the op jitted on XLA == the reference, == the NumPy backend, on replays
    too. The samples the tracer takes run as one program (an XLA compile per op, not per sample:
    a quarter less time); when that fails, they run one by one to name the sample."""
    samples = [s for s in info.samples(np.random.default_rng(0))
               if not info.skip_reason("test_kernel", s.name)]
    if not samples:
        pytest.skip(info.skip_reason("test_kernel"))
    together = []
    for sample in samples:
        if not info.check_values:   # values undefined (empty): one program's garbage is not
            _check_sample_on_xla(info, sample)   # another's, each sample alone as before
        elif _traces(lambda *xs, s=sample: s.call(info.fn, list(xs)), sample.leaves()):
            together.append(sample)
        else:
            assert not _check_sample_on_xla(info, sample)   # refused on XLA too
    if together:
        try:
            _check_together_on_xla([(info, sample) for sample in together])
        except Exception:
            for sample in together:
                _check_sample_on_xla(info, sample)
            raise   # each sample passes alone: the program of all of them is what fails


def _first_traced_samples():
    """(info, sample): the first checked sample of each op that ft.jit traces."""
    cases = []
    for info in OP_DB:
        if info.creation or not info.check_values:
            continue
        for sample in info.samples(np.random.default_rng(0)):
            if not info.skip_reason("test_kernel", sample.name) and _traces(
                    lambda *xs, s=sample: s.call(info.fn, list(xs)), sample.leaves()):
                cases.append((info, sample))
                break
    return cases


def check_every_op_in_one_program():
    """One sample of every op beside every other in one compiled program (run by the test
    below, with XLA's default code generation)."""
    cases = _first_traced_samples()
    assert len(cases) > 200
    _check_together_on_xla(cases)


def test_every_op_with_xla_default_code_generation():
    """The suite compiles with XLA's cheapest CPU code generation (tests/conftest.py: the same
    simplification passes, other fusions and machine code, a fraction of the compile time);
    one sample of every op is also compiled the way users' programs are, in a process of its
    own since XLA reads its flags once."""
    run = subprocess.run(
        [sys.executable, "-c", "import test_jit_xla_ops; "
         "test_jit_xla_ops.check_every_op_in_one_program()"],
        cwd=HERE, capture_output=True, text=True, env=dict(
            os.environ, XLA_FLAGS="", PYTHONPATH=os.pathsep.join([HERE, os.path.dirname(HERE)])))
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-4000:]


def _traces(fn, leaves):
    """Whether ft.jit traces fn (no value-dependent Python, which the tracer refuses)."""
    try:
        ft.jit(fn, backend="numpy")(*leaves)
    except ft.TracerConversionError:
        return False
    return True


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
