"""Bad inputs as an adversarial user would try them, each classified:

  clear     an error of a user-facing type whose message names what was wrong (the keywords);
  ok        accepted with the right result, where the peers (JAX, torch.func) accept it too;
  wrong     no error where one was due, or a wrong result;
  crash     an error, but of an internal kind or with a message that does not name the problem.

Areas of other work are tagged (owner) and counted like the rest. Run:

    PYTHONPATH=. python benchmarks/bad_inputs.py [--verbose]
"""
import argparse
import collections
import math
import sys
import warnings

import numpy as np

import functorch_lite as ft
import functorch_lite.numpy as fnp

X = np.arange(6.0).reshape(3, 2) / 5 + 0.1
V = np.array([0.5, -1.0, 2.0])
CASES = []


def case(name, expect, *keywords, types=(TypeError, ValueError, IndexError), owner=None):
    """Register a case: expect is "error" (raise one of types, naming keywords) or a callable
    giving the right result (then an error is a crash or, if clear, still counted clear)."""
    def register(thunk):
        CASES.append((name, expect, keywords, types, owner, thunk))
        return thunk
    return register


def error(name, *keywords, types=(TypeError, ValueError, IndexError), owner=None):
    return case(name, "error", *keywords, types=types, owner=owner)


def accepted(name, reference, owner=None):
    return case(name, reference, owner=owner)


def either(name, reference, *keywords, owner=None):
    """The right result or a clear error naming keywords: both count (as clear or ok)."""
    return case(name, reference, *keywords, owner=owner)


def _sum(x):
    return fnp.sum(x)


# ---------------------------------------------------------------- vmap
error("vmap in_dims tuple longer than the arguments", "in_dims")(
    lambda: ft.vmap(_sum, in_dims=(0, 0))(X))
error("vmap in_dims out of range", "in_dim 2", "out of range")(
    lambda: ft.vmap(_sum, in_dims=2)(X))
error("vmap negative in_dims out of range", "in_dim -3", "out of range")(
    lambda: ft.vmap(_sum, in_dims=-3)(X))
error("vmap in_dims a string", "in_dims")(lambda: ft.vmap(_sum, in_dims="0")(X))
error("vmap in_dims a float", "in_dims")(lambda: ft.vmap(_sum, in_dims=0.0)(X))
error("vmap batch sizes differ", "batch", "3", "4")(
    lambda: ft.vmap(fnp.add)(X, np.ones((4, 2))))
error("vmap with nothing batched and no axis_size", "axis_size")(
    lambda: ft.vmap(_sum, in_dims=None)(X))
error("vmap dict in_dims with a missing key", "in_dims")(
    lambda: ft.vmap(lambda d: d["a"], in_dims=({"b": 0},))({"a": X}))
error("vmap batching a Python float", "in_dims")(
    lambda: ft.vmap(lambda s: s * 2)(1.5))
error("vmap out_dims out of range", "out_dim 3", "out of range")(
    lambda: ft.vmap(lambda x: x * 2, out_dims=3)(X))
error("vmap out_dims structure differs from the output", "out_dims")(
    lambda: ft.vmap(lambda x: x * 2, out_dims=(0, 0))(X))
error("vmap out_dims a string", "out_dims")(lambda: ft.vmap(lambda x: x, out_dims="0")(X))
error("vmap axis_size disagrees with the batch", "axis_size", "5", "3")(
    lambda: ft.vmap(_sum, axis_size=5)(X))
error("vmap chunk_size 0", "chunk_size")(lambda: ft.vmap(_sum, chunk_size=0)(X))
error("vmap function returns a string", "return")(lambda: ft.vmap(lambda x: "a")(X))
accepted("vmap function returns None (JAX: None)", lambda: None)(
    lambda: ft.vmap(lambda x: None)(X))
error("vmap Python if on a batched value", "where")(
    lambda: ft.vmap(lambda x: x if fnp.sum(x) > 0 else -x)(X))
error("vmap float() of a batched value", "batched")(
    lambda: ft.vmap(lambda x: float(fnp.sum(x)))(X))
error("vmap np.asarray of a batched value", "raw array")(
    lambda: ft.vmap(lambda x: np.asarray(x) * 2)(X))
