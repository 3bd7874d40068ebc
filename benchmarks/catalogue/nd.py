"""The mx.nd entries: one per public MXNet operator (more where the geometry changes the
kernel), and EXCLUDED, the public operators without an entry and why (docs/catalogue.md).

Runs inside benchmark environments: Python 3.7 syntax, no mxnet.
"""
from collections import OrderedDict

from .entries import (ALL4, CTX, DTYPE, FLOAT32, FLOAT32_64, FLOATS, INDEX_TYPES, INFERRED, SHAPES_2D,
                      SM, Input, Operator, T, broadcast_pair, case, conv2d_cases, elementwise,
                      nchw, pool2d_cases, reduction, same_shape_pair, square)


# --- unary -----------------------------------------------------------------------------------
_POS = {"fill": "positive"}
_OPEN_UNIT = {"fill": "uniform", "low": -0.9, "high": 0.9}  # inside the domain of arcsin & co.
_UNIT = {"fill": "uniform"}

# name -> (input fill, backward). Backward where the gradient is a real kernel; rounding,
# predicates and copies have zero or identity gradients and get forward only.
_UNARY = [
    ("abs", {}, True), ("arccos", _OPEN_UNIT, True),
    ("arccosh", {"fill": "uniform", "low": 1.1, "high": 4.0}, True),
    ("arcsin", _OPEN_UNIT, True), ("arcsinh", {}, True), ("arctan", {}, True),
    ("arctanh", _OPEN_UNIT, True), ("cbrt", {}, True), ("cos", {}, True), ("cosh", {}, True),
    ("degrees", {}, True), ("erf", {}, True), ("erfinv", _OPEN_UNIT, True), ("exp", {}, True),
    ("expm1", {}, True), ("gamma", _POS, True), ("gammaln", _POS, True), ("log", _POS, True),
    ("log10", _POS, True), ("log1p", _POS, True), ("log2", _POS, True),
    ("negative", {}, False), ("radians", {}, True), ("rcbrt", _POS, True),
    ("reciprocal", _POS, True), ("relu", {}, True), ("rsqrt", _POS, True),
    ("sigmoid", {}, True), ("sin", {}, True), ("sinh", {}, True), ("softsign", {}, True),
    ("sqrt", _POS, True), ("square", {}, True), ("tan", _UNIT, True), ("tanh", {}, True),
    ("ceil", {}, False), ("fix", {}, False), ("floor", {}, False), ("rint", {}, False),
    ("round", {}, False), ("trunc", {}, False), ("sign", {}, False),
    ("logical_not", {"fill": "index", "high": 2}, False),
]
# The representative unary operators that also run in float64 and float16.
_UNARY_ALL_FLOATS = ("relu", "exp", "log", "sqrt", "sigmoid", "tanh")
# Entries whose shapes or meaning changed since the first slice (version 1): the first call
# now happens in setup, so track_forward_peak_rss leaves out one-time initialisation.
_FIRST_SLICE = ("relu", "exp", "elemwise_add", "broadcast_add", "sum", "dot", "Convolution",
                "Pooling", "softmax")


def _v(name):
    return 2 if name in _FIRST_SLICE else 1


UNARY = [Operator(name, "unary", elementwise(**fill), backward=backward, version=_v(name),
                  dtypes=FLOATS if name in _UNARY_ALL_FLOATS else FLOAT32)
         for name, fill, backward in _UNARY]

# --- binary ----------------------------------------------------------------------------------
# name -> (lhs fill, rhs fill, backward)
_BROADCAST = [
    ("broadcast_add", {}, {}, True), ("broadcast_sub", {}, {}, True),
    ("broadcast_mul", {}, {}, True), ("broadcast_div", {}, _POS, True),
    ("broadcast_mod", {}, {"fill": "positive", "low": 0.5}, True),
    ("broadcast_power", _POS, _UNIT, True), ("broadcast_maximum", {}, {}, True),
    ("broadcast_minimum", {}, {}, True), ("broadcast_hypot", {}, {}, True),
    ("broadcast_equal", {}, {}, False), ("broadcast_not_equal", {}, {}, False),
    ("broadcast_greater", {}, {}, False), ("broadcast_greater_equal", {}, {}, False),
    ("broadcast_lesser", {}, {}, False), ("broadcast_lesser_equal", {}, {}, False),
]
_BOOL = {"fill": "index", "high": 2}
_BROADCAST += [(name, _BOOL, _BOOL, False) for name in
               ("broadcast_logical_and", "broadcast_logical_or", "broadcast_logical_xor")]

# float16 on broadcast_mul only: broadcast_add's tall/wide gradients sum 100000 ones, which
# overflows float16.
_BROADCAST_DTYPES = {"broadcast_add": FLOAT32_64, "broadcast_mul": FLOATS}
BINARY = [Operator(name, "binary-broadcast",
                   broadcast_pair(ALL4 if name == "broadcast_add" else SM, lhs, rhs),
                   dtypes=_BROADCAST_DTYPES.get(name, FLOAT32),
                   backward=backward, version=_v(name))
          for name, lhs, rhs, backward in _BROADCAST]
BINARY += [Operator(name, "binary-elementwise", same_shape_pair(SM, rhs=rhs),
                    dtypes=FLOATS if name == "elemwise_add" else FLOAT32, version=_v(name))
           for name, rhs in [("elemwise_add", {}), ("elemwise_sub", {}), ("elemwise_mul", {}),
                             ("elemwise_div", _POS)]]
BINARY += [
    Operator("add_n", "binary-elementwise",
             [("small", case(T(16, 16), T(16, 16), T(16, 16), T(16, 16))),
              ("medium", case(T(1024, 1024), T(1024, 1024), T(1024, 1024), T(1024, 1024)))],
             backward=False, note="ElementWiseSum; four inputs"),
]

