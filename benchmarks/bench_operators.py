"""asv benchmarks for every operator in catalogue.OPERATORS, one class per operator.

Names are stable: bench_operators.<Operator>.time_forward(shape, dtype, device).
`version` = harness version + entry version, so editing shared code keeps history.
"""
from . import _harness as H
from .catalogue import OPERATORS

DEVICES = ["cpu", "gpu"]


class _OperatorBenchmark(object):
    operator = None  # the catalogue entry, set per generated class
    param_names = ["shape", "dtype", "device"]
    timeout = 120

    def setup(self, shape, dtype, device):
        H.require_mxnet()
        ctx = H.context(device)
        op = self.operator
        self.fn = H.operator_function(op.name)
        case = op.cases[shape]
        self.kwargs = dict(op.kwargs, **case.kwargs)
        self.args, self.grads = H.build_inputs(case, dtype, ctx)

    def _forward(self):
        H.sync(self.fn(*self.args, **self.kwargs))

    def _forward_backward(self):
        with H.autograd.record():
            out = self.fn(*self.args, **self.kwargs)
        H.autograd.backward(out if isinstance(out, (list, tuple)) else [out])
        H.sync([g.grad for g in self.grads])

    def time_forward(self, shape, dtype, device):
        self._forward()

    def track_forward_peak_rss(self, shape, dtype, device):
        return H.peak_rss_increase(self._forward)
    track_forward_peak_rss.unit = "bytes"


def _time_forward_backward(self, shape, dtype, device):
    self._forward_backward()


def _make_class(op):
    attrs = {
        "operator": op,
        "params": [list(op.cases), list(op.dtypes), DEVICES],
        "version": "%s.%s" % (H.HARNESS_VERSION, op.version),
        "__module__": __name__,
        "__doc__": "%s (%s)" % (op.name, op.category),
    }
    if op.backward:
        attrs["time_forward_backward"] = _time_forward_backward
    return type(op.class_name, (_OperatorBenchmark,), attrs)


for _op in OPERATORS:
    globals()[_op.class_name] = _make_class(_op)
del _op
