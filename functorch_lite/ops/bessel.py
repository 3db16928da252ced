"""Modified Bessel functions of the first kind: i0 (numpy.i0), i0e and i1e (scipy.special,
the exponentially scaled e^-|x| I0(x) and e^-|x| I1(x)). The derivatives need I1: i0's kernel
is the array module's own, the others and every derivative need SciPy (cupyx on CuPy)."""
from ..dispatch import defop
from .special import special_module

i0 = defop("i0", lambda xp, x: xp.i0(x), doc="""As numpy.i0: the modified Bessel function I0.

Its derivative is I1(x) = i1e(x) e^|x|, which needs SciPy (the `scipy` extra).

Examples:
    >>> import numpy as np, functorch_lite.numpy as fnp
    >>> bool(np.isclose(fnp.i0(np.array(1.0)), 1.2660658777520082))
    True
""")

i0e = defop("i0e", lambda xp, x: special_module(xp).i0e(x),
            doc="""As scipy.special.i0e: e^-|x| I0(x), finite for large |x|.

Its derivative is i1e(x) - sign(x) i0e(x).

Examples:
    >>> import numpy as np
    >>> from functorch_lite.scipy import special
    >>> bool(np.isclose(special.i0e(1.0), 1.2660658777520082 * np.exp(-1.0)))
    True
""")

i1e = defop("i1e", lambda xp, x: special_module(xp).i1e(x),
            doc="""As scipy.special.i1e: e^-|x| I1(x).

Its derivative is i0e(x) - i1e(x) (sign(x) + 1/x), 1/2 at 0.

Examples:
    >>> import numpy as np
    >>> from functorch_lite.scipy import special
    >>> bool(np.isclose(special.i1e(1.0), 0.5651591039924851 * np.exp(-1.0)))
    True
""")
