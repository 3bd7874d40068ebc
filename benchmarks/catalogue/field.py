"""Field cases: the shapes where MXNet's documented speed changes were measured, and the shapes
real work runs the core NN operators at, each a named case of its entry.

A field case is named `field-<source number>` (the pull request or issue whose benchmark used
that shape; docs/documented-changes.toml lists each under its change, with what the source
reports) or `field-<workload>` (batch-1 and batch-8 inference, BERT-base attention, the
ResNet-50 stem). bench_operators appends an entry's field cases to its shape parameter after
its own cases, so every recorded point keeps its name, parameters and version; they are in
the short selection (first dtype) and in the `field` selection alone. Names never change once
written. Only bench_operators times them: memory, instruction counts and the other modules
keep the entries' own cases.

Runs inside benchmark environments: Python 3.7 syntax, no mxnet.
"""
from collections import OrderedDict

from .entries import T, case

_GAMMA = {"fill": "ones", "grad": True}
_BETA = {"fill": "zeros", "grad": True}
_ZEROS = {"fill": "zeros"}
_ONES = {"fill": "ones"}


def _fc(batch, inputs, hidden, bias=True):
    if bias:
        return case(T(batch, inputs), T(hidden, inputs), T(hidden), num_hidden=hidden)
    return case(T(batch, inputs), T(hidden, inputs), num_hidden=hidden, no_bias=True)


def _bn(shape, channels, **kwargs):
    return case(T(*shape), T(channels, **_GAMMA), T(channels, **_BETA), T(channels, **_ZEROS),
                T(channels, **_ONES), **kwargs)


def _ln(*shape):
    return case(T(*shape), T(shape[-1], **_GAMMA), T(shape[-1], **_BETA))


def _stem_conv(batch):
    # ResNet-50 v1's first layer: 7x7/2 convolution of the 3-channel 224x224 image to 64
    return case(T(batch, 3, 224, 224), T(64, 3, 7, 7), T(64), kernel=(7, 7), stride=(2, 2),
                pad=(3, 3), num_filter=64)


def _embedding(batch):
    # BERT-base's word embedding: a 30522-word vocabulary, 768 wide, 128 tokens per sequence
    return case(T(batch, 128, fill="index", high=30522), T(30522, 768, dtype="float32"),
                input_dim=30522, output_dim=768)


