"""The empirical NTK contraction through fnp.einsum, against NumPy's einsum with and without a
contraction order.

    python benchmarks/einsum_ntk.py [--quick]

J1 (N, O, P) and J2 (M, O, P) are the Jacobians of a network's outputs with respect to its P
parameters at N and M inputs; the NTK is einsum("Nap,Mbp->NMab", J1, J2). NumPy's default
(optimize=False) runs one nested loop over all five indices; with a contraction order
(optimize="greedy") it is one GEMM. fnp.einsum optimizes by default, as torch and JAX do.
Times are the best of `repeat` runs, in milliseconds.
"""
import argparse

import numpy as np

import functorch_lite.numpy as fnp

from _timing import best_ms


def main(quick=False):
    n, o, p = (16, 10, 2000) if quick else (32, 10, 5000)
    rng = np.random.default_rng(0)
    j1, j2 = rng.standard_normal((n, o, p)), rng.standard_normal((n, o, p))
    spec = "Nap,Mbp->NMab"
    expected = np.tensordot(j1, j2, axes=([2], [2])).transpose(0, 2, 1, 3)
    assert np.allclose(fnp.einsum(spec, j1, j2), expected)
    repeat = 2 if quick else 3
    rows = [("fnp.einsum (default)", lambda: fnp.einsum(spec, j1, j2)),
            ("np.einsum optimize=False", lambda: np.einsum(spec, j1, j2)),
            ("np.einsum optimize='greedy'", lambda: np.einsum(spec, j1, j2, optimize="greedy"))]
    print(f"NTK contraction {spec}, N=M={n}, O={o}, P={p}")
    for name, fn in rows:
        print(f"  {name:30s} {best_ms(fn, repeat):9.2f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    main(parser.parse_args().quick)