error("vmap in-place x[0] = 1", "at[")(lambda: ft.vmap(_setitem)(X))
accepted("vmap x += 1 rebinds (as JAX)", lambda: X + 1)(lambda: ft.vmap(_iadd)(X))
error("vmap unsupported numpy function np.unique", "unique")(
    lambda: ft.vmap(lambda x: np.unique(x))(X))
error("vmap a string argument with in_dims 0", "in_dims")(lambda: ft.vmap(lambda s: s)("abc"))
accepted("vmap nothing batched with axis_size", lambda: np.stack([X.sum()] * 4))(
    lambda: ft.vmap(_sum, in_dims=None, axis_size=4)(X))
error("vmap both in_dims and in_axes", "in_axes", owner="vmapargs")(
    lambda: ft.vmap(_sum, in_dims=0, in_axes=0)(X))
error("vmap list of Python numbers batched", "in_dims")(lambda: ft.vmap(lambda a: a)([1.0, 2.0]))
error("vmap reshape to a wrong per-example shape", "(2,)")(
    lambda: ft.vmap(lambda x: x.reshape(5))(X))
error("vmap sum over an axis out of range", "axis")(
    lambda: ft.vmap(lambda x: fnp.sum(x, axis=1))(X))
error("vmap matmul of mismatched per-example shapes", "matmul")(
    lambda: ft.vmap(lambda x: x @ np.ones((3, 2)))(X))
error("vmap index out of range", "index")(lambda: ft.vmap(lambda x: x[5])(X))
error("vmap transpose with a wrong permutation", "transpose", "(2,)")(
    lambda: ft.vmap(lambda x: fnp.transpose(x, (1, 0)))(X))


def _setitem(x):
    x[0] = 1.0
    return x


def _iadd(x):
    x += 1.0
    return x


# ---------------------------------------------------------------- grad
error("grad of a non-scalar output", "scalar")(lambda: ft.grad(lambda x: x * 2)(V))
error("grad with respect to an integer array", "floating-point", "int64")(
    lambda: ft.grad(_sum)(np.arange(3)))
error("grad with respect to a Python int", "int")(lambda: ft.grad(lambda x: x * 2)(3))
error("grad with respect to a bool", "bool")(lambda: ft.grad(lambda x: x * 2.0)(True))
error("grad argnums out of range", "argnums")(lambda: ft.grad(_sum, argnums=2)(V))
accepted("grad argnums -1 (as JAX)", lambda: V)(
    lambda: ft.grad(lambda a, b: fnp.sum(a * b), argnums=-1)(V, np.ones(3)))
error("grad argnums a float", "argnums")(lambda: ft.grad(_sum, argnums=0.5)(V))
error("grad argnums repeated", "argnums")(
    lambda: ft.grad(lambda a, b: fnp.sum(a * b), argnums=(0, 0))(V, V))
error("grad argnums empty", "argnums")(lambda: ft.grad(_sum, argnums=())(V))
error("grad of a tuple output without has_aux", "scalar")(
    lambda: ft.grad(lambda x: (_sum(x), x))(V))
error("grad has_aux with a single output", "has_aux")(
    lambda: ft.grad(_sum, has_aux=True)(V))
error("grad has_aux with three outputs", "has_aux")(
    lambda: ft.grad(lambda x: (_sum(x), x, x), has_aux=True)(V))
accepted("grad of a constant output", lambda: np.zeros(3))(lambda: ft.grad(lambda x: 1.0)(V))
error("grad of an integer output", "floating-point", "int64")(
    lambda: ft.grad(lambda x: fnp.argmax(x))(V))
accepted("grad of a list of floats (a pytree)", lambda: [1.0, 1.0])(
    lambda: ft.grad(lambda l: l[0] + l[1])([2.0, 3.0]))
error("grad with respect to a string", "str")(lambda: ft.grad(lambda s: 1.0)("abc"))
error("grad called with no arguments", "argument")(lambda: ft.grad(lambda: 1.0)())
error("grad of a complex output", "complex", owner="complex")(
    lambda: ft.grad(lambda x: fnp.sum(x * 1j))(V))

# ---------------------------------------------------------------- jvp, linearize
error("jvp tangent of another shape", "shape", "(2,)", "(3,)")(
    lambda: ft.jvp(fnp.sin, (V,), (np.ones(2),)))
error("jvp tangent of another dtype", "dtype", "float32")(
    lambda: ft.jvp(fnp.sin, (V,), (np.ones(3, np.float32),)))