# --- GEMM ------------------------------------------------------------------------------------
GEMM = [
    Operator("dot", "gemm", [("small", case(T(16, 16), T(16, 16))),
                             ("medium", case(T(512, 512), T(512, 512))),
                             ("tall", case(T(4096, 64), T(64, 64))),
                             ("wide", case(T(64, 4096), T(4096, 64)))],
             dtypes=FLOAT32_64, version=2),
    Operator("batch_dot", "gemm", [("small", case(T(4, 16, 16), T(4, 16, 16))),
                                   ("medium", case(T(32, 128, 128), T(32, 128, 128)))]),
    Operator("khatri_rao", "gemm", [("small", case(T(8, 16), T(8, 16))),
                                    ("medium", case(T(64, 256), T(64, 256)))],
             backward=False, note="column-wise Kronecker product; not differentiable"),
]

# --- reductions, sort and search ---------------------------------------------------------------
_NEAR_ONE = {"fill": "uniform", "low": 0.9, "high": 1.1}  # products stay finite
REDUCTIONS = [
    Operator("sum", "reduction", reduction(axis=1), dtypes=FLOAT32_64, version=2),
    Operator("mean", "reduction", reduction(axis=1)),
    Operator("max", "reduction", reduction(axis=1)),
    Operator("min", "reduction", reduction(SM, axis=1)),
    Operator("prod", "reduction", reduction(SM, fill=_NEAR_ONE, axis=1)),
    Operator("nansum", "reduction", reduction(SM, fill={"fill": "with_nan"}, axis=1)),
    Operator("nanprod", "reduction",
             reduction(SM, fill=dict(_NEAR_ONE, fill="with_nan"), axis=1)),
    Operator("norm", "reduction", reduction(ord=2, axis=1)),
    Operator("moments", "reduction", reduction(("small", "medium", "wide"), axes=(1,))),
]
SORT_SEARCH = [
    Operator("sort", "sort-search", reduction(axis=-1), backward=False),
    Operator("argsort", "sort-search", reduction(("small", "medium", "tall"), axis=-1),
             backward=False),
    Operator("topk", "sort-search", reduction(axis=-1, k=5), backward=False),
    Operator("argmax", "sort-search", reduction(axis=1), backward=False),
    Operator("argmin", "sort-search", reduction(SM, axis=1), backward=False),
    Operator("argmax_channel", "sort-search", reduction(SM), backward=False),
]

# --- indexing --------------------------------------------------------------------------------
_IDX = "index dtype; data is float32"
INDEXING = [
    Operator("slice", "indexing",
             [("small", case(T(16, 16), begin=(2, 2), end=(10, 10))),
              ("medium", case(T(1024, 1024), begin=(128, 128), end=(896, 896)))]),
    Operator("slice_axis", "indexing",
             [("small", case(T(16, 16), axis=1, begin=2, end=10)),
              ("medium", case(T(1024, 1024), axis=1, begin=128, end=896))]),
    Operator("slice_like", "indexing",
             [("small", case(T(16, 16), T(8, 8, grad=False))),
              ("medium", case(T(1024, 1024), T(768, 768, grad=False)))]),
    Operator("take", "indexing",
             [("small", case(T(16, 16, dtype="float32"), T(16, fill="index", high=16))),
              ("medium", case(T(10000, 128, dtype="float32"),
                              T(8192, fill="index", high=10000)))],
             dtypes=INDEX_TYPES, note=_IDX),
    Operator("pick", "indexing",
             [("small", case(T(16, 16, dtype="float32"), T(16, fill="index", high=16))),
              ("medium", case(T(1024, 1024, dtype="float32"),
                              T(1024, fill="index", high=1024)))],
             dtypes=INDEX_TYPES, kwargs={"axis": 1}, note=_IDX + "; choose_element_0index"),
    Operator("where", "indexing",
             [("small", case(T(16, 16, fill="index", high=2), T(16, 16), T(16, 16))),
              ("medium", case(T(1024, 1024, fill="index", high=2), T(1024, 1024),
                              T(1024, 1024)))]),
    Operator("gather_nd", "indexing",
             [("small", case(T(16, 16, 4, dtype="float32"),
                             T(2, 16, fill="index", high=(16, 16)))),
              ("medium", case(T(256, 256, 16, dtype="float32"),
                              T(2, 65536, fill="index", high=(256, 256))))],
             dtypes=INDEX_TYPES, note=_IDX),
    Operator("scatter_nd", "indexing",
             [("small", case(T(16, 4, dtype="float32"), T(2, 16, fill="index", high=(16, 16)),
                             shape=(16, 16, 4))),
              ("medium", case(T(65536, 16, dtype="float32"),
                              T(2, 65536, fill="index", high=(256, 256)),
                              shape=(256, 256, 16)))],
             dtypes=INDEX_TYPES, backward=False, isolate=True,
             note=_IDX + "; indices in range (random out-of-range indices crash it)"),
    Operator("ravel_multi_index", "indexing",
             [("small", case(T(2, 16, fill="index", high=(16, 16)), shape=(16, 16))),
              ("medium", case(T(2, 1048576, fill="index", high=(1024, 1024)),
                              shape=(1024, 1024)))],
             backward=False),
    Operator("unravel_index", "indexing",
             [("small", case(T(16, fill="index", high=256), shape=(16, 16))),
              ("medium", case(T(1048576, fill="index", high=1048576), shape=(1024, 1024)))],
             backward=False, isolate=True),
    Operator("one_hot", "indexing",
             [("small", case(T(16, fill="index", high=16), depth=16)),
              ("medium", case(T(8192, fill="index", high=128), depth=128))],
             dtypes=INDEX_TYPES, backward=False, note="index dtype; output float32"),
    Operator("fill_element_0index", "indexing",
             [("small", case(T(16, 16), T(16), T(16, fill="index", high=16))),
              ("medium", case(T(1024, 1024), T(1024), T(1024, fill="index", high=1024)))],
             backward=False),
]

