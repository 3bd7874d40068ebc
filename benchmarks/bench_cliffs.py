"""asv benchmarks for the confirmed performance cliffs (catalogue/cliffs.json), one class per
entry that has any: bench_cliffs.<Entry>.time_forward(case), where a case is a cliff
(`cliff_1023x1024`) or a neighbour it was confirmed against (`cliff_1023x1024/d1+1`), so
the cliff's ratio can be read on every release that has both (docs/search.md).

A module of its own: the operator classes of bench_operators keep their parameters and
versions. An entry without cliffs has no class here. Long selection only: these points are
recorded on purpose (`mxbench run ... --bench '^bench_cliffs\\.'`), not in every short run.
"""
from . import harness as H
from .bench_operators import global_name
from .catalogue import OPERATORS
from .catalogue.cliffs import cliff_entries, read_cliffs

# Bump when the way a cliff case is built or timed changes; part of every class's version.
CLIFF_METHOD_VERSION = "1"


class _CliffBenchmark(H.Timing):
    operator = None  # the entry, its cliff cases as its cases
    dtypes = None  # {case name: dtype}: each cliff was found in one dtype
    param_names = ["case"]
    timeout = 120
    short = False

    def setup(self, case):
        H.require_mxnet()
        self.call = H.prepare_call(self.operator, case, self.dtypes[case], H.context("cpu"))

    def time_forward(self, case):
        self.call.forward()


def _make_class(op, dtypes):
    return type(op.class_name, (_CliffBenchmark,), {
        "operator": op,
        "dtypes": dtypes,
        "params": [list(op.cases)],
        "version": "%s.%s.%s" % (H.HARNESS_VERSION, op.version, CLIFF_METHOD_VERSION),
        "__module__": __name__,
        "__doc__": "performance cliffs of %s (%s)" % (op.name, op.category),
    })


__dir__ = H.define_classes(globals(), {
    global_name(name): _make_class(op, dtypes)
    for name, (op, dtypes) in cliff_entries(OPERATORS, read_cliffs()).items()})