error("jvp primals not a tuple", "tuple")(lambda: ft.jvp(fnp.sin, V, np.ones(3)))
error("jvp fewer tangents than primals", "tangent")(
    lambda: ft.jvp(fnp.add, (V, V), (np.ones(3),)))
error("jvp tangent of another structure", "structure")(
    lambda: ft.jvp(lambda d: d["a"], ({"a": V},), ({"b": V},)))
error("jvp float tangent for an integer primal", "float0")(
    lambda: ft.jvp(lambda i: i * 2, (np.arange(3),), (np.ones(3),)))
accepted("jvp tangent None: a symbolic zero (documented)", lambda: (np.sin(V), np.zeros(3)))(
    lambda: ft.jvp(fnp.sin, (V,), (None,)))
error("linearize jvp_fn with a tangent of another shape", "shape")(
    lambda: ft.linearize(fnp.sin, V)[1](np.ones(2)))
error("linearize jvp_fn with two tangents for one primal", "tangent")(
    lambda: ft.linearize(fnp.sin, V)[1](np.ones(3), np.ones(3)))

# ---------------------------------------------------------------- vjp
error("vjp_fn cotangent of another shape", "shape", "(2,)", "(3,)")(
    lambda: ft.vjp(fnp.sin, V)[1](np.ones(2)))
error("vjp_fn cotangent of another structure", "structure")(
    lambda: ft.vjp(fnp.sin, V)[1]((np.ones(3), np.ones(3))))
error("vjp_fn integer cotangent for a float output", "dtype")(
    lambda: ft.vjp(fnp.sin, V)[1](np.ones(3, dtype=int)))
error("vjp_fn called with two cotangents", "vjp_fn", "takes 1 positional argument")(
    lambda: ft.vjp(fnp.sin, V)[1](np.ones(3), np.ones(3)))
error("vjp has_aux without an aux output", "has_aux")(lambda: ft.vjp(fnp.sin, V, has_aux=True))
error("vjp of a function returning a string", "return")(lambda: ft.vjp(lambda x: "a", V))

# ---------------------------------------------------------------- jacobians
error("jacfwd argnums out of range", "argnums")(lambda: ft.jacfwd(fnp.sin, argnums=1)(V))
error("jacrev with respect to an integer array", "jacrev", "int64")(
    lambda: ft.jacrev(fnp.sin)(np.arange(3)))
accepted("hessian of a vector output (as JAX)", lambda: _hessian_sin(V))(
    lambda: ft.hessian(fnp.sin)(V))
accepted("jacrev of a function returning None (as JAX)", lambda: None)(
    lambda: ft.jacrev(lambda x: None)(V))
error("jacrev chunk_size negative", "chunk_size")(lambda: ft.jacrev(fnp.sin, chunk_size=-1)(V))
error("jacfwd of a function returning a string", "return")(lambda: ft.jacfwd(lambda x: "s")(V))
error("jacrev of a function returning a string", "return")(lambda: ft.jacrev(lambda x: "s")(V))
error("jvp of a function returning a string", "return")(
    lambda: ft.jvp(lambda x: "s", (V,), (V,)))
error("linearize of a function returning an object", "return")(
    lambda: ft.linearize(lambda x: (x, object()), V))


def _hessian_sin(v):
    h = np.zeros((3, 3, 3))
    for i in range(3):
        h[i, i, i] = -np.sin(v[i])
    return h


# ---------------------------------------------------------------- ops under transforms
error("np.sum with out= under grad", "out")(
    lambda: ft.grad(lambda x: np.sum(x, out=np.zeros(())))(V))
error("ufunc with where= under grad", "where")(
    lambda: ft.grad(lambda x: np.sum(np.sin(x, where=x > 0)))(V))
error("concatenate of mismatched shapes under grad", "dimension")(
    lambda: ft.grad(lambda x: fnp.sum(fnp.concatenate([x, np.ones((2, 2))])))(V))
accepted("astype(int) under grad gives zero (non-differentiable)", lambda: np.zeros(3))(
    lambda: ft.grad(lambda x: fnp.sum(x.astype(int) * 1.0))(V))
accepted("int() of a value under grad (documented: primals are concrete)",
         lambda: np.array([0.0, 0.0, 2.0]))(lambda: ft.grad(lambda x: int(x[2]) * x[2])(V))