# --- rearrange, shape, expanding, join/split -------------------------------------------------
REARRANGE = [
    Operator("transpose", "rearrange",
             [("small", case(T(16, 16))), ("medium", case(T(1024, 1024))),
              ("wide", case(T(32, 64, 28, 28), axes=(0, 2, 3, 1)))], backward=False),
    Operator("swapaxes", "rearrange",
             [("small", case(T(4, 8, 16), dim1=0, dim2=2)),
              ("medium", case(T(64, 128, 128), dim1=0, dim2=2))], note="SwapAxis"),
    Operator("flip", "rearrange", elementwise(), kwargs={"axis": 1}, note="reverse"),
    Operator("depth_to_space", "rearrange",
             [("small", case(T(1, 16, 4, 4), block_size=2)),
              ("medium", case(T(16, 64, 32, 32), block_size=2))], backward=False),
    Operator("space_to_depth", "rearrange",
             [("small", case(T(1, 4, 8, 8), block_size=2)),
              ("medium", case(T(16, 16, 64, 64), block_size=2))], backward=False),
]
SHAPE = [
    Operator("reshape", "shape", [("small", case(T(16, 16), shape=(8, 32))),
                                  ("medium", case(T(1024, 1024), shape=(512, 2048)))],
             backward=False),
    Operator("reshape_like", "shape",
             [("small", case(T(16, 16), T(8, 32, grad=False))),
              ("medium", case(T(1024, 1024), T(512, 2048, grad=False)))], backward=False),
    Operator("flatten", "shape", [("small", case(T(2, 2, 8, 8))),
                                  ("medium", case(T(32, 32, 32, 32)))], backward=False),
    Operator("squeeze", "shape", [("small", case(T(16, 1, 16), axis=1)),
                                  ("medium", case(T(1024, 1, 1024), axis=1))], backward=False),
    Operator("expand_dims", "shape", elementwise(), kwargs={"axis": 1}, backward=False),
    Operator("diag", "shape", elementwise()),
    Operator("shape_array", "shape", elementwise(), backward=False),
    Operator("size_array", "shape", elementwise(), backward=False),
]
EXPANDING = [
    Operator("broadcast_axis", "expanding",
             [("small", case(T(16, 1), axis=1, size=16)),
              ("medium", case(T(1024, 1), axis=1, size=1024))], backward=False,
             note="broadcast_axes"),
    Operator("broadcast_to", "expanding",
             [("small", case(T(16, 1), shape=(16, 16))),
              ("medium", case(T(1024, 1), shape=(1024, 1024)))], backward=False),
    Operator("broadcast_like", "expanding",
             [("small", case(T(16, 1), T(16, 16, grad=False))),
              ("medium", case(T(1024, 1), T(1024, 1024, grad=False)))], backward=False),
    Operator("repeat", "expanding", [("small", case(T(16, 8))), ("medium", case(T(1024, 512)))],
             kwargs={"repeats": 2, "axis": 1}),
    Operator("tile", "expanding", [("small", case(T(8, 8))), ("medium", case(T(512, 512)))],
             kwargs={"reps": (2, 2)}),
    Operator("pad", "expanding", nchw((1, 3, 16, 16), (16, 16, 64, 64)),
             kwargs={"mode": "constant", "pad_width": (0, 0, 0, 0, 1, 1, 1, 1)}, note="Pad"),
]
JOIN_SPLIT = [
    Operator("concat", "join-split", [("small", case(T(16, 8), T(16, 8))),
                                      ("medium", case(T(1024, 512), T(1024, 512)))],
             kwargs={"dim": 1}, note="Concat"),
    Operator("stack", "join-split", [("small", case(T(8, 16), T(8, 16))),
                                     ("medium", case(T(512, 1024), T(512, 1024)))],
             kwargs={"axis": 0}, isolate=True),
    Operator("split", "join-split", elementwise(), kwargs={"num_outputs": 4, "axis": 1},
             note="SliceChannel"),
]

# --- random sampling -------------------------------------------------------------------------
def creation(**kwargs):
    """No tensor inputs: the output shape is the case; ctx and dtype are the benchmark's."""
    return [(name, case(shape=SHAPES_2D[name], ctx=CTX, dtype=DTYPE, **kwargs)) for name in SM]


def per_row_params(*params, **kwargs):
    """Distribution parameters (N,), `shape`=(M,) samples per row: output (N, M)."""
    sizes = {"small": 16, "medium": 1024}
    return [(name, case(*[T(sizes[name], **p) for p in params], shape=(sizes[name],), **kwargs))
            for name in SM]


def pdf(sample, *params):
    """random_pdf_*: samples (N, M) and per-row parameters (N,)."""
    sizes = {"small": (16, 16), "medium": (1024, 1024)}
    return [(name, case(T(*sizes[name], **sample), *[T(sizes[name][0], **p) for p in params]))
            for name in SM]


