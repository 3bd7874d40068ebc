"""Neutral baselines: the NumPy and PyTorch counterparts of catalogue entries, as data.

COUNTERPARTS maps an entry's class_name to {framework: Counterpart}. A Counterpart names the
function (a dotted path such as "torch.nn.functional.conv2d", or "x.<name>": a small named
translation in TRANSLATIONS below, written once for both frameworks) and how MXNet's call
translates to it:

  inputs   which of the entry's positional inputs, in which order (default: all of them);
           an item may be (index, "int64"/"bool") where the counterpart wants another dtype
           (indices as int64, a 0/1 condition as bool), or L(value), a literal argument;
  kwargs   fixed values, or A("name") for the value of MXNet's argument `name` in the case
           (A("pad", "pairs") and friends convert the convention: see _CONVERT);
  output   which element of the counterpart's tuple result is compared with MXNet's output
           number `mx_output` (None: the whole result, a list compared element by element);
  copy     the counterpart returns a view where MXNet writes a new array: it is copied, so
           both sides produce memory (transpose, slice, broadcast_to, ...);
  forward_only  MXNet's backward is not the gradient of its forward (SoftmaxOutput & co.),
           or differs by convention: no forward+backward baseline.
  grads    whether the agreement test also compares input gradients: True, False where MXNet's
           gradient convention differs (the reason in `note`), or the dtypes where it does
           (cast: not to int32). A gradient torch does not compute (its output is an integer
           tensor) agrees only with an MXNet gradient of zeros (gradient_problem).

Every counterpart here passes tests/test_baselines.py: the same input arrays (same seed, dtype
and layout) on both sides, outputs allclose with a tolerance per dtype. Inputs: numpy_inputs()
draws them exactly as harness.inputs.build_call does, so MXNet, torch.from_numpy and NumPy see the
same values (the test checks that too).

Runs inside benchmark environments: Python 3.7 syntax; torch is imported only when asked for.
"""
import importlib
from collections import namedtuple

import numpy as np

from . import harness as H
from .catalogue import Tensor, by_class_name

FRAMEWORKS = ("torch", "numpy")
# The versions tests/test_baselines.py checks every counterpart against (`make
# test-baselines` builds its venv with them, CI runs it, and a test keeps them equal to the
# Makefile's and requirements.txt's pins): each baseline recording carries them
# (the result files' checked_against), so a ratio says which versions were checked equal.
CHECKED_AGAINST = {"mxnet": "1.9.1", "torch": "2.13.0", "numpy": "1.23.5"}
# Tolerances of the agreement test, per dtype (rtol, atol): float16 keeps 3 decimal digits;
# float32 results of reductions over ~1e3 terms differ by a few ulps times the term count.
TOLERANCE = {"float16": (1e-2, 1e-2), "float32": (1e-4, 1e-4), "float64": (1e-9, 1e-9),
             "int32": (0, 0), "int64": (0, 0)}

Counterpart = namedtuple("Counterpart", "fn inputs kwargs output mx_output copy forward_only "
                                        "grads note")


class A(object):
    """MXNet's argument `name` (the entry's or the case's), converted by _CONVERT[how]."""

    def __init__(self, name, how=None, default=None):
        self.name, self.how, self.default = name, how, default

    def __repr__(self):
        return "A(%r)" % (self.name,)


class L(object):
    """A literal positional argument of the counterpart."""

    def __init__(self, value):
        self.value = value


def C(fn, inputs=None, output=None, mx_output=0, copy=False, forward_only=False, grads=True,
      note="", **kwargs):
    return Counterpart(fn, None if inputs is None else tuple(inputs), kwargs, output, mx_output,
                       copy, forward_only, grads, note)


def _pairs(pad):  # MXNet pad_width (before, after per axis) -> numpy.pad's ((b, a), ...)
    return tuple(zip(pad[0::2], pad[1::2]))


def _torch_pad(pad):  # -> torch's F.pad: (before, after) of the LAST axis first
    pairs = _pairs(pad)
    return tuple(v for pair in reversed(pairs) for v in pair)


_CONVERT = {"pairs": _pairs, "torch_pad": _torch_pad, "tuple": lambda v: tuple(v),
            "first": lambda v: v[0] if isinstance(v, (tuple, list)) else v}


# --- framework adapters: what a translation written once needs from each library ------------
class _NumPy(object):
    name = "numpy"
    lib = np

    @staticmethod
    def permute(x, axes):
        return np.transpose(x, axes)

    @staticmethod
    def copy(x):
        return np.array(x, copy=True)

    @staticmethod
    def sum(x, axis=None, keepdims=False):
        return np.sum(x, axis=axis, keepdims=keepdims)

    @staticmethod
    def max(x, axis=None, keepdims=False):
        return np.max(x, axis=axis, keepdims=keepdims)

    @staticmethod
    def cast(x, dtype):
        return x.astype(dtype)

    @staticmethod
    def reshape(x, shape):
        return x.reshape(shape)


class _Torch(object):
    name = "torch"

    def __init__(self):
        import torch
        self.lib = torch

    def permute(self, x, axes):
        return x.permute(*axes)

    def copy(self, x):
        return x.clone(memory_format=self.lib.contiguous_format)

    def sum(self, x, axis=None, keepdims=False):
        return x.sum() if axis is None else x.sum(dim=axis, keepdim=keepdims)

    def max(self, x, axis=None, keepdims=False):
        return x.max() if axis is None else x.amax(dim=axis, keepdim=keepdims)

    def cast(self, x, dtype):
        return x.to(getattr(self.lib, str(dtype)))

    def reshape(self, x, shape):
        return x.reshape(shape)


_ADAPTERS = {}


def adapter(framework):
    if framework not in _ADAPTERS:
        _ADAPTERS[framework] = _NumPy() if framework == "numpy" else _Torch()
    return _ADAPTERS[framework]


