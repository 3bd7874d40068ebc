"""Real networks and the layers they run: build, extract, and prepare for timing.

The models are MXNet's own definitions where MXNet has them (the Gluon model zoo, random
initialisation from the fixed seed, no pretrained weights: nothing is downloaded) and Gluon
layers otherwise (a BERT-base encoder; an LSTM language model). Extraction hybridizes a
model, traces its symbol graph, infers the shapes for the input batch, and walks the nodes:
each operator node is a layer (operator, attributes, input shapes, dtype), and identical
layers are counted instead of repeated (Benanza's unique layers).

Runs inside benchmark environments (Python 3.7+, MXNet 1.x and 2.0, whose Gluon has no
prefixes or hybrid_forward: the two hand-written models have a 2.0 spelling of the same
layers): mxnet is reached through the harness, never at import time here.
"""
import hashlib
import json
import os
import re

from . import harness as H

DATA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "model_layers.json")
DTYPE = "float32"
BERT_HIDDEN, BERT_HEADS, BERT_LAYERS, BERT_FFN, BERT_SEQ = 768, 12, 12, 3072, 128
LSTM_VOCAB, LSTM_HIDDEN, LSTM_LAYERS, LSTM_SEQ = 10000, 650, 2, 35


class ModelSpec(object):
    """A model: how to build it, its input for a batch, and which batches run (training:
    the batches that also run forward+backward)."""

    def __init__(self, name, title, build, input_shape, batches, training, index_high=None):
        self.name, self.title, self.build = name, title, build
        self.input_shape, self.batches, self.training = input_shape, batches, training
        self.index_high = index_high  # inputs are token ids below this, else normal floats


def _zoo(name):
    def build():
        vision = _zoo_vision()
        try:
            return vision.get_model(name)
        except ValueError as exc:  # "Model %s is not supported" in a release without it
            raise NotImplementedError("mxnet %s's model zoo has no %s: %s"
                                      % (H.mx.__version__, name, H.one_line(exc)))
    return build


def _zoo_vision():
    try:
        from mxnet.gluon.model_zoo import vision
    except ImportError as exc:
        raise NotImplementedError("mxnet %s has no Gluon model zoo: %s" % (H.mx.__version__, exc))
    return vision