_COUNTS = {"fill": "index", "high": 8, "grad": False}  # samples of a discrete distribution
_PROB = {"fill": "uniform", "low": 0.2, "high": 0.8}
RANDOM = [
    Operator("random_uniform", "random", creation(low=-1.0, high=1.0), dtypes=FLOAT32_64,
             backward=False),
    Operator("random_normal", "random", creation(loc=0.0, scale=1.0), dtypes=FLOAT32_64,
             backward=False),
    Operator("random_exponential", "random", creation(lam=1.0), backward=False),
    Operator("random_gamma", "random", creation(alpha=9.0, beta=0.5), backward=False),
    Operator("random_poisson", "random", creation(lam=4.0), backward=False),
    Operator("random_negative_binomial", "random", creation(k=3, p=0.4), backward=False),
    Operator("random_generalized_negative_binomial", "random", creation(mu=2.0, alpha=0.3),
             backward=False),
    Operator("random_randint", "random", creation(low=0, high=1000), dtypes=INDEX_TYPES,
             backward=False),
    Operator("sample_uniform", "random",
             per_row_params({"fill": "uniform", "low": -2, "high": -1},
                            {"fill": "uniform", "low": 1, "high": 2}, dtype=DTYPE),
             backward=False),
    Operator("sample_normal", "random", per_row_params({}, _POS, dtype=DTYPE), backward=False),
    Operator("sample_exponential", "random", per_row_params(_POS, dtype=DTYPE),
             backward=False),
    Operator("sample_gamma", "random", per_row_params(_POS, _POS, dtype=DTYPE),
             backward=False),
    Operator("sample_poisson", "random", per_row_params(_POS, dtype=DTYPE), backward=False),
    Operator("sample_negative_binomial", "random",
             per_row_params({"fill": "index", "low": 1, "high": 10}, _PROB, dtype=DTYPE),
             backward=False),
    Operator("sample_generalized_negative_binomial", "random",
             per_row_params(_POS, _POS, dtype=DTYPE), backward=False),
    Operator("sample_multinomial", "random",
             [("small", case(T(16, 16, fill="simplex"), shape=(16,))),
              ("medium", case(T(1024, 64, fill="simplex"), shape=(1024,)))], backward=False,
             later_name="sample_categorical",
             note="the categorical draw: sample_categorical in mxnet 2.0, where "
                  "sample_multinomial became the (n, p) multinomial"),
    Operator("random_pdf_uniform", "random",
             pdf({"fill": "uniform"}, {"fill": "uniform", "low": -2, "high": -1},
                 {"fill": "uniform", "low": 1, "high": 2})),
    Operator("random_pdf_normal", "random", pdf({}, {}, _POS)),
    Operator("random_pdf_exponential", "random", pdf(_POS, _POS)),
    Operator("random_pdf_gamma", "random", pdf(_POS, _POS, _POS)),
    Operator("random_pdf_poisson", "random", pdf(_COUNTS, _POS)),
    Operator("random_pdf_negative_binomial", "random",
             pdf(_COUNTS, {"fill": "index", "low": 1, "high": 10}, _PROB)),
    Operator("random_pdf_generalized_negative_binomial", "random", pdf(_COUNTS, _POS, _POS)),
    Operator("random_pdf_dirichlet", "random",
             [("small", case(T(4, 4, 4, fill="simplex"), T(4, 4, fill="positive"))),
              ("medium", case(T(256, 256, 16, fill="simplex"), T(256, 16, fill="positive")))]),
    Operator("shuffle", "random", elementwise(), backward=False),
]

# --- linear algebra ----------------------------------------------------------------------------

LINALG = [
    Operator("linalg_gemm", "linalg", square(n_inputs=3, alpha=1.0, beta=1.0)),
    Operator("linalg_gemm2", "linalg", square(n_inputs=2), dtypes=FLOAT32_64),
    Operator("linalg_syrk", "linalg", square(alpha=1.0)),
    Operator("linalg_trmm", "linalg",
             [("small", case(T(16, 16, fill="tril"), T(16, 16))),
              ("medium", case(T(512, 512, fill="tril"), T(512, 512)))]),
    Operator("linalg_trsm", "linalg",
             [("small", case(T(16, 16, fill="tril"), T(16, 16))),
              ("medium", case(T(512, 512, fill="tril"), T(512, 512)))]),
    Operator("linalg_potrf", "linalg", square("spd"), dtypes=FLOAT32_64),
    Operator("linalg_potri", "linalg", square("tril"), note="input: a Cholesky factor"),
    Operator("linalg_det", "linalg", square("spd")),
    Operator("linalg_slogdet", "linalg", square("spd")),
    Operator("linalg_inverse", "linalg", square("spd")),
    Operator("linalg_sumlogdiag", "linalg", square("spd")),
    Operator("linalg_extractdiag", "linalg", square(medium=1024)),
    Operator("linalg_extracttrian", "linalg", square(medium=1024)),
    Operator("linalg_makediag", "linalg", [("small", case(T(16))), ("medium", case(T(1024)))]),
    Operator("linalg_maketrian", "linalg",
             [("small", case(T(136))), ("medium", case(T(524800)))],
             note="packed triangles of n=16 and n=1024"),
    Operator("linalg_gelqf", "linalg", [("small", case(T(16, 32))),
                                        ("medium", case(T(256, 512)))]),
]

# --- neural-network layers --------------------------------------------------------------------
def rnn_cases(mode):
    """RNN over (T, N, I) with one layer; parameters packed as MXNet expects."""
    gates = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}[mode]
    out = []
    for name, (steps, batch, size) in [("small", (4, 2, 8)), ("medium", (32, 32, 128))]:
        n_params = gates * size * (size + size + 2)
        extra = {"state_cell": T(1, batch, size, fill="zeros")} if mode == "lstm" else {}
        out.append((name, case(T(steps, batch, size), T(n_params, fill="uniform", low=-0.1,
                                                          high=0.1),
                               T(1, batch, size, fill="zeros"), state_size=size, num_layers=1,
                               mode=mode, **extra)))
    return out


def conv_cases(dims):
    """Convolution over 1-D or 3-D data, kernel 3, pad 1."""
    if dims == 1:
        small, medium = ((1, 4, 64), (8, 4, 3)), ((16, 64, 512), (64, 64, 3))
    else:
        small, medium = ((1, 3, 8, 8, 8), (8, 3, 3, 3, 3)), ((2, 8, 16, 32, 32), (16, 8, 3, 3, 3))
    return [(name, case(T(*data), T(*weight), T(weight[0]), kernel=(3,) * dims,
                        pad=(1,) * dims, num_filter=weight[0]))
            for name, (data, weight) in [("small", small), ("medium", medium)]]


def deconv_cases(dims):
    """Deconvolution (transposed convolution) upsampling by 2: kernel 4, stride 2, pad 1."""
    shapes = {1: (((1, 8, 16), 8, 4), ((16, 64, 256), 64, 32)),
              2: (((1, 8, 8, 8), 8, 4), ((8, 32, 32, 32), 32, 16)),
              3: (((1, 4, 4, 4, 4), 4, 4), ((2, 16, 8, 16, 16), 16, 8))}[dims]
    return [(name, case(T(*data), T(c_in, c_out, *(4,) * dims), T(c_out), kernel=(4,) * dims,
                        stride=(2,) * dims, pad=(1,) * dims, num_filter=c_out, no_bias=False))
            for name, (data, c_in, c_out) in zip(SM, shapes)]