error("np.asarray of a value under jvp", "raw array")(
    lambda: ft.jvp(lambda x: np.asarray(x), (V,), (V,)))
error("in-place write under grad", "at[")(lambda: ft.grad(lambda x: fnp.sum(_setitem(x)))(V))
error("unsupported numpy function under grad", "nanmedian", "defop")(
    lambda: ft.grad(lambda x: fnp.sum(np.nanmedian(x)))(V))
error("escaped GradTensor used after grad", "escaped", types=(ft.EscapedWrapperError,),
      owner="core")(lambda: _escaped())
error("stacking arrays of different shapes under jvp", "same shape")(
    lambda: ft.jvp(lambda x: fnp.stack([x, x[:2]]), (V,), (V,)))
error("grad through a key-dependent dict lookup on a value", "hash")(
    lambda: ft.grad(lambda x: {x: 1}[x])(1.0))


# ---------------------------------------------------------------- more of the same kinds
M = np.arange(4.0).reshape(2, 2) + 1.0
error("vmap in_dims as a NumPy integer", "ints or None", owner="vmapargs")(
    lambda: ft.vmap(_sum, in_dims=np.int64(0))(X))
accepted("vmap in_dims as a list for two arguments", lambda: X.sum(1) * 2)(
    lambda: ft.vmap(lambda a, b: fnp.sum(a + b), in_dims=[0, 0])(X, X))
error("vmap over a 0-d array", "in_dim", "no axes", owner="vmapargs")(
    lambda: ft.vmap(lambda s: s)(np.array(1.0)))
error("nested vmap, inner batch sizes differ", "batch", "2", "3")(
    lambda: ft.vmap(lambda a: ft.vmap(fnp.add)(a, np.ones(3)))(X))
accepted("vmap out_dims -1", lambda: (X * 2).T)(lambda: ft.vmap(lambda x: x * 2, out_dims=-1)(X))
error("vmap of something not callable", "callable")(lambda: ft.vmap(None)(X))
error("grad of something not callable", "callable")(lambda: ft.grad(5)(V))
error("grad of a shape-(1,) output", "shape", "(1,)")(lambda: ft.grad(lambda x: x[:1])(V))
error("grad with respect to a dict with an int leaf", "'b'", "int")(
    lambda: ft.grad(lambda d: d["a"] * 2.0)({"a": 1.0, "b": 2}))
accepted("jvp with lists instead of tuples (as JAX)", lambda: (np.sin(V), np.cos(V)))(
    lambda: ft.jvp(fnp.sin, [V], [np.ones(3)]))
error("jvp of a string primal", "str")(lambda: ft.jvp(lambda s: s, ("a",), ("b",)))
error("vjp_fn with a None cotangent", "structure")(lambda: ft.vjp(fnp.sin, V)[1](None))
error("jacrev has_aux with a single output", "has_aux")(
    lambda: ft.jacrev(fnp.sin, has_aux=True)(V))
error("hessian argnums out of range", "argnums")(lambda: ft.hessian(_sum, argnums=3)(V))
error("hessian of an integer input", "int64")(lambda: ft.hessian(_sum)(np.arange(3)))
error("linearize jvp_fn with a float tangent for an integer primal", "float0")(
    lambda: ft.linearize(lambda i, x: x * i, np.arange(3), V)[1](np.ones(3), np.ones(3)))
error("reshape with two -1 under vmap", "reshape", "unknown dimension")(
    lambda: ft.vmap(lambda x: x.reshape(-1, -1))(X))
error("sum over a repeated axis under grad", "duplicate", "axis")(
    lambda: ft.grad(lambda x: fnp.sum(x, axis=(0, 0)))(M))
error("two ellipses in an index under vmap", "ellipsis")(lambda: ft.vmap(lambda x: x[..., ...])(X))
error("fancy index out of range under grad", "index", "5")(
    lambda: ft.grad(lambda x: fnp.sum(x[np.array([0, 5])]))(V))
error("fancy index out of range under vmap", "index", "5")(
    lambda: ft.vmap(lambda x: x[np.array([0, 5])])(X))
error(".at[5].set out of range under grad", "index", "5")(
    lambda: ft.grad(lambda x: fnp.sum(fnp.at(x)[5].set(1.0)))(V))
error("matmul of a 0-d value under grad", "matmul")(
    lambda: ft.grad(lambda x: fnp.sum(x[0] @ x))(V))
