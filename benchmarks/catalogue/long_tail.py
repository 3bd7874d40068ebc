"""The long tail of the mx.nd entries: the extra dtypes (float16, bfloat16), the `large` shape
class and the backward passes that some main entries take beyond their declaration in nd.py.
Every addition is a long-tail point: an entry's first case in float32 stays its main point.
widened() makes the widened entry; the catalogue applies it once, when it is assembled.

Runs inside benchmark environments: Python 3.7 syntax, no mxnet.
"""
from collections import OrderedDict

from .entries import T, case

# float16 where the operator has a float16 kernel and mixed-precision models use it.
# (Not FullyConnected, Convolution, Deconvolution, BatchNorm, InstanceNorm: their CPU kernels
# reject float16 in 1.9.1, and the grid is shared by CPU and GPU points.)
FLOAT16 = ("LayerNorm", "softmax", "log_softmax", "Activation", "Pooling",
           "Dropout", "transpose", "concat", "mean", "max", "elemwise_mul", "elemwise_sub",
           "add_n")  # not Embedding: its dtype is the index dtype (float16 indices > 2048 round)
# bfloat16 (MXNet 1.7+ oneDNN builds) where MXNet's AMP runs an operator in bfloat16:
# contrib/amp/lists/symbol_bf16.py of 1.9.1 (BF16_FUNCS and the BF16_FP32_FUNCS that take one
# dtype for every input; BatchNorm keeps float32 parameters, so not in this list). A CPU without
# AVX-512 has no oneDNN bfloat16 kernels: those points skip with the reason.
BFLOAT16 = ("Convolution", "FullyConnected", "Pooling", "concat", "relu", "tanh", "sqrt",
            "square", "abs", "elemwise_add")
# The large class: memory-bound operators beyond the last-level cache (32 MiB on the machines
# measured), where bandwidth, not dispatch, sets the time.
# Only float32-only entries: the class multiplies with an entry's dtypes, and float16 /
# float64 kernels on this size are the slow tail (exp in float16: seconds per call).
# 3072 x 3072 float32 is 36 MiB per array; building such inputs costs seconds in the smoke
# test, so the class goes to three representative bandwidth-bound kernels.
_L = (3072, 3072)
LARGE = OrderedDict([
    ("identity", case(T(*_L))), ("clip", case(T(*_L), a_min=-0.5, a_max=0.5)),
    ("flip", case(T(*_L), axis=1)),
])
# Differentiable entries nd.py times forward only: their gradient is a real kernel
# (a copy, a scatter or a reduction of the head gradient, not zero).
BACKWARD = ("add_n", "broadcast_to", "broadcast_axis", "broadcast_like", "expand_dims",
            "reshape", "reshape_like", "flatten", "squeeze", "transpose", "sort", "topk",
            "depth_to_space", "space_to_depth", "amp_cast", "cast", "amp_multicast")


def widened(entry):
    """The main mx.nd entry with its long tail (a new entry; the entry itself if none)."""
    if entry.form:
        return entry
    name, dtypes, cases = entry.name, entry.dtypes, OrderedDict(entry.cases)
    if name in FLOAT16 and "float16" not in dtypes:
        dtypes += ("float16",)
    # after float16: the large class goes to float32-only entries
    if name in LARGE and "large" not in cases and dtypes == ("float32",):
        cases["large"] = LARGE[name]
    if name in BFLOAT16 and "bfloat16" not in dtypes:  # after LARGE: large stays float32
        dtypes += ("bfloat16",)
    backward = entry.backward or name in BACKWARD
    if (dtypes, list(cases), backward) == (entry.dtypes, list(entry.cases), entry.backward):
        return entry
    return entry.replace(dtypes=dtypes, cases=cases, backward=backward)
