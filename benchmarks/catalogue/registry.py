"""Catalogue entries beyond mx.nd's public names: the rest of MXNet's operator registry.

Each entry names the registry operators it times (`covers`): the scalar and comparison
operators behind NDArray's Python operators and other internal operators a public function
calls, mx.nd.contrib, mx.nd.image, quantized (int8/uint8) operators, the oneDNN subgraph
fusions (through a hybridized block), sparse storage, MXNet 2.0's new public operators and the
opt-in int64 large-tensor entries. REGISTRY_EXCLUDED says why each remaining registered
operator has no entry (docs/catalogue.md).

Runs inside benchmark environments: Python 3.7 syntax, no mxnet.
"""
from collections import OrderedDict

from .entries import FLOATS, Input, Operator, T, case

FLOAT16_32 = ("float32", "float16")


class RegistryOperator(Operator):
    """A catalogue entry for registered operators outside mx.nd's public names.

    covers: the registry names this entry times (coverage counts their alias groups).
    call: 'imperative' (mx.nd.<name>, namespaced names as 'contrib.box_nms'), 'expression'
          (`expression` evaluated over the inputs a, b, c; `nd` is mx.nd) or 'subgraph'
          (`block` = (factory in harness.registry_calls.SUBGRAPH_BLOCKS, its size argument)).
    storage: {input index: ('csr' | 'row_sparse', density)}; grad_stype: {index: stype}.
    features: runtime features the build needs (a tuple inside means any of them).
    """

    def __init__(self, name, category, cases, covers, expression=None, block=None,
                 storage=None, grad_stype=None, features=(), opt_in=None, **kw):
        kw.setdefault("backward", False)
        Operator.__init__(self, name, category, cases, **kw)
        self.__dict__.update(covers=tuple(covers), expression=expression, block=block,
                             storage=dict(storage or {}), grad_stype=dict(grad_stype or {}),
                             features=tuple(features), opt_in=opt_in)


def const(*shape, **kw):
    """A float32 tensor of one value (a calibrated range bound, a scale): no gradient."""
    value = kw.pop("value")
    return T(*shape, fill="uniform", low=value, high=value, dtype=kw.pop("dtype", "float32"),
             grad=False)


def int8(*shape, **kw):
    """Quantized values: int8 in [-127, 127], uint8 in [0, 255]."""
    dtype = kw.pop("dtype", "int8")
    low, high = (-127, 128) if dtype == "int8" else (0, 256)
    return T(*shape, fill="index", low=low, high=high, dtype=dtype, grad=False)


# --- scalar and comparison operators, through Python's operators ------------------------------
def _scalar(name, covers, expression, fill=None, backward=False, rhs=None, note=""):
    fill = dict(fill or {})
    shapes = [("small", (16, 16)), ("medium", (1024, 1024))]
    cases = [(shape_class, case(T(*shape, **fill), *([T(*shape, **rhs)] if rhs is not None
                                                        else [])))
             for shape_class, shape in shapes]
    return RegistryOperator(name, "scalar", cases, covers, expression=expression, call="expression",
                            backward=backward, note=note or "`%s`" % expression)


_POS = {"fill": "positive"}
_BOOL = {"fill": "index", "high": 2}
_HYBRID = "what `%s` runs in a hybridized graph (Symbol operators; NDArray's broadcasts)"
SCALAR = [
    _scalar("scalar_add", ["_PlusScalar"], "a + 2.0"),
    _scalar("scalar_sub", ["_MinusScalar"], "a - 2.0"),
    _scalar("scalar_rsub", ["_RMinusScalar"], "2.0 - a"),
    _scalar("scalar_mul", ["_MulScalar"], "a * 2.0", backward=True),
    _scalar("scalar_div", ["_DivScalar"], "a / 2.0", backward=True),
    _scalar("scalar_rdiv", ["_RDivScalar"], "2.0 / a", _POS, backward=True),
    _scalar("scalar_mod", ["_ModScalar"], "a % 0.7", backward=True),
    _scalar("scalar_rmod", ["_RModScalar"], "2.0 % a", _POS, backward=True),
    _scalar("scalar_pow", ["_PowerScalar"], "a ** 2.0", backward=True),
    _scalar("scalar_rpow", ["_RPowerScalar"], "2.0 ** a", backward=True),
    _scalar("scalar_maximum", ["_MaximumScalar"], "nd.maximum(a, 0.5)", backward=True),
    _scalar("scalar_minimum", ["_MinimumScalar"], "nd.minimum(a, 0.5)", backward=True),
    _scalar("scalar_hypot", ["_HypotScalar"], "nd._internal._hypot_scalar(a, scalar=2.0)",
            backward=True),
    _scalar("scalar_equal", ["_EqualScalar"], "a == 0.5"),
    _scalar("scalar_not_equal", ["_NotEqualScalar"], "a != 0.5"),
    _scalar("scalar_greater", ["_GreaterScalar"], "a > 0.5"),
    _scalar("scalar_greater_equal", ["_GreaterEqualScalar"], "a >= 0.5"),
    _scalar("scalar_lesser", ["_LesserScalar"], "a < 0.5"),
    _scalar("scalar_lesser_equal", ["_LesserEqualScalar"], "a <= 0.5"),
    _scalar("scalar_logical_and", ["_LogicalAndScalar"], "nd.logical_and(a, 1)", _BOOL),
    _scalar("scalar_logical_or", ["_LogicalOrScalar"], "nd.logical_or(a, 0)", _BOOL),
    _scalar("scalar_logical_xor", ["_LogicalXorScalar"], "nd.logical_xor(a, 1)", _BOOL),
]
# Same-shape elementwise binaries: NDArray's `a > b` broadcasts (broadcast_greater, in
# nd.py); a hybridized graph's `a > b` (mx.sym) runs these.
for _name, _op, _symbol, _backward, _rhs in [
        ("equal", "_Equal", "==", False, {}), ("not_equal", "_Not_Equal", "!=", False, {}),
        ("greater", "_Greater", ">", False, {}), ("greater_equal", "_Greater_Equal", ">=", False, {}),
        ("lesser", "_Lesser", "<", False, {}), ("lesser_equal", "_Lesser_Equal", "<=", False, {}),
        ("logical_and", "_Logical_And", "and", False, None),
        ("logical_or", "_Logical_Or", "or", False, None),
        ("logical_xor", "_Logical_Xor", "xor", False, None),
        ("maximum", "_Maximum", "maximum", True, {}), ("minimum", "_Minimum", "minimum", True, {}),
        ("mod", "_Mod", "%", True, {"fill": "positive", "low": 0.5}),
        ("power", "_Power", "**", True, {"fill": "uniform"}), ("hypot", "_Hypot", "hypot", True, {})]:
    SCALAR.append(_scalar(
        "elemwise_" + _name, [_op], "nd._internal.%s(a, b)" % _op.lower().replace("__", "_"),
        fill=_POS if _name == "power" else (_BOOL if _rhs is None else None),
        rhs=_BOOL if _rhs is None else _rhs, backward=_backward, note=_HYBRID % _symbol))

