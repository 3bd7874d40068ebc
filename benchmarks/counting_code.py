"""The version of the instruction counts' counting code: a hash of the modules the counting
process imports from this suite (benchmarks/harness/*.py). An edit there moves the heap the
counted call finds, and with it small counts by up to 1.65 % (docs/instructions.md), so two
counts compare only when this version is the same. Recorded with each count (mxbench's
conditions log), printed by the ad-hoc path (python -m benchmarks.bench_instructions).

Standalone (the standard library only): mxbench computes it on the host, and the counting
process never imports it (an import would be part of the heap it measures).
"""
import hashlib
import os

HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "harness")


def version(folder=HARNESS):
    """12 hex digits of blake2b over the harness's Python files, names and bytes."""
    digest = hashlib.blake2b(digest_size=6)
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), "rb") as fh:
                content = fh.read()
            digest.update(("%s %d\n" % (name, len(content))).encode())
            digest.update(content)
    return digest.hexdigest()