# --- named translations: fn(F, *inputs, **kwargs); F is the framework adapter -----------------
TRANSLATIONS = {}  # "x.<name>" in the table


def translation(fn):
    TRANSLATIONS[fn.__name__.lstrip("_")] = fn
    return fn

@translation
def _softmax(F, x, axis=-1):
    e = F.lib.exp(x - F.max(x, axis, True))
    return e / F.sum(e, axis, True)


@translation
def _depth_to_space(F, x, block_size):
    n, c, h, w = x.shape
    b = block_size  # MXNet's order is DCR: depth splits as (b, b, c / b^2)
    y = F.permute(F.reshape(x, (n, b, b, c // (b * b), h, w)), (0, 3, 4, 1, 5, 2))
    return F.reshape(y, (n, c // (b * b), h * b, w * b))


@translation
def _space_to_depth(F, x, block_size):
    n, c, h, w = x.shape
    b = block_size
    y = F.permute(F.reshape(x, (n, c, h // b, b, w // b, b)), (0, 3, 5, 1, 2, 4))
    return F.reshape(y, (n, c * b * b, h // b, w // b))


@translation
def _slice(F, x, begin, end):
    return x[tuple(slice(b, e) for b, e in zip(begin, end))]


@translation
def _slice_axis(F, x, axis, begin, end):
    index = [slice(None)] * x.ndim
    index[axis] = slice(begin, end)
    return x[tuple(index)]


@translation
def _slice_like(F, x, like):
    return x[tuple(slice(0, n) for n in like.shape)]


@translation
def _transpose(F, x, axes=None):
    return F.permute(x, tuple(axes) if axes else tuple(reversed(range(x.ndim))))


@translation
def _pick(F, x, index, axis=1):
    if F.name == "torch":
        return F.lib.gather(x, axis, index.unsqueeze(axis)).squeeze(axis)
    return np.take_along_axis(x, np.expand_dims(index, axis), axis).squeeze(axis)


@translation
def _gather_nd(F, data, index):
    return data[tuple(index[i] for i in range(index.shape[0]))]


@translation
def _ravel_multi_index(F, index, shape):
    flat = index[0]
    for i in range(1, len(shape)):
        flat = flat * shape[i] + index[i]
    return flat


@translation
def _unravel_index(F, index, shape):
    rows = []
    for n in reversed(shape):
        rows.append(index % n)
        index = index // n
    return F.lib.stack(list(reversed(rows)))


@translation
def _reshape_like(F, x, like):
    return F.reshape(x, like.shape)


@translation
def _flatten(F, x):
    return F.reshape(x, (x.shape[0], -1))


@translation
def _broadcast_axis(F, x, axis, size):
    shape = list(x.shape)
    shape[axis] = size
    return F.lib.broadcast_to(x, tuple(shape))


@translation
def _broadcast_like(F, x, like):
    return F.lib.broadcast_to(x, like.shape)


@translation
def _concat(F, *xs, **kw):
    if F.name == "torch":
        return F.lib.cat(xs, dim=kw["dim"])
    return np.concatenate(xs, axis=kw["dim"])


@translation
def _stack(F, *xs, **kw):
    if F.name == "torch":
        return F.lib.stack(xs, dim=kw["axis"])
    return np.stack(xs, axis=kw["axis"])


@translation
def _add_n(F, *xs):
    out = xs[0] + xs[1]
    for x in xs[2:]:
        out = out + x
    return out


@translation
def _gemm(F, a, b, c, alpha=1.0, beta=1.0):
    return alpha * F.lib.matmul(a, b) + beta * c


@translation
def _syrk(F, a, alpha=1.0):
    return alpha * F.lib.matmul(a, F.permute(a, (1, 0)))


@translation
def _moments(F, x, axes):
    var, mean = F.lib.var_mean(x, dim=axes, correction=0)  # torch's order: (var, mean)
    return [mean, var]


@translation
def _sumlogdiag(F, a):
    return F.lib.log(F.lib.diagonal(a, 0, -2, -1)).sum(-1)


@translation
def _potri(F, l):
    return F.lib.linalg.inv(F.lib.matmul(l, F.permute(l, (1, 0))))


@translation
def _extracttrian(F, a):
    rows, cols = np.tril_indices(a.shape[-1])
    return a[..., rows, cols]


@translation
def _fully_connected(F, x, w, b, num_hidden=None):
    return F.lib.matmul(x, F.permute(w, (1, 0))) + b


@translation
def _hard_sigmoid(F, x):
    return (x * 0.2 + 0.5).clip(0.0, 1.0)


@translation
def _smooth_l1(F, x, scalar=1.0):
    s2 = scalar * scalar
    ax = abs(x)
    return F.lib.where(ax < 1.0 / s2, 0.5 * s2 * x * x, ax - 0.5 / s2)


@translation
def _softrelu(F, x):
    return F.lib.log1p(F.lib.exp(x))


@translation
def _upsample_nearest(F, x, scale):
    if F.name == "torch":
        return F.lib.nn.functional.interpolate(x, scale_factor=scale, mode="nearest")
    return x.repeat(scale, axis=2).repeat(scale, axis=3)


@translation
def _batch_norm(F, x, gamma, beta, mean, var):
    # MXNet: eps 1e-3; fix_gamma=True (gamma is taken as 1; the fill is ones anyway). Like
    # MXNet, the running statistics outside autograd, the batch's while recording.
    return F.lib.nn.functional.batch_norm(x, mean, var, gamma, beta,
                                          training=F.lib.is_grad_enabled(),
                                          momentum=0.1, eps=1e-3)


@translation
def _layer_norm(F, x, gamma, beta):
    return F.lib.nn.functional.layer_norm(x, (x.shape[-1],), gamma, beta, eps=1e-5)


@translation
def _instance_norm(F, x, gamma, beta):
    return F.lib.nn.functional.instance_norm(x, weight=gamma, bias=beta, eps=1e-3)


@translation
def _group_norm(F, x, gamma, beta, num_groups):
    # mxnet 1.x's gamma/beta are per group; torch's per channel: each group's value repeated.
    per = x.shape[1] // num_groups
    if gamma.shape[0] == num_groups:
        gamma = gamma.repeat_interleave(per)
        beta = beta.repeat_interleave(per)
    return F.lib.nn.functional.group_norm(x, num_groups, gamma, beta, eps=1e-5)


@translation
def _l2_normalization(F, x):
    # mode "instance": over all axes but the first; MXNet adds eps=1e-10 under the root.
    axes = tuple(range(1, x.ndim))
    return x / F.lib.sqrt(F.sum(x * x, axes, True) + 1e-10)


@translation
def _softmax_ce(F, x, label):
    import torch.nn.functional as nnf
    return nnf.cross_entropy(x, label, reduction="sum").reshape(1)


@translation
def _ctc_loss(F, x, label):
    import torch.nn.functional as nnf
    steps, batch = x.shape[0], x.shape[1]
    lengths = F.lib.full((batch,), steps, dtype=F.lib.int64)
    label_lengths = F.lib.full((batch,), label.shape[1], dtype=F.lib.int64)
    return nnf.ctc_loss(nnf.log_softmax(x, -1), label, lengths, label_lengths, blank=0,
                        reduction="none", zero_infinity=False)


def _sgd(F, w, g, lr, momentum=0.0, nesterov=False, mom=None):
    from torch.optim.sgd import sgd
    sgd([w], [g], [mom], weight_decay=0.0, momentum=momentum, lr=lr, dampening=0.0,
        nesterov=nesterov, maximize=False)
    return w


@translation
def _sgd_update(F, w, g, lr):
    if F.name == "torch":
        return _sgd(F, w, g, lr)
    w -= lr * g  # in place, like MXNet's out=weight
    return w


@translation
def _sgd_mom_update(F, w, g, mom, lr, momentum):
    # torch keeps buf = momentum * buf + g and steps by lr * buf; MXNet keeps
    # mom = momentum * mom - lr * g and adds it: the same step from a zero state.
    return _sgd(F, w, g, lr, momentum=momentum, mom=mom)


@translation
def _nag_mom_update(F, w, g, mom, lr, momentum):
    return _sgd(F, w, g, lr, momentum=momentum, nesterov=True, mom=mom)


@translation
def _rmsprop_update(F, w, g, n, lr):
    # MXNet: gamma1=0.95, epsilon=1e-8 (under the root; torch adds it after: a 1e-8 term).
    from torch.optim.rmsprop import rmsprop
    rmsprop([w], [g], [n], [], [], [F.lib.tensor(0.0)], lr=lr, alpha=0.95, eps=1e-8,
            weight_decay=0.0, momentum=0.0, centered=False, maximize=False)
    return w


@translation
def _signsgd_update(F, w, g, lr):
    w -= lr * F.lib.sign(g)
    return w


@translation
def _multi_sum_sq(F, *xs, **kw):
    return F.lib.stack([(x * x).sum() for x in xs])


@translation
def _all_finite(F, x):
    return F.lib.isfinite(x).all().reshape(1)


@translation
def _multi_all_finite(F, *xs, **kw):
    return F.lib.stack([F.lib.isfinite(x).all() for x in xs]).all().reshape(1)


@translation
def _cast(F, x, dtype):
    return F.cast(x, dtype)


@translation
def _square(F, x):
    return x * x


@translation
def _copy(F, x):
    return F.copy(x)




# --- the table ----------------------------------------------------------------------------------
def _both(torch_fn, numpy_fn=None, **common):
    out = {"torch": C(torch_fn, **common)}
    if numpy_fn:
        out["numpy"] = C(numpy_fn, **common)
    return out


_UNARY_SAME = ("abs", "cos", "cosh", "exp", "expm1", "log", "log10", "log1p", "log2", "sin",
               "sinh", "sqrt", "square", "tan", "tanh", "ceil", "floor", "trunc", "sign",
               "reciprocal", "rsqrt", "sigmoid", "erf", "erfinv", "logical_not")
_NUMPY_LACKS = ("rsqrt", "sigmoid", "erf", "erfinv")
COUNTERPARTS = {}
for _name in _UNARY_SAME:
    COUNTERPARTS[_name] = _both("torch." + _name,
                                None if _name in _NUMPY_LACKS else "numpy." + _name)
for _name, _torch_name in [("arccos", "acos"), ("arccosh", "acosh"), ("arcsin", "asin"),
                           ("arcsinh", "asinh"), ("arctan", "atan"), ("arctanh", "atanh"),
                           ("degrees", "rad2deg"), ("radians", "deg2rad"), ("negative", "neg"),
                           ("fix", "trunc"), ("rint", "round"), ("round", "round"),
                           ("gammaln", "lgamma")]:
    COUNTERPARTS[_name] = _both("torch." + _torch_name,
                                None if _name == "gammaln" else "numpy." + _name)
COUNTERPARTS["cbrt"] = {"numpy": C("numpy.cbrt")}
COUNTERPARTS["relu"] = {"torch": C("torch.relu"),
                        "numpy": C("numpy.maximum", inputs=(0, L(0.0)))}
COUNTERPARTS["softsign"] = {"torch": C("torch.nn.functional.softsign")}

for _mx, _t, _n in [("add", "add", "add"), ("sub", "sub", "subtract"), ("mul", "mul", "multiply"),
                    ("div", "div", "true_divide")]:
    COUNTERPARTS["broadcast_" + _mx] = _both("torch." + _t, "numpy." + _n)
    COUNTERPARTS["elemwise_" + _mx] = _both("torch." + _t, "numpy." + _n)
for _mx, _t, _n in [("mod", "remainder", "mod"), ("power", "pow", "power"),
                    ("maximum", "maximum", "maximum"), ("minimum", "minimum", "minimum"),
                    ("hypot", "hypot", "hypot"), ("equal", "eq", "equal"),
                    ("not_equal", "ne", "not_equal"), ("greater", "gt", "greater"),
                    ("greater_equal", "ge", "greater_equal"), ("lesser", "lt", "less"),
                    ("lesser_equal", "le", "less_equal"),
                    ("logical_and", "logical_and", "logical_and"),
                    ("logical_or", "logical_or", "logical_or"),
                    ("logical_xor", "logical_xor", "logical_xor")]:
    COUNTERPARTS["broadcast_" + _mx] = _both("torch." + _t, "numpy." + _n)
COUNTERPARTS["add_n"] = _both("x.add_n", "x.add_n")

COUNTERPARTS.update({
    # GEMM
    "dot": _both("torch.matmul", "numpy.dot"),
    "batch_dot": _both("torch.bmm", "numpy.matmul"),
    # reductions
    "sum": {"torch": C("torch.sum", dim=A("axis")), "numpy": C("numpy.sum", axis=A("axis"))},
    "mean": {"torch": C("torch.mean", dim=A("axis")), "numpy": C("numpy.mean", axis=A("axis"))},
    "max": {"torch": C("torch.amax", dim=A("axis")), "numpy": C("numpy.max", axis=A("axis"))},
    "min": {"torch": C("torch.amin", dim=A("axis")), "numpy": C("numpy.min", axis=A("axis"))},
    "prod": {"torch": C("torch.prod", dim=A("axis")), "numpy": C("numpy.prod", axis=A("axis"))},
    "nansum": {"torch": C("torch.nansum", dim=A("axis")),
               "numpy": C("numpy.nansum", axis=A("axis"))},
    "nanprod": {"numpy": C("numpy.nanprod", axis=A("axis"))},
    "norm": {"torch": C("torch.linalg.vector_norm", ord=2, dim=A("axis")),
             "numpy": C("numpy.linalg.norm", ord=2, axis=A("axis"))},
    "moments": {"torch": C("x.moments", axes=A("axes", "tuple")),
                "numpy": C("numpy.mean", axis=A("axes", "tuple"))},
    # sort and search (MXNet's indices are float32: compared as numbers)
    "sort": {"torch": C("torch.sort", dim=A("axis"), output=0),
             "numpy": C("numpy.sort", axis=A("axis"))},
    "argsort": {"torch": C("torch.argsort", dim=A("axis")),
                "numpy": C("numpy.argsort", axis=A("axis"))},
    "topk": {"torch": C("torch.topk", k=A("k"), dim=A("axis"), output=1,
                        note="MXNet's default ret_typ is the indices: their gradient is zero "
                             "in MXNet, none in torch (integers), which agree")},
    "argmax": {"torch": C("torch.argmax", dim=A("axis")),
               "numpy": C("numpy.argmax", axis=A("axis"))},
    "argmin": {"torch": C("torch.argmin", dim=A("axis")),
               "numpy": C("numpy.argmin", axis=A("axis"))},
    "argmax_channel": {"torch": C("torch.argmax", dim=1), "numpy": C("numpy.argmax", axis=1)},
    # indexing (views copied: MXNet writes a new array)
    "slice": _both("x.slice", "x.slice", copy=True, begin=A("begin"), end=A("end")),
    "slice_axis": _both("x.slice_axis", "x.slice_axis", copy=True, axis=A("axis"),
                        begin=A("begin"), end=A("end")),
    "slice_like": _both("x.slice_like", "x.slice_like", copy=True),
    "take": {"torch": C("torch.index_select", inputs=(0, L(0), (1, "int64"))),
             "numpy": C("numpy.take", axis=0)},
    "pick": _both("x.pick", "x.pick", inputs=(0, (1, "int64")), axis=A("axis")),
    "where": {"torch": C("torch.where", inputs=((0, "bool"), 1, 2)),
              "numpy": C("numpy.where", inputs=((0, "bool"), 1, 2))},
    "gather_nd": _both("x.gather_nd", "x.gather_nd", inputs=(0, (1, "int64"))),
    "ravel_multi_index": _both("x.ravel_multi_index", "x.ravel_multi_index",
                               shape=A("shape")),
    "unravel_index": _both("x.unravel_index", "x.unravel_index", shape=A("shape")),
    "one_hot": {"torch": C("torch.nn.functional.one_hot", inputs=((0, "int64"),),
                           num_classes=A("depth"))},
    # rearrange, shape, expanding, join/split
    "transpose": _both("x.transpose", "x.transpose", copy=True, axes=A("axes")),
    "swapaxes": {"torch": C("torch.swapaxes", copy=True, axis0=A("dim1"), axis1=A("dim2")),
                 "numpy": C("numpy.swapaxes", copy=True, axis1=A("dim1"), axis2=A("dim2"))},
    "flip": {"torch": C("torch.flip", dims=A("axis", "tuple1")),
             "numpy": C("numpy.flip", copy=True, axis=A("axis"))},
    "depth_to_space": _both("x.depth_to_space", "x.depth_to_space", copy=True,
                            block_size=A("block_size")),
    "space_to_depth": _both("x.space_to_depth", "x.space_to_depth", copy=True,
                            block_size=A("block_size")),
    "reshape": {"torch": C("torch.reshape", copy=True, shape=A("shape")),
                "numpy": C("numpy.reshape", copy=True, newshape=A("shape"))},
    "reshape_like": _both("x.reshape_like", "x.reshape_like", copy=True),
    "flatten": _both("x.flatten", "x.flatten", copy=True),
    "squeeze": {"torch": C("torch.squeeze", copy=True, dim=A("axis")),
                "numpy": C("numpy.squeeze", copy=True, axis=A("axis"))},
    "expand_dims": {"torch": C("torch.unsqueeze", copy=True, dim=A("axis")),
                    "numpy": C("numpy.expand_dims", copy=True, axis=A("axis"))},
    "diag": {"torch": C("torch.diag"), "numpy": C("numpy.diag", copy=True)},
    "broadcast_axis": _both("x.broadcast_axis", "x.broadcast_axis", copy=True, axis=A("axis"),
                            size=A("size")),
    "broadcast_to": {"torch": C("torch.broadcast_to", copy=True, size=A("shape")),
                     "numpy": C("numpy.broadcast_to", copy=True, shape=A("shape"))},
    "broadcast_like": _both("x.broadcast_like", "x.broadcast_like", copy=True),
    "repeat": {"torch": C("torch.repeat_interleave", repeats=A("repeats"), dim=A("axis")),
               "numpy": C("numpy.repeat", repeats=A("repeats"), axis=A("axis"))},
    "tile": {"torch": C("torch.tile", dims=A("reps")), "numpy": C("numpy.tile", reps=A("reps"))},
    "pad": {"torch": C("torch.nn.functional.pad", pad=A("pad_width", "torch_pad")),
            "numpy": C("numpy.pad", pad_width=A("pad_width", "pairs"))},
    "concat": _both("x.concat", "x.concat", dim=A("dim")),
    "stack": _both("x.stack", "x.stack", axis=A("axis")),
    "split": {"torch": C("torch.chunk", copy=True, chunks=A("num_outputs"), dim=A("axis")),
              "numpy": C("numpy.split", copy=True, indices_or_sections=A("num_outputs"),
                         axis=A("axis"))},
    # linear algebra
    "linalg_gemm": {"torch": C("torch.addmm", inputs=(2, 0, 1), alpha=A("alpha"),
                               beta=A("beta")),
                    "numpy": C("x.gemm", alpha=A("alpha"), beta=A("beta"))},
    "linalg_gemm2": _both("torch.matmul", "numpy.matmul"),
    "linalg_syrk": _both("x.syrk", "x.syrk", alpha=A("alpha")),
    "linalg_trmm": _both("torch.matmul", "numpy.matmul", grads=False,
                         note="A is lower triangular (the fill), so trmm is its matmul; "
                              "MXNet's gradient of A is its lower triangle only"),
    "linalg_trsm": {"torch": C("torch.linalg.solve_triangular", upper=False),
                    "numpy": C("numpy.linalg.solve")},
    "linalg_potrf": _both("torch.linalg.cholesky", "numpy.linalg.cholesky"),
    "linalg_potri": {"torch": C("torch.cholesky_inverse", grads=False,
                                note="MXNet's gradient of L is its lower triangle only"),
                     "numpy": C("x.potri")},
    "linalg_det": _both("torch.linalg.det", "numpy.linalg.det"),
    "linalg_slogdet": _both("torch.linalg.slogdet", "numpy.linalg.slogdet"),
    "linalg_inverse": _both("torch.linalg.inv", "numpy.linalg.inv"),
    "linalg_sumlogdiag": _both("x.sumlogdiag", "x.sumlogdiag"),
    "linalg_extractdiag": {"torch": C("torch.diagonal", copy=True),
                           "numpy": C("numpy.diagonal", copy=True)},
    "linalg_extracttrian": _both("x.extracttrian", "x.extracttrian"),
    "linalg_makediag": {"torch": C("torch.diag_embed"), "numpy": C("numpy.diag")},
    # neural-network layers (torch.nn.functional), NCHW on both sides
    "FullyConnected": {"torch": C("torch.nn.functional.linear"),
                       "numpy": C("x.fully_connected")},
    "Convolution": {"torch": C("torch.nn.functional.conv2d", padding=A("pad"))},
    "Convolution_1d": {"torch": C("torch.nn.functional.conv1d", padding=A("pad"))},
    "Convolution_3d": {"torch": C("torch.nn.functional.conv3d", padding=A("pad"))},
    "Deconvolution": {"torch": C("torch.nn.functional.conv_transpose2d", stride=A("stride"),
                                 padding=A("pad"))},
    "Deconvolution_1d": {"torch": C("torch.nn.functional.conv_transpose1d", stride=A("stride"),
                                    padding=A("pad"))},
    "Deconvolution_3d": {"torch": C("torch.nn.functional.conv_transpose3d", stride=A("stride"),
                                    padding=A("pad"))},
    "Pooling": {"torch": C("torch.nn.functional.max_pool2d", kernel_size=A("kernel"),
                           stride=A("stride"))},
    "Pooling_avg": {"torch": C("torch.nn.functional.avg_pool2d", kernel_size=A("kernel"),
                               stride=A("stride"))},
    "Pooling_lp": {"torch": C("torch.nn.functional.lp_pool2d", norm_type=2,
                              kernel_size=A("kernel"), stride=A("stride"))},
    "Pooling_global": {"torch": C("torch.nn.functional.adaptive_avg_pool2d", output_size=1)},
    "Pooling_1d": {"torch": C("torch.nn.functional.max_pool1d", kernel_size=A("kernel"),
                              stride=A("stride"))},
    "Pooling_3d": {"torch": C("torch.nn.functional.max_pool3d", kernel_size=A("kernel"),
                              stride=A("stride"))},
    "BatchNorm": {"torch": C("x.batch_norm", grads=False,
                             note="eps 1e-3 as MXNet's; MXNet's fix_gamma makes gamma's "
                                  "gradient 0, so gradients are not compared")},
    "LayerNorm": {"torch": C("x.layer_norm", note="over the last axis, eps 1e-5 as MXNet's")},
    "InstanceNorm": {"torch": C("x.instance_norm", note="eps 1e-3 as MXNet's")},
    "GroupNorm": {"torch": C("x.group_norm", num_groups=A("num_groups"))},
    "L2Normalization": _both("x.l2_normalization", "x.l2_normalization"),
    "LRN": {"torch": C("torch.nn.functional.local_response_norm", size=A("nsize"),
                       alpha=1e-4, beta=0.75, k=2.0)},
    "Embedding": {"torch": C("torch.nn.functional.embedding", inputs=((0, "int64"), 1)),
                  "numpy": C("numpy.take", inputs=(1, 0), axis=0)},
    "im2col": {"torch": C("torch.nn.functional.unfold", kernel_size=A("kernel"),
                          padding=A("pad"))},
    "col2im": {"torch": C("torch.nn.functional.fold", output_size=A("output_size"),
                          kernel_size=A("kernel"), padding=A("pad"))},
    "UpSampling": _both("x.upsample_nearest", "x.upsample_nearest", scale=A("scale")),
    # activations
    "Activation": {"torch": C("torch.relu"), "numpy": C("numpy.maximum", inputs=(0, L(0.0)))},
    "Activation_softrelu": _both("torch.nn.functional.softplus", None),
    "LeakyReLU": {"torch": C("torch.nn.functional.leaky_relu", negative_slope=A("slope"))},
    "LeakyReLU_elu": {"torch": C("torch.nn.functional.elu", alpha=0.25,
                                 note="MXNet's elu takes its alpha from slope, default 0.25")},
    "LeakyReLU_selu": {"torch": C("torch.nn.functional.selu", grads=False,
                                  note="outputs agree; MXNet 1.9.1's gradient for negative "
                                       "inputs differs from torch's by up to 0.08")},
    "LeakyReLU_gelu": {"torch": C("torch.nn.functional.gelu")},
    "LeakyReLU_prelu": {"torch": C("torch.nn.functional.prelu", inputs=(0, "gamma"))},
    "hard_sigmoid": _both("x.hard_sigmoid", "x.hard_sigmoid"),
    "softmax": {"torch": C("torch.softmax", dim=A("axis")),
                "numpy": C("x.softmax", axis=A("axis"))},
    "log_softmax": {"torch": C("torch.log_softmax", dim=A("axis"))},
    "softmin": {"torch": C("torch.nn.functional.softmin", dim=A("axis"))},
    "SoftmaxActivation": {"torch": C("torch.softmax", dim=1),
                          "numpy": C("x.softmax", axis=1)},
    # losses: SoftmaxOutput's forward is a softmax; its backward is the cross-entropy gradient
    "SoftmaxOutput": {"torch": C("torch.softmax", inputs=(0,), dim=-1, forward_only=True),
                      "numpy": C("x.softmax", inputs=(0,), axis=-1)},
    "LogisticRegressionOutput": {"torch": C("torch.sigmoid", inputs=(0,), forward_only=True)},
    "softmax_cross_entropy": {"torch": C("x.softmax_ce", inputs=(0, (1, "int64")))},
    "smooth_l1": _both("x.smooth_l1", "x.smooth_l1", scalar=A("scalar")),
    "ctc_loss": {"torch": C("x.ctc_loss", inputs=(0, (1, "int64")), grads=False,
                            note="MXNet's gradient is taken w.r.t. its own softmax")},
    # optimizer updates: one in-place step from the same weight, gradient and state
    "sgd_update": _both("x.sgd_update", "x.sgd_update", inputs=(0, 1), lr=A("lr")),
    "sgd_mom_update": {"torch": C("x.sgd_mom_update", lr=A("lr"), momentum=A("momentum"))},
    "nag_mom_update": {"torch": C("x.nag_mom_update", lr=A("lr"), momentum=A("momentum"))},
    "rmsprop_update": {"torch": C("x.rmsprop_update", lr=A("lr"))},
    "signsgd_update": _both("x.signsgd_update", "x.signsgd_update", lr=A("lr")),
    "multi_sum_sq": _both("x.multi_sum_sq", "x.multi_sum_sq"),
    "all_finite": _both("x.all_finite", "x.all_finite"),
    "multi_all_finite": _both("x.multi_all_finite", "x.multi_all_finite"),
    # misc
    "clip": {"torch": C("torch.clamp", min=A("a_min"), max=A("a_max")),
             "numpy": C("numpy.clip", a_min=A("a_min"), a_max=A("a_max"))},
    "cumsum": {"torch": C("torch.cumsum", dim=A("axis")),
               "numpy": C("numpy.cumsum", axis=A("axis"))},
    "cast": _both("x.cast", "x.cast", dtype=A("dtype"), grads=("float16", "float64"),
                  note="to int32, MXNet's Cast passes the head gradient through to the float "
                       "input (ones); torch's integer tensors carry no gradient"),
    "amp_cast": _both("x.cast", "x.cast", dtype=A("dtype")),
    "identity": _both("x.copy", "x.copy"),
    "zeros_like": _both("torch.zeros_like", "numpy.zeros_like"),
    "ones_like": _both("torch.ones_like", "numpy.ones_like"),
    "Custom": _both("x.square", "x.square", note="the CustomOp computes x*x"),
})
_CONVERT["tuple1"] = lambda v: (v,) if not isinstance(v, (tuple, list)) else tuple(v)


def counterparts(op):
    """{framework: Counterpart} of a catalogue entry (empty if it has none)."""
    return COUNTERPARTS.get(op.class_name, {})


def mapped(framework):
    """Catalogue entries with a counterpart in `framework`, in catalogue order."""
    return [op for op in by_class_name().values() if framework in counterparts(op)]


def compared_dtypes(op):
    """The entry's dtypes that the baselines compare: not bfloat16 (numpy has no such dtype,
    and MXNet's comes from amp_cast, not from the same drawn values)."""
    return [d for d in op.dtypes if d != H.BFLOAT16]


# --- running a counterpart ----------------------------------------------------------------------
def numpy_inputs(op, shape, dtype):
    """(positional, keyword) numpy arrays of a case, drawn exactly as harness.inputs.build_call
    draws MXNet's: the same seed, order, fill and dtype."""
    case = op.cases[shape]
    merged = dict(op.kwargs, **case.kwargs)
    if H.mx is not None:
        case = H.infer_shapes(H.operator_name(op), case, merged)
    rng = H.seed_everything()

    def draw(tensor):
        tdtype = tensor.dtype or dtype
        return H._values(tensor, tdtype, rng).astype(tdtype)

    positional = [draw(t) for t in case.inputs]
    keyword = dict((key, draw(merged[key]))
                   for key in sorted(k for k, v in merged.items() if isinstance(v, Tensor)))
    return case, positional, keyword


def argument(op, shape, dtype, name, default=None):
    from .catalogue import DTYPE
    merged = dict(op.kwargs, **op.cases[shape].kwargs)
    value = merged.get(name, default)
    return dtype if value is DTYPE else value


def resolve_function(fn, F):
    if fn.startswith("x."):
        translation = TRANSLATIONS[fn[2:]]
        return lambda *args, **kwargs: translation(F, *args, **kwargs)
    module, _, attr = fn.rpartition(".")
    return getattr(importlib.import_module(module), attr)


# --- threads: the counterpart gets MXNet's OpenMP thread count -----------------------------------
def _loaded_libraries(*needles):
    with open("/proc/self/maps") as fh:
        paths = set(line.split()[-1] for line in fh if "/" in line)
    return sorted(p for p in paths if all(n in p.rsplit("/", 1)[-1] for n in needles[:1])
                  and all(n in p for n in needles[1:]))


_THREADS = {}


def mxnet_omp_threads():
    """omp_get_max_threads() of the OpenMP runtime MXNet runs on (MXNet sets it when it loads:
    OMP_NUM_THREADS, else MXNET_OMP_MAX_THREADS, else the cores, halved on x86 for
    hyper-threads: 1 on this 2-vCPU machine). Asked before torch loads its own runtime."""
    if "mxnet" not in _THREADS:
        import ctypes
        H.mx.nd.ones((2, 2)).wait_to_read()  # MXNet's OpenMP set-up has run
        counts = []
        for path in _loaded_libraries("omp", ".so"):
            name = path.rsplit("/", 1)[-1]
            if name.startswith(("libgomp", "libiomp")) and "torch" not in path:
                counts.append(ctypes.CDLL(path).omp_get_max_threads())
        if not counts:
            raise NotImplementedError("no OpenMP runtime loaded with mxnet: thread count unknown")
        _THREADS["mxnet"] = counts[0]
    return _THREADS["mxnet"]


def set_threads(framework):
    """Give the counterpart MXNet's OpenMP thread count; returns the count it now uses.

    torch: intra-op threads (torch.set_num_threads). NumPy: its elementwise kernels are
    single-threaded; its OpenBLAS (matmul, linalg) is set to the same count through
    openblas_set_num_threads where the library exports it."""
    threads = mxnet_omp_threads()
    if framework == "torch":
        import torch
        torch.set_num_threads(threads)
        return torch.get_num_threads()
    import ctypes
    for path in _loaded_libraries("openblas", "numpy"):
        lib = ctypes.CDLL(path)
        for symbol in ("openblas_set_num_threads64_", "openblas_set_num_threads"):
            if hasattr(lib, symbol):
                getattr(lib, symbol)(threads)
                return threads
    return threads


def framework_version(framework):
    if framework == "torch":
        import torch
        return torch.__version__
    return np.__version__


def require_framework(framework):
    """A skip (NotImplementedError) where the framework is not installed here."""
    if framework == "torch":
        try:
            import torch  # noqa: F401
        except ImportError:
            raise NotImplementedError("torch is not installed in this environment (the "
                                      "baselines run in asv.baselines.conf.json's)")


class BaselineCall(object):
    """A catalogue entry's counterpart at one parameter point, inputs built (CPU)."""

    def __init__(self, op, shape, dtype, framework):
        require_framework(framework)
        spec = counterparts(op).get(framework)
        if spec is None:
            raise NotImplementedError("%s has no %s counterpart" % (op.class_name, framework))
        self.op, self.spec, self.framework = op, spec, framework
        self.threads = set_threads(framework)
        self.F = adapter(framework)
        self.fn = resolve_function(spec.fn, self.F)
        case, positional, keyword = numpy_inputs(op, shape, dtype)
        self.grads = []
        arrays = {}
        for i, (array, tensor) in enumerate(zip(positional, case.inputs)):
            arrays[i] = self._convert(array, tensor)
        for key, array in keyword.items():
            arrays[key] = self._convert(array, dict(op.kwargs, **case.kwargs)[key])
        items = spec.inputs if spec.inputs is not None else range(len(positional))
        self.args = []
        for item in items:
            if isinstance(item, L):
                self.args.append(item.value)
            elif isinstance(item, tuple):
                index, cast = item
                self.args.append(self._convert(positional[index].astype(cast), None))
            else:
                self.args.append(arrays[item])
        self.kwargs = {}
        for key, value in spec.kwargs.items():
            if isinstance(value, A):
                value = argument(op, shape, dtype, value.name, value.default)
                if value is None:
                    continue
                if spec.kwargs[key].how:
                    value = _CONVERT[spec.kwargs[key].how](value)
            self.kwargs[key] = value

    def _convert(self, array, tensor):
        if self.framework == "numpy":
            return array.copy()
        import torch
        out = torch.from_numpy(array.copy())
        if tensor is not None and tensor.grad and out.is_floating_point():
            out.requires_grad_(True)
            self.grads.append(out)
        return out

    def _call(self):
        out = self.fn(*self.args, **self.kwargs)
        if self.spec.output is not None:
            out = out[self.spec.output]
        if self.spec.copy:
            out = ([self.F.copy(o) for o in out] if isinstance(out, (list, tuple))
                   else self.F.copy(out))
        return out

    def forward(self):
        """One call, no gradient recorded; CPU torch and NumPy return when it is computed."""
        if self.framework == "torch":
            with self.F.lib.no_grad():
                return self._call()
        return self._call()

    def forward_backward(self):
        """torch: the call recorded, then backward from ones (as MXNet's autograd.backward of
        its outputs); gradients are reset first (MXNet's grad_req is write, torch adds)."""
        if self.framework != "torch" or self.spec.forward_only or not self.grads:
            H.skip("no forward+backward baseline for %s in %s"
                   % (self.op.class_name, self.framework))
        torch = self.F.lib
        for tensor in self.grads:
            tensor.grad = None
        out = self._call()
        heads = [o for o in (out if isinstance(out, (list, tuple)) else [out])
                 if o.requires_grad]
        if not heads:  # else its "forward+backward" would be the forward alone
            H.skip("%s's output carries no gradient in %s (an integer tensor): no "
                   "forward+backward baseline" % (self.op.class_name, self.framework))
        torch.autograd.backward(heads, [torch.ones_like(h) for h in heads])
        return out


def to_numpy(value):
    """A result as numpy arrays (lists stay lists) for the agreement test."""
    if isinstance(value, (list, tuple)):
        return [to_numpy(v) for v in value]
    if hasattr(value, "asnumpy"):
        return value.asnumpy()
    if hasattr(value, "detach"):
        return value.detach().numpy()
    return np.asarray(value)


def _close(mine, theirs, dtype):
    rtol, atol = TOLERANCE.get(dtype, TOLERANCE["float32"])
    mine = np.asarray(mine, dtype=np.float64)
    theirs = np.asarray(theirs, dtype=np.float64)
    if mine.shape != theirs.shape:
        if mine.size == theirs.size:  # a scalar as (1,) on one side
            theirs = theirs.reshape(mine.shape)
        else:
            return "shape %s, MXNet's %s" % (theirs.shape, mine.shape)
    if not np.allclose(theirs, mine, rtol=rtol, atol=atol, equal_nan=True):
        worst = np.nanmax(np.abs(theirs - mine))
        return "differs by up to %.3g (rtol %g, atol %g)" % (worst, rtol, atol)
    return None


def compares_gradients(spec, dtype):
    """Whether the agreement test compares input gradients at `dtype` (Counterpart.grads)."""
    return dtype in spec.grads if isinstance(spec.grads, tuple) else bool(spec.grads)


def gradient_problem(mine, theirs, dtype, framework):
    """None when MXNet's input gradient agrees with the counterpart's. `theirs` None: the
    counterpart computes none (its output is an integer tensor, e.g. topk's indices), which
    agrees with an MXNet gradient of zeros (a piecewise-constant function's) and no other."""
    if theirs is None:
        if np.any(np.asarray(mine) != 0):
            return "none in %s, MXNet's is not zero" % framework
        return None
    return _close(mine, theirs, dtype)


def disagreement(op, shape, dtype, framework, backward=True):
    """Run the entry once in MXNet and in `framework` on the same inputs; None when the
    outputs (and, where both sides compute them, the input gradients) agree, else why not."""
    ctx = H.mx.cpu()
    call = H.build_operator_call(op, shape, dtype, ctx)
    _, positional, _ = numpy_inputs(op, shape, dtype)
    for i, (mine, built) in enumerate(zip(call.args, positional)):
        if not np.array_equal(mine.asnumpy(), built, equal_nan=True):
            return "input %d is not the same array on both sides" % i
    theirs_call = BaselineCall(op, shape, dtype, framework)
    mine = to_numpy(call.forward())
    spec = theirs_call.spec
    theirs = to_numpy(theirs_call.forward())
    if isinstance(theirs, list) and spec.output is None:
        mine = mine if isinstance(mine, list) else [mine]
        if len(mine) != len(theirs):
            return "%d outputs, MXNet's %d" % (len(theirs), len(mine))
        pairs = list(zip(mine, theirs))
    else:
        pairs = [((mine if isinstance(mine, list) else [mine])[spec.mx_output], theirs)]
    for n, (a, b) in enumerate(pairs):
        problem = _close(a, b, dtype)
        if problem:
            return "output %d: %s" % (n, problem)
    if (backward and op.backward and framework == "torch" and compares_gradients(spec, dtype)
            and not spec.forward_only and theirs_call.grads and op.call == "imperative"):
        call = H.build_operator_call(op, shape, dtype, ctx)  # fresh inputs: updates are in place
        theirs_call = BaselineCall(op, shape, dtype, framework)
        call.forward_backward()
        try:
            theirs_call.forward_backward()
        except NotImplementedError:  # no output carries a gradient: every input's is None
            pass
        mine_grads = [g.grad.asnumpy() for g in call.grads]
        their_grads = [None if t.grad is None else t.grad.numpy() for t in theirs_call.grads]
        if len(mine_grads) != len(their_grads):
            return "%d gradients, MXNet's %d" % (len(their_grads), len(mine_grads))
        for n, (a, b) in enumerate(zip(mine_grads, their_grads)):
            problem = gradient_problem(a, b, dtype, framework)
            if problem:
                return "gradient %d: %s" % (n, problem)
    return None