_M = (1024, 1024)
SCALAR += [
    RegistryOperator("slice_assign", "scalar",
                     [("medium", case(T(*_M), T(768, 768)))], ["_slice_assign"],
                     call="expression", expression="(a.__setitem__((slice(128, 896), "
                     "slice(128, 896)), b), a)[1]", note="`a[128:896, 128:896] = b`"),
    RegistryOperator("slice_assign_scalar", "scalar", [("medium", case(T(*_M)))],
                     ["_slice_assign_scalar"], call="expression",
                     expression="(a.__setitem__((slice(128, 896), slice(128, 896)), 0.5), a)[1]",
                     note="`a[128:896, 128:896] = 0.5`"),
    RegistryOperator("set_value", "scalar", [("medium", case(T(*_M)))], ["_set_value"],
                     call="expression", expression="(a.__setitem__(slice(None), 0.5), a)[1]",
                     note="`a[:] = 0.5`"),
    RegistryOperator("grad_add", "scalar", [("medium", case(T(*_M), T(*_M)))], ["_grad_add"],
                     call="expression", expression="nd._internal._grad_add(a, b)",
                     note="gradient accumulation (grad_req='add')"),
    RegistryOperator("copyto", "scalar", [("medium", case(T(*_M), T(*_M, grad=False)))],
                     ["_copyto"], call="expression", expression="a.copyto(b)",
                     note="NDArray.copyto into an existing array"),
    RegistryOperator("zeros", "creation", [("medium", case())], ["_zeros"],
                     call="expression", expression="nd.zeros((1024, 1024))"),
    RegistryOperator("ones", "creation", [("medium", case())], ["_ones"],
                     call="expression", expression="nd.ones((1024, 1024))"),
    RegistryOperator("full", "creation", [("medium", case())], ["_full"],
                     call="expression", expression="nd.full((1024, 1024), 0.5)"),
    RegistryOperator("arange", "creation", [("medium", case())], ["_arange"],
                     call="expression", expression="nd.arange(0, 1048576)"),
    RegistryOperator("linspace", "creation", [("medium", case())], ["_linspace"],
                     call="expression", expression="nd.linspace(0, 1, 1048576)"),
    RegistryOperator("eye", "creation", [("medium", case())], ["_eye"],
                     call="expression", expression="nd.eye(1024)"),
    RegistryOperator("histogram", "scalar", [("medium", case(T(*_M)))], ["_histogram"],
                     call="expression", expression="nd.histogram(a, bins=64, range=(-4, 4))"),
    RegistryOperator("onehot_encode", "scalar",
                     [("medium", case(T(8192, fill="index", high=128), T(8192, 128, grad=False)))],
                     ["_onehot_encode"], call="expression", expression="nd.onehot_encode(a, b)",
                     note="the legacy one-hot (one_hot is in catalogue.py)"),
    RegistryOperator("linalg_syevd", "linalg", [("medium", case(T(128, 128, fill="spd")))],
                     ["_linalg_syevd"], call="expression", expression="nd.linalg.syevd(a)",
                     backward=True),
    RegistryOperator("adamw_update", "optimizer",
                     [("medium", case(T(*_M, grad=False), T(*_M, grad=False), T(*_M, fill="zeros"),
                                      T(*_M, fill="zeros"), const(1, value=1.0)))],
                     ["_adamw_update"], call="expression",
                     expression="nd._internal._adamw_update(a, b, c, d, e, lr=0.01, eta=1.0, "
                     "wd=0.01, out=a)", note="contrib.adamw_update (in place)"),
    RegistryOperator("split_v2", "scalar", [("medium", case(T(*_M)))], ["_split_v2"],
                     call="expression", expression="nd.split_v2(a, 4, axis=1)", backward=True,
                     note="mx.nd.split_v2 (numpy-style split points)"),
    RegistryOperator("scatter_set_nd", "scalar",
                     [("medium", case(T(*_M), T(65536), T(2, 65536, fill="index",
                                                            high=(1024, 1024))))],
                     ["_scatter_set_nd"], call="expression",
                     expression="(nd._internal._scatter_set_nd(a, b, c, shape=(1024, 1024), "
                     "out=a), a)[1]", note="what `a[rows, cols] = values` runs (in place)"),
    RegistryOperator("rnn_param_concat", "scalar",
                     [("medium", case(T(262144), T(262144), T(4096)))], ["_rnn_param_concat"],
                     call="expression", backward=True,
                     expression="nd._internal._rnn_param_concat(a, b, c, num_args=3, dim=0)",
                     note="how Gluon's RNN layers pack their parameters (1.x)"),
    RegistryOperator("sample_unique_zipfian", "random", [("medium", case())],
                     ["_sample_unique_zipfian"], call="expression",
                     expression="nd._internal._sample_unique_zipfian(range_max=100000, "
                     "shape=(64, 8192))", note="contrib.rand_zipfian's sampler"),
]
for _dist, _kwargs in [("normal", ""), ("uniform", ""), ("exponential", ""), ("gamma", ""),
                       ("poisson", ""), ("negative_binomial", ", k=3, p=0.4"),
                       ("generalized_negative_binomial", ", mu=2.0, alpha=0.3")]:
    SCALAR.append(RegistryOperator(
        "random_%s_like" % _dist, "random", [("medium", case(T(*_M, grad=False)))],
        ["_random_%s_like" % _dist], call="expression",
        expression="nd.random.%s_like(a%s)" % (_dist, _kwargs)))
