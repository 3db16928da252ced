"""Collapsed second-order rules (the forward Laplacian) of the ops an MLP is made of.

The forward Laplacian carries, for a value y, its first derivatives along d directions v_i
(`jac`, shape (d,) + y.shape) and one collapsed second-order term `lap` = sum_i w_i D^2y[v_i,
v_i] (shape y.shape). A rule has the signature
`rule(primals, jacs, laps, weights, **params) -> (out, jac_out, lap_out)`, None standing for a
zero (`weights` is None for all ones, else a vector of length d). Per family:

  linear       jac_out = op batched over the directions (its batching rule), lap_out = op(lap)
  add/subtract sums of the operands' terms, the directions broadcast against the output
  multilinear  lap_out = sum_m B(.., lap_m, ..) + 2 sum_(m<n) sum_i w_i B(.., jac_m[i], ..,
               jac_n[i], ..): the cross terms of each pair of operands
  unary        y = f(x) elementwise: jac_out = f' jac, lap_out = f' lap + f'' sum_i w_i jac_i^2,
               with f', f'' from a table for the common activations, else from the op's jet
               rule at order 2 along a unit direction

Any other op gets the rule the forward-Laplacian interpreter derives from its jet rule
(transforms/laplacian.py), so these rules are a fast path, not a requirement.
"""
from .. import numpy as fnp
from ..numpy._util import dtype_of, shape
from ..ops import conv as cv, elementwise as ew, indexing as ix, linalg as la, reductions as red
from ..ops import shape as sh
from .jvp_helpers import add_tangents, fit


def direction_sum(q, weights):
    """sum_i w_i q[i] over the leading direction axis."""
    if weights is None:
        return red.sum(q, axis=0)
    return fnp.tensordot(weights, q, axes=1)


def fit_directions(j, out):
    """A direction-carrying term (d,) + s broadcast to (d,) + out's shape and cast to its
    dtype."""
    if j is None:
        return None
    js, os = shape(j), shape(out)
    if js[1:] != os:
        missing = len(os) - (len(js) - 1)
        if missing > 0:
            j = fnp.reshape(j, js[:1] + (1,) * missing + js[1:])
        j = fnp.broadcast_to(j, js[:1] + os)
    dt = dtype_of(out)
    if dtype_of(j) != dt and dt.kind in "fc":
        j = fnp.astype(j, dt)
    return j


def batched(op, args, bdims, params):
    """op applied to args batched along `bdims` (the directions), the batch axis first."""
    out, bdim = op.rule("batch")(tuple(args), tuple(bdims), **params)
    return out if bdim == 0 else fnp.moveaxis(out, bdim, 0)


def def_linear_collapsed(op):
    """op linear in its first operand (the others static or integer)."""
    def linear_collapsed(primals, jacs, laps, weights, **params):
        out = op(*primals, **params)
        j, l = jacs[0], laps[0]
        rest = primals[1:]
        jo = None if j is None else fit_directions(
            batched(op, (j,) + rest, (0,) + (None,) * len(rest), params), out)
        lo = None if l is None else fit(op(l, *rest, **params), out)
        return out, jo, lo
    op.def_rule("laplacian", linear_collapsed)


def _sum_collapsed(sign):
    def sum_collapsed(primals, jacs, laps, weights):
        x, y = primals
        out = ew.add(x, y) if sign == 1 else ew.subtract(x, y)
        jx, jy = (fit_directions(j, out) for j in jacs)
        lx, ly = (fit(l, out) for l in laps)
        if sign == -1:
            jy = None if jy is None else ew.negative(jy)
            ly = None if ly is None else ew.negative(ly)
        return out, add_tangents(jx, jy), add_tangents(lx, ly)
    return sum_collapsed


