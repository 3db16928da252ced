"""Generic op-layer tests, generated from the sample database (functorch_lite.testing.samples).

test_kernel:          fn on plain arrays (NumPy, and CuPy when a GPU is there) == reference
test_passthrough:     the same through a pass-through interpreter (dispatch, unwrap, re-wrap)
test_numpy_dispatch:  numpy's own function on pass-through wrappers (__array_function__ and
                      __array_ufunc__) == numpy's function on plain arrays
test_every_op_*:      the database covers every registered op and every public name
plus hypothesis property tests of broadcasting binary ops and reductions against NumPy.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import functorch_lite as ft
import functorch_lite.numpy as fnp
from functorch_lite import nn
from functorch_lite.testing import PassThroughInterpreter, passthrough
from functorch_lite.testing.checks import assert_close, assert_matches_reference, to_numpy
from functorch_lite.testing.samples import OP_DB, op_info
from op_cases import check_each, check_samples, op_params

_RNG_SEED = 0


def _samples(info):
    return info.samples(np.random.default_rng(_RNG_SEED))


def _assert_no_wrappers(out):
    import optree
    for leaf in optree.tree_leaves(out):
        assert not isinstance(leaf, ft.Tensor), f"a wrapper leaked out: {leaf!r}"


@pytest.mark.parametrize("info", op_params())
def test_kernel(info, backend):
    """fn on plain arrays: same shape, dtype and values (nan-aware) as the NumPy reference."""
    def check(sample):
        if backend == "numpy":
            out = sample.call(info.fn)
        else:
            if info.creation and not sample.leaves():
                pytest.skip("creation functions without array inputs make NumPy arrays")
            import cupy
            out = to_numpy(sample.call(info.fn, [cupy.asarray(x) for x in sample.leaves()]))
        assert_matches_reference(info, sample, out)
    check_samples(info, _samples(info), check, "test_kernel")


def check_passthrough(info):
    """Through a pass-through interpreter wrapping every leaf: the result is unchanged."""
    def check(sample):
        out = passthrough(lambda *leaves: sample.call(info.fn, leaves))(*sample.leaves())
        _assert_no_wrappers(out)
        assert_matches_reference(info, sample, out)
    check_samples(info, _samples(info), check, "test_passthrough")


def check_numpy_dispatch(info):
    """numpy's function of the same name, called on wrappers, routes to our op and gives what
    it gives on plain arrays."""
    if info.numpy_fn is None:
        pytest.skip("no NumPy function of that name")

    def check(sample):
        expected = sample.call(info.numpy_fn)
        out = passthrough(lambda *leaves: sample.call(info.numpy_fn, leaves))(*sample.leaves())
        _assert_no_wrappers(out)
        assert_close(out, expected, rtol=lambda dt: info.tolerance(dt)[0],
                     atol=lambda dt: info.tolerance(dt)[1], check_values=info.check_values,
                     path=f"numpy {info.name}[{sample.name}]")
    check_samples(info, _samples(info), check, "test_numpy_dispatch")


@pytest.mark.parametrize("info", op_params(lambda info: not info.creation))
def test_wrappers(info):
    """The op on wrappers, called as itself and as NumPy's function: one item
    (op_cases.check_each)."""
    check_each(info, [check_passthrough, check_numpy_dispatch])


# -- registry coverage ------------------------------------------------------------------------

class RecordingInterpreter(PassThroughInterpreter):
    """A pass-through interpreter that records the name of every op it processes."""

    name = "recording"

    def __init__(self, seen):
        super().__init__()
        self.seen = seen

    def process(self, op, args, params):
        self.seen.add(op.name)
        return super().process(op, args, params)


def _run_recorded(fn, sample, seen):
    with RecordingInterpreter(seen) as interp:
        wrapped = [interp.wrap(x) for x in sample.leaves()]
        sample.call(fn, wrapped)


def _builtin_ops():
    """Ops registered by the library itself (tests and users may register more)."""
    return set(ft.ops.BUILTIN_OPS)


def test_every_op_is_exercised_by_a_sample():
    seen = set()
    for info in OP_DB:
        if info.creation:
            continue
        for sample in info.samples(np.random.default_rng(0)):
            _run_recorded(info.fn, sample, seen)
    missing = _builtin_ops() - seen
    assert not missing, f"ops no sample reaches: {sorted(missing)}"


# Public functions of these namespaces that take pytrees of models, not arrays: tested in their
# own files (stack_module_state in tests/test_nn_init.py), not by the per-op database.
NOT_ARRAY_FUNCTIONS = {"nn.stack_module_state"}


def _public_names():
    names = set(fnp.__all__)
    names |= {f"linalg.{n}" for n in fnp.linalg.__all__
              if not isinstance(getattr(fnp.linalg, n), type)}
    names |= {f"nn.{n}" for n in nn.__all__}
    names |= {f"fft.{n}" for n in fnp.fft.__all__}
    return names


def test_every_public_function_has_an_opinfo():
    names = {info.name for info in OP_DB}
    missing = _public_names() - names - NOT_ARRAY_FUNCTIONS
    assert not missing, f"public functions without an OpInfo: {sorted(missing)}"
    for extra in ["getitem", "at_set", "at_add", "at_multiply", "at_min", "at_max"]:
        assert op_info(extra).name == extra


def test_opinfo_entries_are_well_formed():
    """Names unique; samples' names, shapes, dtypes and kwargs do not depend on the generator;
    differentiable samples have float versions of both widths."""
    for info in OP_DB:
        a = info.samples(np.random.default_rng(1))
        b = info.samples(np.random.default_rng(2))
        assert a, info.name
        assert len({s.name for s in a}) == len(a), info.name
        for sa, sb in zip(a, b, strict=True):
            assert sa.name == sb.name and sa.kwargs.keys() == sb.kwargs.keys(), info.name
            la, lb = sa.leaves(), sb.leaves()
            assert [(x.shape, x.dtype) for x in la] == [(x.shape, x.dtype) for x in lb], \
                (info.name, sa.name)
            assert len(sa.replace_leaves(lb)) == len(sa.args)
        if info.differentiable and not info.creation:
            dtypes = {x.dtype for s in a for x in s.leaves()}
            assert {np.dtype(np.float32), np.dtype(np.float64)} <= dtypes, info.name


def test_sample_api():
    info = op_info("add")
    sample = info.samples(np.random.default_rng(0))[0]
    x, y = sample.leaves()
    assert sample.call(info.fn, [y, x]).shape == np.add(y, x).shape
    np.testing.assert_array_equal(sample.call(info.fn), x + y)
    with pytest.raises(KeyError, match="no OpInfo"):
        op_info("no_such_op")
    with pytest.raises(ValueError, match="leaves given"):
        sample.replace_leaves([x])
    nested = op_info("concatenate").samples(np.random.default_rng(0))[0]
    a, b = nested.leaves()
    assert nested.replace_leaves([b, a])[0][0] is b  # leaves inside a list are found


# -- property tests: random shapes, axes and keepdims against NumPy -----------------------------

_FLOATS = st.floats(-10, 10, allow_nan=False, width=64)
_BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "arctan2", "hypot",
           "logaddexp", "less", "equal"]


@settings(max_examples=40, deadline=None)
@given(name=st.sampled_from(_BINARY),
       shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                                max_side=3),
       dtype=st.sampled_from([np.float32, np.float64]), data=st.data())
def test_broadcasting_binary_matches_numpy(name, shapes, dtype, data):
    x = data.draw(hnp.arrays(dtype, shapes.input_shapes[0], elements=_FLOATS.map(dtype)))
    y = data.draw(hnp.arrays(dtype, shapes.input_shapes[1], elements=_FLOATS.map(dtype)))
    fn, ref = getattr(fnp, name), getattr(np, name)
    expected = ref(x, y)
    assert_close(fn(x, y), expected)
    assert_close(passthrough(fn)(x, y), expected)
    assert to_numpy(expected).shape == shapes.result_shape


_REDUCTIONS = ["sum", "prod", "max", "min", "mean", "var", "std", "all", "any"]


@st.composite
def _reduction_case(draw):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=3))
    nd = len(shape)
    if nd == 0:
        return shape, draw(st.sampled_from([None, ()])), draw(st.booleans())
    axis = draw(st.one_of(
        st.none(), st.integers(-nd, nd - 1),
        st.lists(st.integers(0, nd - 1), unique=True, max_size=nd).flatmap(
            lambda axes: st.tuples(*[st.sampled_from([a, a - nd]) for a in axes]))))
    return shape, axis, draw(st.booleans())


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(_REDUCTIONS), case=_reduction_case(),
       dtype=st.sampled_from([np.float32, np.float64]), data=st.data())
def test_reductions_match_numpy(name, case, dtype, data):
    shape, axis, keepdims = case
    x = data.draw(hnp.arrays(dtype, shape, elements=st.floats(-3, 3, width=32).map(dtype)))
    fn, ref = getattr(fnp, name), getattr(np, name)
    expected = ref(x, axis=axis, keepdims=keepdims)
    tol = {"rtol": 1e-4, "atol": 1e-5} if dtype == np.float32 else {}
    assert_close(fn(x, axis=axis, keepdims=keepdims), expected, **tol)
    assert_close(passthrough(lambda v: fn(v, axis=axis, keepdims=keepdims))(x), expected, **tol)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
def test_basic_indexing_matches_numpy(data, shape):
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    idx = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
    assert_close(fnp.getitem(x, idx), x[idx])
    assert_close(passthrough(lambda v: v[idx])(x), x[idx])


@settings(max_examples=40, deadline=None)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
def test_integer_array_indexing_and_at_add_match_numpy(data, shape):
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    idx = data.draw(hnp.integer_array_indices(shape, result_shape=hnp.array_shapes(
        min_dims=0, max_dims=2, max_side=3)))
    expected = x[idx]
    assert_close(fnp.getitem(x, idx), expected)
    assert_close(passthrough(lambda v, *i: v[i])(x, *idx), expected)
    values = np.ones(expected.shape)
    accumulated = x.copy()
    np.add.at(accumulated, idx, values)  # repeated indices accumulate
    assert_close(fnp.at(x)[idx].add(values), accumulated)
    assert_close(passthrough(lambda v, w, *i: v.at[i].add(w))(x, values, *idx), accumulated)
