"""asv benchmarks for Gluon blocks, losses and common fusions, imperative and hybridized.

oneDNN (MKL-DNN) builds fuse Conv+BN+ReLU, Conv+ReLU and Dense+ReLU when hybridized, so the
`hybridized` column against `imperative` shows what fusion buys on each flavor.

A block's case is its data shape, or a catalogue Case when it takes more inputs (a loss takes
a prediction and a label). time_forward is inference (Dropout is then the identity, BatchNorm
uses its running statistics); time_forward_backward records, so it runs the training path.
A release without a layer class (GroupNorm, GELU, ... arrived after 1.0) skips. Where Gluon
runs on the numpy interface (MXNet 2.0: blocks take mx.np arrays only), the inputs are mx.np
ndarrays with the same values (harness.inputs.numpy_interface, asked of the release itself).
"""
from . import harness as H
from .catalogue import BLOCKS, Case, T, case

DEVICES = ["cpu", "gpu"]
MODES = ["imperative", "hybridized"]


def _layer(module, name):
    """gluon.nn.<name> (or rnn/loss), or a skip on a release that does not have it."""
    cls = getattr(module, name, None)
    if cls is None:
        raise NotImplementedError("mxnet %s has no gluon %s" % (H.mx.__version__, name))
    return cls


def _sequential(gluon, *layers):
    net = gluon.nn.HybridSequential()
    net.add(*layers)
    return net


# Factories: (gluon module, data Tensor) -> block. Channel counts come from the data shape.
def dense(g, data):
    return _sequential(g, g.nn.Dense(data.shape[1], in_units=data.shape[1]))


def dense_relu(g, data):
    return _sequential(g, g.nn.Dense(data.shape[1], in_units=data.shape[1]),
                       g.nn.Activation("relu"))


def conv1d(g, data):
    return _sequential(g, g.nn.Conv1D(64, kernel_size=3, padding=1, in_channels=data.shape[1]))


def conv2d(g, data):
    return _sequential(g, g.nn.Conv2D(64, kernel_size=3, padding=1, in_channels=data.shape[1]))


def conv3d(g, data):
    return _sequential(g, g.nn.Conv3D(16, kernel_size=3, padding=1, in_channels=data.shape[1]))


def conv2d_transpose(g, data):
    return _sequential(g, g.nn.Conv2DTranspose(data.shape[1] // 2, kernel_size=4, strides=2,
                                               padding=1, in_channels=data.shape[1]))


def conv_bn_relu(g, data):
    return _sequential(g, g.nn.Conv2D(64, kernel_size=3, padding=1, in_channels=data.shape[1]),
                       g.nn.BatchNorm(in_channels=64), g.nn.Activation("relu"))


def conv_relu(g, data):
    return _sequential(g, g.nn.Conv2D(64, kernel_size=3, padding=1, in_channels=data.shape[1]),
                       g.nn.Activation("relu"))


def max_pool2d(g, data):
    return _sequential(g, g.nn.MaxPool2D(pool_size=2, strides=2))


def avg_pool2d(g, data):
    return _sequential(g, g.nn.AvgPool2D(pool_size=2, strides=2))


def global_avg_pool2d(g, data):
    return _sequential(g, g.nn.GlobalAvgPool2D())


def batch_norm(g, data):
    return _sequential(g, g.nn.BatchNorm(in_channels=data.shape[1]))


def layer_norm(g, data):
    return _sequential(g, _layer(g.nn, "LayerNorm")(in_channels=data.shape[-1]))


def instance_norm(g, data):
    return _sequential(g, _layer(g.nn, "InstanceNorm")(in_channels=data.shape[1]))


def group_norm(g, data):
    return _sequential(g, _layer(g.nn, "GroupNorm")(num_groups=4))


def dropout(g, data):
    return _sequential(g, g.nn.Dropout(0.5))


def embedding(g, data):
    return _sequential(g, g.nn.Embedding(data.high, 64))  # ids are drawn below data.high


def leaky_relu(g, data):
    return _sequential(g, g.nn.LeakyReLU(0.1))


def prelu(g, data):
    return _sequential(g, _layer(g.nn, "PReLU")())


def elu(g, data):
    return _sequential(g, _layer(g.nn, "ELU")())


def selu(g, data):
    return _sequential(g, _layer(g.nn, "SELU")())


def swish(g, data):
    return _sequential(g, _layer(g.nn, "Swish")())


