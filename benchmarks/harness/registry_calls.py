"""Calls for the registry entries (catalogue/registry.py) that mx.nd.<name> cannot make.

Kinds, named by an entry's `call`:
  expression  a Python expression over the inputs a, b, c (`a + 2.0`, `a > b`,
              `nd._internal._greater(a, b)`): how users reach the scalar and comparison
              operators behind NDArray's Python operators.
  subgraph    a hybridized Gluon block with the oneDNN (MKL-DNN) backend, the way users reach
              the fused _sg_* operators; the fused operator must appear in the partitioned
              graph, or the point is not what its name says.
and, for any kind, `storage`: inputs converted to csr / row_sparse at a given density, so the
operator's sparse kernel runs. Entries whose operators this release does not register, or
whose build lacks a feature (oneDNN, int64 tensor sizes), skip with the reason.

Runs inside benchmark environments: Python 3.7 syntax, mxnet only through environment.
"""
import ast
import os

import numpy as np

from . import environment as E
from .calls import OperatorCall, _parameters, check_arguments
from .environment import SEED, check_release, mx, operator_function, operator_name, sync
from .inputs import build_inputs, drawn, numpy_interface
from .inputs import build_call as build_case_call

CALL_KINDS = ("expression", "subgraph")
# The int64 large-tensor entries allocate several GiB: only when asked for (docs/catalogue.md),
# and only on builds with INT64_TENSOR_SIZE.
LARGE_TENSOR_OPT_IN = "MXBENCH_LARGE_TENSOR"
LARGE_TENSOR_SKIP = "int64 large-tensor entry"
_REGISTERED = []


def _registered_names():
    if not _REGISTERED:
        getter = getattr(getattr(mx, "operator", None), "get_all_registered_operators", None)
        _REGISTERED.append(frozenset(getter() if getter is not None else ()))
    return _REGISTERED[0]


def feature_enabled(name):
    """Whether this build has a runtime feature (mx.runtime arrived in 1.5; False before)."""
    features = getattr(getattr(mx, "runtime", None), "Features", None)
    if features is None:
        return False
    try:
        return features().is_enabled(name)
    except RuntimeError:  # a feature this release does not know
        return False


def require(op):
    """Skip (NotImplementedError) when this release cannot run the entry at all."""
    check_release(op)
    if op.opt_in and not feature_enabled("INT64_TENSOR_SIZE"):
        raise NotImplementedError("%s: this mxnet %s build lacks INT64_TENSOR_SIZE"
                                  % (LARGE_TENSOR_SKIP, mx.__version__))
    names = _registered_names()
    covers = op.covers
    if covers and names and not any(n in names for n in covers):
        raise NotImplementedError("mxnet %s registers none of %s"
                                  % (mx.__version__, ", ".join(covers)))
    for feature in op.features:
        wanted = feature if isinstance(feature, tuple) else (feature,)
        if not any(feature_enabled(f) for f in wanted):
            raise NotImplementedError("this mxnet %s build lacks %s"
                                      % (mx.__version__, " / ".join(wanted)))
    if op.opt_in and os.environ.get(op.opt_in, "") in ("", "0"):
        raise NotImplementedError("%s: set %s=1 to run them" % (LARGE_TENSOR_SKIP, op.opt_in))


