"""Long run of the differential tester of ft.jit (tests/jit_differential.py): random programs
under random stacks of transforms, eager against jitted over a sequence of calls, bit for bit.
Keeps going past failures and prints one reproducer per failure (re-run one with --seed N
--examples 1), then the count.

    PYTHONPATH=.:tests python benchmarks/fuzz_jit.py --examples 20000 [--seed 0]
"""
import argparse
import collections
import random
import sys
import time
import traceback
import warnings

from fuzz_programs import RandomDraw
from jit_differential import JitCase


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=0, help="seed of the first example")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    failures = collections.Counter()
    start = time.perf_counter()
    warnings.simplefilter("ignore")   # special points make NaN on purpose; retrace warnings
    for seed in range(args.seed, args.seed + args.examples):
        try:
            case = JitCase(RandomDraw(random.Random(seed)), seed)
        except Exception:
            failures["building the case"] += 1
            print(f"seed {seed}: building the case failed\n{traceback.format_exc()}")
            continue
        try:
            case.run()
        except AssertionError as e:
            failures["wrong result"] += 1
            print(f"seed {seed}: WRONG {str(e)[:1500]}\n")
        except Exception as e:
            failures["error"] += 1
            print(f"seed {seed}: ERROR {type(e).__name__}: {str(e)[:400]}\n  "
                  f"{case.describe()}\n" + (traceback.format_exc() if args.verbose else ""))
    total = sum(failures.values())
    print(f"{args.examples} examples in {time.perf_counter() - start:.0f} s: {total} failures "
          f"{dict(failures)}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