def def_multilinear_collapsed(op):
    """op linear in each operand separately (multiply, matmul, einsum, conv)."""
    def multilinear_collapsed(primals, jacs, laps, weights, **params):
        out = op(*primals, **params)
        n = len(primals)
        js, ls = [], []
        for m in range(n):
            if jacs[m] is not None:
                args = list(primals)
                args[m] = jacs[m]
                js.append(fit_directions(batched(op, args, [0 if i == m else None
                                                            for i in range(n)], params), out))
            if laps[m] is not None:
                args = list(primals)
                args[m] = laps[m]
                ls.append(fit(op(*args, **params), out))
            for k in range(m):
                if jacs[m] is not None and jacs[k] is not None:
                    args = list(primals)
                    args[m], args[k] = jacs[m], jacs[k]
                    both = batched(op, args, [0 if i in (m, k) else None for i in range(n)],
                                   params)
                    ls.append(fit(ew.multiply(direction_sum(both, weights), 2.0), out))
        return out, add_tangents(*js), add_tangents(*ls)
    op.def_rule("laplacian", multilinear_collapsed)


def def_unary_collapsed(op, derivatives=None):
    """Elementwise unary op: `derivatives(x, out)` gives (f', f'') from a table of calculus,
    or else f' and f''/2 come from one order-2 jet at x along a unit direction."""
    jet = op.rule("jet")

    def first_and_second(x, out, params):
        if derivatives is not None:
            return derivatives(x, out)
        _, s = jet((x,), ((fnp.ones_like(x), None),), **params)
        d1, half_d2 = s if s is not None else (None, None)
        return d1, None if half_d2 is None else ew.multiply(half_d2, 2.0)

    def unary_collapsed(primals, jacs, laps, weights, **params):
        x, = primals
        j, = jacs
        l, = laps
        out = op(x, **params)
        d1, d2 = first_and_second(x, out, params)
        if d1 is None:
            return out, None, None
        jo = None if j is None else fit_directions(ew.multiply(j, d1), out)
        parts = [] if l is None else [ew.multiply(l, d1)]
        if j is not None and d2 is not None:
            parts.append(ew.multiply(direction_sum(ew.square(j), weights), d2))
        return out, jo, fit(add_tangents(*parts), out)
    op.def_rule("laplacian", unary_collapsed)


def _tanh(x, y):
    d1 = ew.subtract(1.0, ew.square(y))
    return d1, ew.multiply(ew.multiply(y, -2.0), d1)


def _log(x, y):
    r = ew.reciprocal(x)
    return r, ew.negative(ew.square(r))


def _sqrt(x, y):
    d1 = ew.divide(0.5, y)
    return d1, ew.divide(d1, ew.multiply(x, -2.0))


SECOND_DERIVATIVES = {
    ew.tanh: _tanh,
    ew.exp: lambda x, y: (y, y),
    ew.sin: lambda x, y: (ew.cos(x), ew.negative(y)),
    ew.cos: lambda x, y: (ew.negative(ew.sin(x)), ew.negative(y)),
    ew.sinh: lambda x, y: (ew.cosh(x), y),
    ew.cosh: lambda x, y: (ew.sinh(x), y),
    ew.log: _log,
    ew.log1p: lambda x, y: _log(ew.add(x, 1.0), y),
    ew.sqrt: _sqrt,
    ew.square: lambda x, y: (ew.multiply(x, 2.0), 2.0),
    ew.reciprocal: lambda x, y: (ew.negative(ew.square(y)),
                                 ew.multiply(ew.multiply(ew.square(y), y), 2.0)),
}
"""(f'(x), f''(x)) of the common activations, from x and y = f(x)."""


for _op in (sh.reshape, sh.transpose, sh.broadcast_to, sh.diagonal, sh.roll, sh.copy,
            ix.getitem, red.sum, red.cumsum, ew.negative, ew.positive, ew.real, ew.imag,
            ew.conj):
    def_linear_collapsed(_op)
ew.add.def_rule("laplacian", _sum_collapsed(1))
ew.subtract.def_rule("laplacian", _sum_collapsed(-1))
for _op in (ew.multiply, la.matmul, la.einsum, cv.conv):
    def_multilinear_collapsed(_op)
for _op in (ew.exp, ew.exp2, ew.expm1, ew.log, ew.log2, ew.log10, ew.log1p, ew.sin, ew.cos,
            ew.tan, ew.sinh, ew.cosh, ew.tanh, ew.sqrt, ew.square, ew.reciprocal):
    def_unary_collapsed(_op, SECOND_DERIVATIVES.get(_op))
