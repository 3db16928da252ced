"""functorch_lite.random refuses the parameters NumPy's Generator refuses (issue 20), with the
same exception type, eagerly, under vmap and under jit; the edges NumPy accepts still work."""
import numpy as np
import pytest

import functorch_lite as ft
from functorch_lite import random as fr

K = fr.key(0)
RNG = np.random.default_rng(0)

# (name, our call, NumPy Generator's call with the same parameters, a phrase of our message)
BAD = [
    ("choice p too short", lambda: fr.choice(K, 3, (4,), p=np.array([0.5, 0.5])),
     lambda: RNG.choice(3, 4, p=[0.5, 0.5]), "one probability per entry"),
    ("choice p 2-d", lambda: fr.choice(K, 3, (4,), p=np.ones((1, 3)) / 3),
     lambda: RNG.choice(3, 4, p=np.ones((1, 3)) / 3), "1-d"),
    ("choice p negative", lambda: fr.choice(K, 3, (4,), p=np.array([0.5, -0.1, 0.6])),
     lambda: RNG.choice(3, 4, p=[0.5, -0.1, 0.6]), "non-negative"),
    ("choice p nan", lambda: fr.choice(K, 3, (4,), p=np.array([0.5, np.nan, 0.5])),
     lambda: RNG.choice(3, 4, p=[0.5, np.nan, 0.5]), "finite"),
    ("choice p zeros", lambda: fr.choice(K, 3, (4,), p=np.zeros(3)),
     lambda: RNG.choice(3, 4, p=np.zeros(3)), "all zeros"),
    ("choice too few nonzero", lambda: fr.choice(K, 3, (2,), replace=False,
                                                 p=np.array([1.0, 0, 0])),
     lambda: RNG.choice(3, 2, replace=False, p=[1.0, 0, 0]), "fewer nonzero"),
    ("choice from 0", lambda: fr.choice(K, 0, (2,)), lambda: RNG.choice(0, 2), "positive"),
    ("choice from empty", lambda: fr.choice(K, np.zeros((0, 2)), (1,)),
     lambda: RNG.choice(np.zeros((0, 2)), 1), "no entries"),
    ("choice negative shape", lambda: fr.choice(K, 3, (-1,)), lambda: RNG.choice(3, (-1,)),
     "negative dimensions"),
    ("randint low >= high", lambda: fr.randint(K, (5,), 5, 0), lambda: RNG.integers(5, 0, 5),
     "less than maxval"),
    ("randint empty range", lambda: fr.randint(K, (5,), 3, 3), lambda: RNG.integers(3, 3, 5),
     "less than maxval"),
    ("randint int8 high", lambda: fr.randint(K, (5,), 0, 1000, dtype=np.int8),
     lambda: RNG.integers(0, 1000, 5, dtype=np.int8), "out of bounds for int8"),
    ("randint int8 low", lambda: fr.randint(K, (5,), -129, 0, dtype=np.int8),
     lambda: RNG.integers(-129, 0, 5, dtype=np.int8), "out of bounds for int8"),
    ("randint uint8 negative", lambda: fr.randint(K, (5,), -1, 3, dtype=np.uint8),
     lambda: RNG.integers(-1, 3, 5, dtype=np.uint8), "out of bounds for uint8"),
    ("randint array bounds", lambda: fr.randint(K, (2,), np.array([0, 5]), np.array([3, 2])),
     lambda: RNG.integers(np.array([0, 5]), np.array([3, 2]), 2), "less than maxval"),
    ("randint array out of dtype", lambda: fr.randint(K, (2,), 0, np.array([3, 300]),
                                                      dtype=np.uint8),
     lambda: RNG.integers(0, np.array([3, 300]), 2, dtype=np.uint8), "out of bounds"),
    ("randint float dtype", lambda: fr.randint(K, (5,), 0, 3, dtype=np.float64),
     lambda: RNG.integers(0, 3, 5, dtype=np.float64), "integer type"),
    ("randint negative shape", lambda: fr.randint(K, (2, -1), 0, 3),
     lambda: RNG.integers(0, 3, (2, -1)), "negative dimensions"),
    ("randint float shape", lambda: fr.randint(K, (2.5,), 0, 3),
     lambda: RNG.integers(0, 3, (2.5,)), "tuple of ints"),
    ("uniform negative shape", lambda: fr.uniform(K, (-3,)), lambda: RNG.uniform(size=(-3,)),
     "negative dimensions"),
    ("normal float shape", lambda: fr.normal(K, (2.5, 2)),
     lambda: RNG.standard_normal((2.5, 2)), "tuple of ints"),
    ("categorical axis", lambda: fr.categorical(K, np.zeros((2, 3)), axis=2),
     lambda: np.zeros((2, 3)).sum(axis=2), "axis 2 is out of bounds"),
    ("bernoulli p > 1", lambda: fr.bernoulli(K, 1.5, (3,)), lambda: RNG.binomial(1, 1.5, 3),
     r"in \[0, 1\]"),
    ("bernoulli p < 0 array", lambda: fr.bernoulli(K, np.array([0.5, -0.5])),
     lambda: RNG.binomial(1, np.array([0.5, -0.5])), r"in \[0, 1\]"),
    ("bernoulli p nan", lambda: fr.bernoulli(K, np.array([np.nan])),
     lambda: RNG.binomial(1, np.array([np.nan])), r"in \[0, 1\]"),
]