def pool_cases(dims, **kwargs):
    shapes = {1: ((1, 4, 64), (32, 64, 1024)), 3: ((1, 3, 8, 8, 8), (8, 16, 16, 32, 32))}[dims]
    return [(name, case(T(*shape), kernel=(2,) * dims, stride=(2,) * dims, **kwargs))
            for name, shape in zip(SM, shapes)]


def with_channels(data_small, data_medium, *params, **keyword_params):
    """NCHW data plus per-channel (C,) parameter tensors, positional or by keyword."""
    return [(name, case(T(*data), *[T(data[1], **p) for p in params],
                        **dict((k, T(data[1], **p)) for k, p in keyword_params.items())))
            for name, data in [("small", data_small), ("medium", data_medium)]]


def sequence_cases():
    """(T, N, C) data with per-sequence lengths in [1, T]."""
    return [(name, case(T(steps, batch, size),
                        T(batch, fill="index", low=1, high=steps + 1, dtype="float32"),
                        use_sequence_length=True))
            for name, (steps, batch, size) in [("small", (8, 4, 16)), ("medium", (64, 128, 128))]]


def classification(**kwargs):
    """Scores (N, C) and integer labels (N,) in [0, C)."""
    return [(name, case(T(*shape), T(shape[0], fill="index", high=shape[1]), **kwargs))
            for name, shape in [("small", (16, 16)), ("medium", (1024, 1024))]]


def regression():
    return [(name, case(T(*shape), T(*shape, fill="uniform", low=0.0, high=1.0, grad=False)))
            for name, shape in [("small", (16, 16)), ("medium", (1024, 1024))]]


_ZEROS = {"fill": "zeros"}  # running statistics: no gradient
_ONES = {"fill": "ones"}
_GAMMA = {"fill": "ones", "grad": True}  # learned scale and shift start at 1 and 0
_BETA = {"fill": "zeros", "grad": True}

NN = [
    Operator("FullyConnected", "nn-basic",
             [("small", case(T(16, 64), T(32, 64), T(32), num_hidden=32)),
              ("medium", case(T(256, 1024), T(1024, 1024), T(1024), num_hidden=1024))],
             dtypes=FLOAT32_64, note="float16 is CuDNN-only"),
    Operator("Convolution", "nn-conv", conv2d_cases(), version=2),
    Operator("Convolution", "nn-conv", conv_cases(1), form="1d"),
    Operator("Convolution", "nn-conv", conv_cases(3), form="3d"),
    Operator("Deconvolution", "nn-conv", deconv_cases(2)),
    Operator("Deconvolution", "nn-conv", deconv_cases(1), form="1d"),
    Operator("Deconvolution", "nn-conv", deconv_cases(3), form="3d"),
    Operator("Pooling", "nn-pool", pool2d_cases(kernel=(2, 2), stride=(2, 2), pool_type="max"),
             version=2),
    Operator("Pooling", "nn-pool", pool2d_cases(SM, kernel=(2, 2), stride=(2, 2),
                                                pool_type="avg"), form="avg"),
    Operator("Pooling", "nn-pool", pool2d_cases(SM, kernel=(2, 2), stride=(2, 2),
                                                pool_type="lp", p_value=2), form="lp"),
    Operator("Pooling", "nn-pool", pool2d_cases(SM, kernel=(1, 1), global_pool=True,
                                                pool_type="avg"), form="global"),
    Operator("Pooling", "nn-pool", pool_cases(1, pool_type="max"), form="1d"),
    Operator("Pooling", "nn-pool", pool_cases(3, pool_type="max"), form="3d"),
    Operator("BatchNorm", "nn-norm", with_channels((2, 4, 8, 8), (32, 64, 28, 28), _GAMMA,
                                                   _BETA, _ZEROS, _ONES),
             dtypes=FLOAT32_64, note="inputs: data, gamma, beta, moving mean and variance"),
    Operator("LayerNorm", "nn-norm",
             [(name, case(T(*shape), T(shape[1], **_GAMMA), T(shape[1], **_BETA)))
              for name, shape in [("small", (16, 64)), ("medium", (1024, 1024))]]),
    Operator("InstanceNorm", "nn-norm", with_channels((2, 4, 8, 8), (32, 64, 28, 28),
                                                      _GAMMA, _BETA)),
    Operator("GroupNorm", "nn-norm",
             [(name, case(T(*shape), T(INFERRED, **_GAMMA), T(INFERRED, **_BETA), num_groups=4))
              for name, shape in [("small", (2, 8, 8, 8)), ("medium", (32, 64, 28, 28))]],
             note="gamma/beta as the release infers them: per group (mxnet 1.x), "
                  "per channel (2.0)"),
    Operator("L2Normalization", "nn-norm", elementwise()),
    Operator("LRN", "nn-norm", nchw((1, 8, 8, 8), (16, 64, 32, 32)), kwargs={"nsize": 5}),
    Operator("Dropout", "nn-basic", elementwise(), kwargs={"p": 0.5, "mode": "always"},
             note="mode='always': forward drops outside training too"),
    Operator("Embedding", "nn-basic",
             [("small", case(T(4, 8, fill="index", high=16), T(16, 8, dtype="float32"),
                             input_dim=16, output_dim=8)),
              ("medium", case(T(64, 128, fill="index", high=10000),
                              T(10000, 128, dtype="float32"), input_dim=10000,
                              output_dim=128))],
             dtypes=INDEX_TYPES, isolate=True, note=_IDX),
    Operator("Correlation", "nn-spatial",
             [("small", case(T(1, 4, 16, 16), T(1, 4, 16, 16), kernel_size=1,
                             max_displacement=2, stride1=1, stride2=1, pad_size=2)),
              ("medium", case(T(4, 32, 32, 32), T(4, 32, 32, 32), kernel_size=1,
                              max_displacement=4, stride1=1, stride2=1, pad_size=4))]),
    Operator("SpatialTransformer", "nn-spatial",
             [(name, case(T(*shape), T(shape[0], 6, fill="affine"), target_shape=shape[2:],
                          transform_type="affine", sampler_type="bilinear"))
              for name, shape in [("small", (2, 3, 16, 16)), ("medium", (16, 16, 64, 64))]]),
    Operator("GridGenerator", "nn-spatial",
             [("small", case(T(2, 6, fill="affine"), target_shape=(16, 16))),
              ("medium", case(T(16, 6, fill="affine"), target_shape=(256, 256)))],
             kwargs={"transform_type": "affine"}),
    Operator("BilinearSampler", "nn-spatial",
             [(name, case(T(*shape), T(shape[0], 2, shape[2], shape[3], fill="uniform")))
              for name, shape in [("small", (2, 3, 16, 16)), ("medium", (16, 16, 64, 64))]]),
    Operator("im2col", "nn-conv", nchw((1, 3, 16, 16), (8, 16, 64, 64)),
             kwargs={"kernel": (3, 3), "pad": (1, 1)}),
    Operator("col2im", "nn-conv", [("small", case(T(1, 27, 256), output_size=(16, 16))),
                                   ("medium", case(T(8, 144, 4096), output_size=(64, 64)))],
             kwargs={"kernel": (3, 3), "pad": (1, 1)}),
    Operator("ROIPooling", "nn-spatial",
             [("small", case(T(1, 4, 16, 16), T(4, 5, fill="rois", high=(1, 16, 16)))),
              ("medium", case(T(4, 64, 64, 64), T(128, 5, fill="rois", high=(4, 64, 64))))],
             kwargs={"pooled_size": (7, 7), "spatial_scale": 1.0}),
    Operator("SequenceLast", "nn-sequence", sequence_cases()),
    Operator("SequenceMask", "nn-sequence", sequence_cases()),
    Operator("SequenceReverse", "nn-sequence", sequence_cases()),
    Operator("UpSampling", "nn-spatial", nchw((1, 4, 8, 8), (8, 32, 64, 64)),
             kwargs={"scale": 2, "sample_type": "nearest"}),
    Operator("UpSampling", "nn-spatial",
             [(name, case(T(*shape), T(shape[1], 1, 4, 4), num_filter=shape[1]))
              for name, shape in [("small", (1, 4, 8, 8)), ("medium", (8, 32, 64, 64))]],
             kwargs={"scale": 2, "sample_type": "bilinear"}, form="bilinear", isolate=True,
             note="a depthwise deconvolution; its weight is the bilinear kernel's shape"),
    Operator("RNN", "nn-rnn", rnn_cases("lstm"), note="mode lstm"),
    Operator("RNN", "nn-rnn", rnn_cases("gru"), form="gru"),
    Operator("RNN", "nn-rnn", rnn_cases("rnn_tanh"), form="rnn_tanh"),
    Operator("RNN", "nn-rnn", rnn_cases("rnn_relu"), form="rnn_relu"),
]