def _bert_encoder():
    """BERT-base's encoder (GluonNLP 0.10's BERTEncoder, post-norm, GELU, no padding mask)
    in Gluon layers: GluonNLP 0.10 does not install on Python 3.11 / MXNet 1.9."""
    gluon = H.mx.gluon
    if "gelu" not in (H.mx.nd.LeakyReLU.__doc__ or ""):
        raise NotImplementedError("mxnet %s's LeakyReLU has no act_type gelu (BERT's activation)"
                                  % H.mx.__version__)
    if not hasattr(gluon.nn, "LayerNorm"):
        raise NotImplementedError("mxnet %s has no gluon LayerNorm" % H.mx.__version__)

    class SelfAttentionLayer(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super(SelfAttentionLayer, self).__init__(**kwargs)
            with self.name_scope():
                _bert_layer_parts(self, gluon)

        def _heads(self, F, x):  # (B, L, C) -> (B * heads, L, C / heads)
            x = F.reshape(x, shape=(0, 0, BERT_HEADS, -1))
            return F.reshape(F.transpose(x, axes=(0, 2, 1, 3)), shape=(-3, 0, 0))

        def hybrid_forward(self, F, x):
            head_units = BERT_HIDDEN // BERT_HEADS
            query = self._heads(F, self.query(x)) * (1.0 / head_units ** 0.5)
            key, value = self._heads(F, self.key(x)), self._heads(F, self.value(x))
            weights = F.softmax(F.batch_dot(query, key, transpose_b=True), axis=-1)
            context = F.batch_dot(self.attention_dropout(weights), value)
            context = F.reshape(context, shape=(-4, -1, BERT_HEADS, 0, 0))
            context = F.reshape(F.transpose(context, axes=(0, 2, 1, 3)), shape=(0, 0, -3))
            x = self.norm(x + self.dropout(self.proj(context)))
            hidden = F.LeakyReLU(self.ffn_1(x), act_type="gelu")
            return self.ffn_norm(x + self.ffn_dropout(self.ffn_2(hidden)))

    if gluon_2():
        return _bert_encoder_gluon_2()
    net = gluon.nn.HybridSequential(prefix="bertencoder_")
    with net.name_scope():
        for _ in range(BERT_LAYERS):
            net.add(SelfAttentionLayer())
    return net


def _bert_layer_parts(block, gluon):
    """One encoder layer's sublayers, on `block` (1.x and 2.0 alike; the order is the order
    their parameters are initialised in)."""
    units = BERT_HIDDEN
    block.query = gluon.nn.Dense(units, flatten=False, in_units=units)
    block.key = gluon.nn.Dense(units, flatten=False, in_units=units)
    block.value = gluon.nn.Dense(units, flatten=False, in_units=units)
    block.proj = gluon.nn.Dense(units, flatten=False, in_units=units)
    block.attention_dropout = gluon.nn.Dropout(0.1)
    block.dropout = gluon.nn.Dropout(0.1)
    block.norm = gluon.nn.LayerNorm(in_channels=units)
    block.ffn_1 = gluon.nn.Dense(BERT_FFN, flatten=False, in_units=units)
    block.ffn_2 = gluon.nn.Dense(units, flatten=False, in_units=BERT_FFN)
    block.ffn_dropout = gluon.nn.Dropout(0.1)
    block.ffn_norm = gluon.nn.LayerNorm(in_channels=units)


def _is_numpy_array(x):
    """Is x an mx.np array (2.0's default from 2.0.0b1) rather than an NDArray?"""
    numpy_array = getattr(getattr(H.mx, "np", None), "ndarray", None)
    return numpy_array is not None and isinstance(x, numpy_array)


def _array_ops(x):
    """batch_dot, softmax and GELU for x's kind of array: mx.npx's for mx.np arrays (2.0's
    default from 2.0.0b1), mx.nd's for NDArrays (2.0.0a0's default)."""
    if _is_numpy_array(x):
        npx = H.mx.npx
        return npx.batch_dot, npx.softmax, lambda y: npx.leaky_relu(y, act_type="gelu")
    nd = H.mx.nd
    return nd.batch_dot, nd.softmax, lambda y: nd.LeakyReLU(y, act_type="gelu")


def _bert_encoder_gluon_2():
    """The same encoder in MXNet 2.0's Gluon (forward(), no prefixes): the same layers and
    operators, reshapes spelled with the shapes instead of 1.x's codes."""
    gluon = H.mx.gluon
    head_units = BERT_HIDDEN // BERT_HEADS

    class SelfAttentionLayer(gluon.HybridBlock):
        def __init__(self):
            super(SelfAttentionLayer, self).__init__()
            _bert_layer_parts(self, gluon)

        def _heads(self, x):  # (B, L, C) -> (B * heads, L, C / heads)
            batch, length = x.shape[:2]
            x = x.reshape((batch, length, BERT_HEADS, head_units))
            return x.transpose((0, 2, 1, 3)).reshape((batch * BERT_HEADS, length, head_units))

        def forward(self, x):
            batch_dot, softmax, gelu = _array_ops(x)
            batch, length = x.shape[:2]
            query = self._heads(self.query(x)) * (1.0 / head_units ** 0.5)
            key, value = self._heads(self.key(x)), self._heads(self.value(x))
            weights = softmax(batch_dot(query, key, transpose_b=True), axis=-1)
            context = batch_dot(self.attention_dropout(weights), value)
            context = context.reshape((batch, BERT_HEADS, length, head_units))
            context = context.transpose((0, 2, 1, 3)).reshape((batch, length, BERT_HIDDEN))
            x = self.norm(x + self.dropout(self.proj(context)))
            hidden = gelu(self.ffn_1(x))
            return self.ffn_norm(x + self.ffn_dropout(self.ffn_2(hidden)))

    net = gluon.nn.HybridSequential()
    for _ in range(BERT_LAYERS):
        net.add(SelfAttentionLayer())
    return net


def _lstm_lm():
    """The Gluon word-language-model example's medium model: embedding 650, a 2-layer LSTM
    of 650 units, a decoder over a PTB-sized vocabulary (10,000), sequence-major input."""
    gluon = H.mx.gluon

    class LanguageModel(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super(LanguageModel, self).__init__(**kwargs)
            with self.name_scope():
                _language_model_parts(self, gluon)

        def hybrid_forward(self, F, tokens):
            return _language_model_forward(self, tokens)

    class LanguageModelGluon2(gluon.HybridBlock):  # 2.0's Gluon: forward(), no prefixes
        def __init__(self):
            super(LanguageModelGluon2, self).__init__()
            # 2.0 keeps the LSTM's weights in one flat vector, which Xavier (the model's
            # initializer) refuses: they are drawn uniformly instead, as 2.0 does by default
            _language_model_parts(self, gluon, i2h_weight_initializer="uniform",
                                  h2h_weight_initializer="uniform")

        def forward(self, tokens):
            return _language_model_forward(self, tokens)

    if not issubclass(gluon.rnn.LSTM, gluon.HybridBlock):
        raise NotImplementedError("mxnet %s's gluon.rnn.LSTM is not a HybridBlock: no graph"
                                  % H.mx.__version__)
    if gluon_2():
        return LanguageModelGluon2()
    return LanguageModel(prefix="lstmlm_")


def _language_model_parts(block, gluon, **lstm_initializers):
    """The language model's layers, on `block` (1.x and 2.0 alike, in parameter order)."""
    block.embedding = gluon.nn.Embedding(LSTM_VOCAB, LSTM_HIDDEN)
    block.embedding_dropout = gluon.nn.Dropout(0.5)
    block.lstm = gluon.rnn.LSTM(LSTM_HIDDEN, num_layers=LSTM_LAYERS, dropout=0.5,
                                input_size=LSTM_HIDDEN, **lstm_initializers)
    block.dropout = gluon.nn.Dropout(0.5)
    block.decoder = gluon.nn.Dense(LSTM_VOCAB, flatten=False, in_units=LSTM_HIDDEN)


def _language_model_forward(block, tokens):
    hidden = block.lstm(block.embedding_dropout(block.embedding(tokens)))
    return block.decoder(block.dropout(hidden))


IMAGE = (3, 224, 224)
MODELS = [
    ModelSpec("resnet50_v1", "ResNet-50 v1", _zoo("resnet50_v1"), lambda b: (b,) + IMAGE,
              [1, 32], [32]),
    ModelSpec("mobilenet_v2_1_0", "MobileNet v2 1.0", _zoo("mobilenetv2_1.0"),
              lambda b: (b,) + IMAGE, [1, 32], [32]),
    ModelSpec("bert_base_encoder", "BERT-base encoder (12 x 768, 12 heads, seq 128)",
              _bert_encoder, lambda b: (b, BERT_SEQ, BERT_HIDDEN), [1, 32], [32]),
    ModelSpec("lstm_lm", "LSTM LM (2 x 650, seq 35)", _lstm_lm,
              lambda b: (LSTM_SEQ, b), [32], [32], index_high=LSTM_VOCAB),
]
MODEL_BY_NAME = dict((m.name, m) for m in MODELS)


def gluon_2():
    """MXNet 2.0's Gluon: blocks without prefixes or name scopes (on mx.np arrays from
    2.0.0b1, on NDArrays in 2.0.0a0)."""
    return not hasattr(H.mx.gluon.Block, "name_scope")


def build_network(spec, ctx=None):
    """The model, initialised from the fixed seed (fresh parameters, nothing downloaded)."""
    H.require_mxnet()
    H.seed_everything()
    net = spec.build()
    net.initialize(H.mx.init.Xavier(), ctx or H.mx.cpu())  # 2.0 calls it device
    return net


def build_input(spec, batch, ctx):
    rng = H.seed_everything()
    shape = spec.input_shape(batch)
    if spec.index_high:
        values = rng.randint(0, spec.index_high, shape)
    else:
        values = rng.standard_normal(shape)
    array = H.mx.nd.array(values, ctx=ctx, dtype=DTYPE)
    return array.as_np_ndarray() if H.numpy_interface() else array  # 2.0's blocks take mx.np


# --- extraction ----------------------------------------------------------------------------
def _node_attrs(node):
    """An operator node's attributes without the graph's own annotations (__shape__,
    __profiler_scope__, ...): "attrs" from 1.3, "attr"/"param" in older graphs."""
    attrs = node.get("attrs", node.get("attr", node.get("param", {}))) or {}
    return dict((k, v) for k, v in attrs.items() if not k.startswith("__"))


def layer_key(op, attrs, shapes, dtype):
    """A short stable key for a layer's description (8 hex digits of its SHA-1)."""
    text = json.dumps([op, attrs, shapes, dtype], sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]


def layer_name(op, shapes, key):
    """A readable asv class name: Convolution_32x64x56x56_1a2b3c4d (leading _ dropped:
    asv does not collect names that start with one)."""
    shape = "x".join(str(n) for n in shapes[0]) if shapes else "scalar"
    return "%s_%s_%s" % (re.sub(r"\W", "_", op).strip("_"), shape or "scalar", key)


def trace(net):
    """The hybridized model's symbol graph, on one input variable named data."""
    net.hybridize()
    out = net(H.mx.sym.var("data"))
    if isinstance(out, (list, tuple)):
        out = H.mx.sym.Group(list(out))
    return out


def extract_layers(symbol, data_shape, dtype=DTYPE):
    """[{op, attrs, shapes, dtype, count, key, name}] of a symbol graph, in first-use order."""
    graph = json.loads(symbol.tojson())
    internals = symbol.get_internals()
    names = internals.list_outputs()
    shapes = internals.infer_shape(data=data_shape)[1]
    types = internals.infer_type(data=dtype)[1]
    # Entry (node id, output index) -> position in the internals' outputs: nodes come in the
    # same (topological) order, a variable with one output, an operator with its visible ones.
    position, entry = {}, 0
    for node_id, node in enumerate(graph["nodes"]):
        prefix = node["name"] + "_"
        if node["op"] == "null":
            position[(node_id, 0)] = entry
            entry += 1
            continue
        index = 0
        while entry < len(names) and names[entry].startswith(prefix):
            position[(node_id, index)] = entry
            entry += 1
            index += 1
    if entry != len(names):
        raise RuntimeError("graph walk out of step with the internals (%d of %d outputs)"
                           % (entry, len(names)))
    layers, by_key = [], {}
    for node_id, node in enumerate(graph["nodes"]):
        if node["op"] == "null":
            continue
        inputs = [position[(src, index)] for src, index in (i[:2] for i in node["inputs"])]
        in_shapes = [list(shapes[i]) for i in inputs]
        in_dtype = H.np.dtype(types[inputs[0]]).name if inputs else dtype
        attrs = _node_attrs(node)
        if not inputs and "shape" in attrs and (node_id, 0) in position:
            # A creation node (zeros for an RNN's begin state) records the batch as 0 in its
            # shape; the layer alone would make an empty array: the inferred shape instead.
            attrs["shape"] = str(tuple(shapes[position[(node_id, 0)]]))
        key = layer_key(node["op"], attrs, in_shapes, in_dtype)
        if key not in by_key:
            by_key[key] = {"op": node["op"], "attrs": attrs, "shapes": in_shapes,
                           "dtype": in_dtype, "count": 0, "key": key,
                           "name": layer_name(node["op"], in_shapes, key)}
            layers.append(by_key[key])
        by_key[key]["count"] += 1
    return layers


def extract_model(spec, batch):
    """The unique layers of one model at one batch size, on the installed MXNet."""
    net = build_network(spec)
    shape = spec.input_shape(batch)
    return extract_layers(trace(net), shape)


def extract_all(models=None):
    """{model: {batch: layers or {"skip": reason}}} on the installed MXNet."""
    out = {}
    for spec in MODELS:
        if models and spec.name not in models:
            continue
        out[spec.name] = {}
        for batch in spec.batches:
            try:
                out[spec.name][str(batch)] = extract_model(spec, batch)
            except NotImplementedError as exc:
                out[spec.name][str(batch)] = {"skip": str(exc)}
    return out


# --- the committed data --------------------------------------------------------------------
def load_data(path=DATA_FILE):
    with open(path) as fh:
        return json.load(fh)


def unique_layers(data):
    """{key: layer description plus the (model, batch) uses and whether any use trains}."""
    layers = {}
    for model, batches in sorted(data["models"].items()):
        spec = MODEL_BY_NAME[model]
        for batch, entries in sorted(batches.items(), key=lambda kv: int(kv[0])):
            for layer in entries["layers"]:
                known = layers.setdefault(layer["key"], dict(layer, uses=[], training=False))
                known["uses"].append([model, int(batch), layer["count"]])
                known["training"] = known["training"] or int(batch) in spec.training
    return layers


def layer_by_name(name, data=None):
    """The unique layer (unique_layers) of this asv class name, e.g.
    FullyConnected_1x128x768_e8d2cacc."""
    for layer in unique_layers(data or load_data()).values():
        if layer["name"] == name:
            return layer
    raise KeyError("no model layer named %r in %s" % (name, os.path.basename(DATA_FILE)))


# --- timing one layer: the node alone in a one-operator graph --------------------------------
# Attributes that later releases added and Gluon now writes into every graph, with the value
# that is the older releases' behaviour: an older release that has no such attribute builds
# the layer without it (tests/test_models.py checks that these are the only differences).
LATER_DEFAULTS = {("Pooling", "layout"): "NCHW", ("Dropout", "cudnn_off"): "False",
                  ("RNN", "use_sequence_length"): "False"}


def without_later_defaults(op, attrs):
    return dict((k, v) for k, v in attrs.items() if LATER_DEFAULTS.get((op, k)) != v)


def layer_symbol(layer):
    """The layer's node as a symbol: the operator with its recorded attributes, every input
    a variable (in0, in1, ...), loaded the way a saved model is (so any operator works).
    An attribute this release does not know is left out only where it is in LATER_DEFAULTS."""
    attrs = dict(layer["attrs"])
    while True:
        try:
            return _load_layer(layer, attrs)
        except H.mx.base.MXNetError as exc:
            unknown = re.search(r"Cannot find argument '(\w+)'", str(exc))
            if unknown and LATER_DEFAULTS.get((layer["op"], unknown.group(1))) == attrs.get(
                    unknown.group(1)):
                del attrs[unknown.group(1)]
                continue
            raise NotImplementedError("mxnet %s cannot build layer %s: %s"
                                      % (H.mx.__version__, layer["name"], H.one_line(exc)))


def _load_layer(layer, attrs):
    count = len(layer["shapes"])
    nodes = [{"op": "null", "name": "in%d" % i, "inputs": []} for i in range(count)]
    nodes.append({"op": layer["op"], "name": "layer", "attrs": attrs,
                  "inputs": [[i, 0, 0] for i in range(count)]})
    graph = {"nodes": nodes, "arg_nodes": list(range(count)), "heads": [[count, 0, 0]],
             "attrs": {"mxnet_version": ["int", 10901]}}  # the release the data comes from
    load_json = getattr(H.mx.sym, "load_json", None) or H.mx.sym.fromjson  # 2.0: fromjson
    sym = load_json(json.dumps(graph))
    sym.list_arguments()  # some releases check the attributes only when the graph is used
    return sym


def _fill(layer, index, rng):
    """Input values: normal, except what the operator needs in range (an Embedding's ids,
    BatchNorm's positive running variance)."""
    shape = tuple(layer["shapes"][index])
    if layer["op"] == "Embedding" and index == 0:
        return rng.randint(0, int(layer["attrs"]["input_dim"]), shape)
    if layer["op"] == "BatchNorm" and index == 4:
        return rng.uniform(0.5, 1.5, shape)
    return rng.standard_normal(shape)


def _ones_like(out, ctx):
    """A head gradient of ones, of the output's kind (2.0's executor gives mx.np arrays)."""
    ones = H.mx.nd.ones(out.shape, ctx=ctx)
    return ones.as_np_ndarray() if _is_numpy_array(out) else ones


class LayerCall(object):
    """A bound executor for one layer, inputs from the fixed seed: forward() is inference,
    forward_backward() the training pass (is_train, gradients of every float input)."""

    def __init__(self, layer, ctx):
        rng = H.seed_everything()
        sym = layer_symbol(layer)
        names = ["in%d" % i for i in range(len(layer["shapes"]))]
        args, aux = sym.list_arguments(), sym.list_auxiliary_states()
        shapes = dict((n, tuple(s)) for n, s in zip(names, layer["shapes"]) if n in args)
        grad_req = dict((n, "null" if layer["op"] == "Embedding" and n == "in0" else "write")
                        for n in args)
        try:
            bind = getattr(sym, "simple_bind", None) or sym._simple_bind  # 2.0: _simple_bind
            self.exe = bind(ctx, grad_req=grad_req or "null", **shapes)
        except H.mx.base.MXNetError as exc:
            raise NotImplementedError("mxnet %s rejects layer %s: %s"
                                      % (H.mx.__version__, layer["name"], H.one_line(exc)))
        arrays = dict(zip(args, self.exe.arg_arrays))
        arrays.update(zip(aux, self.exe.aux_arrays))
        for i, name in enumerate(names):
            arrays[name][:] = _fill(layer, i, rng)
        self.grads = [g for g in self.exe.grad_arrays if g is not None]
        H.sync(self.exe.forward(is_train=False))  # first call: primitives created, untimed
        # (2.0's executor has its outputs only after a forward)
        self.head_grads = [_ones_like(o, ctx) for o in self.exe.outputs]

    def forward(self):
        H.sync(self.exe.forward(is_train=False))

    def forward_backward(self):
        self.exe.forward(is_train=True)
        self.exe.backward(self.head_grads)
        H.sync(self.grads)


# --- timing a whole model --------------------------------------------------------------------
MODES = ["imperative", "hybridized", "fused"]


def fusion_problem():
    """Why MKL-DNN fusion cannot be asked of this build, or None."""
    # The release first: before 1.8 no build could be asked, MKL-DNN or not (and before 1.6
    # there is no mx.runtime to say whether it has MKL-DNN).
    if H.release_tuple() < (1, 8):
        return ("mxnet %s's Gluon hybridize() takes no subgraph backend (1.8 added "
                "hybridize(backend=...))" % H.mx.__version__)
    features = getattr(getattr(H.mx, "runtime", None), "Features", None)
    if features is None:
        return "mxnet %s cannot say whether it has MKL-DNN (no mx.runtime)" % H.mx.__version__
    backend = fusion_backend()
    if not features().is_enabled(backend):
        return "this build has no %s: no fusion" % backend
    return None


def fusion_backend():
    """MKL-DNN's name here: 2.0.0b1 renamed it oneDNN (feature and subgraph backend ONEDNN)."""
    return "ONEDNN" if "ONEDNN" in H.mx.runtime.Features() else "MKLDNN"


# The skip of hybridized mode where hybridize() cannot be asked for static memory planning;
# hybridizing without it would time another configuration under the same name.
NO_STATIC_ALLOC = "mxnet %s's hybridize() takes no static_alloc/static_shape"


class ModelCall(object):
    """A built model with its input batch, imperative, hybridized, or hybridized with the
    build's MKL-DNN fusion (the MKLDNN subgraph backend: Conv+BN+ReLU, FC+ReLU, ...)."""

    def __init__(self, spec, batch, mode, ctx):
        self.net = build_network(spec, ctx)
        if mode == "fused":
            problem = fusion_problem()
            if problem:
                raise NotImplementedError(problem)
        self.data = build_input(spec, batch, ctx)
        if mode == "hybridized":
            try:
                self.net.hybridize(static_alloc=True, static_shape=True)
            except TypeError:  # seen on 1.0.0.post4: hybridize() has no such keywords at all
                raise NotImplementedError(NO_STATIC_ALLOC % H.mx.__version__)
        elif mode == "fused" and gluon_2():
            # 2.0 partitions with optimize_for (hybridize() takes no backend there)
            try:
                self.net.optimize_for(self.data, backend=fusion_backend(), static_alloc=True,
                                      static_shape=True)
            except Exception as exc:  # seen on 2.0.0a0: its partitioner traces the BERT
                # encoder with symbols, which have no .ctx: the release's limit, said
                raise NotImplementedError("mxnet %s's optimize_for(backend=%s) fails on %s: %s"
                                          % (H.mx.__version__, fusion_backend(), spec.name,
                                             H.one_line(exc)))
        elif mode == "fused":
            self.net.hybridize(static_alloc=True, static_shape=True, backend="MKLDNN")
        self.params = [p for p in self.net.collect_params().values() if p.grad_req != "null"]
        try:
            self.forward()  # the first call builds the graph (and the fused graph): untimed
        except H.mx.base.MXNetError as exc:
            if mode == "hybridized" and "static_alloc" in str(exc):
                # seen on 1.1.0: hybridize() takes the keywords, its CachedOp neither flag
                raise NotImplementedError(NO_STATIC_ALLOC % H.mx.__version__)
            if mode != "fused":
                raise
            # the release's fusion pass failing on this model is the release's limit (seen:
            # ResNet-50 and MobileNet v2 on 1.8.0.post0): a skip that says so
            raise NotImplementedError("mxnet %s's MKLDNN subgraph backend fails on %s: %s"
                                      % (H.mx.__version__, spec.name, H.one_line(exc)))

    def forward(self):
        H.sync(self.net(self.data))

    def forward_backward(self):
        with H.autograd.record():
            out = self.net(self.data)
        H.autograd.backward(H.heads(out))
        H.sync([p.grad() for p in self.params])