def gelu(g, data):
    return _sequential(g, _layer(g.nn, "GELU")())


def rnn(g, data):
    return g.rnn.RNN(data.shape[-1], input_size=data.shape[-1])


def lstm(g, data):
    return g.rnn.LSTM(data.shape[-1], input_size=data.shape[-1])


def gru(g, data):
    return g.rnn.GRU(data.shape[-1], input_size=data.shape[-1])


def _loss(name):
    def factory(g, data):
        return _layer(g.loss, name)()
    factory.__name__ = name
    return factory


FACTORIES = {
    "dense": dense, "dense_relu": dense_relu, "conv1d": conv1d, "conv2d": conv2d,
    "conv3d": conv3d, "conv2d_transpose": conv2d_transpose, "conv_bn_relu": conv_bn_relu,
    "conv_relu": conv_relu, "max_pool2d": max_pool2d, "avg_pool2d": avg_pool2d,
    "global_avg_pool2d": global_avg_pool2d, "batch_norm": batch_norm,
    "layer_norm": layer_norm, "instance_norm": instance_norm, "group_norm": group_norm,
    "dropout": dropout, "embedding": embedding, "leaky_relu": leaky_relu, "prelu": prelu,
    "elu": elu, "selu": selu, "swish": swish, "gelu": gelu, "rnn": rnn, "lstm": lstm,
    "gru": gru, "l1_loss": _loss("L1Loss"), "l2_loss": _loss("L2Loss"),
    "softmax_ce_loss": _loss("SoftmaxCrossEntropyLoss"),
    "sigmoid_bce_loss": _loss("SigmoidBinaryCrossEntropyLoss"),
    "huber_loss": _loss("HuberLoss"), "kldiv_loss": _loss("KLDivLoss"),
}


def block_case(block, shape):
    """The catalogue Case for a block's shape class (a bare shape is one normal input)."""
    spec = block.cases[shape]
    return spec if isinstance(spec, Case) else case(T(*spec))


class _Prepared(object):
    """A built, initialised (and maybe hybridized) block with its inputs, warmed up."""

    def __init__(self, block, shape, dtype, mode, ctx):
        from mxnet import gluon
        the_case = block_case(block, shape)
        H.seed_everything()
        self.net = FACTORIES[block.build](gluon, the_case.inputs[0])
        self.net.initialize(ctx=ctx)
        self.net.cast(dtype)
        if mode == "hybridized":
            if H.release_tuple() >= (1, 3):
                self.net.hybridize(static_alloc=True, static_shape=True)
            else:
                self.net.hybridize()
        self.inputs, self.grads = H.build_inputs(the_case, dtype, ctx, H.numpy_interface())
        self.params = list(self.net.collect_params().values())
        # The first call builds the graph (and the fused graph when hybridized): not timed.
        H.sync(self.net(*self.inputs))

    def forward(self):
        H.sync(self.net(*self.inputs))

    def forward_backward(self):
        with H.autograd.record():
            out = self.net(*self.inputs)
        H.autograd.backward(H.heads(out))
        H.sync([p.grad() for p in self.params if p.grad_req != "null"]
               + [g.grad for g in self.grads])


_PREPARED = {}  # setup() runs before every asv sample: build once per process and point


class _BlockBenchmark(H.Timing):
    block = None
    param_names = ["shape", "dtype", "mode", "device"]
    timeout = 120

    def setup(self, shape, dtype, mode, device):
        H.require_mxnet()
        ctx = H.context(device)
        key = (self.block.name, shape, dtype, mode, str(ctx))
        if key not in _PREPARED:
            _PREPARED.clear()
            _PREPARED[key] = _Prepared(self.block, shape, dtype, mode, ctx)
        self.prepared = _PREPARED[key]
        self.net, self.params = self.prepared.net, self.prepared.params

    def time_forward(self, shape, dtype, mode, device):
        self.prepared.forward()

    def time_forward_backward(self, shape, dtype, mode, device):
        self.prepared.forward_backward()


def _make_class(block):
    attrs = {
        "block": block,
        "params": [list(block.cases), list(block.dtypes), MODES, DEVICES],
        "version": "%s.%s" % (H.HARNESS_VERSION, block.version),
        "__module__": __name__,
        "__doc__": "Gluon %s (%s)" % (block.name, block.category),
    }
    return type(block.name, (_BlockBenchmark,), attrs)


__dir__ = H.define_classes(globals(), {block.name: _make_class(block) for block in BLOCKS})
