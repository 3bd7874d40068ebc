"""asv benchmarks for Gluon blocks and common fusions, imperative and hybridized.

oneDNN (MKL-DNN) builds fuse Conv+BN+ReLU and Dense+ReLU when hybridized, so the
`hybridized` column against `imperative` shows what fusion buys on each flavor.
"""
from . import _harness as H
from .catalogue import BLOCKS, T, case

DEVICES = ["cpu", "gpu"]
MODES = ["imperative", "hybridized"]


def dense(nn, in_units):
    net = nn.HybridSequential()
    net.add(nn.Dense(in_units, in_units=in_units))
    return net


def dense_relu(nn, in_units):
    net = nn.HybridSequential()
    net.add(nn.Dense(in_units, in_units=in_units), nn.Activation("relu"))
    return net


def conv2d(nn, channels):
    net = nn.HybridSequential()
    net.add(nn.Conv2D(64, kernel_size=3, padding=1, in_channels=channels))
    return net


def conv_bn_relu(nn, channels):
    net = nn.HybridSequential()
    net.add(nn.Conv2D(64, kernel_size=3, padding=1, in_channels=channels),
            nn.BatchNorm(in_channels=64), nn.Activation("relu"))
    return net


FACTORIES = {"dense": dense, "dense_relu": dense_relu, "conv2d": conv2d,
             "conv_bn_relu": conv_bn_relu}


class _BlockBenchmark(object):
    block = None
    param_names = ["shape", "dtype", "mode", "device"]
    timeout = 120

    def setup(self, shape, dtype, mode, device):
        H.require_mxnet()
        ctx = H.context(device)
        from mxnet.gluon import nn
        data_shape = self.block.cases[shape]
        H.seed_everything()
        self.net = FACTORIES[self.block.build](nn, data_shape[1])
        self.net.initialize(ctx=ctx)
        self.net.cast(dtype)
        if mode == "hybridized":
            self.net.hybridize(static_alloc=True, static_shape=True) \
                if H.release_tuple() >= (1, 3) else self.net.hybridize()
        (self.data,), self.grads = H.build_inputs(case(T(*data_shape)), dtype, ctx)
        self.params = list(self.net.collect_params().values())
        # The first call builds the graph (and the fused graph when hybridized): not timed.
        H.sync(self.net(self.data))

    def time_forward(self, shape, dtype, mode, device):
        H.sync(self.net(self.data))

    def time_forward_backward(self, shape, dtype, mode, device):
        with H.autograd.record():
            out = self.net(self.data)
        out.backward()
        H.sync([p.grad() for p in self.params] + [self.data.grad])


def _make_class(block):
    attrs = {
        "block": block,
        "params": [list(block.cases), list(block.dtypes), MODES, DEVICES],
        "version": "%s.%s" % (H.HARNESS_VERSION, block.version),
        "__module__": __name__,
        "__doc__": "Gluon %s (%s)" % (block.name, block.category),
    }
    return type(block.name, (_BlockBenchmark,), attrs)


for _block in BLOCKS:
    globals()[_block.name] = _make_class(_block)
del _block