error("einsum with bad subscripts under vmap", "einsum")(
    lambda: ft.vmap(lambda x: fnp.einsum("ij->i", x))(X))
error("concatenate of an empty list under grad", "concatenate")(
    lambda: ft.grad(lambda x: fnp.sum(fnp.concatenate([])) + x[0])(V))
error("boolean-mask indexing under vmap (data-dependent shape)", "mask", types=(
    TypeError, ValueError, IndexError))(lambda: ft.vmap(lambda x: fnp.sum(x[x > 0.5]))(X))
accepted("boolean-mask indexing under grad (concrete)", lambda: np.array([0.0, 0.0, 1.0]))(
    lambda: ft.grad(lambda x: fnp.sum(x[x > 1.0]))(V))
error("split into unequal parts under vmap", "split")(
    lambda: ft.vmap(lambda x: fnp.split(x, 3)[0])(X))
error("x.item() under vmap", "batched")(lambda: ft.vmap(lambda x: x[0].item())(X))
accepted("len() of a batched value is the per-example length", lambda: np.full(3, 2.0))(
    lambda: ft.vmap(lambda x: x[0] * 0 + len(x))(X))
accepted("iterating over a batched value gives per-example rows", lambda: X.sum(1))(
    lambda: ft.vmap(lambda x: sum(r for r in x))(X))
error("bool() of a multi-element value under grad", "ambiguous")(
    lambda: ft.grad(lambda x: fnp.sum(x) if x > 0 else 0.0)(V))
error("x.tolist() under grad", "grad")(lambda: ft.grad(lambda x: sum(x.tolist()))(V))
error("np.random.shuffle of a value under vmap", "in-place", "shuffle")(
    lambda: ft.vmap(lambda x: np.random.shuffle(x))(X))

# ---------------------------------------------------------------- issue 20, items 1-5
_Q2 = np.array([[1.0, 2.0], [3.0, -1.0]])
_SEES_NONE = np.array([[False, False], [True, False]])


def _sdpa_no_key(q):
    return ft.nn.scaled_dot_product_attention(q, q, q, attn_mask=_SEES_NONE)


accepted("attention row that sees no key: 0, as torch 2.5+",
         lambda: np.array([[0.0, 0], [1, 2]]))(lambda: _sdpa_no_key(_Q2))
accepted("grad through an attention row that sees no key (torch's)",
         lambda: np.array([[1.0, 1], [0, 0]]))(
    lambda: ft.grad(lambda q: _sdpa_no_key(q).sum())(_Q2))
error("integer attention mask", "attn_mask", "bool")(
    lambda: ft.nn.scaled_dot_product_attention(_Q2, _Q2, _Q2, attn_mask=np.eye(2, dtype=int)))
error("random.choice with p of the wrong length", "p", "3")(
    lambda: ft.random.choice(ft.random.key(0), 3, (4,), p=np.array([0.5, 0.5])))
error("random.randint with minval >= maxval", "minval", "maxval")(
    lambda: ft.random.randint(ft.random.key(0), (5,), 5, 0))
error("random.randint bounds outside int8", "int8")(
    lambda: ft.random.randint(ft.random.key(0), (5,), 0, 1000, dtype=np.int8))
accepted("truncated_normal on [8, 9]: mean 8.1195 (not a pile at 8)", lambda: True)(
    lambda: bool(abs(ft.random.truncated_normal(ft.random.key(0), 8.0, 9.0, (4000,)).mean()
                     - 8.1195) < 0.01))


def _grad_sum(f, *args):
    import dask.array as da
    import functorch_lite.dask as fd
    return fd.grad_sum(f)(V, da.from_array(X, chunks=1), *args)


error("dask.grad_sum of a non-scalar per-example loss", "scalar", "shape")(
    lambda: _grad_sum(lambda w, x: w[:2] * x))
error("dask.grad_sum with a Python scalar in a batched position", "argument 2", "in_dims")(
    lambda: _grad_sum(lambda w, x, s: fnp.sum(w[:2] * x) * s, 0.5))
error("embedding index -1", "embedding", "-1", "out of range")(
    lambda: ft.nn.embedding(np.array([0, -1]), X))
accepted("tree.ravel's unravel keeps an imaginary part", lambda: 1j * V)(
    lambda: ft.tree.ravel({"v": V})[1](1j * V)["v"])
