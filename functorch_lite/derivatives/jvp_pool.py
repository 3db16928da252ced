"""jvp rules of the pooling ops: pool_sum is linear; a max pool's tangent is the tangent at each
window's first argmax (select); select and scatter are linear in their second operand and
constant in x (which only picks positions)."""
from ..ops import pool as pl
from .jvp_helpers import def_linear

def_linear(pl.pool_sum)


@pl.pool_max.def_jvp
def pool_max_jvp(primals, tangents, **params):
    x, = primals
    t, = tangents
    out = pl.pool_max(x, **params)
    return out, None if t is None else pl.pool_max_select(x, t, **params)


def _linear_in_second(op):
    def linear_in_second_jvp(primals, tangents, **params):
        x, v = primals
        t = tangents[1]
        return op(x, v, **params), None if t is None else op(x, t, **params)
    op.def_jvp(linear_in_second_jvp)


_linear_in_second(pl.pool_max_select)
_linear_in_second(pl.pool_max_scatter)