SCALAR += [
    RegistryOperator("image_resize_cv", "image", [("medium", case(T(256, 256, 3, fill="index",
                                                                      high=256, dtype="uint8")))],
                     ["_cvimresize"], call="expression", expression="nd._internal._cvimresize("
                     "a, w=224, h=224)", dtypes=("uint8",), note="mx.image.imresize (OpenCV)"),
    RegistryOperator("image_copy_make_border", "image",
                     [("medium", case(T(224, 224, 3, fill="index", high=256, dtype="uint8")))],
                     ["_cvcopyMakeBorder"], call="expression",
                     expression="nd._internal._cvcopyMakeBorder(a, top=16, bot=16, left=16, "
                     "right=16)", dtypes=("uint8",), note="mx.image.copyMakeBorder (OpenCV)"),
]

# --- mx.nd.image ------------------------------------------------------------------------------
_HWC = T(224, 224, 3, fill="uniform", low=0.0, high=1.0)
_HWC_U8 = T(224, 224, 3, fill="index", high=256, dtype="uint8", grad=False)
_NCHW = T(8, 3, 224, 224, fill="uniform", low=0.0, high=1.0)


def _image(name, inputs, since=None, backward=False, **kwargs):
    return RegistryOperator("image." + name, "image", [("medium", case(*inputs, **kwargs))],
                            ["_image_" + name], since=since, backward=backward)


IMAGE = [
    _image("to_tensor", [_HWC_U8]),
    _image("normalize", [_NCHW], mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225),
           backward=True),
    _image("resize", [_HWC_U8], size=(160, 160)),
    _image("crop", [_HWC_U8], x=16, y=16, width=192, height=192),
    _image("flip_left_right", [_HWC]), _image("flip_top_bottom", [_HWC]),
    _image("random_flip_left_right", [_HWC]), _image("random_flip_top_bottom", [_HWC]),
    _image("random_brightness", [_HWC], min_factor=0.7, max_factor=1.3),
    _image("random_contrast", [_HWC], min_factor=0.7, max_factor=1.3),
    _image("random_saturation", [_HWC], min_factor=0.7, max_factor=1.3),
    _image("random_hue", [_HWC], min_factor=0.9, max_factor=1.1),
    _image("random_color_jitter", [_HWC], brightness=0.3, contrast=0.3, saturation=0.3,
           hue=0.1),
    _image("adjust_lighting", [_HWC], alpha=(0.05, -0.02, 0.01)),
    _image("random_lighting", [_HWC], alpha_std=0.05),
    _image("random_crop", [_HWC_U8], xrange=(0.0, 1.0), yrange=(0.0, 1.0), width=192,
           height=192, since="2.0"),
    _image("random_resized_crop", [_HWC_U8], width=192, height=192, since="2.0"),
]

# --- mx.nd.contrib ----------------------------------------------------------------------------
def _contrib(name, inputs, backward=False, since=None, until=None, note="", storage=None,
             **kwargs):
    return RegistryOperator("contrib." + name, "contrib", [("medium", case(*inputs, **kwargs))],
                            ["_contrib_" + name], backward=backward, since=since, until=until,
                            note=note, storage=storage)


