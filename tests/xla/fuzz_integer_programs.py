"""Random programs over integer arrays, for the XLA backend's differential fuzz
(test_jit_xla_fuzz.py): NumPy's integer rules where XLA's differ or JAX's functions choose other
dtypes. Each program is 2 to 6 ops on `a` (starting at x) with a second argument y of x's shape
and dtype, drawn from int8 to uint64 with values across the dtype's range (its extremes, 0, 1,
-1 and small numbers, so sums and products wrap, divisors are 0, MIN // -1 occurs): wrapping
arithmetic, floor division, remainder and fmod (by zero too), powers past the 63rd, reductions
and scans that widen narrow integers (int8's cumsum is int64's), integer products, rounding to
tens, and float results of integer operands (int32's sin is float64's, int16's float32's).

Ops whose float result NumPy gives as float16 (those of 8-bit integers) read `a * 1.0` instead,
a float64: float16 results are XLA's float32 kernels rounded, which xla_checks does not compare
within a tolerance. `Case` draws with the same Draw interface as fuzz_programs.py.

Remainders and floor divisions apply to integer values only: of a float (an earlier step's
float result, such as exp(3) ** 72 = 6.4e93) they depend on its last bits, which both backends
compute only to 1e-12 relative (XLA's pow is 4 ulps from NumPy's there, and `% 5` turns that
into 3.0 against 0.0). Float remainders are checked by the per-op samples of remainder,
fmod and floor_divide, on well-conditioned values.
"""
import numpy as np

import functorch_lite as ft
import functorch_lite.numpy as fnp

DTYPES = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)
MAX_SIZE = 24


def inputs(dtype, shape, rng):
    """Values of dtype: a third each edges (extremes, 0, 1, 2, -1), the whole range, -3..3."""
    info = np.iinfo(dtype)
    edge = [info.min, info.max, 0, 1, 2, info.max // 2] + ([-1, -2, info.min + 1] if info.min
                                                          else [])
    pick = rng.integers(0, 3, size=shape)
    return np.choose(pick, [rng.choice(np.array(edge, dtype), size=shape),
                            rng.integers(info.min, info.max, size=shape, dtype=dtype,
                                         endpoint=True),
                            rng.integers(max(info.min, -3), 4, size=shape).astype(dtype)])


def _float(a):
    """a's float ops as NumPy computes them, but never in float16 (module docstring)."""
    return a * 1.0 if a.dtype.itemsize == 1 else a


def _ops(draw, shape):
    """(label, fn(a, y)) of one op on an array of `shape`; y has the program's input shape."""
    nd = len(shape)
    ax = draw.integers(-nd, nd - 1) if nd else None
    table = {
        "a + y": lambda a, y: a + y, "a - y": lambda a, y: a - y, "a * y": lambda a, y: a * y,
        "a // y": lambda a, y: a // y, "a % y": lambda a, y: a % y,
        "fmod(a, y)": lambda a, y: fnp.fmod(a, y), "maximum(a, y)": lambda a, y: fnp.maximum(a, y),
        "where(a > y, a, y)": lambda a, y: fnp.where(a > y, a, y),
        "a ** (y % 100)": lambda a, y: a ** (y % 100), "a / y": lambda a, y: a / y,
        "-a": lambda a, y: -a, "abs(a)": lambda a, y: fnp.abs(a), "a * a": lambda a, y: a * a,
        "a // 3": lambda a, y: a // 3, "a % 0": lambda a, y: a % 0, "a // 0": lambda a, y: a // 0,
        "sign(a)": lambda a, y: fnp.sign(a), "reciprocal(a)": lambda a, y: np.reciprocal(a),
        "round(a, -1)": lambda a, y: fnp.round(a, -1),
        "sin(a)": lambda a, y: fnp.sin(_float(a)), "sqrt(abs(a))": lambda a, y: fnp.sqrt(
            _float(fnp.abs(a))), "exp(a % 5)": lambda a, y: fnp.exp(_float(a % 5)),
        "cumsum(a)": lambda a, y: fnp.cumsum(a), "cumprod(a)": lambda a, y: fnp.cumprod(a),
        "sum(a)": lambda a, y: fnp.sum(a), "prod(a)": lambda a, y: fnp.prod(a),
        "mean(a)": lambda a, y: fnp.mean(a), "a.T": lambda a, y: a.T,
    }
    if nd:
        table.update({
            f"sum(axis={ax})": lambda a, y: fnp.sum(a, axis=ax),
            f"prod(axis={ax})": lambda a, y: fnp.prod(a, axis=ax),
            f"cumsum(axis={ax})": lambda a, y: fnp.cumsum(a, axis=ax),
            f"cumprod(axis={ax})": lambda a, y: fnp.cumprod(a, axis=ax),
            f"max(axis={ax})": lambda a, y: fnp.max(a, axis=ax),
            f"var(axis={ax})": lambda a, y: fnp.var(a, axis=ax),
            f"sort(axis={ax})": lambda a, y: fnp.sort(a, axis=ax),
            "einsum('...i,...i->...', a, a)": lambda a, y: fnp.einsum("...i,...i->...", a, a),
            "flip(a)": lambda a, y: fnp.flip(a, axis=ax),
        })
    if nd >= 2:
        table.update({"a @ swapaxes(a)": lambda a, y: a @ fnp.swapaxes(a, -1, -2),
                      "trace(a)": lambda a, y: fnp.trace(a)})
    label = draw.choice(sorted(table))
    return label, table[label]


def _y_for(a, y):
    """y where it has a's shape, else its first element (a 0-d array of y's dtype)."""
    return y if np.shape(a) == np.shape(y) else y.reshape(-1)[0]


class Case:
    """An integer program, maybe under vmap over a leading batch of 2, and its inputs."""

    def __init__(self, draw, seed):
        self.seed = seed
        self.dtype = np.dtype(draw.choice(DTYPES))
        self.shape = tuple(draw.integers(1, 3) for _ in range(draw.integers(0, 3)))
        rng = np.random.default_rng(seed)
        steps, cur = [], inputs(self.dtype, self.shape, rng)
        y0 = inputs(self.dtype, self.shape, rng)
        for _ in range(draw.integers(2, 6)):
            label, fn = _ops(draw, np.shape(cur))
            with np.errstate(all="ignore"):
                try:
                    nxt = np.asarray(fn(cur, _y_for(cur, y0)))
                except (ValueError, TypeError):   # a negative integer power, no loop for it
                    continue
            if nxt.size > MAX_SIZE or nxt.size == 0 or nxt.dtype.kind not in "iufb":
                continue
            if cur.dtype.kind == "f" and any(s in label for s in ("%", "//", "fmod")):
                continue   # ill-conditioned on floats (module docstring)
            steps.append((label, fn))
            cur = nxt
        self.desc = " -> ".join(label for label, _ in steps) or "identity"

        def program(x, y):
            a = x
            for _, fn in steps:
                a = fn(a, _y_for(a, y))
            return a
        self.batched = bool(draw.integers(0, 1))
        self.fn = ft.vmap(program) if self.batched else program

    def inputs(self, rng):
        shape = ((2,) if self.batched else ()) + self.shape
        return inputs(self.dtype, shape, rng), inputs(self.dtype, shape, rng)

    def describe(self):
        return (f"{self.dtype.name}{list(self.shape)}: {self.desc}"
                f"{' under vmap' if self.batched else ''}; seed {self.seed}")