def build_call(op, shape, dtype, ctx, case=None, overrides=None, arrays=None):
    """The call for a registry entry (see build_operator_call, which hands these over)."""
    require(op)
    case = op.cases[shape] if case is None else case
    if overrides:
        case = case._replace(kwargs=dict(case.kwargs, **overrides))
    if op.call == "subgraph":
        return SubgraphCall(op, case, dtype, ctx)
    if op.call == "expression":
        missing = missing_names(op.expression)
        if missing:  # nd.split_v2, nd.random.normal_like...: a later release's names
            raise NotImplementedError("mxnet %s has no %s" % (mx.__version__, ", ".join(missing)))
        fn = expression_function(op.expression)
    else:
        name = operator_name(op)
        fn = operator_function(name)
    if op.opt_in:  # gigabytes: filled by MXNet, without build_call's numpy copy
        args = [mx.nd.ones(t.shape, ctx=ctx, dtype=t.dtype or dtype) for t in case.inputs]
        kwargs, grads = dict(op.kwargs, **case.kwargs), []
    else:
        args, kwargs, grads = build_case_call(case, dtype, ctx, op.kwargs, arrays)
    if op.call == "imperative":
        check_arguments(fn, op.name, dict((k, v) for k, v in kwargs.items()
                                            if k not in (overrides or {})))
    if op.storage:
        args, grads = sparse_inputs(args, grads, op.storage, ctx)
    for index, stype in sorted(op.grad_stype.items()):
        args[index].attach_grad(stype=stype)
    return OperatorCall(fn, args, kwargs, grads)


def missing_names(expression):
    """The mx.nd names a catalogue expression uses that this release lacks, each as far as it
    resolves ('nd.split_v2', 'nd.random.normal_like', 'nd._internal._adamw_update'): without
    them the call would fail with an AttributeError, a failure instead of the skip it is."""
    missing = set()
    for node in ast.walk(ast.parse(expression, mode="eval")):
        chain = []
        while isinstance(node, ast.Attribute):
            chain.insert(0, node.attr)
            node = node.value
        if not chain or not (isinstance(node, ast.Name) and node.id == "nd"):
            continue
        found = mx.nd
        for depth, part in enumerate(chain):
            found = getattr(found, part, None)
            if found is None:
                missing.add(".".join(["nd"] + chain[:depth + 1]))
                break
    return sorted(missing)


def expression_function(expression):
    """f(a, b, ...) evaluating a catalogue expression; `nd` is mx.nd inside it."""
    return eval("lambda a=None, b=None, c=None, d=None, e=None, f=None: " + expression,
                {"nd": mx.nd})


# --- sparse storage --------------------------------------------------------------------------
def sparse_values(values, stype, density, rng):
    """Zero all but a `density` share of the values: elements for csr, rows for row_sparse."""
    if stype == "csr":
        shape = values.shape
    elif stype == "row_sparse":
        shape = values.shape[:1]
    else:
        raise ValueError("unknown storage type %r" % (stype,))
    keep = drawn(repr(("kept", stype, shape, density)), rng,
                   lambda: rng.uniform(0, 1, shape) < density, shape)
    return values * keep.reshape(shape + (1,) * (values.ndim - len(shape)))


def sparse_inputs(args, grads, storage, ctx):
    """args with the positions in `storage` ({index: (stype, density)}) made sparse."""
    rng = np.random.RandomState(SEED + 1)
    args = list(args)
    for index, (stype, density) in sorted(storage.items()):
        dense = args[index]
        values = sparse_values(dense.asnumpy(), stype, density, rng)
        args[index] = mx.nd.array(values, ctx=ctx, dtype=dense.dtype).tostype(stype)
        grads = [g for g in grads if g is not dense]
    sync(args)
    return args, grads


# --- oneDNN subgraph fusions -----------------------------------------------------------------
def subgraph_backend():
    """The partitioning backend's name: MKLDNN in 1.x, ONEDNN in 2.0."""
    if "_sg_onednn_conv" in _registered_names():
        return "ONEDNN"
    return "MKLDNN"


def _conv_bn_relu(nn, channels):
    net = nn.HybridSequential()
    net.add(nn.Conv2D(channels, 3, padding=1, use_bias=False), nn.BatchNorm(),
            nn.Activation("relu"))
    return net


def _dense_relu(nn, units):
    return nn.Dense(units, activation="relu")


