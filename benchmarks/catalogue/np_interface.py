"""The numpy interface as an interface of the catalogue: entries called through mx.np / mx.npx.

MXNet 1.6 added mx.np (NumPy-compatible functions on mx.np.ndarray) and mx.npx (MXNet's
operators beside it); 2.0 made it the default interface. Each entry here calls one function
of that interface (call="np": mx.np.<name>, call="npx": mx.npx.<name>; dotted names reach
submodules: linalg.norm, random.uniform, image.resize; ndarray.__setitem__ is indexing) with
the catalogue's shape classes, dtypes and fills; backward runs through autograd where the
function is differentiable. Releases before 1.6 skip every entry with the reason.

Classes are named np_<name> / npx_<name> (np_dot, np_linalg_norm, npx_relu). Where the same
computation has an mx.nd entry, the np entry takes that entry's small and medium cases
(`paired`), so bench_operators.dot and bench_operators.np_dot time the same inputs through the
two interfaces: their ratio is the cost of the interface itself (docs/catalogue.md).

Scalar operands select other registered operators (np.subtract(x, 2.0) runs
_npi_subtract_scalar, np.subtract(2.0, x) _npi_rsubtract_scalar): those are variants `scalar`
and `rscalar`, passed by keyword (x1=..., x2=...). mxbench/coverage.py counts which registered
_np*/_npi*/_npx* operators the entries run, per release, from MXNet's profiler.

Runs inside benchmark environments: Python 3.7 syntax, no mxnet.
"""
from .entries import (CTX, DTYPE, FLOAT32, SM, Operator, T, broadcast_pair, case, elementwise,
                      one_input, reduction, same_shape_pair, square)
from .nd import ND_OPERATORS

# The mx.nd entries as declared (their long tail is not paired: see paired()).
_ND = dict((op.name, op) for op in ND_OPERATORS if not op.form and op.call == "imperative")
_POS = {"fill": "positive"}
_OPEN_UNIT = {"fill": "uniform", "low": -0.9, "high": 0.9}
_BOOL = {"fill": "index", "high": 2, "dtype": "bool"}
_INT = {"fill": "index", "low": 1, "high": 64, "dtype": "int32"}
_NEAR_ONE = {"fill": "uniform", "low": 0.9, "high": 1.1}
INT32 = ("int32",)


def np_entry(name, category, cases, call="np", since=None, **kw):
    """since: the first release with the function's own operator ('2.0'): a skip before it,
    with the reason."""
    return Operator(name, category, cases, call=call, since=since, **kw)


def paired(nd_name, name=None, call="np", kwargs=None, **kw):
    """The np/npx function doing what the mx.nd entry `nd_name` does, on that entry's small and
    medium cases and float32: the pair times the interface. kwargs replace the nd entry's
    (argument names differ: concat's dim is concatenate's axis)."""
    nd = _ND[nd_name]
    cases = [(shape, c) for shape, c in nd.cases.items() if shape in SM]
    merged = dict(nd.kwargs)
    if kwargs is not None:
        merged = kwargs
    kw.setdefault("backward", nd.backward)
    kw.setdefault("note", "pairs with mx.nd's %s" % nd_name)
    return Operator(name or nd_name, nd.category, cases, call=call, kwargs=merged,
                    pairs_with=nd_name, **kw)


def scalar_cases(tensor_fill=None, scalar=0.5, reverse=False, small=(16, 16),
                 medium=(1024, 1024)):
    """x1=tensor, x2=python scalar (or reversed): the *_scalar / r*_scalar operators."""
    fill = dict(tensor_fill or {})
    out = []
    for name, shape in [("small", small), ("medium", medium)]:
        tensor = T(*shape, **fill)
        kwargs = {"x1": scalar, "x2": tensor} if reverse else {"x1": tensor, "x2": scalar}
        out.append((name, case(**kwargs)))
    return out


# --- elementwise unary: (name, fill, backward); nd pairs where mx.nd has the operator -------
_UNARY = [
    ("abs", {}, True), ("arccos", _OPEN_UNIT, True),
    ("arccosh", {"fill": "uniform", "low": 1.1, "high": 4.0}, True),
    ("arcsin", _OPEN_UNIT, True), ("arcsinh", {}, True), ("arctan", {}, True),
    ("arctanh", _OPEN_UNIT, True), ("cbrt", {}, True), ("cos", {}, True), ("cosh", {}, True),
    ("degrees", {}, True), ("exp", {}, True), ("expm1", {}, True), ("log", _POS, True),
    ("log10", _POS, True), ("log1p", _POS, True), ("log2", _POS, True),
    ("negative", {}, False), ("radians", {}, True), ("reciprocal", _POS, True),
    ("sin", {}, True), ("sinh", {}, True), ("sqrt", _POS, True), ("square", {}, True),
    ("tan", {"fill": "uniform"}, True), ("tanh", {}, True), ("ceil", {}, False),
    ("fix", {}, False), ("floor", {}, False), ("rint", {}, False), ("trunc", {}, False),
    ("sign", {}, False),
]
UNARY = [paired(name) if name in _ND else
         np_entry(name, "unary", elementwise(**fill), backward=backward)
         for name, fill, backward in _UNARY]