ACTIVATIONS = [
    Operator("Activation", "nn-activation", elementwise(), kwargs={"act_type": "relu"}),
    Operator("Activation", "nn-activation", elementwise(), kwargs={"act_type": "softrelu"},
             form="softrelu"),
    Operator("LeakyReLU", "nn-activation", elementwise(),
             kwargs={"act_type": "leaky", "slope": 0.25}),
    Operator("LeakyReLU", "nn-activation", elementwise(), kwargs={"act_type": "elu"},
             form="elu"),
    Operator("LeakyReLU", "nn-activation", elementwise(), kwargs={"act_type": "selu"},
             form="selu"),
    Operator("LeakyReLU", "nn-activation", elementwise(), kwargs={"act_type": "gelu"},
             form="gelu"),
    Operator("LeakyReLU", "nn-activation",
             with_channels((2, 4, 8, 8), (16, 64, 32, 32),
                           gamma={"fill": "uniform", "low": 0.1, "high": 0.3}),
             kwargs={"act_type": "prelu"}, form="prelu",
             note="learned slope per channel, passed by keyword (positional in 1.0 is act_type)"),
    Operator("LeakyReLU", "nn-activation", elementwise(), kwargs={"act_type": "rrelu"},
             form="rrelu",
             note="random slopes in training, their mean in inference; its backward under "
                  "autograd kills the process from 1.8 on (known_crashes.jsonl: a skip "
                  "there, measured where it runs)"),
    Operator("hard_sigmoid", "nn-activation", elementwise()),
    Operator("softmax", "nn-activation", reduction(axis=-1), dtypes=FLOAT32_64, version=2),
    Operator("log_softmax", "nn-activation", reduction(("small", "medium", "tall"), axis=-1)),
    Operator("softmin", "nn-activation", reduction(SM, axis=-1)),
    Operator("SoftmaxActivation", "nn-activation", elementwise()),
]

LOSSES = [
    Operator("SoftmaxOutput", "loss-output", classification(), note="Softmax"),
    Operator("softmax_cross_entropy", "loss-output", classification()),
    Operator("SVMOutput", "loss-output", classification()),
    Operator("LinearRegressionOutput", "loss-output", regression()),
    Operator("LogisticRegressionOutput", "loss-output", regression()),
    Operator("MAERegressionOutput", "loss-output", regression()),
    Operator("MakeLoss", "loss-output", elementwise()),
    Operator("make_loss", "loss-output", elementwise(), backward=False,
             note="the same gradient as MakeLoss; forward only"),
    Operator("smooth_l1", "loss-output", elementwise(), kwargs={"scalar": 1.0}),
    Operator("ctc_loss", "loss-output",
             [(name, case(T(steps, batch, alphabet),
                          T(batch, length, fill="index", low=1, high=alphabet)))
              for name, (steps, batch, alphabet, length) in [("small", (16, 2, 8, 4)),
                                                             ("medium", (128, 32, 64, 16))]],
             note="CTCLoss; label 0 is the blank"),
    Operator("IdentityAttachKLSparseReg", "loss-output",
             elementwise(fill="uniform", low=0.05, high=0.95), call="symbol",
             kwargs={"sparseness_target": 0.1, "penalty": 0.001},
             note="symbolic executor: its moving-average aux state has no mx.nd argument"),
]

