"""Per-example gradient pieces of one parameter leaf, kept as factors (Note [factored pieces]).

Note [factored pieces]
----------------------
A parameter read by a factored op contributes to each example's gradient a *piece* that is
never formed per example:

  Outer(L, R, shape)   gradient_i = reshape(L_i^T R_i, shape), L_i (T, m), R_i (T, n): a
                       matrix product (x @ W: L = x, R = the output cotangent; T = tokens), an
                       im2col convolution, an embedding (L a one-hot of the picked rows, kept
                       as the indices: `Rows`).
  Conv(x, g)           a convolution's weight gradient, kept as input and output cotangent.
  Dense(M)             gradient_i = M_i itself: what a bias, a norm scale or a fallback gets.

All arrays carry the examples on axis 0. A leaf's squared per-example norm is
||sum of its pieces||^2. When only Outer pieces feed the leaf and the Gram matrices are smaller
than the leaf (sum_k T_k)^2 <= m n, it is computed in the *ghost* form,
sum_{k,l} sum((L_k L_l^T) * (R_k R_l^T)), so nothing of the leaf's size is formed per example;
otherwise in the *direct* form: the pieces are formed per example for this one leaf (as mixed
ghost clipping, Bu et al. 2022, does per layer), their norm taken and the arrays dropped. The
clipped sum sum_i c_i gradient_i of each piece is one contraction over examples and tokens
together (book-keeping, Bu et al. 2023: no second backward pass).
"""
from .. import numpy as fnp
from ..ops import conv as cv
from ..transforms.vmap import vmap


class Rows:
    """The one-hot factor of a gather: row r_t of an identity of size `size`, for each token."""

    def __init__(self, index, size):
        self.index, self.size = index, size


def _tokens(f):
    return f.index.shape[1] if isinstance(f, Rows) else f.shape[1]


def _width(f):
    return f.size if isinstance(f, Rows) else f.shape[2]


def _gram(a, b):
    """(B, Ta, Tb): the per-example products a_i b_i^T of two factors."""
    if isinstance(a, Rows) and isinstance(b, Rows):
        return fnp.equal(a.index[:, :, None], b.index[:, None, :])
    if isinstance(b, Rows):
        return fnp.swapaxes(_gram(b, a), 1, 2)
    if isinstance(a, Rows):   # (e_{r_t} . b_s) = b[s, r_t]
        return fnp.swapaxes(fnp.take_along_axis(b, a.index[:, None, :], axis=2), 1, 2)
    return fnp.matmul(a, fnp.swapaxes(b, 1, 2))


def _scale(f, c):
    return f if isinstance(f, Rows) else f * fnp.reshape(c, (-1, 1, 1))


def _scatter_rows(rows, values, batched):
    """sum over tokens of e_{r_t} values_t^T: (B, size, n) per example, or (size, n) summed."""
    b, t, n = values.shape
    if batched:
        out = fnp.zeros((b, rows.size, n), dtype=values.dtype)
        examples = fnp.broadcast_to(fnp.arange(b)[:, None], (b, t))
        return fnp.at(out)[examples, rows.index].add(values)
    out = fnp.zeros((rows.size, n), dtype=values.dtype)
    return fnp.at(out)[fnp.reshape(rows.index, (-1,))].add(fnp.reshape(values, (b * t, n)))


