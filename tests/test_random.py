"""functorch_lite.random: Threefry known answers, reproducibility, independence of split and
batched keys, distributions (Kolmogorov-Smirnov and chi-square at fixed seeds, threshold
p > 1e-3), vmap over keys against a loop, and derivatives through draws."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import functorch_lite as ft
from functorch_lite import random as fr
from functorch_lite.ops.random import threefry2x32

from conftest import DEVICE_BACKENDS

stats = pytest.importorskip("scipy.stats", reason="the scipy extra is not installed")

P_MIN = 1e-3  # fixed seeds: each verdict is deterministic; a correct sampler passes with margin

# Known-answer vectors of threefry2x32_20 published with Random123 (kat_vectors): key, counter,
# expected output.
KAT = [((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6b200159, 0x99ba4efe)),
       ((0xffffffff, 0xffffffff), (0xffffffff, 0xffffffff), (0x1cb996fc, 0xbb002be7)),
       ((0x13198a2e, 0x03707344), (0x243f6a88, 0x85a308d3), (0xc4923a9c, 0x483df7a0))]


@pytest.mark.parametrize("k, ctr, expected", KAT)
def test_threefry_known_answers(k, ctr, expected):
    out = threefry2x32(np.array(k, np.uint32), np.array(ctr, np.uint32))
    assert out.dtype == np.uint32 and tuple(int(v) for v in out) == expected


def test_threefry_broadcasts_keys_against_counters():
    keys = np.array([kat[0] for kat in KAT], np.uint32)[:, None, :]      # (3, 1, 2)
    ctrs = np.array([kat[1] for kat in KAT], np.uint32)                  # (3, 2)
    out = threefry2x32(keys, ctrs)
    assert out.shape == (3, 3, 2)
    for i, (_, _, expected) in enumerate(KAT):
        assert tuple(int(v) for v in out[i, i]) == expected


def _device_module(name):
    if name == "cupy":
        import cupy
        return cupy
    from functorch_lite.testing import device_sim
    device_sim.register()
    return device_sim


_DRAWS = {"normal_f32": lambda k: fr.normal(k, (50,), np.float32),
          "uniform_f32": lambda k: fr.uniform(k, (9,), np.float32),
          "bits_u64": lambda k: fr.bits(k, (3, 2), np.uint64),
          "bits_u8": lambda k: fr.bits(k, (5,), np.uint8),
          "split": lambda k: fr.split(k, 3),
          "fold_in": lambda k: fr.fold_in(k, 7),
          "bernoulli": lambda k: fr.bernoulli(k, 0.3, (20,)),
          "randint": lambda k: fr.randint(k, (6,), -3, 9),
          "permutation": lambda k: fr.permutation(k, 8)}


@pytest.mark.parametrize("device", DEVICE_BACKENDS)
def test_threefry_same_bits_on_device(device):
    """A key gives the same bits on a device backend (CuPy, or its CPU stand-in) as on NumPy:
    integers, uniforms and float32 normals bit for bit; float64 normals, whose transform calls
    the device's libm (an ulp from NumPy's), within two ulp (docs/random.md)."""
    dxp = _device_module(device)
    keys = np.random.default_rng(0).integers(0, 2 ** 32, (4, 1, 2)).astype(np.uint32)
    ctrs = np.arange(10, dtype=np.uint32).reshape(5, 2)
    got = threefry2x32(dxp.asarray(keys), dxp.asarray(ctrs))
    assert isinstance(got, dxp.ndarray)
    np.testing.assert_array_equal(got.get(), threefry2x32(keys, ctrs))
    for name, draw in _DRAWS.items():
        on_device = draw(fr.key(3, like=got))
        assert isinstance(on_device, dxp.ndarray), name
        np.testing.assert_array_equal(on_device.get(), draw(fr.key(3)), err_msg=name)
    normal = fr.normal(fr.key(3, like=got), (50,))
    assert isinstance(normal, dxp.ndarray) and normal.dtype == np.float64
    np.testing.assert_array_max_ulp(normal.get(), fr.normal(fr.key(3), (50,)), maxulp=2)


def test_keys_are_uint32_pairs_and_reproducible():
    k = fr.key(42)
    assert k.shape == (2,) and k.dtype == np.uint32
    assert tuple(fr.key(2 ** 32 + 5)) == (1, 5) and tuple(fr.key(-1)) == (2 ** 32 - 1,) * 2
    np.testing.assert_array_equal(fr.bits(k, (100,)), fr.bits(fr.key(42), (100,)))
    np.testing.assert_array_equal(fr.normal(k, (3, 4)), fr.normal(k, (3, 4)))
    assert not np.array_equal(fr.bits(k, (100,)), fr.bits(fr.key(43), (100,)))
    # a longer draw extends a shorter one: the words are a stream of counters
    np.testing.assert_array_equal(fr.bits(k, (7,)), fr.bits(k, (20,))[:7])


def test_split_and_fold_in_give_distinct_independent_streams():
    k = fr.key(0)
    keys = fr.split(k, 64)
    assert keys.shape == (64, 2) and keys.dtype == np.uint32
    folded = np.stack([fr.fold_in(k, i) for i in range(64)])
    all_keys = np.concatenate([keys, folded, k[None]])
    assert len({tuple(row) for row in all_keys}) == len(all_keys)
    streams = np.stack([fr.uniform(kk, (2000,)) for kk in all_keys])
    corr = np.corrcoef(streams)
    off_diagonal = corr[~np.eye(len(corr), dtype=bool)]
    # independent streams of 2000 uniforms: correlations ~ N(0, 1/2000), |r| < 5 sigma
    assert np.max(np.abs(off_diagonal)) < 5 / np.sqrt(2000)


def test_bad_keys_are_refused_with_a_clear_message():
    with pytest.raises(TypeError, match=r"random.normal: key must be a uint32 array of shape"):
        fr.normal(np.array([1, 2]), (3,))
    with pytest.raises(TypeError, match="map over it with vmap"):
        fr.uniform(fr.split(fr.key(0), 4), (3,))
    with pytest.raises(TypeError, match="seed must be"):
        fr.key(1.5)
    with pytest.raises(ValueError, match="without replacement"):
        fr.choice(fr.key(0), 3, (4,), replace=False)


# -- distributions --------------------------------------------------------------------------

N = 20000


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_uniform_ks(dtype):
    u = fr.uniform(fr.key(1), (N,), dtype)
    assert u.dtype == dtype and u.min() >= 0 and u.max() < 1
    assert stats.kstest(u, "uniform").pvalue > P_MIN
    v = fr.uniform(fr.key(2), (N,), dtype, minval=-2.0, maxval=3.0)
    assert stats.kstest(v, stats.uniform(-2, 5).cdf).pvalue > P_MIN


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_normal_ks(dtype):
    z = fr.normal(fr.key(3), (N,), dtype)
    assert z.dtype == dtype and np.all(np.isfinite(z))
    assert stats.kstest(z, "norm").pvalue > P_MIN


@pytest.mark.parametrize("lower, upper", [(-1.0, 1.0), (-2.0, 0.5), (1.0, 3.0), (-np.inf, -1.0)])
def test_truncated_normal_ks(lower, upper):
    z = fr.truncated_normal(fr.key(4), lower, upper, (N,))
    assert np.all((z >= lower) & (z <= upper))
    assert stats.kstest(z, stats.truncnorm(lower, upper).cdf).pvalue > P_MIN


def test_truncated_normal_with_python_bounds_keeps_the_dtype():
    z = fr.truncated_normal(fr.key(4), -1.0, 2.0, (8,), np.float32)
    assert z.dtype == np.float32 and np.all((z >= -1.0) & (z <= 2.0))


def test_gumbel_ks():
    assert stats.kstest(fr.gumbel(fr.key(5), (N,)), "gumbel_r").pvalue > P_MIN


def _chisquare(counts, probs):
    return stats.chisquare(counts, np.sum(counts) * np.asarray(probs)).pvalue


def test_bernoulli_chi_square():
    for p in [0.5, 0.1, 0.73]:
        b = fr.bernoulli(fr.key(6), p, (N,))
        assert b.dtype == bool
        assert _chisquare([np.sum(~b), np.sum(b)], [1 - p, p]) > P_MIN
    p = np.array([0.2, 0.9])    # p broadcasts, one rate per column
    b = fr.bernoulli(fr.key(7), p, (N, 2))
    for j in range(2):
        assert _chisquare([np.sum(~b[:, j]), np.sum(b[:, j])], [1 - p[j], p[j]]) > P_MIN


def test_randint_chi_square():
    r = fr.randint(fr.key(8), (N,), -3, 7)
    assert r.dtype == np.int64 and r.min() == -3 and r.max() == 6
    assert _chisquare(np.bincount(r + 3, minlength=10), np.full(10, 0.1)) > P_MIN


def test_categorical_chi_square():
    logits = np.log(np.array([0.1, 0.2, 0.3, 0.4]))
    c = fr.categorical(fr.key(9), logits, shape=(N,))
    assert c.shape == (N,)
    assert _chisquare(np.bincount(c, minlength=4), [0.1, 0.2, 0.3, 0.4]) > P_MIN
    # one draw per row of a batch of distributions, along axis 0
    probs = np.array([[0.7, 0.1], [0.3, 0.9]])
    c = fr.categorical(fr.key(10), np.log(probs), axis=0, shape=(N, 2))
    for j in range(2):
        assert _chisquare(np.bincount(c[:, j], minlength=2), probs[:, j]) > P_MIN


def test_permutation_chi_square():
    """Each of the 24 orders of 4 items equally likely (a batch of keys under vmap)."""
    perms = ft.vmap(lambda k: fr.permutation(k, 4))(fr.split(fr.key(11), 4800))
    assert np.all(np.sort(perms, axis=1) == np.arange(4))
    codes = perms @ np.array([64, 16, 4, 1])
    _, counts = np.unique(codes, return_counts=True)
    assert len(counts) == 24 and _chisquare(counts, np.full(24, 1 / 24)) > P_MIN
    x = np.arange(12.0).reshape(3, 4)
    shuffled = fr.permutation(fr.key(12), x, axis=1)
    np.testing.assert_array_equal(np.sort(shuffled, axis=1), x)


def test_choice():
    k = fr.key(13)
    c = fr.choice(k, 5, (N,))
    assert _chisquare(np.bincount(c, minlength=5), np.full(5, 0.2)) > P_MIN
    p = np.array([0.5, 0.25, 0.125, 0.125])
    c = fr.choice(k, np.arange(4) * 10, (N,), p=p)
    assert _chisquare(np.bincount(c // 10, minlength=4), p) > P_MIN
    no_rep = ft.vmap(lambda kk: fr.choice(kk, 6, (3,), replace=False))(fr.split(k, 200))
    assert all(len(set(row)) == 3 for row in no_rep.tolist())
    # without replacement, weighted: the first pick follows p
    first = ft.vmap(lambda kk: fr.choice(kk, 4, (2,), replace=False, p=p))(fr.split(k, 4000))
    assert all(a != b for a, b in first.tolist())
    assert _chisquare(np.bincount(first[:, 0], minlength=4), p) > P_MIN
    rows = fr.choice(k, np.arange(12.0).reshape(3, 4), (2, 5), axis=1)
    assert rows.shape == (3, 2, 5)


# -- transforms -----------------------------------------------------------------------------

DRAWS = {
    "bits": lambda k: fr.bits(k, (3, 2)),
    "bits64": lambda k: fr.bits(k, (3,), np.uint64),
    "uniform": lambda k: fr.uniform(k, (4,), minval=-1.0, maxval=2.0),
    "normal": lambda k: fr.normal(k, (2, 3), np.float32),
    "truncated_normal": lambda k: fr.truncated_normal(k, -1.0, np.array([0.5, 2.0])),
    "bernoulli": lambda k: fr.bernoulli(k, 0.3, (5,)),
    "randint": lambda k: fr.randint(k, (4,), 0, 9),
    "gumbel": lambda k: fr.gumbel(k, (3,)),
    "categorical": lambda k: fr.categorical(k, np.log(np.array([[0.2, 0.8], [0.5, 0.5]]))),
    "permutation": lambda k: fr.permutation(k, np.arange(5.0)),
    "choice": lambda k: fr.choice(k, 6, (2,), replace=False),
    "split": lambda k: fr.split(k, 3),
    "fold_in": lambda k: fr.fold_in(k, 7),
}


@pytest.mark.parametrize("name", DRAWS)
def test_vmap_over_keys_equals_loop_and_uses_no_fallback(name):
    draw = DRAWS[name]
    keys = fr.split(fr.key(14), 5)
    loop = np.stack([draw(k) for k in keys])
    with ft.fallback_as_error():
        np.testing.assert_array_equal(ft.vmap(draw)(keys), loop)
        # keys along axis 1, and output batch last
        np.testing.assert_array_equal(ft.vmap(draw, in_dims=1, out_dims=-1)(keys.T),
                                      np.moveaxis(loop, 0, -1))
        # vmap of vmap over a (2, 5) grid of keys
        grid = np.stack([keys, fr.split(fr.key(15), 5)])
        np.testing.assert_array_equal(ft.vmap(ft.vmap(draw))(grid),
                                      np.stack([np.stack([draw(k) for k in row])
                                                for row in grid]))


def test_batched_keys_give_independent_draws_unbatched_keys_the_same():
    keys = fr.split(fr.key(16), 8)
    per_example = ft.vmap(lambda k, x: x + fr.normal(k, (500,)))(keys, np.zeros(8))
    corr = np.corrcoef(per_example)
    assert np.max(np.abs(corr[~np.eye(8, dtype=bool)])) < 5 / np.sqrt(500)
    k = fr.key(17)
    same = ft.vmap(lambda x: x + fr.normal(k, (4,)))(np.arange(3.0))
    np.testing.assert_allclose(same - np.arange(3.0)[:, None],
                               np.tile(fr.normal(k, (4,)), (3, 1)))
    same_in_dims = ft.vmap(lambda kk, x: x + fr.normal(kk, (4,)), in_dims=(None, 0))(
        k, np.zeros(3))
    np.testing.assert_array_equal(same_in_dims, np.tile(fr.normal(k, (4,)), (3, 1)))


def test_vmap_over_data_folded_into_one_key():
    k = fr.key(18)
    out = ft.vmap(lambda i: fr.uniform(fr.fold_in(k, i), (3,)))(np.arange(4, dtype=np.uint32))
    np.testing.assert_array_equal(out, np.stack([fr.uniform(fr.fold_in(k, i), (3,))
                                                 for i in range(4)]))


def test_draws_are_constants_to_derivatives():
    k = fr.key(19)
    z = fr.normal(k, (3,))
    # sigma * normal: the derivative is the draw itself; the key is an argument with no tangent
    g = ft.grad(lambda s, kk: np.sum(s * fr.normal(kk, (3,))))(2.0, k)
    np.testing.assert_allclose(g, np.sum(z))
    # uniform's bounds are differentiable: d/dmax of min + u (max - min) is u
    u = fr.uniform(k, (3,))
    g = ft.grad(lambda hi: np.sum(fr.uniform(k, (3,), minval=0.0, maxval=hi)))(2.0)
    np.testing.assert_allclose(g, np.sum(u))
    _, t = ft.jvp(lambda s: s * fr.normal(k, (3,)), (1.5,), (1.0,))
    np.testing.assert_allclose(t, z)
    # bernoulli(p) is a comparison: no derivative with respect to p
    g = ft.grad(lambda p: np.sum(fr.bernoulli(k, p, (10,)) * 1.0) + p)(0.4)
    np.testing.assert_allclose(g, 1.0)
    # per-example gradients with per-example noise
    keys = fr.split(k, 4)
    g = ft.vmap(ft.grad(lambda s, kk: np.sum(s * fr.normal(kk, (3,)))), in_dims=(None, 0))(
        1.0, keys)
    np.testing.assert_allclose(g, [np.sum(fr.normal(kk, (3,))) for kk in keys])


def test_a_batch_of_keys_is_one_kernel_call():
    calls = []
    kernel, numpy_impl = threefry2x32.kernel, threefry2x32.numpy_impl
    # both paths counted: NumPy calls take the kernel once a device module is loaded or registered
    threefry2x32.kernel = lambda xp, *a, **k: calls.append(a[0].shape) or kernel(xp, *a, **k)
    threefry2x32.numpy_impl = lambda *a, **k: threefry2x32.kernel(np, *a, **k)
    try:
        ft.vmap(lambda k: fr.normal(k, (3, 4)))(fr.split(fr.key(20), 50))
        ft.vmap(ft.vmap(lambda k: fr.uniform(k, (2,))))(fr.split(fr.key(21), 12).reshape(3, 4, 2))
    finally:
        threefry2x32.kernel, threefry2x32.numpy_impl = kernel, numpy_impl
    # split(key, 50) and split(key, 12) are one call each; each vmapped draw is one more
    assert len(calls) == 4 and calls[1][0] == 50 and calls[3][:2] == (3, 4), calls


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(0, 4), max_size=3).map(tuple), batch=st.integers(1, 4),
       seed=st.integers(0, 2 ** 64 - 1), dtype=st.sampled_from([np.float32, np.float64]))
def test_vmap_over_keys_equals_loop_over_shapes(shape, batch, seed, dtype):
    keys = fr.split(fr.key(seed), batch)
    for draw in [lambda k: fr.uniform(k, shape, dtype), lambda k: fr.normal(k, shape, dtype),
                 lambda k: fr.bernoulli(k, 0.5, shape)]:
        out = ft.vmap(draw)(keys)
        assert out.shape == (batch,) + shape
        np.testing.assert_array_equal(out, np.stack([draw(k) for k in keys]))