def _function_block(nn, fn):
    """A HybridBlock computing fn(ops, contrib, *inputs): Gluon 1.x's hybrid_forward with
    (F, F.contrib); Gluon 2 refuses hybrid_forward, so there forward with (mx.npx, mx.npx)."""
    if hasattr(nn.HybridBlock, "hybrid_forward"):
        class Block(nn.HybridBlock):
            def hybrid_forward(self, F, *inputs):
                return fn(F, F.contrib, *inputs)
    else:
        class Block(nn.HybridBlock):
            def forward(self, *inputs):
                return fn(mx.npx, mx.npx, *inputs)
    return Block()


def _self_attention(nn, heads):
    """Multi-head self-attention scores and context from one QKV projection: 1.x's interleaved
    operators; MXNet 2.0's oneDNN pass fuses instead the split / reshape / swapaxes / batch_dot
    pattern (its transformer pass: the scores become _sg_onednn_selfatt_qk)."""
    def attend(ops, contrib, qkv):
        scores = contrib.interleaved_matmul_selfatt_qk(qkv, heads=heads)
        attention = ops.softmax(scores, axis=-1)
        return contrib.interleaved_matmul_selfatt_valatt(qkv, attention, heads=heads)

    def attend_2_0(npx, _, qkv):
        q, k, v = [npx.reshape(part, (-2, -2, heads, -1)).swapaxes(1, 2)
                   for part in mx.np.split(qkv, 3, axis=-1)]
        attention = npx.softmax(npx.batch_dot(q, k, transpose_b=True), axis=-1)
        return npx.reshape(npx.batch_dot(attention, v).swapaxes(1, 2), (-2, -2, -1))
    return _function_block(nn, attend if hasattr(nn.HybridBlock, "hybrid_forward")
                           else attend_2_0)


def _batch_dot(nn, _):
    return _function_block(nn, lambda ops, contrib, a, b: ops.batch_dot(a, b))


SUBGRAPH_BLOCKS = {"conv_bn_relu": _conv_bn_relu, "dense_relu": _dense_relu,
                   "self_attention": _self_attention, "batch_dot": _batch_dot}


class SubgraphCall(object):
    """A hybridized block partitioned by the oneDNN backend; forward only (inference)."""
    takes_gradients = False

    def __init__(self, op, case, dtype, ctx):
        from mxnet.gluon import nn
        build, size = op.block
        self.block = SUBGRAPH_BLOCKS[build](nn, size)
        self.block.initialize(ctx=ctx)
        self.args, _ = build_inputs(case._replace(inputs=tuple(
            t._replace(grad=False) for t in case.inputs)), dtype, ctx, numpy_interface())
        accepted = _parameters(self.block.hybridize)  # None: it takes **kwargs
        if accepted is None or "backend" in accepted:
            self.block.hybridize(backend=subgraph_backend(), static_alloc=True,
                                 static_shape=True)
        else:  # MXNet 2.0: partitioning moved to optimize_for (after a first, imperative
            # call: Dense infers its input size from it)
            sync(self.block(*self.args))
            self.block.optimize_for(*self.args, backend=subgraph_backend(), static_alloc=True,
                                    static_shape=True)
        sync(self.block(*self.args))  # partitions the graph
        self.fused = fused_operators(self.block)
        wanted = [n for n in op.covers if n in _registered_names()]
        if not set(wanted) & self.fused:
            message = ("the %s backend fused none of %s into this block (graph has: %s)"
                       % (subgraph_backend(), ", ".join(wanted), ", ".join(sorted(self.fused))))
            if E.STRICT:
                raise AssertionError(message)
            raise NotImplementedError(message)

    def forward(self):
        out = self.block(*self.args)
        sync(out)
        return out


def fused_operators(block):
    """Operator names in a hybridized block's partitioned graph."""
    import json
    graph = getattr(block, "_cached_graph", None)
    if not graph:
        return set()
    nodes = json.loads(graph[1].tojson())["nodes"]
    return set(node["op"] for node in nodes)