# {entry class name: [(case name, Case)]}; what each field-<number> reproduces and its source:
# docs/documented-changes.toml.
FIELD = OrderedDict([
    ("FullyConnected", [
        # #17980's five (rows, inner, cols): data (rows, inner), weight (cols, inner), no bias;
        # (5, 2048, 512) 3.7x and (5, 512, 512) 1.8x with oneDNN 1.6.1 against 1.3
        ("field-17980", _fc(5, 2048, 512, bias=False)),
        ("field-17980-512", _fc(5, 512, 512, bias=False)),
        ("field-17980-1536", _fc(5, 512, 1536, bias=False)),
        ("field-17980-2048", _fc(5, 512, 2048, bias=False)),
        ("field-17980-b4", _fc(4, 512, 512, bias=False)),
        # inference at batch 1 and 8: ResNet-50's classifier, 2048 -> 1000
        ("field-bs1", _fc(1, 2048, 1000)),
        ("field-bs8", _fc(8, 2048, 1000)),
    ]),
    ("Convolution", [
        ("field-resnet50-stem-bs1", _stem_conv(1)),
        ("field-resnet50-stem-bs8", _stem_conv(8)),
    ]),
    ("Pooling", [
        # ResNet-50's stem max pooling, 3x3/2 pad 1 on the stem's output
        ("field-resnet50-stem-bs1", case(T(1, 64, 112, 112), kernel=(3, 3), stride=(2, 2),
                                         pad=(1, 1), pool_type="max")),
        ("field-resnet50-stem-bs8", case(T(8, 64, 112, 112), kernel=(3, 3), stride=(2, 2),
                                         pad=(1, 1), pool_type="max")),
    ]),
    ("BatchNorm", [
        # #15870: BatchNorm on the 3-channel 224x224 input (ResNet-50 v2's first layer),
        # which fell back from MKL-DNN before; the source gives no batch size: 1
        ("field-15870", _bn((1, 3, 224, 224), 3)),
        ("field-c3-bs8", _bn((8, 3, 224, 224), 3)),
        # #18504 (#18646's shape): BatchNorm with axis=-1, (32, 100, 100)
        ("field-18504", _bn((32, 100, 100), 100, axis=-1)),
        # inference at batch 1 and 8: ResNet-50's BatchNorm after the stem convolution
        ("field-bs1", _bn((1, 64, 112, 112), 64)),
        ("field-bs8", _bn((8, 64, 112, 112), 64)),
    ]),
    ("LayerNorm", [
        # #19601 timed #14935's grid (rows B x width C); B=4096, C=768 is of that grid
        ("field-19601", _ln(4096, 768)),
        # #15313's benchmark shapes: BERT-base, 128 tokens, batch 1 and 8
        ("field-bs1", _ln(1, 128, 768)),
        ("field-bs8", _ln(8, 128, 768)),
    ]),
    ("softmax", [
        # BERT-base attention scores: softmax over T=128 keys, 12 heads, batch 1 and 8
        ("field-bert-bs1", case(T(1, 12, 128, 128), axis=-1)),
        ("field-bert-bs8", case(T(8, 12, 128, 128), axis=-1)),
    ]),
    ("log_softmax", [
        # #18320's five shapes (in 1.x by #18469): (5, 512, 512) native 5.39 ms, oneDNN 1.10 ms
        ("field-18320", case(T(5, 512, 512), axis=-1)),
        ("field-18320-1536", case(T(5, 512, 1536), axis=-1)),
        ("field-18320-2048", case(T(5, 512, 2048), axis=-1)),
        ("field-18320-2048x512", case(T(5, 2048, 512), axis=-1)),
        ("field-18320-b4", case(T(4, 512, 512), axis=-1)),
        # a BERT-base vocabulary's log-probabilities at batch 1 and 8
        ("field-bs1", case(T(1, 30522), axis=-1)),
        ("field-bs8", case(T(8, 30522), axis=-1)),
    ]),
    ("Embedding", [
        ("field-bs1", _embedding(1)),
        ("field-bs8", _embedding(8)),
    ]),
    ("transpose", [
        # #14545's BERT-base shapes: 0.0694 -> 0.0107 s and 0.0651 -> 0.0069 s per 100 calls,
        # and (64, 512, 1024) (0, 2, 1): 1.23 -> 0.80 s per 100 calls
        ("field-14545", case(T(32, 128, 12, 64), axes=(0, 2, 1, 3))),
        ("field-14545-heads", case(T(32, 12, 128, 64), axes=(0, 2, 1, 3))),
        ("field-14545-3d", case(T(64, 512, 1024), axes=(0, 2, 1))),
        # BERT-base attention: (B, T, 12, 64) -> (B, 12, T, 64), T=128, batch 1 and 8
        ("field-bert-bs1", case(T(1, 128, 12, 64), axes=(0, 2, 1, 3))),
        ("field-bert-bs8", case(T(8, 128, 12, 64), axes=(0, 2, 1, 3))),
    ]),
    ("batch_dot", [
        # mshadow#342's two shapes (MKL batch GEMM: 1.47 -> 0.18 s and 3.45 -> 0.67 s per
        # 1000 loops)
        ("field-342", case(T(1120, 10, 256), T(1120, 256, 10))),
        ("field-342-gemv", case(T(1120, 40, 512), T(1120, 512, 1))),
        # BERT-base attention scores Q K^T: (B*12, T, 64) x (B*12, T, 64)^T, T=128
        ("field-bert-bs1", case(T(12, 128, 64), T(12, 128, 64), transpose_b=True)),
        ("field-bert-bs8", case(T(96, 128, 64), T(96, 128, 64), transpose_b=True)),
    ]),
    ("topk", [
        # #12085 fixes #10205: Sockeye's beam search, top-k over beam x vocabulary =
        # 5 x 30000 per sentence; the source gives no batch: 1
        ("field-12085", case(T(1, 150000), axis=-1, k=5)),
    ]),
    ("take", [
        # #16615 made take along axis != 0 faster; the source gives no shape: the entry's
        # medium (10000 x 128, 8192 indices) transposed, taken along axis 1 (1.0 and 1.1
        # reject axis != 0: a skip with MXNet's message there)
        ("field-16615", case(T(128, 10000, dtype="float32"), T(8192, fill="index", high=10000),
                             axis=1)),
    ]),
    ("Dropout", [
        # #15521: Dropout outside training (the default mode) no longer copies its input;
        # the source gives no shape: the entry's medium (1024, 1024)
        ("field-15521", case(T(1024, 1024), mode="training")),
    ]),
])


def with_field(op, field=None):
    """The entry with its field cases (the entry itself when it has none)."""
    cases = (FIELD if field is None else field).get(op.class_name)
    if not cases:
        return op
    return op.replace(field=OrderedDict(cases))
