"""asv benchmarks for real networks: every unique layer they run, and each model end to end.

Generated from benchmarks/model_layers.json, which `python -m mxbench models extract` writes
from the models' own graphs (benchmarks/_models.py); nothing here asks mxnet at import time,
so the classes are the same in every environment.

  bench_models.<Op>_<first input shape>_<key>.time_forward(device)   one layer, inference
  ...time_forward_backward(device)   the same layer's training pass (layers of batch 32)
  bench_models.Model_<model>.time_forward(batch, mode, device)   the model end to end
  ...time_forward_backward(batch, mode, device)   training (batch 32; not fused)

A layer used by several models is one benchmark (its key is the hash of its description:
operator, attributes, input shapes, dtype). mode: imperative, hybridized, or fused
(hybridized with the build's MKL-DNN subgraph backend, where it has one).
Run them on their own: `python -m mxbench run 1.9.1 --bench '^bench_models\\.'`.
"""
from . import harness as H
from . import _models as M

DEVICES = ["cpu", "gpu"]
VERSION = "%s.1" % H.HARNESS_VERSION


class _LayerBenchmark(object):
    layer = None
    param_names = ["device"]
    params = [DEVICES]
    # A layer call takes microseconds to a few hundred milliseconds: few samples, one round,
    # so that the few hundred layers stay affordable (setup made the first call already).
    rounds = 1
    repeat = (2, 5, 1.0)
    warmup_time = 0.05
    timeout = 120

    def setup(self, device):
        H.require_mxnet()
        ctx = H.context(device)
        key = ("layer", self.layer["key"], str(ctx))
        if key not in _PREPARED:
            _PREPARED.clear()
            _PREPARED[key] = M.LayerCall(self.layer, ctx)
        self.call = _PREPARED[key]

    def time_forward(self, device):
        self.call.forward()


def _time_layer_forward_backward(self, device):
    self.call.forward_backward()


class _ModelBenchmark(object):
    spec = None
    param_names = ["batch", "mode", "device"]
    # One call is 10 ms (batch 1) to tens of seconds (ResNet-50 training at batch 32 on two
    # cores): one call per sample, one round, a second sample only when the first took
    # less than 5 s (setup's untimed first call is the warm-up).
    number = 1
    rounds = 1
    repeat = (1, 2, 5.0)
    warmup_time = 0.0
    timeout = 600

    def setup(self, batch, mode, device):
        H.require_mxnet()
        ctx = H.context(device)
        key = ("model", self.spec.name, batch, mode, str(ctx))
        if key not in _PREPARED:
            _PREPARED.clear()
            _PREPARED[key] = M.ModelCall(self.spec, batch, mode, ctx)
        self.call = _PREPARED[key]

    def time_forward(self, batch, mode, device):
        self.call.forward()

    def time_forward_backward(self, batch, mode, device):
        if batch not in self.spec.training:
            H.skip("%s trains at batch %s only" % (self.spec.name, self.spec.training))
        if mode == "fused":
            H.skip("the MKL-DNN subgraph backend fuses inference graphs only")
        self.call.forward_backward()


_PREPARED = {}  # setup() runs before every asv sample: build once per process and point


def _layer_class(layer):
    attrs = {
        "layer": layer,
        "version": VERSION,
        "__module__": __name__,
        "__doc__": "%s %s on %s %s, in %s" % (
            layer["op"], layer["attrs"], " ".join("x".join(map(str, s)) for s in layer["shapes"]),
            layer["dtype"], ", ".join("%s b%d x%d" % tuple(u) for u in layer["uses"])),
    }
    if layer["training"]:
        attrs["time_forward_backward"] = _time_layer_forward_backward
    return type(str(layer["name"]), (_LayerBenchmark,), attrs)


def _model_class(spec):
    attrs = {
        "spec": spec,
        "params": [spec.batches, M.MODES, DEVICES],
        "version": VERSION,
        "__module__": __name__,
        "__doc__": "%s end to end" % spec.title,
    }
    return type("Model_" + spec.name, (_ModelBenchmark,), attrs)


__dir__ = H.define_classes(
    globals(), {str(layer["name"]): _layer_class(layer)
                for layer in M.unique_layers(M.load_data()).values()},
    {"Model_" + spec.name: _model_class(spec) for spec in M.MODELS})
