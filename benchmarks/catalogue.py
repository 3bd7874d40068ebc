"""The operator catalogue: one declarative entry per MXNet operator.

Every consumer reads this file: the asv benchmark classes (bench_operators.py generates one
class per entry), the coverage report and ad-hoc runs. An entry says which operator, which
shape classes (each a Case: input tensors + operator arguments), which dtypes, and whether
a backward pass applies. Adding an operator is adding one entry.

Shape classes are named for the behaviour they expose, not for their sizes:
  small   - a few hundred elements: dispatch overhead dominates
  medium  - a common working size (about 1M elements)
  large   - big enough to stream out of cache
  tall / wide - skewed shapes, where reductions and layouts behave differently
Inputs are built from a fixed seed in setup, never in the timed call.

Runs inside benchmark environments: Python 3.7 syntax, no mxnet at import time.
"""
from collections import OrderedDict, namedtuple

FLOAT32 = ("float32",)
FLOATS = ("float32", "float64", "float16")
FLOAT32_64 = ("float32", "float64")

# fill: how values are drawn. normal | uniform | positive | index | spd | ones
# dtype: None = the benchmark's dtype; a string pins it (e.g. indices as int64)
# high: exclusive upper bound for `index` fills
# grad: whether backward computes a gradient for this input
Tensor = namedtuple("Tensor", "shape fill dtype high grad")


def T(*shape, **kw):
    """A tensor input: T(1024, 1024), T(64, fill='index', high=10, grad=False)."""
    fill = kw.pop("fill", "normal")
    grad = kw.pop("grad", fill not in ("index",))
    tensor = Tensor(tuple(shape), fill, kw.pop("dtype", None), kw.pop("high", None), grad)
    if kw:
        raise TypeError("unknown tensor options: %s" % sorted(kw))
    return tensor


Case = namedtuple("Case", "inputs kwargs")


def case(*inputs, **kwargs):
    """A shape case: positional tensor inputs plus keyword arguments for the operator."""
    return Case(tuple(inputs), kwargs)


class Operator(object):
    """One catalogue entry. `name` is the mx.nd function ('dot', 'linalg.gemm2', ...)."""

    def __init__(self, name, category, cases, dtypes=FLOAT32, backward=True, kwargs=None,
                 version=1, note=""):
        self.name = name
        self.category = category
        self.cases = OrderedDict(cases)
        self.dtypes = tuple(dtypes)
        self.backward = backward
        self.kwargs = dict(kwargs or {})
        self.version = version  # bump when this entry's measurement changes meaning
        self.note = note

    @property
    def class_name(self):
        return self.name.replace(".", "_")

    def __repr__(self):
        return "Operator(%r, %r)" % (self.name, self.category)


# --- shape sets shared by many entries ------------------------------------------------------
def one_input(small=(16, 16), medium=(1024, 1024), tall=(100000, 10), wide=(10, 100000), **kw):
    cases = [("small", case(T(*small, **kw))), ("medium", case(T(*medium, **kw))),
             ("tall", case(T(*tall, **kw))), ("wide", case(T(*wide, **kw)))]
    return cases


def same_shape_pair(**kw):
    return [(name, case(c.inputs[0], c.inputs[0])) for name, c in one_input(**kw)]


def broadcast_pair():
    # The right-hand side broadcasts along one axis, as in opperf's (N, M) op (N, 1).
    return [("small", case(T(16, 16), T(16, 1))),
            ("medium", case(T(1024, 1024), T(1024, 1))),
            ("tall", case(T(100000, 10), T(1, 10))),
            ("wide", case(T(10, 100000), T(10, 1)))]


def reduction(**kwargs):
    return [(name, case(*c.inputs, **kwargs)) for name, c in one_input()]


def conv2d_cases():
    # NCHW data, OIHW weight; kernel 3, pad 1. small: dispatch; medium: a ResNet-ish layer.
    return [("small", case(T(1, 3, 16, 16), T(8, 3, 3, 3), T(8),
                           kernel=(3, 3), num_filter=8, pad=(1, 1))),
            ("medium", case(T(32, 3, 64, 64), T(64, 3, 3, 3), T(64),
                            kernel=(3, 3), num_filter=64, pad=(1, 1))),
            ("wide", case(T(8, 64, 16, 16), T(256, 64, 3, 3), T(256),
                          kernel=(3, 3), num_filter=256, pad=(1, 1)))]


def pool2d_cases(**kwargs):
    return [("small", case(T(1, 3, 16, 16), **kwargs)),
            ("medium", case(T(32, 64, 56, 56), **kwargs)),
            ("wide", case(T(8, 512, 14, 14), **kwargs))]


OPERATORS = [
    # unary
    Operator("relu", "unary", one_input(), dtypes=FLOATS),
    Operator("exp", "unary", one_input(), dtypes=FLOATS),
    # binary
    Operator("elemwise_add", "binary-elementwise", same_shape_pair(), dtypes=FLOATS),
    Operator("broadcast_add", "binary-broadcast", broadcast_pair(), dtypes=FLOATS),
    # reductions
    Operator("sum", "reduction", reduction(axis=1), dtypes=FLOAT32_64),
    # GEMM
    Operator("dot", "gemm", [("small", case(T(16, 16), T(16, 16))),
                             ("medium", case(T(512, 512), T(512, 512))),
                             ("tall", case(T(4096, 64), T(64, 64))),
                             ("wide", case(T(64, 4096), T(4096, 64)))], dtypes=FLOAT32_64),
    # NN
    Operator("Convolution", "nn-conv", conv2d_cases()),
    Operator("Pooling", "nn-pool", pool2d_cases(kernel=(2, 2), stride=(2, 2), pool_type="max")),
    Operator("softmax", "nn-activation", reduction(axis=-1), dtypes=FLOAT32_64),
]

# Gluon blocks, run imperatively and hybridized. `build` names a factory in bench_gluon.py.
Block = namedtuple("Block", "name category build cases dtypes version")

BLOCKS = [
    Block("Dense", "gluon", "dense",
          OrderedDict([("small", (16, 64)), ("medium", (256, 1024))]), FLOAT32, 1),
    Block("Conv2D", "gluon", "conv2d",
          OrderedDict([("small", (1, 3, 16, 16)), ("medium", (32, 3, 64, 64))]), FLOAT32, 1),
    # Fusions: oneDNN builds fuse these patterns when the block is hybridized.
    Block("ConvBNReLU", "fusion", "conv_bn_relu",
          OrderedDict([("small", (1, 3, 16, 16)), ("medium", (32, 3, 64, 64))]), FLOAT32, 1),
    Block("DenseReLU", "fusion", "dense_relu",
          OrderedDict([("small", (16, 64)), ("medium", (256, 1024))]), FLOAT32, 1),
]


def by_name():
    return OrderedDict((op.name, op) for op in OPERATORS)
