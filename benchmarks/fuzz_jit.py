"""Long run of the differential tester of ft.jit (tests/jit_differential.py): random programs
under random stacks of transforms, eager against jitted over a sequence of calls, bit for bit.
Keeps going past failures and prints one reproducer per failure (re-run one with --seed N
--examples 1), then the count.

    PYTHONPATH=.:tests python benchmarks/fuzz_jit.py --examples 20000 [--seed 0]
"""
import argparse
import random
import sys
import warnings

from fuzz_compositions import run_cases
from fuzz_programs import RandomDraw
from jit_differential import JitCase


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=0, help="seed of the first example")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")   # special points make NaN on purpose; retrace warnings
    return run_cases(lambda seed: JitCase(RandomDraw(random.Random(seed)), seed), JitCase.run,
                     range(args.seed, args.seed + args.examples), verbose=args.verbose)


if __name__ == "__main__":
    sys.exit(main())
