"""The empirical NTK contraction through fnp.einsum, against NumPy's einsum with and without a
contraction order.

    python benchmarks/einsum_ntk.py [--quick]

J1 (N, O, P) and J2 (M, O, P) are the Jacobians of a network's outputs with respect to its P
parameters at N and M inputs; the NTK is einsum("Nap,Mbp->NMab", J1, J2). NumPy's default
(optimize=False) runs one nested loop over all five indices; with a contraction order
(optimize="greedy") it is one GEMM. fnp.einsum optimizes by default, as torch and JAX do, and
so does np.einsum on the values of ft.jit (and of every transform): the same line of code is
NumPy's loop on plain arrays and the optimized einsum under jit (docs/sharp_bits.md).
A second, small contraction chains three Jacobians (ij,bjk,kl->bil). Times are medians of
interleaved runs in CPU time (steadier on a shared machine), in milliseconds, with the ratio
to fnp.einsum.
"""
import argparse
import time

import numpy as np

import functorch_lite as ft
import functorch_lite.numpy as fnp

from _timing import interleaved_medians


def main(quick=False):
    n, o, p = (16, 10, 2000) if quick else (32, 10, 5000)
    rng = np.random.default_rng(0)
    j1, j2 = rng.standard_normal((n, o, p)), rng.standard_normal((n, o, p))
    spec = "Nap,Mbp->NMab"
    expected = np.tensordot(j1, j2, axes=([2], [2])).transpose(0, 2, 1, 3)
    assert np.allclose(fnp.einsum(spec, j1, j2), expected)
    repeat = 5 if quick else 9
    chain = [rng.standard_normal(shape) for shape in [(10, 30), (16, 30, 30), (30, 10)]]
    for spec, args in [(spec, (j1, j2)), ("ij,bjk,kl->bil", chain)]:
        _compare(spec, args, repeat)


def _compare(spec, args, repeat):
    jitted = ft.jit(lambda *a: np.einsum(spec, *a))
    assert np.allclose(jitted(*args), np.einsum(spec, *args, optimize="greedy"))
    rows = [("fnp.einsum (default)", lambda: fnp.einsum(spec, *args)),
            ("np.einsum optimize=False", lambda: np.einsum(spec, *args)),
            ("np.einsum optimize='greedy'", lambda: np.einsum(spec, *args, optimize="greedy")),
            ("np.einsum under ft.jit", lambda: jitted(*args))]
    times = interleaved_medians([fn for _, fn in rows], repeat, clock=time.process_time)
    print(f"{spec}, shapes {[a.shape for a in args]}")
    for (name, _), t in zip(rows, times):
        print(f"  {name:30s} {t * 1e3:9.3f} ms  {t / times[0]:6.1f}x")

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    main(parser.parse_args().quick)