@pytest.mark.parametrize("ours, numpys, phrase", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_refused_as_numpy_refuses(ours, numpys, phrase):
    with pytest.raises(Exception) as theirs:
        numpys()
    with pytest.raises(theirs.type, match=phrase):
        ours()


def test_checks_of_array_parameters_hold_under_vmap_and_jit():
    with pytest.raises(ValueError, match="less than maxval"):
        ft.vmap(lambda m: fr.randint(K, (2,), 0, m))(np.array([3, 0]))
    with pytest.raises(ValueError, match="less than maxval"):
        ft.jit(lambda m: fr.randint(K, (2,), 0, m))(np.array(0))
    jitted = ft.jit(lambda p: fr.choice(K, 3, (2,), replace=False, p=p))
    jitted(np.array([1.0, 1.0, 0.0]))                           # traced with a good p
    with pytest.raises(ValueError, match="fewer nonzero"):
        jitted(np.array([1.0, 0.0, 0.0]))                       # the check runs every call
    with pytest.raises(ValueError, match="non-negative"):
        ft.vmap(lambda p: fr.choice(K, 3, (4,), p=p))(np.array([[1.0, 1, 1], [1.0, -1, 1]]))
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        ft.jit(lambda p: fr.bernoulli(K, p))(np.array([0.2, 1.2]))


def test_truncated_normal_refuses_lower_above_upper():
    # scipy.stats.truncnorm(2, 1) has no distribution (its rvs give NaN): refused here
    for lower, upper in [(2.0, 1.0), (np.nan, 1.0), (np.array([0.0, 3.0]), np.array([1.0, 2.0]))]:
        with pytest.raises(ValueError, match="lower must not exceed upper"):
            fr.truncated_normal(K, lower, upper, (2,))
    with pytest.raises(ValueError, match="lower must not exceed upper"):
        ft.vmap(lambda lo: fr.truncated_normal(K, lo, 1.0, (2,)))(np.array([0.0, 2.0]))
    g = ft.grad(lambda lo: fr.truncated_normal(K, lo, 1.0, (2,)).sum())(1.0)  # lower == upper
    assert np.isfinite(g)


def test_edges_numpy_accepts_still_work():
    r = fr.randint(K, (4000,), -128, 128, dtype=np.int8)      # the whole int8 range
    assert r.dtype == np.int8 and r.min() == -128 and r.max() == 127
    r = fr.randint(K, (4000,), 0, 256, dtype=np.uint8)
    assert r.dtype == np.uint8 and r.min() == 0 and r.max() == 255
    np.testing.assert_array_equal(fr.randint(K, (3,), np.array([0, 10, -5]),
                                             np.array([1, 11, -4])), [0, 10, -5])
    assert fr.randint(K, (2, 0), 0, 1).shape == (2, 0)
    assert fr.choice(K, 0, (0,)).shape == (0,)                # no samples from nothing
    assert fr.choice(K, np.zeros((0, 2)), (0,)).shape == (0, 2)
    assert RNG.choice(np.zeros((0, 2)), 0).shape == (0, 2)
    c = fr.choice(K, 3, (1000,), p=np.array([2, 1, 0]))      # weights need not sum to 1
    assert set(np.unique(c).tolist()) == {0, 1}
    assert fr.choice(K, 3, (2,), replace=False, p=np.array([1.0, 1.0, 0.0])).tolist() in (
        [0, 1], [1, 0])
    b = fr.bernoulli(K, np.array([0.0, 1.0]), (50, 2))
    assert not b[:, 0].any() and b[:, 1].all()
    assert fr.uniform(K, np.int64(3)).shape == (3,)