_UNIT_BOXES = {"fill": "uniform", "low": 0.0, "high": 1.0}
_CORNERS = {"fill": "uniform", "low": (0.0, 0.0, 0.5, 0.5), "high": (0.5, 0.5, 1.0, 1.0)}
_ROIS = T(64, 5, fill="rois", high=(4, 32, 32))
_QKV = T(128, 16, 3 * 8 * 64)          # (sequence, batch, 3 * heads * head size)
_ATTENTION = T(16 * 8, 128, 128, fill="simplex")  # (batch * heads, queries, keys)
_SEQ_BATCH = {"heads": 8}
CONTRIB = [
    _contrib("AdaptiveAvgPooling2D", [T(8, 64, 56, 56)], output_size=(7, 7), backward=True),
    _contrib("BilinearResize2D", [T(8, 64, 56, 56)], height=112, width=112, backward=True),
    _contrib("ROIAlign", [T(4, 64, 32, 32), _ROIS], pooled_size=(7, 7), spatial_scale=1.0,
             backward=True),
    _contrib("RROIAlign", [T(4, 64, 32, 32),
                           T(64, 6, fill="uniform", low=(0, 8, 8, 4, 4, -45),
                             high=(0, 24, 24, 12, 12, 45), grad=False)],
             pooled_size=(7, 7), spatial_scale=1.0),
    _contrib("PSROIPooling", [T(4, 4 * 7 * 7, 32, 32), _ROIS], spatial_scale=1.0, output_dim=4,
             pooled_size=7, backward=True),
    _contrib("DeformablePSROIPooling", [T(4, 4 * 7 * 7, 32, 32), _ROIS,
                                        T(64, 2, 7, 7, fill="uniform", low=-0.1, high=0.1)],
             spatial_scale=1.0, output_dim=4, group_size=7, pooled_size=7, part_size=7,
             trans_std=0.1, backward=True),
    _contrib("DeformableConvolution", [T(8, 32, 28, 28),
                                       T(8, 18, 28, 28, fill="uniform", low=-0.5, high=0.5),
                                       T(64, 32, 3, 3), T(64)],
             kernel=(3, 3), pad=(1, 1), num_filter=64, backward=True, until="2.0"),
    _contrib("BatchNormWithReLU", [T(32, 64, 28, 28), T(64, fill="ones"), T(64, fill="zeros"),
                                   T(64, fill="zeros"), T(64, fill="ones")], backward=True),
    _contrib("SyncBatchNorm", [T(32, 64, 28, 28), T(64, fill="ones"), T(64, fill="zeros"),
                               T(64, fill="zeros"), T(64, fill="ones")], key="mxbench",
             backward=True, note="one device (ndev=1)"),
    _contrib("MultiBoxPrior", [T(1, 64, 38, 38)], sizes=(0.2, 0.272), ratios=(1, 2, 0.5)),
    _contrib("MultiBoxTarget", [T(1, 5776, 4, **_UNIT_BOXES),
                                T(8, 16, 5, fill="uniform", low=(0, 0.0, 0.0, 0.5, 0.5),
                                  high=(0, 0.5, 0.5, 1.0, 1.0), grad=False),
                                T(8, 21, 5776, grad=False)]),
    _contrib("MultiBoxDetection", [T(8, 21, 5776, fill="simplex", grad=False),
                                   T(8, 5776 * 4, grad=False), T(1, 5776, 4, **_UNIT_BOXES)],
             nms_topk=400),
    _contrib("Proposal", [T(1, 24, 38, 50, fill="simplex", grad=False),
                          T(1, 48, 38, 50, grad=False),
                          T(1, 3, fill="uniform", low=(600, 800, 1), high=(600, 800, 1))],
             rpn_pre_nms_top_n=6000, rpn_post_nms_top_n=300),
    _contrib("MultiProposal", [T(4, 24, 38, 50, fill="simplex", grad=False),
                               T(4, 48, 38, 50, grad=False),
                               T(4, 3, fill="uniform", low=(600, 800, 1), high=(600, 800, 1))],
             rpn_pre_nms_top_n=6000, rpn_post_nms_top_n=300),
    _contrib("box_nms", [T(8, 4096, 6, **_UNIT_BOXES)], overlap_thresh=0.5, topk=400,
             backward=True),
    _contrib("box_iou", [T(1024, 4, **_UNIT_BOXES), T(1024, 4, **_UNIT_BOXES)]),
    _contrib("box_encode", [T(8, 4096, fill="index", low=-1, high=2, grad=False),
                            T(8, 4096, fill="index", high=64, grad=False),
                            T(8, 4096, 4, **_CORNERS), T(8, 64, 4, **_CORNERS),
                            const(4, value=0.0), const(4, value=0.1)]),
    _contrib("box_decode", [T(8, 4096, 4), T(1, 4096, 4, **_UNIT_BOXES)]),
    _contrib("bipartite_matching", [T(8, 512, 64, **_UNIT_BOXES)], threshold=0.5),
    _contrib("interleaved_matmul_selfatt_qk", [_QKV], backward=True, **_SEQ_BATCH),
    _contrib("interleaved_matmul_selfatt_valatt", [_QKV, _ATTENTION], backward=True,
             **_SEQ_BATCH),
    _contrib("interleaved_matmul_encdec_qk", [T(128, 16, 8 * 64), T(128, 16, 2 * 8 * 64)],
             backward=True, **_SEQ_BATCH),
    _contrib("interleaved_matmul_encdec_valatt", [T(128, 16, 2 * 8 * 64), _ATTENTION],
             backward=True, **_SEQ_BATCH),
    _contrib("div_sqrt_dim", [T(*_M)], backward=True),
    _contrib("gradientmultiplier", [T(*_M)], scalar=0.5, backward=True),
    _contrib("quadratic", [T(*_M)], a=1.0, b=2.0, c=3.0, backward=True),
    _contrib("round_ste", [T(*_M)], backward=True),
    _contrib("sign_ste", [T(*_M)], backward=True),
    _contrib("index_copy", [T(*_M), T(256, fill="index", high=1024, dtype="int64"),
                            T(256, 1024)], backward=True),
    _contrib("index_array", [T(*_M)]),
    _contrib("arange_like", [T(*_M)], axis=1),
    _contrib("boolean_mask", [T(*_M), T(1024, fill="index", high=2, grad=False)],
             backward=True),
    _contrib("allclose", [T(*_M), T(*_M)]),
    _contrib("hawkesll", [T(64, 3, fill="positive"), T(3, fill="uniform", low=0.1, high=0.5),
                          T(3, fill="positive"), T(64, 3, fill="zeros"),
                          T(64, 256, fill="uniform", low=0.01, high=0.1),
                          T(64, 256, fill="index", high=3, dtype="int32"),
                          T(64, fill="uniform", low=256, high=256, grad=False),
                          T(64, fill="uniform", low=40.0, high=40.0, grad=False)],
             note="self-exciting point process log-likelihood, 3 marks"),
    RegistryOperator("contrib.calibrate_entropy", "contrib",
                     [("medium", case(T(1001, fill="index", low=1, high=1000, dtype="float32")))],
                     ["_contrib_calibrate_entropy"], call="expression",
                     expression="nd.contrib.calibrate_entropy(a, nd.linspace(-4, 4, 1002), "
                     "num_quantized_bins=255)",
                     note="the int8 calibration's KL search over a 1001-bin histogram"),
]