# --- optimizer updates --------------------------------------------------------------------------
def update(*states, **kwargs):
    """weight, grad and optimizer states (N, M); the weight is updated in place (out=)."""
    in_place = kwargs.pop("in_place", True)
    out = []
    for name, shape in [("small", (16, 16)), ("medium", (1024, 1024))]:
        tensors = [T(*shape, fill="uniform", grad=False), T(*shape, grad=False)]
        tensors += [T(*shape, grad=False, **s) for s in states]
        extra = dict(kwargs, out=Input(0)) if in_place else dict(kwargs)
        out.append((name, case(*tensors, **extra)))
    return out


def multi_update(per_weight, preloaded=False, **kwargs):
    """multi_*: (weight, grad, states...) for 4 weights; all weights updated in place."""
    out = []
    for name, shape in [("small", (16, 16)), ("medium", (512, 512))]:
        tensors, weights = [], []
        for _ in range(4):
            weights.append(Input(len(tensors)))
            tensors += [T(*shape, fill="uniform", grad=False), T(*shape, grad=False)]
            tensors += [T(*shape, grad=False, **s) for s in per_weight]
        if preloaded:  # learning rates and weight decays as float32 arrays
            tensors += [T(4, fill="uniform", low=0.001, high=0.01, dtype="float32"),
                        T(4, fill="zeros", dtype="float32")]
        else:
            kwargs.update(lrs=(0.01,) * 4, wds=(0.0,) * 4)
        out.append((name, case(*tensors, num_weights=4, out=weights, **kwargs)))
    return out


_STATE = {"fill": "zeros"}
_POS_STATE = {"fill": "positive", "low": 0.01, "high": 0.1}
# rmspropalex's running E[g^2] (n) and E[g] (g): n - g^2 must stay >= 0. Both drawn from one
# range with low^2 < low, so the inputs are in domain whichever of the two the release reads
# first (1.x: n, g; 2.0: g, n).
_MOMENT = {"fill": "positive", "low": 0.02, "high": 0.1}
_W32 = {"fill": "uniform", "dtype": "float32"}
_F32_STATE = {"fill": "zeros", "dtype": "float32"}
_MP = ("float16",)  # mixed precision: float16 weights and gradients, float32 master copies
_MP_NOTE = "float16 weight/grad with float32 master weight"
OPTIMIZER = [
    Operator("sgd_update", "optimizer", update(lr=0.01), backward=False),
    Operator("sgd_mom_update", "optimizer", update(_STATE, lr=0.01, momentum=0.9),
             backward=False),
    Operator("mp_sgd_update", "optimizer", update(_W32, lr=0.01), dtypes=_MP, backward=False,
             note=_MP_NOTE),
    Operator("mp_sgd_mom_update", "optimizer", update(_F32_STATE, _W32, lr=0.01, momentum=0.9),
             dtypes=_MP, backward=False, note=_MP_NOTE),
    Operator("signsgd_update", "optimizer", update(lr=0.01), backward=False),
    Operator("signum_update", "optimizer", update(_STATE, lr=0.01, momentum=0.9),
             backward=False),
    Operator("nag_mom_update", "optimizer", update(_STATE, lr=0.01, momentum=0.9),
             backward=False),
    Operator("mp_nag_mom_update", "optimizer", update(_F32_STATE, _W32, lr=0.01, momentum=0.9),
             dtypes=_MP, backward=False, note=_MP_NOTE),
    Operator("adam_update", "optimizer", update(_STATE, _POS_STATE, lr=0.01), backward=False),
    Operator("ftml_update", "optimizer", update(_STATE, _POS_STATE, _STATE, lr=0.01, t=1),
             backward=False),
    Operator("ftrl_update", "optimizer", update(_STATE, _POS_STATE, lr=0.01), backward=False),
    Operator("rmsprop_update", "optimizer", update(_POS_STATE, lr=0.01), backward=False),
    Operator("rmspropalex_update", "optimizer",
             update(_MOMENT, _MOMENT, _STATE, lr=0.01), backward=False, version=2,
             note="n and g states alike (mxnet 2.0 reads them as g, n; its docstring says n, g)"),
    Operator("lamb_update_phase1", "optimizer",
             update(_STATE, _POS_STATE, in_place=False, t=1, wd=0.01), backward=False,
             isolate=True,  # reported to crash on GPU (opperf)
             note="returns the update direction; the weight is not written"),
    Operator("lamb_update_phase2", "optimizer",
             [(name, case(T(*shape, fill="uniform", grad=False), T(*shape, grad=False),
                          T(1, fill="positive", grad=False), T(1, fill="positive", grad=False),
                          lr=0.01, out=Input(0)))
              for name, shape in [("small", (16, 16)), ("medium", (1024, 1024))]],
             backward=False, note="inputs: weight, phase-1 update, its norms r1 and r2"),
    Operator("mp_lamb_update_phase1", "optimizer",
             update(_F32_STATE, dict(_POS_STATE, dtype="float32"), _W32, in_place=False, t=1,
                    wd=0.01), dtypes=_MP, backward=False, note=_MP_NOTE),
    Operator("mp_lamb_update_phase2", "optimizer",
             [(name, case(T(*shape, fill="uniform", grad=False),
                          T(*shape, dtype="float32", grad=False),
                          T(1, fill="positive", dtype="float32", grad=False),
                          T(1, fill="positive", dtype="float32", grad=False),
                          T(*shape, fill="uniform", dtype="float32", grad=False),
                          lr=0.01, out=Input(0)))
              for name, shape in [("small", (16, 16)), ("medium", (1024, 1024))]],
             dtypes=_MP, backward=False, note=_MP_NOTE),
    Operator("multi_sgd_update", "optimizer", multi_update([]), backward=False),
    Operator("multi_sgd_mom_update", "optimizer", multi_update([_STATE], momentum=0.9),
             backward=False),
    Operator("multi_mp_sgd_update", "optimizer", multi_update([_W32]), dtypes=_MP,
             backward=False, note=_MP_NOTE),
    Operator("multi_mp_sgd_mom_update", "optimizer",
             multi_update([_F32_STATE, _W32], momentum=0.9), dtypes=_MP, backward=False,
             note=_MP_NOTE),
    Operator("preloaded_multi_sgd_update", "optimizer", multi_update([], preloaded=True),
             backward=False),
    Operator("preloaded_multi_sgd_mom_update", "optimizer",
             multi_update([_STATE], preloaded=True, momentum=0.9), backward=False),
    Operator("preloaded_multi_mp_sgd_update", "optimizer",
             multi_update([_W32], preloaded=True), dtypes=_MP, backward=False, note=_MP_NOTE),
    Operator("preloaded_multi_mp_sgd_mom_update", "optimizer",
             multi_update([_F32_STATE, _W32], preloaded=True, momentum=0.9), dtypes=_MP,
             backward=False, note=_MP_NOTE),
    Operator("multi_lars", "optimizer",
             [(name, case(T(n, fill="positive"), T(n, fill="positive"), T(n, fill="positive"),
                          T(n, fill="positive", low=0.0, high=0.001), eta=0.001, eps=1e-8))
              for name, n in [("small", 16), ("medium", 1024)]],
             backward=False, note="per-layer learning rates for n layers"),
    Operator("multi_sum_sq", "optimizer",
             [(name, case(*[T(*shape)] * 4, num_arrays=4))
              for name, shape in [("small", (16, 16)), ("medium", (512, 512))]],
             backward=False),
    Operator("multi_all_finite", "optimizer",
             [(name, case(*[T(*shape)] * 4, num_arrays=4))
              for name, shape in [("small", (16, 16)), ("medium", (512, 512))]],
             backward=False),
    Operator("all_finite", "optimizer", elementwise(), backward=False),
    Operator("reset_arrays", "optimizer",
             [(name, case(*[T(*shape)] * 4, num_arrays=4))
              for name, shape in [("small", (16, 16)), ("medium", (512, 512))]],
             backward=False, note="zeroes its inputs in place"),
]

