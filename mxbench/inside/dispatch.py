"""python -m mxbench dispatch: the dispatch floor of the installed MXNet under each A/B variant.

Times the smallest operator call (1-element add + wait_to_read) in fresh processes, one per
(round, variant), variants interleaved so that machine drift hits them alike; prints the
median per variant and its range over the processes. It shows how much of a small call is
the hand-off to MXNet's engine thread rather than the operator (README, Measurement).

    python -m mxbench dispatch                       # default, naive-engine, one-core, omp-1-thread
    python -m mxbench dispatch --variant default --variant one-core --processes 4
"""
import os
import statistics
import subprocess
import sys

from tabulate import tabulate

from mxbench.core.project import ROOT
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
                          cwd=ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError("variant %s: %s" % (variant, proc.stderr.strip().splitlines()[-1]))
    return float(proc.stdout.strip().splitlines()[-1])


def floors(variants, processes, samples, calls):
    """{variant: [median seconds per call, one per fresh process]}, variants interleaved."""
    found = dict((v, []) for v in variants)
    try:
        for _ in range(processes):
            for variant in variants:
                found[variant].append(floor_in_fresh_process(variant, samples, calls))
    except RuntimeError as exc:
        raise UserError(exc)
    return found


def floors_table(found):
    rows = [[v, "%.1f" % (1e6 * statistics.median(xs)), "%.1f-%.1f" % (1e6 * min(xs), 1e6 * max(xs))]
            for v, xs in found.items()]
    return tabulate(rows, headers=["variant", "dispatch floor (µs, median)", "range over processes"])
