"""Peak memory of each catalogue entry's first call, one class per entry (CPU only).

bench_memory.<Operator>.track_first_call_peak_rss(shape, dtype): by how many bytes the
process's peak RSS rose during the operator's first call in a fresh process (asv forks one per
benchmark): its output, its workspace and the one-time set-up it triggers. setup() builds
the inputs but does not call the operator; a warmed-up call reuses freed blocks, and its
figure flipped between 0 and the output size from run to run (see harness.timing.first_call_peak_rss).
It is host memory, so GPU points are not measured here. The numpy interface's entries
(catalogue/np_interface.py) are left out: they run the same kernels as their mx.nd pairs; what the
interface adds is time per call (bench_operators), and their points would double this grid.

In the long selection only (`make bench SELECTION=long`; the short one times every entry).

The `small` shapes are left out: their first call raises peak RSS by 0.1-0.3 MB, nearly all
one-time set-up, and that moved by 57-64 KiB between two identical runs (16 of 628 points of
an A/A pair differed by 1.2x or more, all of them small): below what this method resolves.
"""
from . import harness as H
from .bench_operators import global_name
from .catalogue import NUMPY_CALLS, OPERATORS

# Bump when the memory method changes; part of every class's asv `version`.
MEMORY_METHOD_VERSION = "1"
# Shapes whose first-call figure is below the method's resolution (see above). Leaving a
# shape out changes the parameter grid only: asv keeps the recorded points of the others.
UNRESOLVED_SHAPES = ("small",)


def measured_cases(op):
    return [shape for shape in op.cases if shape not in UNRESOLVED_SHAPES]


class _FirstCallMemory(object):
    operator = None  # the catalogue entry, set per generated class
    param_names = ["shape", "dtype"]
    timeout = 120
    # The long selection's (mxbench/core/selection.py): a first call's memory moves only when a
    # release changes an operator's output, workspace or set-up, and its 412 short points
    # cost 50 s of a short run that has to stay within 10 minutes (docs/measurement.md).
    short = False

    def setup(self, shape, dtype):
        H.require_mxnet()
        self.call = H.prepare_cold_call(self.operator, shape, dtype, H.context("cpu"))

    def track_first_call_peak_rss(self, shape, dtype):
        return H.first_call_peak_rss(self.call, dtype)
    track_first_call_peak_rss.unit = "bytes"


def _make_class(op):
    return type(op.class_name, (_FirstCallMemory,), {
        "operator": op,
        "params": [measured_cases(op), list(op.dtypes)],
        "version": "%s.%s.%s" % (H.HARNESS_VERSION, op.version, MEMORY_METHOD_VERSION),
        "__module__": __name__,
        "__doc__": "first-call peak RSS of %s (%s)" % (op.name, op.category),
    })


MEASURED = [op for op in OPERATORS if op.call not in NUMPY_CALLS]
__dir__ = H.define_classes(globals(), {global_name(op.class_name): _make_class(op)
                                        for op in MEASURED})