# --- quantized (int8 / uint8 with calibrated ranges; oneDNN builds) ---------------------------
_ONEDNN = (("MKLDNN", "ONEDNN"),)
_RANGE = [const(1, value=-2.0), const(1, value=2.0)]      # the calibrated float range of data
_URANGE = [const(1, value=0.0), const(1, value=2.0)]      # ... of uint8 data (after a ReLU)
_WRANGE = [const(1, value=-0.5), const(1, value=0.5)]     # ... of int8 weights


def _quantized(name, inputs, dtypes=("int8",), until=None, since=None, note="", **kwargs):
    return RegistryOperator("contrib." + name, "quantized", [("medium", case(*inputs, **kwargs))],
                            ["_contrib_" + name], dtypes=dtypes, until=until, since=since,
                            features=_ONEDNN, note=note or "int8/uint8 data, calibrated ranges")


_F = (32, 64, 28, 28)
QUANTIZED = [
    RegistryOperator("contrib.quantize", "quantized",
                     [("medium", case(T(*_F), *_RANGE, out_type="int8"))],
                     ["_contrib_quantize"], features=_ONEDNN, note="float32 -> int8"),
    RegistryOperator("contrib.quantize_v2", "quantized",
                     [("medium", case(T(*_F), min_calib_range=-2.0, max_calib_range=2.0,
                                      out_type="int8"))],
                     ["_contrib_quantize_v2"], features=_ONEDNN, note="float32 -> int8"),
    _quantized("dequantize", [int8(*_F)] + _RANGE, note="int8 -> float32"),
    _quantized("requantize", [T(*_F, fill="index", low=-2 ** 20, high=2 ** 20, dtype="int32",
                                grad=False), const(1, value=-2.0 ** 20),
                              const(1, value=2.0 ** 20)],
               min_calib_range=-2.0, max_calib_range=2.0, note="int32 -> int8"),
    _quantized("quantized_conv", [int8(*_F, dtype="uint8"), int8(64, 64, 3, 3)] + _URANGE
               + _WRANGE, kernel=(3, 3), pad=(1, 1), num_filter=64, no_bias=True,
               note="uint8 data, int8 weights"),
    _quantized("quantized_fully_connected", [int8(256, 1024, dtype="uint8"), int8(1024, 1024)]
               + _URANGE + _WRANGE, num_hidden=1024, no_bias=True,
               note="uint8 data, int8 weights"),
    _quantized("quantized_pooling", [int8(*_F, dtype="uint8")] + _URANGE, kernel=(2, 2),
               stride=(2, 2), pool_type="max", dtypes=("uint8",)),
    _quantized("quantized_act", [int8(*_F)] + _RANGE, act_type="relu"),
    _quantized("quantized_flatten", [int8(*_F)] + _RANGE),
    RegistryOperator("contrib.quantized_concat", "quantized",
                     [("medium", case(int8(*_F), int8(*_F), *(_RANGE + _RANGE)))],
                     ["_contrib_quantized_concat"], call="expression", dtypes=("int8",),
                     expression="nd.contrib.quantized_concat(a, b, c, d, e, f, num_args=2, "
                     "dim=1)", features=_ONEDNN, note="two int8 inputs, calibrated ranges"),
    _quantized("quantized_elemwise_add", [int8(*_F), int8(*_F)] + _RANGE + _RANGE),
    _quantized("quantized_embedding",
               [T(64, 128, fill="index", high=10000, dtype="float32", grad=False),
                int8(10000, 128)] + _WRANGE, input_dim=10000, output_dim=128),
    _quantized("quantized_batch_norm",
               [int8(*_F), const(64, value=1.0), const(64, value=0.0), const(64, value=0.0),
                const(64, value=1.0)] + _RANGE, min_calib_range=-2.0, max_calib_range=2.0),
    RegistryOperator("quantized_reshape", "quantized",
                     [("medium", case(int8(*_F), *_RANGE, shape=(32, -1)))],
                     ["quantized_reshape"], dtypes=("int8",), since="2.0", features=_ONEDNN),
    RegistryOperator("quantized_transpose", "quantized",
                     [("medium", case(int8(*_F), *_RANGE, axes=(0, 2, 3, 1)))],
                     ["quantized_transpose"], dtypes=("int8",), since="2.0", features=_ONEDNN),
]

# --- oneDNN subgraph fusions, through a hybridized block --------------------------------------
_SG = ("_sg_mkldnn_%s", "_sg_onednn_%s")


def _subgraph(name, block, inputs, fused, since=None):
    return RegistryOperator("fused_" + name, "subgraph", [("medium", case(*inputs))],
                            [p % fused for p in _SG], call="subgraph", block=block,
                            features=_ONEDNN, since=since,
                            note="hybridize(backend=MKLDNN/ONEDNN) partitions it into %s"
                            % (_SG[0] % fused))