# --- everything else ---------------------------------------------------------------------------
MISC = [
    Operator("clip", "misc", elementwise(), kwargs={"a_min": -0.5, "a_max": 0.5}),
    Operator("cumsum", "misc", elementwise(), kwargs={"axis": 1}),
    Operator("cast", "misc", elementwise(dtype="float32"), kwargs={"dtype": DTYPE},
             dtypes=("float16", "float64", "int32"), backward=False,
             note="float32 input cast to the benchmark dtype"),
    Operator("amp_cast", "misc", elementwise(), kwargs={"dtype": "float16"}, backward=False,
             note="float32 -> float16"),
    Operator("amp_multicast", "misc", same_shape_pair(SM), kwargs={"num_outputs": 2},
             backward=False,
             note="both float32: oneDNN CPU builds reject float16/float64 inputs here"),
    Operator("cast_storage", "misc", elementwise(fill="sparse"), kwargs={"stype": "csr"},
             backward=False, note="dense (90% zeros) -> csr"),
    Operator("cast_storage", "misc", elementwise(fill="sparse"),
             kwargs={"stype": "row_sparse"}, backward=False, form="row_sparse"),
    Operator("BlockGrad", "misc", elementwise(), backward=False, note="stop_gradient"),
    Operator("identity", "misc", elementwise(), backward=False),
    Operator("zeros_like", "misc", elementwise(), backward=False),
    Operator("ones_like", "misc", elementwise(), backward=False),
    Operator("Custom", "misc", elementwise(), kwargs={"op_type": "mxbench_square"},
             prepare="custom_op", note="a Python CustomOp (x*x), registered in setup"),
]

ND_OPERATORS = (UNARY + BINARY + GEMM + REDUCTIONS + SORT_SEARCH + INDEXING + REARRANGE + SHAPE
             + EXPANDING + JOIN_SPLIT + RANDOM + LINALG + NN + ACTIVATIONS + LOSSES + OPTIMIZER
             + MISC)

# Registered public operators with no entry, and why. Aliases of an entry's operator (same
# registered op: sum_axis, broadcast_plus, ...) are not listed: the coverage report finds them.
_DEPRECATED = "deprecated alias of %s"
_SUPERSEDED = "deprecated: superseded by %s"
EXCLUDED = OrderedDict([
    ("normal", _DEPRECATED % "random_normal"),
    ("uniform", _DEPRECATED % "random_uniform"),
    ("Flatten", _DEPRECATED % "flatten"),
    ("Pad", _DEPRECATED % "pad"),
    ("Cast", _DEPRECATED % "cast"),
    ("Concat", _DEPRECATED % "concat"),
    ("Reshape", _DEPRECATED % "reshape"),
    ("SliceChannel", _DEPRECATED % "split"),
    ("crop", _DEPRECATED % "slice"),
    # Separate (old) implementations, kept for old models; their successors have entries.
    ("Pooling_v1", _SUPERSEDED % "Pooling"),
    ("Convolution_v1", _SUPERSEDED % "Convolution"),
    ("BatchNorm_v1", _SUPERSEDED % "BatchNorm"),
    ("Crop", _SUPERSEDED % "slice (the symbolic-era Crop layer)"),
    ("batch_take", _SUPERSEDED % "pick"),
])
