"""Unbatched arguments (in_dim None) are values of the vmap level: indexing, `.at`, methods and
np.* calls work on them as on batched ones (Note [unbatched values of the level])."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import functorch_lite as ft
import functorch_lite.numpy as fnp

rng = np.random.default_rng(0)
TABLE = rng.standard_normal((5, 3))
IDX = np.array([0, 4, 2, 2, 1, 3])


def loop(f, in_dims, *args):
    """The reference: f applied example by example, results stacked on axis 0."""
    size = next(a.shape[d] for a, d in zip(args, in_dims) if d is not None)
    outs = [f(*(a if d is None else np.take(a, k, axis=d) for a, d in zip(args, in_dims)))
            for k in range(size)]
    return np.stack([np.asarray(o) for o in outs])


def add_at(table, i, v):
    out = table.copy()
    np.add.at(out, i, v)
    return out


@pytest.mark.parametrize("f", [
    lambda x, i: x[i],
    lambda x, i: x[i, 1:],
    lambda x, i: x[:, i % 3],
    lambda x, i: np.take(x, i, axis=0),
    lambda x, i: np.take(x, i),
    lambda x, i: x.take(i, axis=0),
    lambda x, i: (x.T * 2.0)[i % 3],
    lambda x, i: np.sin(x).sum(axis=0)[i % 3] + x.mean(),
], ids=["getitem", "getitem_slice", "getitem_col", "np_take_axis", "np_take_flat",
        "method_take", "T_then_index", "np_calls"])
def test_unbatched_array_indexed_by_batched_index(f):
    expected = loop(f, (None, 0), TABLE, IDX)
    np.testing.assert_allclose(ft.vmap(f, in_dims=(None, 0))(TABLE, IDX), expected)


def test_at_on_unbatched_argument():
    vals = np.linspace(0.5, 3.0, IDX.size)
    got = ft.vmap(lambda x, i, v: x.at[i].add(v), in_dims=(None, 0, 0))(TABLE, IDX, vals)
    expected = np.stack([add_at(TABLE, i, v) for i, v in zip(IDX, vals)])
    np.testing.assert_allclose(got, expected)
    got = ft.vmap(lambda x, i: x.at[i].set(1.0), in_dims=(None, 0))(TABLE, IDX)
    for k, i in enumerate(IDX):
        ref = TABLE.copy()
        ref[i] = 1.0
        np.testing.assert_allclose(got[k], ref)


def test_unbatched_argument_is_a_value_of_the_level_and_scalars_stay_scalars():
    seen = {}

    def f(x, table, s):
        seen["table"], seen["s"], seen["shape"] = table, s, table.shape
        return x * s + table.sum()

    x = rng.standard_normal(4)
    out = ft.vmap(f, in_dims=(0, None, None))(x, TABLE, 2.5)
    np.testing.assert_allclose(out, x * 2.5 + TABLE.sum())
    assert isinstance(seen["table"], ft.Tensor)
    assert seen["shape"] == TABLE.shape
    assert type(seen["s"]) is float


def test_array_keyword_arguments_are_unbatched_values_of_the_level():
    def f(i, *, table, scale):
        assert isinstance(table, ft.Tensor) and type(scale) is float
        return table.at[i].multiply(scale)[i] + np.take(table, i, axis=0)

    got = ft.vmap(f)(IDX, table=TABLE, scale=3.0)
    np.testing.assert_allclose(got, 4.0 * TABLE[IDX])


def test_python_control_flow_and_conversion_on_unbatched_values():
    def f(x, table):
        scale = float(table.max())              # one value for every example: allowed
        if table.sum() > 0:                     # Python control flow on an unbatched value
            scale = scale + 1.0
        raw = np.asarray(table)                 # the raw array below the level
        assert type(raw) is np.ndarray
        return x * scale + raw[0, 0] + table[int(table.shape[0]) - 1, 0]

    x = rng.standard_normal(6)
    scale = TABLE.max() + (1.0 if TABLE.sum() > 0 else 0.0)
    np.testing.assert_allclose(ft.vmap(f, in_dims=(0, None))(x, TABLE),
                               x * scale + TABLE[0, 0] + TABLE[-1, 0])


def test_unbatched_outputs_follow_out_dims():
    x = rng.standard_normal((4, 2))
    out_a, out_b = ft.vmap(lambda x, t: (x, t * 2.0), in_dims=(0, None),
                           out_dims=(0, None))(x, TABLE)
    assert type(out_b) is np.ndarray
    np.testing.assert_allclose(out_b, TABLE * 2.0)
    out = ft.vmap(lambda x, t: t, in_dims=(0, None), out_dims=1)(x, TABLE)
    assert out.shape == (5, 4, 3)
    np.testing.assert_allclose(out, np.broadcast_to(TABLE[:, None], (5, 4, 3)))


def test_nested_vmaps_with_unbatched_arguments():
    idx = rng.integers(0, 5, size=(3, 4))
    shift = rng.standard_normal(4)

    def f(table, i, s):
        return table[i] * s

    inner = ft.vmap(f, in_dims=(None, 0, 0))             # over the 4 columns of idx
    outer = ft.vmap(inner, in_dims=(None, 0, None))      # over the 3 rows
    got = outer(TABLE, idx, shift)
    expected = np.stack([np.stack([TABLE[idx[a, b]] * shift[b] for b in range(4)])
                         for a in range(3)])
    np.testing.assert_allclose(got, expected)
    got = ft.vmap(inner, in_dims=(None, 0, None), chunk_size=2)(TABLE, idx, shift)
    np.testing.assert_allclose(got, expected)


def test_grad_through_unbatched_argument_indexed_in_vmap():
    def total(table):
        rows = ft.vmap(lambda t, i: t[i] * t[i], in_dims=(None, 0))(table, IDX)
        return rows.sum()

    counts = np.bincount(IDX, minlength=5)[:, None]
    np.testing.assert_allclose(ft.grad(total)(TABLE), 2.0 * TABLE * counts)


def test_vmap_of_grad_indexes_an_unbatched_table():
    xs = rng.standard_normal((6, 5))

    def f(x, table):
        return (table[np.argmax(x)] * x[:3]).sum()

    got = ft.vmap(ft.grad(f), in_dims=(0, None))(xs, TABLE)
    expected = np.zeros_like(xs)
    for k, x in enumerate(xs):
        expected[k, :3] = TABLE[np.argmax(x)]
    np.testing.assert_allclose(got, expected)


# grad & co. leave arguments outside argnums as they are (as JAX does): they are constants, an
# index computed from a differentiated value is concretized to its primal (integers have no
# derivative), so indexing and np.take work; `.at` is spelled fnp.at(table) on a plain array.

def test_grad_indexes_a_non_differentiated_argument_with_a_traced_index():
    x = np.array([0.3, 2.7, 1.1])

    def f(x, table):
        i = (x * 1.4).astype(int)                   # an integer value computed from x
        return (table[i, 0] * x).sum() + (np.take(table, i, axis=0)[:, 1] * x ** 2).sum()

    i = (x * 1.4).astype(int)
    expected = TABLE[i, 0] + 2.0 * x * TABLE[i, 1]
    np.testing.assert_allclose(ft.grad(f)(x, TABLE), expected)
    np.testing.assert_allclose(ft.jacfwd(f)(x, TABLE), expected)
    np.testing.assert_allclose(ft.jacrev(f)(x, TABLE), expected)


def test_grad_at_on_a_non_differentiated_argument_via_fnp_at():
    x = np.array([0.3, 2.7, 1.1])

    def f(x, table):
        return (fnp.at(table)[1].add(x) ** 2).sum()

    expected = 2.0 * (TABLE[1] + x)
    np.testing.assert_allclose(ft.grad(f)(x, TABLE), expected)
    np.testing.assert_allclose(ft.jacfwd(f)(x, TABLE), expected)


@pytest.mark.parametrize("kwargs, names", [
    (dict(in_dims=0, in_axes=0), ("in_dims", "in_axes")),
    (dict(in_dims=None, in_axes=1), ("in_dims", "in_axes")),
    (dict(out_dims=0, out_axes=0), ("out_dims", "out_axes")),
    (dict(out_dims=1, out_axes=None), ("out_dims", "out_axes")),
])
def test_both_spellings_of_dims_is_a_type_error(kwargs, names):
    with pytest.raises(TypeError) as info:
        ft.vmap(fnp.sin, **kwargs)
    for name in names:
        assert name in str(info.value)


OPS = {
    "getitem": lambda t, i, v: t[i],
    "take": lambda t, i, v: np.take(t, i, axis=-1),
    "at_add": lambda t, i, v: t.at[i].add(v),
    "at_set": lambda t, i, v: t.at[..., i].set(v),
    "method_chain": lambda t, i, v: (t * v).T[i % t.shape[-1]] + t.mean(),
}


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
       batch=st.integers(0, 3), op=st.sampled_from(sorted(OPS)), nested=st.booleans(),
       seed=st.integers(0, 2 ** 16))
def test_unbatched_table_against_loop(shape, batch, op, nested, seed):
    """An unbatched table used with a batched index and a batched value, in one vmap or as the
    unbatched argument of both levels of two, against a loop over the examples."""
    rng = np.random.default_rng(seed)
    fn = OPS[op]
    table = rng.standard_normal(shape)
    high = shape[-1] if op in ("take", "at_set") else shape[0]
    idx = rng.integers(0, high, size=(2, batch) if nested else (batch,))
    vals = rng.standard_normal(idx.shape)

    def one_example(t, i, v):  # a vmap of size 1 with nothing batched runs the plain kernels
        return ft.vmap(fn, in_dims=None, axis_size=1)(t, i, v)[0]

    def loop(t, i, v):
        return np.stack([one_example(t, ii, vv) for ii, vv in zip(i, v)]) if len(i) else None

    if nested:
        got = ft.vmap(ft.vmap(fn, in_dims=(None, 0, 0)), in_dims=(None, 0, 0))(table, idx, vals)
        expected = np.stack([loop(table, i, v) for i, v in zip(idx, vals)]) if batch else None
    else:
        got = ft.vmap(fn, in_dims=(None, 0, 0))(table, idx, vals)
        expected = loop(table, idx, vals)
    one = one_example(table, 0, 1.0)
    assert got.shape == idx.shape + one.shape
    if expected is not None:
        np.testing.assert_allclose(got, expected)