SUBGRAPH = [
    _subgraph("conv_bn_relu", ("conv_bn_relu", 64), [T(32, 64, 28, 28)], "conv"),
    _subgraph("dense_relu", ("dense_relu", 1024), [T(256, 1024)], "fully_connected"),
    RegistryOperator("fused_self_attention", "subgraph", [("medium", case(_QKV))],
                     [p % f for f in ("selfatt_qk", "selfatt_valatt") for p in _SG],
                     call="subgraph", block=("self_attention", 8), features=_ONEDNN,
                     note="interleaved_matmul_selfatt_qk -> softmax -> ..._valatt, hybridized "
                     "with the MKLDNN backend: _sg_mkldnn_selfatt_qk and _valatt; on 2.0 "
                     "split/reshape/swapaxes/batch_dot (axis 0 read as the batch), which "
                     "ONEDNN fuses to _sg_onednn_selfatt_qk"),
    _subgraph("batch_dot", ("batch_dot", None), [T(64, 128, 64), T(64, 64, 128)], "batch_dot",
              since="2.0"),
]

# --- sparse storage: csr and row_sparse inputs for the operators with sparse kernels -----------
# Densities as in the workloads these kernels exist for: csr 1% (bag-of-words features, graph
# adjacency), row_sparse 10% of the rows (an embedding's gradient for one batch).
CSR = ("csr", 0.01)
ROW_SPARSE = ("row_sparse", 0.1)


def _sparse(name, inputs, storage, form="", covers=None, call="imperative", expression=None,
            until=None, backward=False, grad_stype=None, note="", **kwargs):
    note = note or ", ".join("input %d %s %g%%" % (i, st, 100 * d)
                             for i, (st, d) in sorted(storage.items()))
    return RegistryOperator(name, "sparse", [("medium", case(*inputs, **kwargs))],
                            covers or [name], form=form, call=call, expression=expression,
                            storage=storage, until=until, backward=backward,
                            grad_stype=grad_stype, note=note)


_W = (10000, 256)  # an embedding-sized weight
SPARSE = [
    _sparse("dot", [T(1024, 4096, grad=False), T(4096, 256, grad=False)], {0: CSR},
            form="csr"),
    _sparse("dot", [T(4096, 1024, grad=False), T(4096, 256, grad=False)], {0: CSR},
            form="csr_transpose_a", transpose_a=True,
            note="csr.T x dense: a sparse linear model's weight gradient"),
    _sparse("elemwise_add", [T(*_W), T(*_W)], {0: ROW_SPARSE, 1: ROW_SPARSE},
            form="row_sparse"),
    _sparse("elemwise_add", [T(1024, 4096), T(1024, 4096)], {0: CSR, 1: CSR}, form="csr"),
    _sparse("elemwise_mul", [T(*_W), T(*_W)], {0: ROW_SPARSE, 1: ROW_SPARSE},
            form="row_sparse"),
    _sparse("sum", [T(1024, 4096)], {0: CSR}, form="csr", axis=1),
    _sparse("sparse.retain", [T(*_W), T(512, fill="index", high=10000, dtype="int64")],
            {0: ROW_SPARSE}, covers=["_sparse_retain"]),
    _sparse("square_sum", [T(*_W)], {0: ROW_SPARSE}, covers=["_square_sum"],
            call="expression", expression="nd._internal._square_sum(a, axis=1)",
            note="row_sparse 10%: sum of squares per row (the norm of a sparse gradient)"),
    _sparse("sgd_update", [T(*_W, grad=False), T(*_W, grad=False)], {1: ROW_SPARSE},
            form="row_sparse", lr=0.01, lazy_update=True, out=Input(0),
            note="row_sparse gradient 10%: the lazy update"),
    _sparse("adam_update", [T(*_W, grad=False), T(*_W, grad=False), T(*_W, fill="zeros"),
                            T(*_W, fill="zeros")], {1: ROW_SPARSE}, form="row_sparse",
            lr=0.01, lazy_update=True, out=Input(0),
            note="row_sparse gradient 10%: the lazy update"),
    _sparse("sparse.adagrad_update", [T(*_W, grad=False), T(*_W, grad=False),
                                      T(*_W, fill="zeros")], {1: ROW_SPARSE}, lr=0.01,
            out=Input(0), covers=["_sparse_adagrad_update"]),
    _sparse("contrib.group_adagrad_update", [T(*_W, grad=False), T(*_W, grad=False),
                                             T(10000, 1, fill="zeros")], {1: ROW_SPARSE},
            lr=0.01, out=Input(0), covers=["_contrib_group_adagrad_update"]),
    _sparse("Embedding", [T(64, 128, fill="index", high=10000, dtype="float32"), T(*_W)], {},
            form="sparse_grad", input_dim=10000, output_dim=256, sparse_grad=True,
            backward=True, grad_stype={1: "row_sparse"},
            note="row_sparse weight gradient (sparse_grad=True)"),
    _sparse("contrib.SparseEmbedding", [T(64, 128, fill="index", high=10000, dtype="float32"),
                                        T(*_W)], {}, input_dim=10000, output_dim=256,
            covers=["_contrib_SparseEmbedding"], backward=True, grad_stype={1: "row_sparse"},
            until="2.0", note="row_sparse weight gradient"),
    _sparse("contrib.edge_id", [T(2048, 2048), T(8192, fill="index", high=2048, dtype="int64"),
                                T(8192, fill="index", high=2048, dtype="int64")], {0: CSR},
            covers=["_contrib_edge_id"], note="csr graph adjacency 1%"),
    _sparse("contrib.dgl_adjacency", [T(2048, 2048, fill="ones", dtype="int64")], {0: CSR}, covers=["_contrib_dgl_adjacency"],
            note="csr graph 1% -> its adjacency matrix"),
    _sparse("contrib.getnnz", [T(1024, 4096)], {0: CSR}, covers=["_contrib_getnnz"]),
    _sparse("scatter_plus_scalar", [T(*_W)], {0: ROW_SPARSE}, covers=["_scatter_plus_scalar"],
            call="expression", expression="nd._internal._scatter_plus_scalar(a, scalar=2.0)",
            until="2.0", note="row_sparse 10%: only stored values change"),
    _sparse("scatter_minus_scalar", [T(*_W)], {0: ROW_SPARSE},
            covers=["_scatter_minus_scalar"], call="expression",
            expression="nd._internal._scatter_minus_scalar(a, scalar=2.0)", until="2.0",
            note="row_sparse 10%: only stored values change"),
    _sparse("scatter_elemwise_div", [T(*_W), T(*_W, fill="positive")], {0: ROW_SPARSE},
            covers=["_scatter_elemwise_div"], call="expression",
            expression="nd._internal._scatter_elemwise_div(a, b)", until="2.0",
            note="row_sparse 10% / dense"),
]

