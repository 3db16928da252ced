"""Random numbers with explicit keys (JAX's model): no hidden state, so every transform sees
the same draws for the same key.

A key is a plain uint32 array of shape (2,): `key(seed)` makes one, `split(key, n)` makes n new
independent ones, `fold_in(key, i)` derives one from an integer. Every draw is a pure function
of its key: the same key gives the same numbers, on NumPy and on CuPy alike. Draws come from the
Threefry-2x32 counter-based generator (ops/random.py).

Under vmap, a batched key (`vmap(f)(split(key, B))`) gives each example its own draws, all in
one kernel call; an unbatched key (closed over, or `in_dims=None`) gives every example the SAME
draws, as in JAX. Random values are constants to grad and jvp: no derivative flows into a key.
Values drawn from parameters follow ordinary calculus where JAX's do (`sigma * normal(k)`, the
bounds of `uniform`); draws decided by comparisons (`bernoulli(k, p)`, `randint`,
`categorical`) have no derivative with respect to their parameters.
"""
from ._continuous import gumbel, normal, truncated_normal, uniform
from ._discrete import bernoulli, categorical, choice, permutation, randint
from ._keys import PRNGKey, bits, fold_in, key, split

__all__ = ["key", "PRNGKey", "split", "fold_in", "bits", "uniform", "normal", "truncated_normal",
           "bernoulli", "randint", "gumbel", "categorical", "permutation", "choice"]


def __dir__():      # dir() and tab completion show the public API, not the module's imports
    return __all__
