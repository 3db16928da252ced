"""Batching rules of the special functions: all elementwise."""
from ..ops import special
from .helpers import elementwise

for _op in [special.erf, special.erfc, special.erfinv, special.gammaln, special.digamma,
            special.ndtri, special.polygamma]:
    elementwise(_op)

from ..ops import bessel  # noqa: E402

for _op in [special.gamma, special.log_ndtr, bessel.i0, bessel.i0e, bessel.i1e]:
    elementwise(_op)

from .helpers import broadcasting  # noqa: E402

for _op in [special.gammainc, special.gammaincc, special.betainc]:
    broadcasting(_op)
