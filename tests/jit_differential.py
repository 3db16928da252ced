"""The differential tester of ft.jit: random programs run eagerly and jitted over a sequence of
calls, compared bit for bit (used by test_jit_differential.py and, for long runs, by
benchmarks/fuzz_jit.py).

A case is a random program under a random stack of transforms from the composition fuzzer
(fuzz_programs.Case), wrapped in a function that also takes a Python scalar argument `s`
(float, int, bool or complex), a static argument `n` (an int, a float or a bool: values that
hash equal) and reads a captured closure array `K`:

    f(x, y, s, n) = (g(x, y) * s + K * n,  g(x, y),  x,  (g(x, y) * s + K * n).T)

so its outputs include an argument returned as it is, a value returned twice in two forms and
a view. Some cases also write in place (IN_PLACE): `x *= 0.5` on the argument or `g *= 0.5`
on g, which eager NumPy does in place and ft.jit refuses with a TypeError naming the
functional form (writing nothing), or `total += s` on `total = sum(g)`, a NumPy scalar, which
rebinds (then g becomes g * total), as eagerly. The calls: new random values of the arguments' dtype (float64, or float32 for the
whole case), the same again, `K` changed in place (the rule: a captured array is read when the
function is traced, so the expected result is eager with K's traced value), static arguments
of each type in turn, a second dtype, and the arguments in other layouts (Fortran order twice:
a new signature, then its program; then every other element of wider arrays): vjp's copy of
its inputs, and every reduction and product downstream, follow the layout. After every call, each output must equal eager's bit
for bit (values and the sign of zero; a NaN as a NaN, its sign and payload being no part of the
contract), the Python type of every leaf (a 0-d result is the NumPy scalar or 0-d array eager
code gives), dtype and shape, and no output may share memory with an argument or another output.

In one case of two x holds a NaN (fuzz_programs.Case with nans=True): NaN slices of median and
quantile, NaN through sort, max and nanmax.

Choices come from a Draw, as in fuzz_programs.
"""
import numpy as np

import functorch_lite as ft
import functorch_lite.numpy as fnp
from fuzz_programs import Case

SCALARS = [0.75, -1.5, 3, 2, True, 0.5 + 0.25j]
STATICS = [2, 2.0, True, 1, -0.0, 0.0]
IN_PLACE = [None, None, None, "argument", "array", "scalar"]


def same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if got.dtype.kind in "fc":
        parts = [(got.real, want.real), (got.imag, want.imag)] if got.dtype.kind == "c" \
            else [(got, want)]
        # NaN's sign and payload are not compared (docs/jit.md: IEEE 754 leaves them open)
        return all(np.array_equal(a, b, equal_nan=True) and
                   np.array_equal(np.signbit(a) & ~np.isnan(a), np.signbit(b) & ~np.isnan(b))
                   for a, b in parts)
    return np.array_equal(got, want)