UNARY += [
    paired("logical_not", kwargs={}),
    np_entry("around", "unary", elementwise(), backward=False, note="round half to even"),
    np_entry("bitwise_not", "unary", elementwise(**_INT), backward=False),
    np_entry("nan_to_num", "unary", elementwise(fill="with_nan"),
             note="backward: _npi_backward_nan_to_num"),
    paired("relu", call="npx"), paired("sigmoid", call="npx"),
]
UNARY += [np_entry(name, "unary", elementwise(fill="with_nan"), backward=False)
          for name in ("isfinite", "isinf", "isnan", "isneginf", "isposinf")]

# --- binary: tensor (op) tensor, broadcasting as mx.nd's broadcast_* entries ----------------
_BINARY = [  # name, nd pair, rhs fill, backward
    ("add", "broadcast_add", {}, True), ("subtract", "broadcast_sub", {}, True),
    ("multiply", "broadcast_mul", {}, True), ("true_divide", "broadcast_div", _POS, True),
    ("mod", "broadcast_mod", {"fill": "positive", "low": 0.5}, True),
    ("power", "broadcast_power", {"fill": "uniform"}, True),
    ("hypot", "broadcast_hypot", {}, True), ("equal", "broadcast_equal", {}, False),
    ("not_equal", "broadcast_not_equal", {}, False), ("greater", "broadcast_greater", {}, False),
    ("greater_equal", "broadcast_greater_equal", {}, False),
    ("less", "broadcast_lesser", {}, False), ("less_equal", "broadcast_lesser_equal", {}, False),
    ("maximum", "broadcast_maximum", {}, True), ("minimum", "broadcast_minimum", {}, True),
]
BINARY = [paired(nd_name, name, kwargs={}) for name, nd_name, _, _ in _BINARY]
BINARY += [
    np_entry("arctan2", "binary-broadcast", broadcast_pair(SM)),
    np_entry("copysign", "binary-broadcast", broadcast_pair(SM), backward=False),
    np_entry("ldexp", "binary-broadcast", broadcast_pair(SM, rhs={"fill": "uniform"})),
    np_entry("lcm", "binary-broadcast", broadcast_pair(SM, _INT, _INT), backward=False,
             dtypes=INT32),
]
BINARY += [np_entry(name, "binary-broadcast", broadcast_pair(SM, _INT, _INT), backward=False,
                    dtypes=INT32)
           for name in ("bitwise_and", "bitwise_or", "bitwise_xor")]

# tensor (op) python scalar, and scalar (op) tensor: the *_scalar / r*_scalar operators
_SCALAR = [  # name, tensor fill, backward, reverse too
    ("add", {}, True, False), ("subtract", {}, True, True), ("multiply", {}, True, False),
    ("true_divide", _POS, True, True), ("mod", _POS, True, True), ("power", _POS, True, True),
    ("arctan2", {}, True, True), ("copysign", {}, False, True), ("ldexp", {}, True, True),
    ("hypot", {}, True, False), ("maximum", {}, True, False), ("minimum", {}, True, False),
    ("equal", {}, False, False), ("not_equal", {}, False, False), ("greater", {}, False, False),
    ("greater_equal", {}, False, False), ("less", {}, False, False),
    ("less_equal", {}, False, False),
]
for _name, _fill, _backward, _reverse in _SCALAR:
    BINARY.append(np_entry(_name, "binary-scalar", scalar_cases(_fill), backward=_backward,
                           form="scalar"))
    if _reverse:
        BINARY.append(np_entry(_name, "binary-scalar", scalar_cases(_fill, reverse=True),
                               backward=_backward, form="rscalar",
                               note="scalar first: the reflected operator"))
BINARY += [np_entry(name, "binary-scalar", scalar_cases(_INT, scalar=3), backward=False,
                    form="scalar", dtypes=INT32)
           for name in ("lcm", "bitwise_and", "bitwise_or", "bitwise_xor")]

# --- GEMM and contractions ------------------------------------------------------------------
GEMM = [
    paired("dot"),
    paired("batch_dot", call="npx"),
    np_entry("matmul", "gemm", [("small", case(T(4, 16, 16), T(4, 16, 16))),
                                ("medium", case(T(32, 128, 128), T(32, 128, 128)))]),
    np_entry("tensordot", "gemm", [("small", case(T(16, 16), T(16, 16), axes=([1], [0]))),
                                   ("medium", case(T(512, 512), T(512, 512), axes=([1], [0])))],
             note="axes as lists of axes"),
    np_entry("tensordot", "gemm", [("small", case(T(16, 16), T(16, 16), axes=1)),
                                   ("medium", case(T(512, 512), T(512, 512), axes=1))],
             form="int_axes", note="axes as a count"),
    np_entry("einsum", "gemm", [("small", case(T(16, 16), T(16, 16))),
                                ("medium", case(T(512, 512), T(512, 512)))],
             kwargs={"subscripts": "ij,jk->ik"}, short_case="small",
             note="a matrix product; short: small (medium is 1.4 s a call on 1.9.1 here, "
                  "forward+backward 3.7 s: 45 s of the short selection, against 4 ms for dot)"),
]

# --- reductions, sort and search --------------------------------------------------------------
REDUCTIONS = [
    paired("sum"), paired("mean"), paired("max"), paired("min"),
    paired("prod"), paired("norm", "linalg.norm"),
    np_entry("std", "reduction", reduction(SM, axis=1)),
    np_entry("var", "reduction", reduction(SM, axis=1)),
    np_entry("average", "reduction", reduction(SM, axis=1)),
    np_entry("all", "reduction", reduction(SM, fill=_BOOL, axis=1), backward=False),
    np_entry("any", "reduction", reduction(SM, fill=_BOOL, axis=1), backward=False),
    np_entry("percentile", "reduction", reduction(SM, axis=1, q=50), backward=False),
    np_entry("trace", "reduction", one_input(classes=SM)),
    paired("argmax"), paired("argmin"),
    paired("sort"), paired("topk", call="npx"),
]

