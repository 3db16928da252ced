"""Long run of the composition fuzz (tests/fuzz_programs.py): random programs under random
stacks of 2-3 transforms, each level checked against a loop or finite differences. Keeps going
past failures and prints one reproducer per failure (re-run one with --seed N --examples 1).
With --device, each case runs instead on device arrays (device_sim, the CPU stand-in for CuPy,
or cupy with a GPU) and every level must equal the NumPy run (Case.check_device).

    PYTHONPATH=.:tests python benchmarks/fuzz_compositions.py --examples 2000 [--seed 0]
    PYTHONPATH=.:tests python benchmarks/fuzz_compositions.py --device [sim|cupy] --examples 5000
"""
import argparse
import collections
import random
import sys
import time
import traceback
import warnings

from fuzz_programs import Case, RandomDraw


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0, help="seed of the first example")
    parser.add_argument("--device", nargs="?", const="sim", choices=["sim", "cupy"],
                        help="compare device runs with NumPy runs (default module: sim)")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    check = Case.check
    if args.device:
        xp = _device_module(args.device)
        check = lambda case: case.check_device(xp)  # noqa: E731
    warnings.simplefilter("ignore", RuntimeWarning)  # special points make NaN on purpose
    on = f" on {args.device}" if args.device else ""
    return run_cases(lambda seed: Case(RandomDraw(random.Random(seed)), seed), check,
                     range(args.seed, args.seed + args.examples), on, args.verbose)


def run_cases(make, check, seeds, label="", verbose=False):
    """Build and check the case of each seed, going on past failures: one reproducer per
    failure, then the count (exit status 1 if any). Shared with fuzz_jit.py."""
    failures = collections.Counter()
    start = time.perf_counter()
    for seed in seeds:
        try:
            case = make(seed)
        except Exception:
            failures["building the case"] += 1
            print(f"seed {seed}: building the case failed\n{traceback.format_exc()}")
            continue
        try:
            check(case)
        except AssertionError as e:
            failures["wrong result"] += 1
            print(f"seed {seed}: WRONG {str(e)[:1500]}\n")
        except Exception as e:
            failures["error"] += 1
            print(f"seed {seed}: ERROR {type(e).__name__}: {str(e)[:400]}\n  "
                  f"{case.describe()}\n" + (traceback.format_exc() if verbose else ""))
    total = sum(failures.values())
    print(f"{len(seeds)} examples{label} in {time.perf_counter() - start:.0f} s: {total} "
          f"failures {dict(failures)}")
    return 1 if total else 0


def _device_module(name):
    if name == "cupy":
        import cupy
        return cupy
    from functorch_lite.testing import device_sim
    device_sim.register()
    return device_sim


if __name__ == "__main__":
    sys.exit(main())
