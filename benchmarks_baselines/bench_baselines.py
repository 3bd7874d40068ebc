"""Neutral baselines: catalogue entries timed in MXNet, PyTorch and NumPy side by side.

One class per entry with a counterpart (benchmarks/counterparts.py):
bench_baselines.<Operator>.time_forward(shape, dtype, framework) and, where the entry has a
backward, time_forward_backward (MXNet and torch; NumPy has no autograd: skipped). The three
frameworks run in the same process, on the same input arrays (same seed, dtype, layout),
with torch's intra-op threads and NumPy's OpenBLAS set to MXNet's OpenMP thread count
(Threads.track_threads records it). CPU only: the torch build here is the CPU wheel.

asv.baselines.conf.json runs this directory, in environments with torch installed (their
own, beside the history's): in an environment without torch the torch points skip.
Runs inside benchmark environments: Python 3.7 syntax, no mxnet/torch at import time.
asv imports this folder by its name only: the sibling package `benchmarks` is importable
because the project is installed (the tool venv: pip install -e .; benchmark environments:
the install step, env_matrix/asv_hook.py).
"""
from benchmarks import counterparts as B
from benchmarks import harness as H
from benchmarks.bench_operators import global_name
from benchmarks.catalogue import OPERATORS

FRAMEWORKS = ["mxnet", "torch", "numpy"]
# Bump when the baseline harness (benchmarks/counterparts.py) changes what is measured.
BASELINES_VERSION = "1"


class _BaselineBenchmark(object):
    operator = None  # the catalogue entry, set per generated class
    param_names = ["shape", "dtype", "framework"]
    timeout = 120
    # A baseline run of every mapped entry (about 1,900 measured points) must stay
    # affordable, about 10 minutes per environment here: one round of at most 3 samples
    # after a short warm-up. Each ratio compares points of the same run and process.
    rounds = 1
    repeat = (1, 3, 0.5)
    warmup_time = 0.02

    def setup(self, shape, dtype, framework):
        H.require_mxnet()
        if framework == "mxnet":
            self.call = H.prepare_call(self.operator, shape, dtype, H.context("cpu"))
            return
        key = (self.operator.class_name, shape, dtype, framework)
        if key not in _CALLS:
            _CALLS.clear()  # one point at a time: the previous inputs are freed
            call = B.BaselineCall(self.operator, shape, dtype, framework)
            call.forward()  # the first call off the clock, as MXNet's
            _CALLS[key] = call
        self.call = _CALLS[key]

    def time_forward(self, shape, dtype, framework):
        self.call.forward()


_CALLS = {}


def _time_forward_backward(self, shape, dtype, framework):
    self.call.forward_backward()


def _make_class(op):
    frameworks = ["mxnet"] + [f for f in B.FRAMEWORKS if f in B.counterparts(op)]
    attrs = {
        "operator": op,
        "params": [list(op.cases), B.compared_dtypes(op), frameworks],
        "version": "%s.%s.%s" % (H.HARNESS_VERSION, op.version, BASELINES_VERSION),
        "__module__": __name__,
        "__doc__": "%s (%s): MXNet vs %s" % (op.name, op.category, ", ".join(frameworks[1:])),
    }
    if op.backward and "torch" in frameworks:
        attrs["time_forward_backward"] = _time_forward_backward
    return type(op.class_name, (_BaselineBenchmark,), attrs)


class Threads(object):
    """The threads each framework computes with here (MXNet's OpenMP count; torch's
    intra-op threads and NumPy's OpenBLAS threads once set to it)."""
    params = [FRAMEWORKS]
    param_names = ["framework"]
    version = BASELINES_VERSION
    unit = "threads"

    def setup(self, framework):
        H.require_mxnet()
        if framework != "mxnet":
            B.require_framework(framework)

    def track_threads(self, framework):
        if framework == "mxnet":
            return B.mxnet_omp_threads()
        return B.set_threads(framework)


# Module globals named like asv settings would configure every benchmark (see
# bench_operators.py): such classes are bound under another name (global_name).
for _op in OPERATORS:
    if B.counterparts(_op):
        globals()[global_name(_op.class_name)] = _make_class(_op)
del _op
