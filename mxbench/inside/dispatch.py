"""python -m mxbench dispatch: the dispatch floor of the installed MXNet under each A/B variant.

Times the smallest operator call (1-element add + wait_to_read) in fresh processes, one per
(round, variant), variants interleaved so that machine drift hits them alike; prints the
median per variant and its range over the processes. It shows how much of a small call is
the hand-off to MXNet's engine thread rather than the operator (README, Measurement).

    python -m mxbench dispatch                       # default, naive-engine, one-core, omp-1-thread
    python -m mxbench dispatch --variant default --variant one-core --processes 4
"""
import argparse
import os
import statistics
import subprocess
import sys

from tabulate import tabulate

from mxbench.asvrun import runner as asvtools
from mxbench.core.arguments import positive_int
from mxbench.core.errors import UserError

PROBE = r'''
import sys, time
from benchmarks import harness as H
a, b = H.mx.nd.ones((1,)), H.mx.nd.ones((1,))
(a + b).wait_to_read()
samples = []
for _ in range(%(samples)d):
    start = time.perf_counter()
    for _ in range(%(calls)d):
        (a + b).wait_to_read()
    samples.append((time.perf_counter() - start) / %(calls)d)
print(sorted(samples)[len(samples) // 2])
'''
DEFAULT_VARIANTS = ["default", "naive-engine", "one-core", "omp-1-thread"]


def floor_in_fresh_process(variant, samples, calls):
    """Median seconds per call in a new interpreter running under `variant`."""
    env = dict(os.environ, MXBENCH_VARIANT=variant)
    proc = subprocess.run([sys.executable, "-c", PROBE % {"samples": samples, "calls": calls}],
                          cwd=asvtools.ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError("variant %s: %s" % (variant, proc.stderr.strip().splitlines()[-1]))
    return float(proc.stdout.strip().splitlines()[-1])


def setup_arguments(subparsers):
    parser = subparsers.add_parser(
        "dispatch", help="the installed MXNet's dispatch floor under each A/B variant",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", action="append", help="env_matrix/variants.json name")
    parser.add_argument("--processes", type=positive_int, default=8, help="fresh processes per variant")
    parser.add_argument("--samples", type=positive_int, default=40, help="samples per process")
    parser.add_argument("--calls", type=positive_int, default=200, help="calls per sample")
    parser.set_defaults(func=cmd_dispatch, needs_project=False)
    return parser


def cmd_dispatch(args):
    variants = args.variant or DEFAULT_VARIANTS
    floors = dict((v, []) for v in variants)
    try:
        for _ in range(args.processes):
            for variant in variants:
                floors[variant].append(floor_in_fresh_process(variant, args.samples, args.calls))
    except RuntimeError as exc:
        raise UserError(exc)
    rows = [[v, "%.1f" % (1e6 * statistics.median(xs)), "%.1f-%.1f" % (1e6 * min(xs), 1e6 * max(xs))]
            for v, xs in floors.items()]
    print(tabulate(rows, headers=["variant", "dispatch floor (µs, median)", "range over processes"]))
    return 0
