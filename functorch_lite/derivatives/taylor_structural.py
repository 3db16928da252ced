"""Taylor (jet) rules of the linear, multilinear and piecewise linear ops of every other family:
shapes, indexing, reductions, DFTs, convolutions, pooling and the products of linalg.

Linear ops map each coefficient alone; multilinear ones (matmul, einsum, conv) take the Cauchy
product of their operands' series; the selection ops (max, sort, max pools, scatter-min/max)
route the selected element's whole series, through their jvp rule's tangent map. The remaining
ops of these families (prod, cumprod, solve, inv, cholesky, eigh, svd, ...) get their
coefficients from their jvp rules (Note [Taylor rules from jvp rules] in transforms/taylor.py).
"""
from ..ops import (conv as cv, fft as _fft, indexing as ix, linalg as la, pool as pl,
                   reductions as red, shape as sh)
from .taylor_helpers import (def_linear_jet, def_multilinear_jet, def_piecewise_linear_jet,
                             def_variadic_linear_jet, piecewise_linear_jet)

for _op in (sh.reshape, sh.transpose, sh.broadcast_to, sh.diagonal, sh.roll, sh.copy,
            ix.getitem, red.sum, red.cumsum, _fft.fftn, _fft.ifftn, _fft.rfftn, _fft.irfftn,
            cv.sliding_window, cv.sliding_window_sum, pl.pool_sum):
    def_linear_jet(_op)
def_variadic_linear_jet(sh.concatenate)
for _op in (sh.unstack, sh.pad, red.max, red.min, red.sort, pl.pool_max, pl.pool_max_select,
            pl.pool_max_scatter):
    def_piecewise_linear_jet(_op)
for _op in (la.matmul, la.einsum, cv.conv, cv.conv_transpose, cv.conv_weight_grad,
            cv.correlate, cv.convolve):
    def_multilinear_jet(_op)

_scatter_piecewise = piecewise_linear_jet(ix.scatter)


@ix.scatter.def_rule("jet")
def scatter_jet(primals, series, index, mode):
    """set/add are linear and min/max select: piecewise linear. multiply is a product of the
    values written to one place: derived from its jvp rule."""
    if mode == "multiply":
        return NotImplemented
    return _scatter_piecewise(primals, series, index=index, mode=mode)