# --- indexing ----------------------------------------------------------------------------------
_MASK_CASES = [("small", case(T(16, 16), key=T(16, 16, **_BOOL))),
               ("medium", case(T(1024, 1024), key=T(1024, 1024, **_BOOL)))]
INDEXING = [
    paired("take", dtypes=INT32, kwargs={"axis": 0}),
    paired("pick", call="npx", dtypes=INT32),
    paired("where", kwargs={}),
    paired("gather_nd", call="npx", dtypes=INT32),
    paired("one_hot", call="npx", dtypes=INT32),
    np_entry("where", "indexing",
             [(n, case(T(*s, **_BOOL), x=1.0, y=T(*s))) for n, s in [("small", (16, 16)),
                                                                   ("medium", (1024, 1024))]],
             form="lscalar", note="where(cond, scalar, tensor)"),
    np_entry("where", "indexing",
             [(n, case(T(*s, **_BOOL), x=T(*s), y=1.0)) for n, s in [("small", (16, 16)),
                                                                   ("medium", (1024, 1024))]],
             form="rscalar", note="where(cond, tensor, scalar)"),
    np_entry("where", "indexing",
             [(n, case(T(*s, **_BOOL), x=1.0, y=0.0)) for n, s in [("small", (16, 16)),
                                                                ("medium", (1024, 1024))]],
             form="scalar2", backward=False, note="where(cond, scalar, scalar)"),
    np_entry("nonzero", "indexing", elementwise(fill="sparse"), backward=False),
    np_entry("nonzero", "indexing", elementwise(fill="sparse"), backward=False, call="npx"),
    np_entry("ndarray.__getitem__", "indexing", _MASK_CASES, backward=False,
             note="x[boolean mask]: _contrib_boolean_mask"),
    np_entry("ndarray.__setitem__", "indexing",
             [(n, case(T(*s), key=(slice(s[0] // 8, s[0] // 2),), value=T(s[0] * 3 // 8, s[1])))
              for n, s in [("small", (16, 16)), ("medium", (1024, 1024))]],
             backward=False, note="x[a:b] = tensor: _slice_assign"),
    np_entry("ndarray.__setitem__", "indexing",
             [(n, case(T(*s), key=(slice(s[0] // 8, s[0] // 2),), value=0.5))
              for n, s in [("small", (16, 16)), ("medium", (1024, 1024))]],
             backward=False, form="scalar", note="x[a:b] = scalar: _slice_assign_scalar"),
    np_entry("ndarray.__setitem__", "indexing",
             [(n, case(T(*s), key=T(*s, **_BOOL), value=0.5))
              for n, s in [("small", (16, 16)), ("medium", (1024, 1024))]],
             backward=False, form="mask_scalar",
             note="x[mask] = scalar: _npi_boolean_mask_assign_scalar"),
    np_entry("ndarray.__setitem__", "indexing",
             [(n, case(T(*s), key=T(*s, **_BOOL), value=T(1)))
              for n, s in [("small", (16, 16)), ("medium", (1024, 1024))]],
             backward=False, form="mask_tensor",
             note="x[mask] = tensor: _npi_boolean_mask_assign_tensor"),
    np_entry("ndarray.__setitem__", "indexing",
             [(n, case(T(*s), key=T(s[0] // 2, fill="index", high=s[0], dtype="int32"),
                       value=0.5))
              for n, s in [("small", (16, 16)), ("medium", (1024, 1024))]],
             backward=False, form="advanced",
             note="x[index array] = scalar: _scatter_set_nd"),
    np_entry("ndarray.copyto", "indexing",
             [(n, case(T(*s), other=T(*s, fill="zeros"))) for n, s in
              [("small", (16, 16)), ("medium", (1024, 1024))]],
             backward=False, note="into another array: _npi_copyto"),
    np_entry("diag_indices_from", "indexing", one_input(classes=SM), backward=False),
    np_entry("bincount", "indexing",
             [("small", case(T(256, fill="index", high=16, dtype="int64"))),
              ("medium", case(T(1048576, fill="index", high=1024, dtype="int64")))],
             backward=False),
    np_entry("histogram", "indexing", elementwise(fill="uniform"),
             kwargs={"bins": 16, "range": (-1.0, 1.0)}, backward=False),
    np_entry("unique", "indexing",
             [("small", case(T(256, fill="index", high=16, dtype="float32"))),
              ("medium", case(T(1048576, fill="index", high=1024, dtype="float32")))],
             backward=False),
    np_entry("shares_memory", "indexing", same_shape_pair(SM), backward=False),
]

# --- shape, rearrange, expanding, join/split --------------------------------------------------
_3D = [("small", (4, 8, 16)), ("medium", (64, 128, 128))]
SHAPE = [
    np_entry("reshape", "shape", [("small", case(T(16, 16), newshape=(8, 32))),
                                  ("medium", case(T(1024, 1024), newshape=(512, 2048)))],
             backward=False, note="pairs with mx.nd's reshape"),
    np_entry("reshape", "shape", [("small", case(T(16, 16), newshape=(-2, 4, -1))),
                                  ("medium", case(T(1024, 1024), newshape=(-2, 4, -1)))],
             call="npx", backward=False, note="mxnet's reshape codes (-2: copy this axis)"),
    paired("transpose"),
    np_entry("moveaxis", "shape", [(n, case(T(*s), source=0, destination=2)) for n, s in _3D],
             backward=False),
    paired("squeeze"), paired("expand_dims"), paired("flip"), paired("diag"),
    np_entry("diagflat", "shape", [("small", case(T(16))), ("medium", case(T(1024)))]),
    np_entry("diagonal", "shape", one_input(classes=SM)),
    np_entry("copy", "shape", elementwise(), backward=False),
    np_entry("roll", "shape", elementwise(), kwargs={"shift": 3, "axis": 1}),
    np_entry("rot90", "shape", elementwise(), backward=False),
    np_entry("tril", "shape", elementwise()),
    np_entry("atleast_1d", "shape", elementwise(), backward=False),
    np_entry("atleast_2d", "shape", [("small", case(T(256))), ("medium", case(T(1048576)))],
             backward=False),
    np_entry("atleast_3d", "shape", elementwise(), backward=False),
    paired("broadcast_to"),
    paired("tile"), paired("repeat"),
    np_entry("pad", "expanding",
             [("small", case(T(1, 3, 16, 16))), ("medium", case(T(16, 16, 64, 64)))],
             kwargs={"mode": "constant", "pad_width": ((0, 0), (0, 0), (1, 1), (1, 1))},
             note="pairs with mx.nd's pad"),
    np_entry("diff", "expanding", elementwise(), kwargs={"axis": 1}),
    np_entry("ediff1d", "expanding", [("small", case(T(256))), ("medium", case(T(1048576)))],
             note="backward: _npi_backward_ediff1d"),
    np_entry("delete", "expanding", elementwise(), kwargs={"obj": 1, "axis": 1},
             backward=False),
    np_entry("insert", "expanding",
             [(n, case(T(*s), obj=1, values=T(s[0], 1), axis=1)) for n, s in
              [("small", (16, 16)), ("medium", (1024, 1024))]],
             backward=False, note="at one index: _npi_insert_scalar"),
    np_entry("insert", "expanding",
             [(n, case(T(*s), obj=slice(0, 4), values=T(s[0], 4), axis=1)) for n, s in
              [("small", (16, 16)), ("medium", (1024, 1024))]],
             backward=False, form="slice", note="at a slice: _npi_insert_slice"),
    np_entry("insert", "expanding",
             [(n, case(T(*s), obj=T(4, fill="index", high=s[1], dtype="int64"),
                       values=T(s[0], 4), axis=1))
              for n, s in [("small", (16, 16)), ("medium", (1024, 1024))]],
             backward=False, form="tensor", note="at an index array: _npi_insert_tensor"),
    np_entry("polyval", "misc",
             [("small", case(T(4), T(16, 16))), ("medium", case(T(4), T(1024, 1024)))],
             note="a cubic; backward: _npi_backward_polyval"),
]
JOIN_SPLIT = [
    np_entry("concatenate", "join-split",
             [("small", case(T(16, 8), T(16, 8))),
              ("medium", case(T(1024, 512), T(1024, 512)))],
             kwargs={"axis": 1}, note="pairs with mx.nd's concat"),
    np_entry("stack", "join-split",
             [("small", case(T(8, 16), T(8, 16))), ("medium", case(T(512, 1024), T(512, 1024)))],
             kwargs={"axis": 0}, note="pairs with mx.nd's stack"),
]
for _name in ("column_stack", "dstack", "hstack", "vstack"):
    JOIN_SPLIT.append(np_entry(_name, "join-split",
                               [("small", case(T(16, 8), T(16, 8))),
                                ("medium", case(T(1024, 512), T(1024, 512)))]))
JOIN_SPLIT += [
    np_entry("split", "join-split", elementwise(), kwargs={"indices_or_sections": 4, "axis": 1},
             note="pairs with mx.nd's split"),
    np_entry("hsplit", "join-split", elementwise(), kwargs={"indices_or_sections": 4},
             note="backward: _npi_hsplit_backward"),
    np_entry("dsplit", "join-split", [(n, case(T(*s))) for n, s in _3D],
             kwargs={"indices_or_sections": 4}),
]

# --- creation -------------------------------------------------------------------------------
def creation(small, medium, **kwargs):
    """No tensor inputs: small and medium are the arguments that set the output's size."""
    return [("small", case(ctx=CTX, dtype=DTYPE, **dict(kwargs, **small))),
            ("medium", case(ctx=CTX, dtype=DTYPE, **dict(kwargs, **medium)))]


_SIZE = ({"shape": (16, 16)}, {"shape": (1024, 1024)})
CREATION = [
    np_entry("zeros", "creation", creation(*_SIZE), backward=False),
    np_entry("ones", "creation", creation(*_SIZE), backward=False),
    np_entry("full", "creation", creation(*_SIZE, fill_value=2.0), backward=False),
    np_entry("full_like", "creation", elementwise(), kwargs={"fill_value": 2.0},
             backward=False),
    np_entry("eye", "creation", creation({"N": 16}, {"N": 1024}), backward=False),
    np_entry("identity", "creation", creation({"n": 16}, {"n": 1024}), backward=False),
    np_entry("arange", "creation", creation({"start": 0, "stop": 256},
                                            {"start": 0, "stop": 1048576}), backward=False),
    np_entry("linspace", "creation", creation({"start": 0, "stop": 1, "num": 256},
                                              {"start": 0, "stop": 1, "num": 1048576}),
             backward=False),
    np_entry("logspace", "creation", creation({"start": 0, "stop": 1, "num": 256},
                                              {"start": 0, "stop": 1, "num": 1048576}),
             backward=False),
    np_entry("indices", "creation", [("small", case(dimensions=(16, 16), ctx=CTX)),
                                     ("medium", case(dimensions=(1024, 1024), ctx=CTX))],
             backward=False, note="int32 grids"),
    np_entry("arange_like", "creation", elementwise(), call="npx", backward=False),
]
CREATION += [np_entry(name, "creation", creation({"M": 256}, {"M": 1048576}), backward=False)
             for name in ("hamming", "hanning", "blackman")]

# --- random sampling --------------------------------------------------------------------------
def sampled(**kwargs):
    return [("small", case(size=(16, 16), ctx=CTX, **kwargs)),
            ("medium", case(size=(1024, 1024), ctx=CTX, **kwargs))]


def per_element(*params, **kwargs):
    """Distribution parameters as tensors, one per output element."""
    return [(n, case(*[T(*s, **p) for p in params], ctx=CTX, **kwargs))
            for n, s in [("small", (16, 16)), ("medium", (1024, 1024))]]


RANDOM = [
    np_entry("random.uniform", "random", sampled(low=-1.0, high=1.0), backward=False),
    np_entry("random.uniform", "random",
             per_element({"fill": "uniform", "low": -2, "high": -1},
                         {"fill": "uniform", "low": 1, "high": 2}),
             form="tensor", backward=False, note="low and high per element"),
    np_entry("random.normal", "random", sampled(loc=0.0, scale=1.0), backward=False),
    np_entry("random.normal", "random", per_element({}, _POS), form="tensor",
             backward=False, note="loc and scale per element"),
    np_entry("random.uniform_n", "random",
             [(n, case(T(s), T(s, fill="positive", low=1.0, high=2.0), batch_shape=(s,),
                       ctx=CTX)) for n, s in [("small", 16), ("medium", 1024)]],
             call="npx", backward=False, note="low/high (N,), batch_shape (N,): (N, N)"),
    np_entry("random.normal_n", "random",
             [(n, case(T(s), T(s, **_POS), batch_shape=(s,), ctx=CTX))
              for n, s in [("small", 16), ("medium", 1024)]],
             call="npx", backward=False, note="loc/scale (N,), batch_shape (N,): (N, N)"),
    np_entry("random.gamma", "random", sampled(shape=9.0, scale=0.5), backward=False),
    np_entry("random.exponential", "random", sampled(scale=1.0), backward=False),
    np_entry("random.gumbel", "random", sampled(loc=0.0, scale=1.0), backward=False),
    np_entry("random.logistic", "random", sampled(loc=0.0, scale=1.0), backward=False),
    np_entry("random.pareto", "random", sampled(a=3.0), backward=False),
    np_entry("random.rayleigh", "random", sampled(scale=1.0), backward=False),
    np_entry("random.weibull", "random", sampled(a=2.0), backward=False),
    np_entry("random.power", "random",
             [("small", case(a=2.0, size=(16, 16))), ("medium", case(a=2.0, size=(1024, 1024)))],
             backward=False, note="_npi_powerd"),
    np_entry("random.bernoulli", "random", sampled(prob=0.5), call="npx", backward=False),
    np_entry("random.choice", "random", sampled(a=1000), backward=False),
    np_entry("random.multinomial", "random",
             [("small", case(n=8, pvals=[0.25] * 4, size=(16,))),
              ("medium", case(n=8, pvals=[0.0625] * 16, size=(65536,)))], backward=False),
]

# --- linear algebra -----------------------------------------------------------------------------
LINALG = [
    np_entry("linalg.cholesky", "linalg", square("spd")),
    np_entry("linalg.eig", "linalg", square("spd", medium=128), backward=False,
             note="SPD input: real eigenvalues (complex ones are unsupported)"),
    np_entry("linalg.eigh", "linalg", square("spd", medium=128)),
    np_entry("linalg.eigvals", "linalg", square("spd", medium=128), backward=False),
    np_entry("linalg.eigvalsh", "linalg", square("spd", medium=128), backward=False),
    np_entry("linalg.pinv", "linalg", square(medium=128), backward=False,
             kwargs={"rcond": 1e-15},
             note="rcond a python scalar (1.x's default, given: 2.0.0b1's default rtol=None "
                  "segfaults): _npi_pinv_scalar_rcond"),
    np_entry("linalg.pinv", "linalg",
             [(n, case(T(s, s), T(fill="positive", low=1e-6, high=1e-5)))
              for n, s in [("small", 16), ("medium", 128)]], backward=False, form="tensor",
             note="rcond a 0-d tensor: _npi_pinv"),
    np_entry("linalg.solve", "linalg",
             [("small", case(T(16, 16, fill="spd"), T(16, 4))),
              ("medium", case(T(512, 512, fill="spd"), T(512, 64)))]),
    np_entry("linalg.svd", "linalg", square(medium=128)),
    np_entry("linalg.tensorinv", "linalg",
             [("small", case(T(16, 4, 4))), ("medium", case(T(256, 16, 16)))],
             kwargs={"ind": 1}, note="(N, a, b) with N = a * b"),
    np_entry("linalg.tensorsolve", "linalg",
             [("small", case(T(16, 4, 4), T(16))), ("medium", case(T(256, 16, 16), T(256)))]),
    paired("linalg_det", "linalg.det"), paired("linalg_slogdet", "linalg.slogdet"),
    paired("linalg_inverse", "linalg.inv"),
]

# --- neural-network layers and image operators through npx -------------------------------------
NN = [
    paired("FullyConnected", "fully_connected", call="npx"),
    paired("Convolution", "convolution", call="npx"),
    paired("Pooling", "pooling", call="npx"),
    paired("BatchNorm", "batch_norm", call="npx"),
    paired("LayerNorm", "layer_norm", call="npx"),
    paired("Activation", "activation", call="npx"),
    paired("LeakyReLU", "leaky_relu", call="npx"),
    paired("Dropout", "dropout", call="npx"),
    paired("softmax", call="npx"), paired("log_softmax", call="npx"),
    paired("Embedding", "embedding", call="npx", dtypes=INT32),
    paired("SequenceMask", "sequence_mask", call="npx"),
    paired("smooth_l1", call="npx"),
    paired("erf", call="npx"), paired("gammaln", call="npx"),
    np_entry("constraint_check", "misc",
             [("small", case(T(16, fill="ones", dtype="bool"), msg="all true")),
              ("medium", case(T(1048576, fill="ones", dtype="bool"), msg="all true"))],
             call="npx", backward=False),
]
_HWC = [("small", (16, 16, 3)), ("medium", (256, 256, 3))]
_CHW = [("small", (3, 16, 16)), ("medium", (3, 256, 256))]


def image(shapes=_HWC, **kwargs):
    return [(n, case(T(*s, fill="uniform", low=0.0, high=1.0), **kwargs)) for n, s in shapes]


IMAGE = [
    np_entry("image.to_tensor", "image", image(), call="npx", backward=False),
    np_entry("image.normalize", "image", image(_CHW, mean=(0.5, 0.5, 0.5), std=(0.2, 0.2, 0.2)),
             call="npx"),
    np_entry("image.flip_left_right", "image", image(), call="npx", backward=False),
    np_entry("image.flip_top_bottom", "image", image(), call="npx", backward=False),
    np_entry("image.random_flip_left_right", "image", image(), call="npx", backward=False),
    np_entry("image.random_flip_top_bottom", "image", image(), call="npx", backward=False),
    np_entry("image.random_brightness", "image", image(min_factor=0.5, max_factor=1.5),
             call="npx", backward=False),
    np_entry("image.random_contrast", "image", image(min_factor=0.5, max_factor=1.5),
             call="npx", backward=False),
    np_entry("image.random_saturation", "image", image(min_factor=0.5, max_factor=1.5),
             call="npx", backward=False),
    np_entry("image.random_hue", "image", image(min_factor=0.5, max_factor=1.5),
             call="npx", backward=False),
    np_entry("image.random_color_jitter", "image",
             image(brightness=0.2, contrast=0.2, saturation=0.2, hue=0.2), call="npx",
             backward=False),
    np_entry("image.random_lighting", "image", image(alpha_std=0.1), call="npx",
             backward=False),
    np_entry("image.adjust_lighting", "image", image(alpha=(0.1, 0.1, 0.1)), call="npx",
             backward=False),
    np_entry("image.crop", "image", image(x=2, y=2, width=8, height=8), call="npx",
             backward=False),
    np_entry("image.resize", "image", image(size=(8, 8)), call="npx", backward=False),
]


def multibox(name):
    """Anchors over a (1, 8, 16, 16) feature map: 16*16*3 = 768 anchors (medium: 64x64)."""
    out = []
    for n, side in [("small", 16), ("medium", 64)]:
        anchors = side * side * 3
        if name == "multibox_prior":
            c = case(T(1, 8, side, side), sizes=(0.5, 0.25), ratios=(1.0, 2.0))
        elif name == "multibox_detection":
            c = case(T(1, 4, anchors, fill="simplex"), T(1, anchors * 4, fill="uniform",
                                                          low=-0.1, high=0.1),
                     T(1, anchors, 4, fill="uniform", low=0.0, high=1.0))
        else:
            c = case(T(1, anchors, 4, fill="uniform", low=0.0, high=1.0),
                     T(1, 2, 5, fill="uniform", low=0.0, high=1.0), T(1, 4, anchors))
        out.append((n, c))
    return out


DETECTION = [np_entry(name, "detection", multibox(name), call="npx", backward=False)
             for name in ("multibox_prior", "multibox_detection", "multibox_target")]

# --- MXNet 2.0's own numpy functions ----------------------------------------------------------
# Functions whose operators arrived in 2.0 (in 1.x mx.np lacked them, or its interp, lstsq,
# matrix_rank, qr and rollaxis were NumPy's own functions run on the host: no MXNet operator).
# since="2.0": a skip before 2.0, with the reason.
_2_0 = "2.0"
_SHIFT = {"fill": "index", "low": 0, "high": 8, "dtype": "int32"}


def new_in_2_0(name, category, cases, **kw):
    return np_entry(name, category, cases, since=_2_0, **kw)


NEW_IN_2_0 = [  # tensor (op) tensor, broadcasting as _BINARY
    new_in_2_0(name, "binary-broadcast", broadcast_pair(SM, lhs, rhs), backward=backward,
               dtypes=dtypes)
    for name, lhs, rhs, backward, dtypes in [
        ("fmax", {}, {}, True, FLOAT32), ("fmin", {}, {}, True, FLOAT32),
        ("fmod", {}, {"fill": "positive", "low": 0.5}, True, FLOAT32),
        ("floor_divide", {}, {"fill": "positive", "low": 0.5}, False, FLOAT32),
        ("logaddexp", {}, {}, True, FLOAT32),
        ("gcd", _INT, _INT, False, INT32),
        ("logical_and", _BOOL, _BOOL, False, FLOAT32),
        ("logical_or", _BOOL, _BOOL, False, FLOAT32),
        ("logical_xor", _BOOL, _BOOL, False, FLOAT32),
        ("bitwise_left_shift", _INT, _SHIFT, False, INT32),
        ("bitwise_right_shift", _INT, _SHIFT, False, INT32),
    ]]
for _name, _fill, _scalar, _backward, _reverse, _dtypes in [  # the *_scalar operators
        ("fmax", {}, 0.5, True, False, FLOAT32), ("fmin", {}, 0.5, True, False, FLOAT32),
        ("fmod", _POS, 0.5, True, True, FLOAT32),
        ("floor_divide", _POS, 0.5, False, True, FLOAT32),
        ("logaddexp", {}, 0.5, True, False, FLOAT32),
        ("gcd", _INT, 6, False, False, INT32),
        ("logical_and", _BOOL, 1.0, False, False, FLOAT32),
        ("logical_or", _BOOL, 1.0, False, False, FLOAT32),
        ("logical_xor", _BOOL, 1.0, False, False, FLOAT32),
        ("bitwise_left_shift", _SHIFT, 2, False, True, INT32),
        ("bitwise_right_shift", _SHIFT, 2, False, True, INT32)]:
    NEW_IN_2_0.append(new_in_2_0(_name, "binary-scalar", scalar_cases(_fill, scalar=_scalar),
                                 backward=_backward, form="scalar", dtypes=_dtypes))
    if _reverse:
        NEW_IN_2_0.append(new_in_2_0(_name, "binary-scalar",
                                     scalar_cases(_fill, scalar=_scalar, reverse=True),
                                     backward=_backward, form="rscalar", dtypes=_dtypes,
                                     note="scalar first: the reflected operator"))
_INDEX_ROWS = [("small", 16, 16, 8), ("medium", 1024, 1024, 256)]  # (a rows, cols, indexed)
NEW_IN_2_0 += [
    new_in_2_0("cross", "misc", [("small", case(T(256, 3), T(256, 3))),
                                 ("medium", case(T(262144, 3), T(262144, 3)))],
               note="rows of 3-vectors"),
    new_in_2_0("kron", "gemm", [("small", case(T(4, 4), T(4, 4))),
                                ("medium", case(T(32, 32), T(32, 32)))],
               note="a (16, 16) / (1024, 1024) result"),
    new_in_2_0("interp", "misc",
               [(n, case(T(size, fill="uniform"), T(points, fill="sorted"), T(points)))
                for n, size, points in [("small", 256, 16), ("medium", 1048576, 1024)]],
               backward=False, note="x, increasing xp, fp"),
    new_in_2_0("fill_diagonal", "indexing", one_input(classes=SM), kwargs={"val": 0.5},
               backward=False, note="in place"),
    new_in_2_0("triu", "shape", one_input(classes=SM)),
    new_in_2_0("rollaxis", "shape", [(n, case(T(*s), axis=2)) for n, s in _3D]),
    # On the current device: 2.0.0b1's tri takes a device only as a string (a Device object is
    # a TypeError), tril_indices takes none.
    new_in_2_0("tri", "creation", [("small", case(N=16, dtype=DTYPE)),
                                   ("medium", case(N=1024, dtype=DTYPE))], backward=False),
    new_in_2_0("tril_indices", "creation", [("small", case(n=16)), ("medium", case(n=1024))],
               backward=False),
    new_in_2_0("random.laplace", "random", sampled(loc=0.0, scale=1.0), backward=False),
    new_in_2_0("linalg.qr", "linalg", square(medium=256)),
    new_in_2_0("linalg.lstsq", "linalg",
               [("small", case(T(32, 16), T(32, 4), rcond=None)),
                ("medium", case(T(512, 256), T(512, 64), rcond=None))], backward=False,
               note="least squares of an overdetermined system"),
    new_in_2_0("linalg.matrix_rank", "linalg", square(medium=256), backward=False,
               note="default tolerance: _npi_matrix_rank_none_tol"),
    new_in_2_0("linalg.matrix_rank", "linalg",
               [(n, case(T(s, s), rtol=T(fill="positive", low=1e-4, high=1e-3)))
                for n, s in [("small", 16), ("medium", 256)]], backward=False,
               form="tol", note="a 0-d tolerance tensor: _npi_matrix_rank"),
    new_in_2_0("ndarray.__getitem__", "indexing",
               [(n, case(T(rows, cols), key=(T(k, fill="index", high=rows, dtype="int32"),
                                            T(k, fill="index", high=cols, dtype="int32"))))
                for n, rows, cols, k in _INDEX_ROWS], form="advanced_multiple",
               backward=False, note="x[rows, cols]: _npi_advanced_indexing_multiple"),
]
for _name in ("index_add", "index_update"):
    NEW_IN_2_0.append(new_in_2_0(
        _name, "indexing",
        [(n, case(T(rows, cols), T(1, k, fill="index", high=rows, dtype="int32"), T(k, cols)))
         for n, rows, cols, k in _INDEX_ROWS], call="npx",
        note="k rows of a, by index (repeats possible)"))


def deformable(modulated=False):
    """NCHW data, per-position kernel offsets (and masks), OIHW weight; kernel 3, pad 1."""
    out = []
    for n, (batch, channels, side, filters) in [("small", (1, 4, 8, 8)),
                                                ("medium", (8, 32, 28, 64))]:
        inputs = [T(batch, channels, side, side),
                  T(batch, 18, side, side, fill="uniform", low=-0.5, high=0.5)]
        if modulated:
            inputs.append(T(batch, 9, side, side, fill="uniform", low=0.0, high=1.0))
        inputs += [T(filters, channels, 3, 3), T(filters)]
        out.append((n, case(*inputs, kernel=(3, 3), pad=(1, 1), num_filter=filters)))
    return out


NEW_IN_2_0 += [
    new_in_2_0("deformable_convolution", "nn", deformable(), call="npx",
               note="as contrib.DeformableConvolution (1.x)"),
    new_in_2_0("modulated_deformable_convolution", "nn", deformable(modulated=True),
               call="npx", backward=False,
               note="a CPU kernel from 2.0 (1.x's contrib one was GPU only); its backward is "
                    "still GPU only in 2.0.0b1 ('only implemented in GPU')"),
]


# Control flow: npx.foreach / while_loop / cond trace their Python bodies into subgraphs and
# run them as one operator (_npx_foreach, ...), per call. Small bodies: the operator's cost.
def _foreach_body(data, state):
    return data * 2.0, state + data


def _while_condition(state):
    return state.sum() > -1e30  # always true: max_iterations ends the loop


def _while_body(state):
    return state * 0.5, state + 1.0


def _cond_predicate(a):
    return a.sum() > 0


def _cond_then(a):
    return a * 2.0


def _cond_else(a):
    return a - 1.0


_STEPS = [("small", (16, 16)), ("medium", (64, 1024))]  # (steps, width) and 64 steps of 1024
CONTROL_FLOW = [
    new_in_2_0("foreach", "control-flow",
               [(n, case(body=_foreach_body, data=T(*s), init_states=T(s[1])))
                for n, s in _STEPS], call="npx", backward=False,
               note="one step per row: out = 2 x, state += x"),
    new_in_2_0("while_loop", "control-flow",
               [(n, case(cond=_while_condition, func=_while_body, loop_vars=T(s[1]),
                         max_iterations=s[0])) for n, s in _STEPS], call="npx",
               backward=False, note="rows-many steps of state * 0.5, state + 1"),
    new_in_2_0("cond", "control-flow",
               [(n, case(pred=_cond_predicate, then_func=_cond_then, else_func=_cond_else,
                         inputs=T(*s)))
                for n, s in [("small", (16, 16)), ("medium", (1024, 1024))]], call="npx",
               backward=False, note="sum > 0 ? 2 x : x - 1"),
]

NUMPY_OPERATORS = (UNARY + BINARY + GEMM + REDUCTIONS + INDEXING + SHAPE + JOIN_SPLIT
                   + CREATION + RANDOM + LINALG + NN + IMAGE + DETECTION + NEW_IN_2_0
                   + CONTROL_FLOW)

# Registered _np*/_npi*/_npx* operators with no entry, and why (mxbench/coverage.py).
NUMPY_EXCLUDED = {
    "_cvimdecode": "decodes an encoded image (JPEG/PNG bytes): image I/O, not array compute",
    "_cvimread": "reads an image file: I/O, not array compute",
    "_cvimresize": "npx.image.imresize takes only legacy mx.nd arrays in 1.x "
                   "(mx.image.imresize); npx.image.resize (_image_resize) is the np entry",
    "_npi_dsplit": "only the symbolic numpy interface (mx.sym.np.dsplit) runs it in 1.x; "
                   "mx.np.dsplit runs _split_v2 (np_dsplit)",
    "_npi_rnn_param_concat": "internal: Gluon's RNN layers pack their parameters with it; "
                             "no mx.np/mx.npx function",
    # MXNet 2.0.0b1
    "_npi_advanced_indexing": "only the symbolic numpy interface (mx.sym.np, x[index array]) "
                              "runs it in 2.0; mx.np's x[index array] runs gather_nd "
                              "(npx_gather_nd) and x[rows, cols] "
                              "_npi_advanced_indexing_multiple (np_ndarray_getitem_advanced_"
                              "multiple)",
    "_np_reshape": "registered in 2.0 but no function runs it: mx.np.reshape and "
                   "ndarray.reshape run _npx_reshape (np_reshape, npx_reshape)",
    "_npi_normal_n": "registered in 2.0 but no function runs it: npx.random.normal_n runs "
                     "_npi_normal with a batch shape (npx_random_normal_n)",
    "_npi_uniform_n": "registered in 2.0 but no function runs it: npx.random.uniform_n runs "
                      "_npi_uniform with a batch shape (npx_random_uniform_n)",
}

# Registered operators an entry runs that MXNet's profiler does not list under their own
# name (it lists the engine's copy instead): class name -> operators.
PROFILER_UNSEEN = {
    "np_ndarray_copyto": ("_npi_copyto",),
    # 2.0's npx control flow calls _api_internal.foreach / while_loop / cond, which invoke the
    # registered _npx_* operator; the profiler lists only the operators of its subgraph.
    "npx_foreach": ("_npx_foreach",),
    "npx_while_loop": ("_npx_while_loop",),
    "npx_cond": ("_npx_cond",),
}