# --- public operators MXNet 2.0 added (mx.nd names there; absent in 1.x) ----------------------
_2 = "2.0"
PUBLIC_2_0 = [
    RegistryOperator("digamma", "unary", [("medium", case(T(*_M, fill="positive")))],
                     ["digamma"], since=_2, backward=True),
    RegistryOperator("log_sigmoid", "activation", [("medium", case(T(*_M)))], ["log_sigmoid"],
                     since=_2, backward=True),
    RegistryOperator("mish", "activation", [("medium", case(T(*_M)))], ["mish"], since=_2,
                     backward=True),
    RegistryOperator("masked_softmax", "activation",
                     [("medium", case(T(*_M), T(*_M, fill="index", high=2, grad=False)))],
                     ["masked_softmax"], call="expression", since=_2, backward=True,
                     expression="nd.masked_softmax(a, b.astype('bool'))",
                     note="the mask is cast to bool in the call (the catalogue has no bool "
                     "inputs)"),
    RegistryOperator("masked_log_softmax", "activation",
                     [("medium", case(T(*_M), T(*_M, fill="index", high=2, grad=False)))],
                     ["masked_log_softmax"], call="expression", since=_2, backward=True,
                     expression="nd.masked_log_softmax(a, b.astype('bool'))",
                     note="the mask is cast to bool in the call"),
    RegistryOperator("random_binomial", "random", [("medium", case())], ["random_binomial"],
                     call="expression", since=_2,
                     expression="nd.random_binomial(n=20, p=0.3, shape=(1024, 1024))"),
    RegistryOperator("sample_binomial", "random",
                     [("medium", case(T(1024, fill="index", low=1, high=40, dtype="float32"),
                                      T(1024, fill="uniform", low=0.1, high=0.9)))],
                     ["sample_binomial"], call="expression", since=_2,
                     expression="nd.sample_binomial(a, b, shape=1024)"),
]

# --- int64 large tensors (> 2**31 elements): opt-in, builds with INT64_TENSOR_SIZE ------------
# int8 keeps one input at 2.1 GB; inputs are filled by MXNet (no numpy copy of that size).
_HUGE = 2 ** 31 + 2 ** 20


def _large_tensor(name, inputs, **kwargs):
    return RegistryOperator(name, "large-tensor", [("large", case(*inputs, **kwargs))], [name],
                            form="int64_size", dtypes=("int8",), opt_in="MXBENCH_LARGE_TENSOR",
                            features=("INT64_TENSOR_SIZE",),
                            note="%d int8 elements (> 2**31): index arithmetic in int64"
                            % _HUGE)


