"""GPU memory of each catalogue entry's first call (GPU flavors; skips without a GPU).

bench_device_memory.FirstCall.track_first_call_device_bytes(operator): by how many bytes the
device memory in use (mx.context.gpu_memory_info: total - free) rose during the operator's
first call on gpu(0), in a fresh process, float32 (or the entry's first dtype) and its first
case other than `small`. bench_memory is host RSS only; this is the device's side. One
parameterized class rather than one per entry: on a CPU machine every point is one quick skip.
MXNet before 1.3.1 has no gpu_memory_info: those releases skip and say so.
"""
from . import harness as H
from .bench_memory import measured_cases
from .catalogue import OPERATORS

DEVICE_MEMORY_METHOD_VERSION = "1"
BY_CLASS = dict((op.class_name, op) for op in OPERATORS if measured_cases(op))


def chosen_case(op):
    dtype = "float32" if "float32" in op.dtypes else op.dtypes[0]
    return measured_cases(op)[0], dtype


class FirstCall(object):
    params = [sorted(BY_CLASS)]
    param_names = ["operator"]
    devices_only = ("gpu",)  # mxbench selects no point of it for CPU flavors
    short_params = {"operator": params[0]}  # every entry allocates: all in the short selection
    timeout = 120
    version = "%s.%s" % (H.HARNESS_VERSION, DEVICE_MEMORY_METHOD_VERSION)

    def setup(self, operator):
        H.require_mxnet()
        self.ctx = H.context("gpu")
        op = BY_CLASS[operator]
        shape, dtype = chosen_case(op)
        self.call = H.prepare_cold_call(op, shape, dtype, self.ctx)

    def track_first_call_device_bytes(self, operator):
        return H.first_call_device_bytes(self.call, self.ctx)
    track_first_call_device_bytes.unit = "bytes"