class Outer:
    """gradient_i = reshape(L_i^T R_i, shape). See Note [factored pieces]."""

    def __init__(self, left, right, shape):
        self.left, self.right, self.shape = left, right, tuple(shape)

    @property
    def arrays(self):
        return [f.index if isinstance(f, Rows) else f for f in (self.left, self.right)]

    @arrays.setter
    def arrays(self, values):
        fs = [self.left, self.right]
        for k, v in enumerate(values):
            if isinstance(fs[k], Rows):
                fs[k] = Rows(v, fs[k].size)
            else:
                fs[k] = v
        self.left, self.right = fs

    def swapped(self, shape):
        """The piece of the transposed matrix (the leaf when this piece is of its .T)."""
        return Outer(self.right, self.left, shape)

    def tokens(self):
        return _tokens(self.left)

    def inner(self, other):
        """(B,): <gradient_i of self, gradient_i of other>, in the ghost form."""
        gl = _gram(self.left, other.left)
        gr = _gram(self.right, other.right)
        return fnp.sum(fnp.astype(gl, gr.dtype) * gr, axis=(1, 2))

    def direct(self):
        """(B, *shape): the per-example gradients."""
        left, right = self.left, self.right
        if isinstance(left, Rows):
            g = _scatter_rows(left, right, batched=True)
        elif isinstance(right, Rows):
            g = fnp.swapaxes(_scatter_rows(right, left, batched=True), 1, 2)
        else:
            g = fnp.matmul(fnp.swapaxes(left, 1, 2), right)
        return fnp.reshape(g, (g.shape[0],) + self.shape)

    def weighted_sum(self, c):
        """sum_i c_i gradient_i, as one contraction over examples and tokens."""
        left, right = self.left, self.right
        if isinstance(left, Rows):
            g = _scatter_rows(left, _scale(right, c), batched=False)
        elif isinstance(right, Rows):
            g = fnp.swapaxes(_scatter_rows(right, _scale(left, c), batched=False), 0, 1)
        else:
            b, t, m = left.shape
            if m <= right.shape[2]:
                left = _scale(left, c)
            else:
                right = _scale(right, c)
            g = fnp.matmul(fnp.swapaxes(fnp.reshape(left, (b * t, m)), 0, 1),
                           fnp.reshape(right, (b * t, right.shape[2])))
        return fnp.reshape(g, self.shape)


class Conv:
    """A convolution weight's pieces: input x_i (N, C, *S) and output cotangent g_i."""

    def __init__(self, x, g, params, shape):
        self.x, self.g, self.params, self.shape = x, g, params, tuple(shape)

    @property
    def arrays(self):
        return [self.x, self.g]

    @arrays.setter
    def arrays(self, values):
        self.x, self.g = values

    def _weight_grad(self, x, g):
        p = self.params
        return cv.conv_weight_grad(x, g, kernel_shape=self.shape[2:], stride=p["stride"],
                                   padding=p["padding"], dilation=p["dilation"],
                                   groups=p["groups"])

    def direct(self):
        return vmap(self._weight_grad)(self.x, self.g)

    def weighted_sum(self, c):
        x, g = self.x, self.g
        b, n = x.shape[:2]
        g = g * fnp.reshape(c, (-1,) + (1,) * (g.ndim - 1))
        return self._weight_grad(fnp.reshape(x, (b * n,) + x.shape[2:]),
                                 fnp.reshape(g, (b * n,) + g.shape[2:]))


class Dense:
    """gradient_i = M_i (B, *shape)."""

    def __init__(self, value):
        self.value = value

    @property
    def arrays(self):
        return [self.value]

    @arrays.setter
    def arrays(self, values):
        self.value, = values

    def direct(self):
        return self.value

    def weighted_sum(self, c):
        return fnp.tensordot(c, self.value, axes=1)


def squared_norms(pieces, size):
    """(B,) squared per-example norms of a leaf of `size` elements fed by `pieces`, and the
    pieces to sum it from: the ghost form when every piece is Outer and the Gram matrices are
    no larger than the leaf (the pieces stay), else the direct form (the pieces become the one
    Dense per-example gradient, no larger than the Grams, so the clipped sum needs no second
    contraction). See Note [factored pieces]."""
    if all(isinstance(p, Outer) for p in pieces) and \
            sum(p.tokens() for p in pieces) ** 2 <= size:
        total = None
        for k, a in enumerate(pieces):
            for b in pieces[k:]:
                term = a.inner(b) if b is a else 2 * a.inner(b)
                total = term if total is None else total + term
        return total, pieces
    g = pieces[0].direct()
    for p in pieces[1:]:
        g = g + p.direct()
    flat = fnp.reshape(g, (g.shape[0], -1))
    return fnp.einsum("bi,bi->b", flat, flat), [Dense(g)]


def weighted_sum(pieces, c):
    total = pieces[0].weighted_sum(c)
    for p in pieces[1:]:
        total = total + p.weighted_sum(c)
    return total