def close_values(got, want, rtol):
    """Equal dtype, shape and non-finite places, values within rounding (rtol of the values'
    scale: 1e-12 when the arguments are float64, 1e-5 when some are float32)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if got.dtype.kind not in "fc":
        return np.array_equal(got, want)
    finite = np.abs(want[np.isfinite(want)])
    atol = rtol * finite.max() if finite.size else 0.0    # (of the values' scale)
    return bool(np.array_equal(np.isfinite(got), np.isfinite(want))
                and np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True))


def _strided(a, fortran):
    """a's values in another layout: Fortran order (reversed for fewer than two axes), or every
    other element of the last axis of a wider array in Fortran order."""
    if a.ndim == 0:
        return a
    if fortran:
        return np.asfortranarray(a) if a.ndim >= 2 else np.ascontiguousarray(a[::-1])[::-1]
    wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype, order="F")
    wide[..., ::2] = a
    return wide[..., ::2]


def _leaves(out):
    return list(out) if isinstance(out, tuple) else [out]


class JitCase:
    """One random program, its calls, and the check of each call."""

    def __init__(self, draw, seed):
        self.seed = seed
        self.case = Case(draw, seed, nans=True)
        self.stage = self.case.stages[-1]
        # docs/control_flow.md: derivatives through a cond with a traced predicate sum the
        # branches' guarded cotangents, in another order than eager's one branch: rounding
        self.rounding = (any(k in self.case.program_desc for k in ("cond(", "switch("))
                         and any(not s.desc.startswith("vmap") for s in self.case.stages[1:]))
        rng = np.random.default_rng(seed + 7)
        x0, y0 = self.case.inputs_for(self.stage, rng)
        out_shape = np.shape(self.stage.fn(x0, y0))
        self.K = rng.uniform(-1, 1, size=out_shape[len(out_shape) - draw.integers(
            0, len(out_shape)):])
        self.scalar = draw.choice(SCALARS)
        self.statics = [draw.choice(STATICS) for _ in range(2)]
        self.dtypes = [draw.choice([np.float64, np.float32]), np.float64]
        self.in_place = in_place = draw.choice(IN_PLACE)
        stage, K = self.stage, self.K

        def f(x, y, s, n):
            if in_place == "argument":
                x *= 0.5
            g = stage.fn(x, y)
            if in_place == "array":
                g *= 0.5
            elif in_place == "scalar":
                total = fnp.sum(g)
                total += s
                g = g * total
            mixed = g * s + K * n
            return mixed, g, x, ft.numpy.transpose(mixed)
        self.f = f

    def describe(self):
        return (f"seed {self.seed}: {self.case.describe()}; s={self.scalar!r}, "
                f"statics={self.statics}, dtypes={[np.dtype(d).name for d in self.dtypes]}, "
                f"in place: {self.in_place}")

    def calls(self):
        """(description, args, mutate) for each call: mutate(K) runs just before it."""
        rng = np.random.default_rng(self.seed + 11)
        out = []
        for dtype in self.dtypes:
            for k in range(2):
                x, y = (a.astype(dtype) for a in self.case.inputs_for(self.stage, rng))
                out.append((f"{np.dtype(dtype).name} call {k}", (x, y, self.scalar,
                                                                  self.statics[0]), None))
            x, y = (a.astype(dtype) for a in self.case.inputs_for(self.stage, rng))
            out.append(("K changed in place", (x, y, self.scalar, self.statics[0]),
                        lambda K: K.__imul__(-3.0)))
            out.append(("another static", (x, y, self.scalar, self.statics[1]), None))
        x, y = (a.astype(self.dtypes[0]) for a in self.case.inputs_for(self.stage, rng))
        for what, fortran in (("Fortran order", True), ("Fortran order again", True),
                              ("strided views", False)):
            out.append((what, (_strided(x, fortran), _strided(y, fortran), self.scalar,
                               self.statics[0]), None))
        return out

    def run(self):
        """Run every call eagerly and jitted; raise AssertionError naming the first mismatch."""
        jitted = ft.jit(self.f, static_argnums=3)
        traced_K = self.K.copy()
        for what, args, mutate in self.calls():
            if mutate is not None:
                mutate(self.K)
            with np.errstate(all="ignore"):
                live = self.K.copy()
                self.K[...] = traced_K       # eager with K as the program captured it
                try:
                    want = self.f(*[np.copy(a) if isinstance(a, np.ndarray) and
                                    self.in_place == "argument" else a for a in args])
                except Exception as e:       # then jit raises the same error (the contract)
                    want = e
                finally:
                    self.K[...] = live
                if isinstance(want, Exception):
                    self._check_raises(what, args, jitted, want)
                elif self._writes_in_place(args):
                    self._check_refused(what, args, jitted, want)
                else:
                    self._check(what, args, _leaves(jitted(*args)), _leaves(want))
            if mutate is not None:            # the next calls trace with K's new value
                jitted = ft.jit(self.f, static_argnums=3)
                traced_K = self.K.copy()

    def _writes_in_place(self, args):
        """Whether eager code writes into an array in place (the argument, or g when the
        program gives an array): ft.jit refuses that (Note [augmented assignment under
        ft.jit])."""
        return self.in_place == "argument" or (
            self.in_place == "array" and isinstance(self.stage.fn(*args[:2]), np.ndarray))

    def _check_refused(self, what, args, jitted, want):
        """ft.jit refuses, naming the functional form and writing nothing, unless what eager
        code writes into is a constant of the program (g independent of the arguments, a
        jacobian of a linear function: written while tracing, as eagerly)."""
        before = [np.copy(a) for a in args[:2]]
        try:
            got = jitted(*args)
        except TypeError as e:
            assert "in place" in str(e) and "x = x * ..." in str(e), \
                f"{self.describe()}; {what}: the refusal does not name the functional form: {e}"
            assert all(same_bits(a, b) for a, b in zip(args, before)), \
                f"{self.describe()}; {what}: ft.jit wrote into an argument"
            return
        assert self.in_place == "array", \
            f"{self.describe()}; {what}: eager code writes into an argument, jit did not refuse"
        self._check(what, args, _leaves(got), _leaves(want))

    def _check_raises(self, what, args, jitted, error):
        try:
            jitted(*args)
        except type(error):
            return
        raise AssertionError(f"{self.describe()}; {what}: eager raised {error!r}, jit did not")

    def _check(self, what, args, got, want):
        where = f"{self.describe()}; {what}"
        assert len(got) == len(want), f"{where}: {len(got)} outputs, eager {len(want)}"
        arrays = [a for a in args if isinstance(a, np.ndarray)]
        for k, (g, w) in enumerate(zip(got, want)):
            single = any(a.dtype == np.float32 for a in arrays)
            same = close_values(g, w, 1e-5 if single else 1e-12) if self.rounding \
                else same_bits(g, w)
            assert same, f"{where}: output {k} differs\n jit   {g!r}\n eager {w!r}"
            assert type(g) is type(w), (f"{where}: output {k} is a {type(g).__name__}, eager "
                                        f"a {type(w).__name__}")
            if isinstance(g, np.ndarray):
                others = arrays + [o for j, o in enumerate(got)
                                   if j != k and isinstance(o, np.ndarray)]
                assert not any(np.shares_memory(g, o) for o in others), \
                    f"{where}: output {k} shares memory with an argument or another output"
