"""Peak memory of each catalogue entry's first call, one class per entry (CPU only).

bench_memory.<Operator>.track_first_call_peak_rss(shape, dtype): by how many bytes the
process's peak RSS rose during the operator's first call in a fresh process (asv forks one per
benchmark): its output, its workspace and the one-time set-up it triggers. setup() builds
the inputs but does not call the operator; a warmed-up call reuses freed blocks, and its
figure flipped between 0 and the output size from run to run (see _harness.first_call_peak_rss).
It is host memory, so GPU points are not measured here.
"""
from . import _harness as H
from .bench_operators import global_name
from .catalogue import OPERATORS

# Bump when the memory method changes; part of every class's asv `version`.
MEMORY_METHOD_VERSION = "1"


class _FirstCallMemory(object):
    operator = None  # the catalogue entry, set per generated class
    param_names = ["shape", "dtype"]
    timeout = 120

    def setup(self, shape, dtype):
        H.require_mxnet()
        self.call = H.prepare_cold_call(self.operator, shape, dtype, H.context("cpu"))

    def track_first_call_peak_rss(self, shape, dtype):
        return H.first_call_peak_rss(self.call)
    track_first_call_peak_rss.unit = "bytes"


def _make_class(op):
    return type(op.class_name, (_FirstCallMemory,), {
        "operator": op,
        "params": [list(op.cases), list(op.dtypes)],
        "version": "%s.%s.%s" % (H.HARNESS_VERSION, op.version, MEMORY_METHOD_VERSION),
        "__module__": __name__,
        "__doc__": "first-call peak RSS of %s (%s)" % (op.name, op.category),
    })


for _op in OPERATORS:
    globals()[global_name(_op.class_name)] = _make_class(_op)
del _op