LARGE_TENSOR = [
    _large_tensor("elemwise_add", [T(_HUGE, fill="ones"), T(_HUGE, fill="ones")]),
    _large_tensor("sum", [T(_HUGE // 1024, 1024, fill="ones")], axis=1),
    _large_tensor("slice_axis", [T(_HUGE // 1024, 1024, fill="ones")], axis=0, begin=2 ** 20,
                  end=2 ** 21 + 2 ** 20),
]

REGISTRY_OPERATORS = (SCALAR + IMAGE + CONTRIB + QUANTIZED + SUBGRAPH + SPARSE + PUBLIC_2_0
                      + LARGE_TENSOR)

# --- registered operators with no entry, and why ----------------------------------------------
# Keyed by registry name (any name of the alias group). Gradient kernels (_backward_* and the
# like) are not listed: the registry report sets them aside, backward is timed through the
# forward operators' time_forward_backward.
_PLUMBING = "plumbing, not a computation: %s"
_DEFERRED = "not yet benchmarked: %s"
_MULTI = ("multi-tensor form of %s, which has an entry; the multi-tensor fusion itself is "
          "timed on SGD (multi_sgd_update, multi_mp_sgd_mom_update, ...)")
REGISTRY_EXCLUDED = OrderedDict([
    ("_CachedOp", _PLUMBING % "the executor of a hybridized graph; every hybridized Gluon "
     "benchmark (bench_gluon, the subgraph entries) runs through it"),
    ("_CachedOpThreadSafe", _PLUMBING % "the thread-safe _CachedOp for multi-threaded "
     "inference (C++ API)"),
    ("_CrossDeviceCopy", _PLUMBING % "inserted by the graph executor between two devices"),
    ("_CustomFunction", _PLUMBING % "the graph node of an autograd.Function; its cost is the "
     "user's Python code"),
    ("_NDArray", _PLUMBING % "deprecated Python callback operator (NDArrayOp)"),
    ("_Native", _PLUMBING % "deprecated Python callback operator (NumpyOp)"),
    ("_NoGradient", _PLUMBING % "the placeholder gradient of non-differentiable inputs"),
    ("_identity_with_attr_like_rhs", _PLUMBING % "a graph-pass helper that copies attributes"),
    ("_cvimdecode", "image decoding from encoded JPEG/PNG bytes: benchmark environments have no "
     "image encoder (no OpenCV/PIL in the wheels' Python) to make the input"),
    ("_cvimread", "reads an image file from disk (OpenCV): file I/O, see _cvimdecode"),
    ("_imdecode", "deprecated decoder behind mx.nd.imdecode; see _cvimdecode"),
    ("_contrib_quantize_asym", "crashes the process (segfault) on mxnet 1.9.1's CPU build for "
     "every float32 input tried; removed in 2.0"),
    ("_contrib_quantized_elemwise_mul", _DEFERRED % "mxnet's imperative call fails (Check failed: "
     "out_shapes.size() == outputs.size()); reachable only in a quantized graph"),
    ("_contrib_fft", "GPU only: no CPU kernel is registered"),
    ("_contrib_ifft", "GPU only: no CPU kernel is registered"),
    ("_contrib_count_sketch", "GPU only: no CPU kernel is registered"),
    ("_contrib_ModulatedDeformableConvolution", "GPU only: the CPU kernel says 'only "
     "implemented in GPU' (1.x; gone in 2.0)"),
    ("_cond", _DEFERRED % "control flow runs as an operator only inside a hybridized graph "
     "(imperatively it is a Python branch); needs a Gluon block entry"),
    ("_foreach", _DEFERRED % "control flow, see _cond"),
    ("_while_loop", _DEFERRED % "control flow, see _cond"),
    ("_contrib_quantized_rnn", _DEFERRED % "needs a uint8 LSTM with packed int8 parameters and "
     "calibrated state ranges"),
    ("_contrib_dgl_subgraph", _DEFERRED % "DGL graph sampling on csr graphs with int64 vertex "
     "ids (edge_id and dgl_adjacency have entries)"),
    ("_contrib_dgl_graph_compact", _DEFERRED % "DGL graph sampling, see _contrib_dgl_subgraph"),
    ("_contrib_dgl_csr_neighbor_uniform_sample", _DEFERRED % "DGL graph sampling, see "
     "_contrib_dgl_subgraph"),
    ("_contrib_dgl_csr_neighbor_non_uniform_sample", _DEFERRED % "DGL graph sampling, see "
     "_contrib_dgl_subgraph"),
    ("_zeros_without_dtype", "the graph form of _zeros (dtype left to inference); imperative "
     "calls reject its dtype -1, and mx.nd.zeros runs _zeros (has an entry)"),
    ("_mp_adamw_update", "mixed-precision form of _adamw_update (has an entry)"),
    ("_multi_adamw_update", _MULTI % "_adamw_update"),
    ("_multi_mp_adamw_update", _MULTI % "_adamw_update"),
    ("_multi_lamb_update", _MULTI % "lamb_update_phase1/2"),
    ("_multi_mp_lamb_update", _MULTI % "lamb_update_phase1/2"),
    # MXNet 2.0 only
    ("_npx_quantized_reshape", "mx.npx's registration of quantized_reshape (has an entry): "
     "the same quantized kernel under the numpy interface"),
    ("_npx_quantized_transpose", "mx.npx's registration of quantized_transpose (has an "
     "entry): the same kernel under the numpy interface"),
    ("_adabelief_update", _DEFERRED % "MXNet 2.0's AdaBelief optimizer update"),
    ("_mp_adabelief_update", _DEFERRED % "mixed-precision form of _adabelief_update"),
    ("_multi_adabelief_update", _MULTI % "_adabelief_update"),
    ("_multi_mp_adabelief_update", _MULTI % "_adabelief_update"),
    ("_multi_lans_update", _DEFERRED % "MXNet 2.0's multi-tensor LANS optimizer update"),
    ("_multi_mp_lans_update", _DEFERRED % "mixed-precision form of _multi_lans_update"),
    ("_contrib_dynamic_reshape", _DEFERRED % "MXNet 2.0's reshape to a shape given as a tensor"),
    ("_contrib_intgemm_fully_connected", _DEFERRED % "intgemm int8 GEMM (MXNet 2.0, x86 "
     "machine translation); needs intgemm-prepared weights"),
    ("_contrib_intgemm_maxabsolute", _DEFERRED % "intgemm, see _contrib_intgemm_fully_connected"),
    ("_contrib_intgemm_prepare_data", _DEFERRED % "intgemm, see "
     "_contrib_intgemm_fully_connected"),
    ("_contrib_intgemm_prepare_weight", _DEFERRED % "intgemm, see "
     "_contrib_intgemm_fully_connected"),
    ("_contrib_intgemm_take_weight", _DEFERRED % "intgemm, see "
     "_contrib_intgemm_fully_connected"),
    ("_contrib_sldwin_atten_context", _DEFERRED % "MXNet 2.0's sliding-window attention "
     "(Longformer); needs dilation and valid-length inputs"),
    ("_contrib_sldwin_atten_mask_like", _DEFERRED % "sliding-window attention, see "
     "_contrib_sldwin_atten_context"),
    ("_contrib_sldwin_atten_score", _DEFERRED % "sliding-window attention, see "
     "_contrib_sldwin_atten_context"),
])