accepted("grad of hypot at the origin (0, the abs'(0) convention)", lambda: (0.0, 0.0))(
    lambda: ft.grad(fnp.hypot, argnums=(0, 1))(0.0, 0.0))
accepted("grad of logaddexp(inf, inf): 1/2 each", lambda: (0.5, 0.5))(
    lambda: ft.grad(fnp.logaddexp, argnums=(0, 1))(np.inf, np.inf))
accepted("nn.gelu defaults to torch's exact form", lambda: V * (1 + np.array(
    [__import__("math").erf(v / np.sqrt(2)) for v in V])) / 2)(lambda: ft.nn.gelu(V))


# ---------------------------------------------------------------- issue 20 (layers, keys, Dask,
# derivatives): items 1-5 are another helper's (owner "i20a"), the rest is i20b's.
def _np_attention(x, mask):
    """softmax(x x^T / sqrt(e)) x with boolean mask; a row that sees no key is zeros (torch)."""
    s = np.where(mask, x @ x.T / np.sqrt(x.shape[-1]), -np.inf)
    m = np.max(s, axis=-1, keepdims=True)
    e = np.where(mask, np.exp(s - np.where(np.isfinite(m), m, 0.0)), 0.0)
    z = np.sum(e, axis=-1, keepdims=True)
    return (e / np.where(z == 0, 1.0, z)) @ x


