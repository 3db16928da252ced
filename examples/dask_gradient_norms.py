"""Per-example gradient norms of an MLP over a data set that never sits in memory, on a Dask
cluster: the data is generated chunk by chunk, `ft.vmap(ft.grad(loss))` runs once per chunk on
the workers, and only the norms (one float per example) come back.

    python examples/dask_gradient_norms.py                 # 200,000 examples, 1 then 2 workers
    python examples/dask_gradient_norms.py --examples 4000 --chunk 500

Prints throughput with one and two workers and the peak resident memory of a worker. Needs the
`dask` extra (dask[array] and distributed).
"""
import argparse
import resource
import time

import dask.array as da
import numpy as np
from distributed import Client, LocalCluster, progress

import functorch_lite as ft

IN, HIDDEN, OUT = 784, 128, 10


def init_params(seed=0):
    rng = np.random.default_rng(seed)
    return {"w1": (rng.standard_normal((IN, HIDDEN)) / np.sqrt(IN)).astype(np.float32),
            "b1": np.zeros(HIDDEN, np.float32),
            "w2": (rng.standard_normal((HIDDEN, OUT)) / np.sqrt(HIDDEN)).astype(np.float32),
            "b2": np.zeros(OUT, np.float32)}


def loss(params, x, label):
    """One example's cross-entropy loss."""
    h = np.tanh(x @ params["w1"] + params["b1"])
    return ft.nn.cross_entropy(h @ params["w2"] + params["b2"], label)


def gradient_norm(params, x, label):
    grads = ft.grad(loss)(params, x, label)
    return np.sqrt(sum(np.sum(g * g) for g in grads.values()))


def make_block(block_info=None):
    """One chunk of synthetic digits-like data, seeded by its position (never all in memory)."""
    (start, stop), _ = block_info[None]["array-location"]
    rng = np.random.default_rng(start)
    return rng.standard_normal((stop - start, IN)).astype(np.float32)


def data(n, chunk):
    images = da.map_blocks(make_block, chunks=((chunk,) * (n // chunk) + ((n % chunk,) if n % chunk
                                                                          else ()), (IN,)),
                           dtype=np.float32)
    labels = (images[:, :OUT].argmax(axis=1)).astype(np.int64)  # a function of the image
    return images, labels


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def run(n_workers, n, chunk, params):
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        images, labels = data(n, chunk)
        norms = ft.vmap(gradient_norm, in_dims=(None, 0, 0))(params, images, labels)
        start = time.perf_counter()
        future = client.compute(norms)
        progress(future)
        result = future.result()
        seconds = time.perf_counter() - start
        peak = max(client.run(peak_rss_mb).values())
    print(f"\n{n_workers} worker(s): {n} examples in {seconds:.1f} s = {n / seconds:,.0f} "
          f"examples/s; peak worker memory {peak:.0f} MB")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200_000)
    parser.add_argument("--chunk", type=int, default=500)
    args = parser.parse_args()
    params = init_params()
    one = run(1, args.examples, args.chunk, params)
    two = run(2, args.examples, args.chunk, params)
    assert np.array_equal(one, two), "the result must not depend on the number of workers"
    # Check a few examples against grad on the in-memory example.
    images, labels = data(args.examples, args.chunk)
    for i in (0, args.examples // 2, args.examples - 1):
        x, y = images[i].compute(), labels[i].compute()
        np.testing.assert_allclose(one[i], gradient_norm(params, x, y), rtol=1e-5)
    print(f"gradient norms: mean {one.mean():.4f}, max {one.max():.4f}; checked against "
          "in-memory grad")


if __name__ == "__main__":
    main()
