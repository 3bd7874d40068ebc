"""asv benchmarks for every entry in catalogue.OPERATORS, one class per entry.

Names are stable: bench_operators.<Operator>.time_forward(shape, dtype, device), and
<Operator>_<form> for an operator's extra entries (Convolution_3d, RNN_gru).
`version` = harness version + entry version, so editing shared code keeps history.

setup() builds the inputs and makes the first call (shape inference, oneDNN primitive
creation) once per process and parameter point; asv re-runs setup before every sample, and
the cache in harness.prepare.prepare_call keeps that cheap. Memory: bench_memory.
"""
from . import harness as H
from .catalogue import OPERATORS

DEVICES = ["cpu", "gpu"]


class _OperatorBenchmark(H.Timing):
    operator = None  # the catalogue entry, set per generated class
    param_names = ["shape", "dtype", "device"]
    timeout = 120

    def setup(self, shape, dtype, device):
        H.require_mxnet()
        ctx = H.context(device)
        self.call = H.prepare_call(self.operator, shape, dtype, ctx)
        # a method known to kill the process here skips instead (the point's other methods
        # run; a whole point's crash skips in prepare_call)
        crashing = H.crashing_methods(self.operator, shape)
        if crashing:
            self.call = H.SkippingCall(self.call, crashing)

    def time_forward(self, shape, dtype, device):
        self.call.forward()


def _time_forward_backward(self, shape, dtype, device):
    self.call.forward_backward()


def short_shape(op):
    """The shape of the short selection's rule (mxbench.core.selection): the entry's declared
    short case, else `medium`, else its first."""
    return op.short_case or ("medium" if "medium" in op.cases else next(iter(op.cases)))


def _make_class(op):
    attrs = {
        # field cases after the entry's own: recorded points keep their names and versions
        "operator": op.replace(cases=op.all_cases) if op.field else op,
        "params": [list(op.all_cases), list(op.dtypes), DEVICES],
        "version": "%s.%s" % (H.HARNESS_VERSION, op.version),
        "__module__": __name__,
        "__doc__": "%s (%s)%s" % (op.name, op.category, ": " + op.note if op.note else ""),
    }
    if op.short_case or op.field:
        attrs["short_params"] = {"shape": [short_shape(op)] + list(op.field)}
    if op.pairs_with:
        # The pair is there to time the interface, which its forward call does; its backward
        # runs the mx.nd entry's backward kernels (np.sin's gradient is _backward_sin), which
        # that entry times in the short selection. Both stay in the long one.
        attrs["short_methods"] = ("time_forward",)
    if op.backward:
        attrs["time_forward_backward"] = _time_forward_backward
    return type(op.class_name, (_OperatorBenchmark,), attrs)


# asv_runner reads its settings (repeat, number, rounds, ...) from the benchmark method, then
# its class, then its *module*: a module global named like one of them would configure every
# benchmark here (the `repeat` operator's class would become everybody's `repeat`). Such a
# class is bound under another global name; asv names a benchmark by the class's __name__, so
# it is still bench_operators.repeat.
ASV_ATTRIBUTES = frozenset([
    "benchmark_name", "code", "env", "goal_time", "min_run_count", "number", "param_names",
    "params", "pretty_name", "processes", "repeat", "rounds", "sample_time", "setup",
    "setup_cache", "skip_params", "teardown", "timeout", "timer", "type", "unit", "version",
    "warmup_time"])


def global_name(class_name):
    return class_name + "_operator" if class_name in ASV_ATTRIBUTES else class_name


__dir__ = H.define_classes(globals(), {global_name(op.class_name): _make_class(op)
                                        for op in OPERATORS})