def _finite_differences(f, x, h=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = h
        g[i] = (f(x + d) - f(x - d)) / (2 * h)
    return g


_MASK = np.array([[False, False], [True, False]])
_Q = np.array([[0.3, -0.2], [0.5, 0.1]])


def _attention(x, mask):
    return ft.nn.scaled_dot_product_attention(x, x, x, attn_mask=mask)


accepted("attention row with every key masked: torch's output", lambda: _np_attention(_Q, _MASK),
         owner="i20a")(lambda: _attention(_Q, _MASK))
accepted("attention row with every key masked: finite gradient",
         lambda: _finite_differences(lambda x: _np_attention(x, _MASK).sum(), _Q), owner="i20a")(
    lambda: ft.grad(lambda x: fnp.sum(_attention(x, _MASK)))(_Q))
error("attention integer 0/1 mask", "mask", "bool", owner="i20a")(
    lambda: _attention(_Q, np.array([[1, 0], [1, 1]])))
accepted("attention float64 mask keeps float32", lambda: True, owner="i20a")(
    lambda: _attention(_Q.astype(np.float32), np.zeros((2, 2))).dtype == np.float32)
_KEY = ft.random.key(0)
error("random.choice p of another length", "p", "3", owner="i20a")(
    lambda: ft.random.choice(_KEY, 3, p=np.array([0.5, 0.5])))
error("random.randint minval above maxval", "maxval", owner="i20a")(
    lambda: ft.random.randint(_KEY, (5,), 5, 0))
error("random.randint bounds outside the dtype", "int8", owner="i20a")(
    lambda: ft.random.randint(_KEY, (5,), 0, 1000, dtype=np.int8))


def _truncnorm_ks(lo, hi):
    from scipy import stats
    draws = np.asarray(ft.random.truncated_normal(_KEY, lo, hi, (2000,)))
    return stats.kstest(draws, stats.truncnorm(lo, hi).cdf).pvalue > 1e-3


for _lo, _hi in [(-9.0, -8.0), (7.0, 8.0), (8.0, 9.0), (20.0, 21.0)]:
    accepted(f"random.truncated_normal on [{_lo:g}, {_hi:g}] passes a KS test", lambda: True,
             owner="i20a")(lambda lo=_lo, hi=_hi: _truncnorm_ks(lo, hi))


def _dask_grad_sum(loss, *extra):
    import dask.array as da
    from functorch_lite.dask import grad_sum
    return grad_sum(loss)(np.ones(2), da.from_array(np.ones((4, 2)), chunks=2), *extra)


error("dask grad_sum of a non-scalar per-example loss", "scalar", owner="i20a")(
    lambda: _dask_grad_sum(lambda w, x: w * x))
error("dask grad_sum with a Python float in a batched position", "in_dims", owner="i20a")(
    lambda: _dask_grad_sum(lambda w, x, s: fnp.sum(w * x) * s, 1.5))
error("embedding index -1", "index", "-1", owner="i20a")(
    lambda: ft.nn.embedding(np.array([-1]), np.ones((3, 2))))
either("tree.ravel unravel of a complex vector keeps it (or refuses it)",
       lambda: [np.array([1 + 2j, 3 + 0j])], "complex", owner="i20a")(
    lambda: ft.tree.ravel([np.ones(2)])[1](np.array([1 + 2j, 3 + 0j])))
accepted("hypot derivative at (0, 0) is finite", lambda: True, owner="i20a")(
    lambda: bool(np.all(np.isfinite(ft.grad(lambda a: fnp.hypot(a, a * 0.0))(0.0)))))
accepted("logaddexp(inf, inf) derivatives (as JAX)", lambda: (0.5, 0.5), owner="i20a")(
    lambda: ft.grad(fnp.logaddexp, argnums=(0, 1))(np.inf, np.inf))
accepted("nn.gelu's default is exact, as torch.nn.functional", lambda: 0.5 * V * (
    1 + np.array([math.erf(v / math.sqrt(2)) for v in V])), owner="i20a")(lambda: ft.nn.gelu(V))

_SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
_RANK1_3 = np.outer([1.0, 2.0, 3.0], [1.0, -1.0, 0.5])
accepted("grad of det at a singular matrix: the adjugate's transpose",
         lambda: np.array([[4.0, -2.0], [-2.0, 1.0]]))(lambda: ft.grad(fnp.linalg.det)(_SINGULAR))
accepted("jvp of det at a singular matrix", lambda: (0.0, 5.0))(
    lambda: ft.jvp(fnp.linalg.det, (_SINGULAR,), (np.eye(2),)))
accepted("grad of det at a rank n-2 matrix is zero", lambda: np.zeros((3, 3)))(
    lambda: ft.grad(fnp.linalg.det)(_RANK1_3))
accepted("jvp of slogdet's sign at a singular matrix is zero", lambda: 0.0)(
    lambda: ft.jvp(lambda a: fnp.linalg.slogdet(a)[0], (_SINGULAR,), (np.eye(2),))[1])
accepted("grad output is writable and owns its memory", lambda: True)(
    lambda: _fresh(ft.grad(lambda x: x.sum())(V), V))
accepted("vmap of the identity returns a new array", lambda: True)(
    lambda: _fresh(ft.vmap(lambda x: x)(X), X))
accepted("jvp of the identity returns a new tangent", lambda: True)(
    lambda: _fresh(ft.jvp(lambda x: x, (V,), (V,))[1], V))
accepted("vjp_fn of the identity returns a new cotangent", lambda: True)(
    lambda: _fresh(ft.vjp(lambda x: x, V)[1](V)[0], V))
accepted("LinAlgError under vmap is catchable as LinAlgError", lambda: True)(
    lambda: _catches(np.linalg.LinAlgError, lambda: ft.vmap(fnp.linalg.inv)(np.zeros((2, 2, 2)))))
accepted("LinAlgError under jit is catchable as LinAlgError", lambda: True)(
    lambda: _catches(np.linalg.LinAlgError, lambda: ft.jit(fnp.linalg.inv)(np.zeros((2, 2)))))
accepted("LinAlgError under vmap(grad) is catchable as LinAlgError", lambda: True)(
    lambda: _catches(np.linalg.LinAlgError, lambda: ft.vmap(ft.grad(
        lambda a: fnp.sum(fnp.linalg.inv(a))))(np.zeros((2, 2, 2)))))
_IMG, _W = np.ones((1, 1, 5, 5)), np.ones((1, 1, 3, 3))
error("conv2d stride 0", "stride", "positive")(lambda: ft.nn.conv2d(_IMG, _W, stride=0))
error("conv2d padding -1", "padding", "-1")(lambda: ft.nn.conv2d(_IMG, _W, padding=-1))
error("conv2d dilation 0", "dilation", "positive")(lambda: ft.nn.conv2d(_IMG, _W, dilation=0))
error("max_pool2d kernel_size 0", "kernel_size", "positive")(lambda: ft.nn.max_pool2d(_IMG, 0))
error("avg_pool2d kernel_size 0", "kernel_size", "positive")(lambda: ft.nn.avg_pool2d(_IMG, 0))
error("max_pool2d stride 0", "stride", "positive")(
    lambda: ft.nn.max_pool2d(_IMG, 2, stride=0))
error("batch_norm momentum=None (torch's cumulative average needs a batch count)", "momentum")(
    lambda: ft.nn.batch_norm(X, None, np.ones(2), training=True, momentum=None))
error("custom_jvp rule returning one value instead of a pair", "custom_jvp", "pair")(
    lambda: ft.jvp(_bad_custom_jvp, (V,), (V,)))
error("hessian of an integer input names hessian", "hessian", "int64")(
    lambda: ft.hessian(_sum)(np.arange(3)))
error("random.split(key, -1)", "num", "-1")(lambda: ft.random.split(_KEY, -1))
accepted("random.permutation of a 0-d integer array (as JAX)", lambda: np.arange(5))(
    lambda: np.sort(ft.random.permutation(_KEY, np.array(5))))
accepted("conv_transpose2d output_padding < dilation (as torch)", lambda: (1, 1, 5, 5))(
    lambda: ft.nn.conv_transpose2d(np.ones((1, 1, 2, 2)), np.ones((1, 1, 2, 2)), stride=1,
                                   dilation=2, output_padding=1).shape)
accepted("batch_norm(training=True) under vmap of an unbatched input", lambda: _bn_rows())(
    lambda: ft.vmap(lambda x, w: ft.nn.batch_norm(x, None, None, w, training=True)[0],
                    in_dims=(None, 0))(X, np.ones((3, 2))))
error("grad of a foreign array type names the conversion", "np.asarray")(
    lambda: ft.grad(_sum)(_ForeignArray()))


def _fresh(out, given):
    return bool(out.flags.writeable and not np.shares_memory(out, given))


def _catches(kind, thunk):
    try:
        thunk()
    except kind:
        return True
    return False


@ft.custom_jvp
def _bad_custom_jvp(x):
    return fnp.sin(x)


_bad_custom_jvp.defjvp(lambda primals, tangents: fnp.cos(primals[0]) * tangents[0])


def _bn_rows():
    out = (X - X.mean(0)) / np.sqrt(X.var(0) + 1e-5)
    return np.stack([out] * 3)


class _ForeignArray:
    """An array of another library (a jax.Array, a torch.Tensor): convertible, not an ndarray."""

    def __array__(self, dtype=None, copy=None):
        return np.ones(3)


def _escaped():
    leaked = []
    ft.grad(lambda x: (leaked.append(x), fnp.sum(x))[1])(V)
    return ft.grad(lambda y: fnp.sum(y * leaked[0]))(V)


INTERNAL = (AttributeError, KeyError, AssertionError, UnboundLocalError, NameError,
            RecursionError, ZeroDivisionError)


def classify(expect, keywords, types, thunk):
    """(class, detail) of one case."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = thunk()
        except Exception as e:
            msg = f"{type(e).__name__}: {e}"
            named = all(k.lower() in str(e).lower() for k in keywords)
            if isinstance(e, INTERNAL) or not isinstance(e, types) or not named:
                return "crash", msg
            return ("clear" if expect == "error" or keywords else "crash"), msg
    if expect == "error":
        return "wrong", f"no error; returned {type(got).__name__} {got!r}"[:300]
    want = expect()
    same = (got is None and want is None) or (
        got is not None and want is not None and all(
            np.shape(a) == np.shape(b) and np.allclose(a, b)
            for a, b in zip(_leaves(got), _leaves(want))))
    return ("ok", repr(got)[:200]) if same else ("wrong", f"returned {got!r}, expected {want!r}")


def _leaves(x):
    return x if isinstance(x, (list, tuple)) else [x]


def main():
    parser = argparse.ArgumentParser(description="bad inputs, classified")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    counts, owned = collections.Counter(), collections.Counter()
    for name, expect, keywords, types, owner, thunk in CASES:
        cls, detail = classify(expect, keywords, types, thunk)
        counts[cls] += 1
        if owner:
            owned[(owner, cls)] += 1
        if args.verbose or cls in ("wrong", "crash"):
            tag = f" [{owner}]" if owner else ""
            print(f"{cls:6s} {name}{tag}\n       {detail[:400]}")
    print(f"\n{len(CASES)} bad inputs: " + ", ".join(f"{counts[c]} {c}" for c in
                                                     ("clear", "ok", "wrong", "crash")))
    if owned:
        print("of which in other areas: " + ", ".join(f"{o} {c}: {n}" for (o, c), n in
                                                      sorted(owned.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
