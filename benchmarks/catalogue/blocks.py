"""Gluon blocks, run imperatively and hybridized (bench_gluon.py): layers, losses and the
fusions oneDNN builds make when a block is hybridized.

Runs inside benchmark environments: Python 3.7 syntax, no mxnet.
"""
from collections import OrderedDict, namedtuple

from .entries import FLOAT32, T, case

Block = namedtuple("Block", "name category build cases dtypes version")


def _block(name, category, build, cases, dtypes=FLOAT32, version=1):
    return Block(name, category, build, OrderedDict(cases), dtypes, version)


_DENSE = [("small", (16, 64)), ("medium", (256, 1024))]
_IMAGE = [("small", (1, 3, 16, 16)), ("medium", (32, 3, 64, 64))]
_FEATURES = [("small", (2, 8, 8, 8)), ("medium", (32, 64, 28, 28))]
_SEQUENCE = [("small", (4, 2, 8)), ("medium", (32, 32, 128))]  # (T, N, C)
_VECTOR = [("small", (16, 16)), ("medium", (1024, 1024))]


def _loss_cases(label=None):
    """Prediction (N, C) and a label: same shape by default, or class indices (N,)."""
    out = []
    for name, (n, c) in _VECTOR:
        if label == "class":
            out.append((name, case(T(n, c), T(n, fill="index", high=c))))
        elif label == "sign":
            out.append((name, case(T(n, c), T(n, c, fill="index", high=2))))
        else:
            out.append((name, case(T(n, c), T(n, c, fill="uniform", low=0.0, high=1.0,
                                                 grad=False))))
    return out


BLOCKS = [
    _block("Dense", "gluon", "dense", _DENSE),
    _block("Conv1D", "gluon", "conv1d", [("small", (1, 4, 64)), ("medium", (16, 64, 512))]),
    _block("Conv2D", "gluon", "conv2d", _IMAGE),
    _block("Conv3D", "gluon", "conv3d", [("small", (1, 3, 8, 8, 8)),
                                         ("medium", (2, 8, 16, 32, 32))]),
    _block("Conv2DTranspose", "gluon", "conv2d_transpose", [("small", (1, 8, 8, 8)),
                                                            ("medium", (8, 32, 32, 32))]),
    _block("MaxPool2D", "gluon", "max_pool2d", _FEATURES),
    _block("AvgPool2D", "gluon", "avg_pool2d", _FEATURES),
    _block("GlobalAvgPool2D", "gluon", "global_avg_pool2d", _FEATURES),
    _block("BatchNorm", "gluon", "batch_norm", _FEATURES),
    _block("LayerNorm", "gluon", "layer_norm", _DENSE),
    _block("InstanceNorm", "gluon", "instance_norm", _FEATURES),
    _block("GroupNorm", "gluon", "group_norm", _FEATURES),
    _block("Dropout", "gluon", "dropout", _VECTOR),
    _block("Embedding", "gluon", "embedding",
           [("small", case(T(4, 8, fill="index", high=16))),
            ("medium", case(T(64, 128, fill="index", high=10000)))]),
    _block("LeakyReLU", "gluon", "leaky_relu", _VECTOR),
    _block("PReLU", "gluon", "prelu", _VECTOR),
    _block("ELU", "gluon", "elu", _VECTOR),
    _block("SELU", "gluon", "selu", _VECTOR),
    _block("Swish", "gluon", "swish", _VECTOR),
    _block("GELU", "gluon", "gelu", _VECTOR),
    _block("RNNLayer", "gluon", "rnn", _SEQUENCE),
    _block("LSTMLayer", "gluon", "lstm", _SEQUENCE),
    _block("GRULayer", "gluon", "gru", _SEQUENCE),
    _block("L1Loss", "gluon-loss", "l1_loss", _loss_cases()),
    _block("L2Loss", "gluon-loss", "l2_loss", _loss_cases()),
    _block("SoftmaxCrossEntropyLoss", "gluon-loss", "softmax_ce_loss", _loss_cases("class")),
    _block("SigmoidBinaryCrossEntropyLoss", "gluon-loss", "sigmoid_bce_loss",
           _loss_cases("sign")),
    _block("HuberLoss", "gluon-loss", "huber_loss", _loss_cases()),
    _block("KLDivLoss", "gluon-loss", "kldiv_loss", _loss_cases()),
    # Fusions: oneDNN builds fuse these patterns when the block is hybridized.
    _block("ConvBNReLU", "fusion", "conv_bn_relu", _IMAGE),
    _block("ConvReLU", "fusion", "conv_relu", _IMAGE),
    _block("DenseReLU", "fusion", "dense_relu", _DENSE),
]
