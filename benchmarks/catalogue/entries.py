"""The vocabulary of catalogue entries: tensors, cases, markers, the Operator entry, and the
shape sets and case builders that the mx.nd, registry and numpy-interface entries share.

Runs inside benchmark environments: Python 3.7 syntax, no mxnet.
"""
from collections import OrderedDict, namedtuple

FLOAT32 = ("float32",)
FLOATS = ("float32", "float64", "float16")
FLOAT32_64 = ("float32", "float64")
INDEX_TYPES = ("int32", "int64")  # for entries whose benchmark dtype is the index dtype
SHAPE_CLASSES = ("small", "medium", "large", "tall", "wide")
DTYPES = ("float16", "bfloat16", "float32", "float64", "int8", "uint8", "int32", "int64",
          "bool")

# fill: how values are drawn (benchmarks/harness/inputs.py builds them):
#   normal; uniform (in [low, high), default [-1, 1)); positive (default [0.1, 2)); ones; zeros;
#   index (integers in [low, high); a tuple `high` bounds each row: row i of an index matrix
#   indexes axis i); spd (symmetric positive definite); tril (a Cholesky factor); simplex
#   (rows sum to 1); sparse (90% zeros); with_nan (uniform, 10% NaN); affine ((N, 6) transforms
#   near the identity); rois ((R, 5) boxes, high = (batches, height, width)).
FILLS = ("normal", "uniform", "positive", "ones", "zeros", "index", "spd", "tril", "simplex",
         "sparse", "with_nan", "affine", "rois", "sorted")
# dtype: None = the benchmark's dtype; a string pins it (e.g. indices as int64)
# grad: whether backward computes a gradient for this input (default: not for index-like fills)
Tensor = namedtuple("Tensor", "shape fill dtype high grad low")
_NO_GRAD_FILLS = ("index", "rois", "zeros", "ones")


def T(*shape, **kw):
    """A tensor input: T(1024, 1024), T(64, fill='index', high=10, dtype='int64')."""
    fill = kw.pop("fill", "normal")
    if fill not in FILLS:
        raise ValueError("unknown fill %r" % (fill,))
    grad = kw.pop("grad", fill not in _NO_GRAD_FILLS)
    tensor = Tensor(tuple(shape), fill, kw.pop("dtype", None), kw.pop("high", None), grad,
                    kw.pop("low", None))
    if kw:
        raise TypeError("unknown tensor options: %s" % sorted(kw))
    return tensor


Case = namedtuple("Case", "inputs kwargs")


def case(*inputs, **kwargs):
    """A shape case: positional tensor inputs plus keyword arguments for the operator.

    A keyword argument may itself be a Tensor (an input passed by keyword, e.g. RNN's
    state_cell), Input(key) (another input of this call, e.g. out=Input(0) for an in-place
    optimizer update; a list of them for multi-tensor updates), CTX or DTYPE.
    """
    return Case(tuple(inputs), kwargs)


class Input(object):
    """Refers to another input of the same call: Input(0) positional, Input('mom') keyword."""

    def __init__(self, key):
        self.key = key

    def __repr__(self):
        return "Input(%r)" % (self.key,)


class _Marker(object):
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


NUMPY_CALLS = ("np", "npx")  # Operator.call of the numpy-interface entries (np_interface.py)
CTX = _Marker("CTX")      # the benchmark's mx.Context (creation ops: random_normal(ctx=...))
DTYPE = _Marker("DTYPE")  # the benchmark's dtype as a string (creation ops, cast)
# The shape of a positional input that the operator decides from its other inputs and
# arguments, asked from its shape inference: T(INFERRED, fill="ones"). For parameters whose
# shape changed between releases (GroupNorm's gamma/beta: per group in mxnet 1.x, per channel
# in 2.0), so that each release gets the input it expects.
INFERRED = _Marker("INFERRED")


class Operator(object):
    """One catalogue entry. `name` is the mx.nd function ('dot', 'linalg_gemm2', ...).

    form: '' for the operator's main entry; otherwise the suffix of an extra entry (the
          class Convolution_1d is Convolution's '1d' form; not a run variant: docs/glossary.md).
    call: 'imperative' (mx.nd.<name>) or 'symbol' (a bound executor, for operators whose
          auxiliary states mx.nd cannot pass); 'np' / 'npx' (mx.np.<name> / mx.npx.<name>,
          the numpy interface: np_interface.py; class np_<name> / npx_<name>).
    prepare: a key of harness.calls.PREPARE run before the first call (e.g. a CustomOp).
    isolate: run it in its own process in the smoke test (history of crashing the process).
    later_name: the name this computation has in later releases that gave `name` to another
          operator; used wherever the release has it, so the class times the same kernel on
          both sides of the rename (MXNet 2.0: sample_multinomial -> sample_categorical).
    short_case: the short selection's shape when not the rule's (`medium`, else the first).
    pairs_with: the mx.nd entry computing the same thing (a numpy-interface entry).
    since / until: the first release with the operator / the first without it ('2.0'):
          a skip elsewhere, with the reason.
    field: the field cases ({name: Case}, field.py): documented changes' and real work's
          shapes, timed by bench_operators after `cases` (so recorded points keep their names).

    An entry does not change once made: replace() makes a changed copy.
    """

    def __init__(self, name, category, cases, dtypes=FLOAT32, backward=True, kwargs=None,
                 version=1, note="", form="", call="imperative", prepare=None,
                 isolate=False, later_name=None, short_case=None, pairs_with=None,
                 since=None, until=None, field=None):
        fields = self.__dict__
        fields.update(name=name, category=category, cases=OrderedDict(cases),
                      dtypes=tuple(dtypes), backward=backward, kwargs=dict(kwargs or {}),
                      version=version,  # bump when this entry's measurement changes meaning
                      note=note, form=form, call=call, prepare=prepare, isolate=isolate,
                      later_name=later_name, short_case=short_case, pairs_with=pairs_with,
                      since=since, until=until, field=OrderedDict(field or ()))

    def __setattr__(self, name, value):
        raise AttributeError("catalogue entries do not change after construction "
                             "(%r.%s): use replace()" % (self, name))

    def replace(self, **changes):
        """A copy of this entry with `changes` (cases and dtypes as in the constructor)."""
        unknown = sorted(set(changes) - set(self.__dict__))
        if unknown:
            raise TypeError("unknown entry fields: %s" % ", ".join(unknown))
        if "cases" in changes:
            changes["cases"] = OrderedDict(changes["cases"])
        if "dtypes" in changes:
            changes["dtypes"] = tuple(changes["dtypes"])
        if "field" in changes:
            changes["field"] = OrderedDict(changes["field"])
        entry = object.__new__(type(self))
        entry.__dict__.update(self.__dict__, **changes)
        return entry

    @property
    def all_cases(self):
        """The entry's cases, then its field cases: bench_operators' shape parameter."""
        return OrderedDict(list(self.cases.items()) + list(self.field.items()))

    @property
    def class_name(self):
        base = self.name.replace(".", "_")
        if self.call in NUMPY_CALLS:  # np_dot beside dot; ndarray.__setitem__: setitem
            base = "%s_%s" % (self.call, base.replace("__", ""))
        return "%s_%s" % (base, self.form) if self.form else base

    def __repr__(self):
        return "Operator(%r, %r)" % (self.class_name, self.category)


# --- shape sets shared by many entries ------------------------------------------------------
SM = ("small", "medium")
ALL4 = ("small", "medium", "tall", "wide")
SHAPES_2D = OrderedDict([("small", (16, 16)), ("medium", (1024, 1024)),
                         ("tall", (100000, 10)), ("wide", (10, 100000))])


def one_input(small=(16, 16), medium=(1024, 1024), tall=(100000, 10), wide=(10, 100000),
              classes=ALL4, **kw):
    shapes = {"small": small, "medium": medium, "tall": tall, "wide": wide}
    return [(name, case(T(*shapes[name], **kw))) for name in classes]


def elementwise(**kw):
    """One input, small + medium: an elementwise kernel does not care about the layout."""
    return one_input(classes=SM, **kw)


def same_shape_pair(classes=ALL4, lhs=None, rhs=None):
    lhs, rhs = lhs or {}, rhs or {}
    return [(name, case(T(*SHAPES_2D[name], **lhs), T(*SHAPES_2D[name], **rhs)))
            for name in classes]


def broadcast_pair(classes=ALL4, lhs=None, rhs=None):
    # The right-hand side broadcasts along one axis, as in opperf's (N, M) op (N, 1).
    lhs, rhs = lhs or {}, rhs or {}
    right = {"small": (16, 1), "medium": (1024, 1), "tall": (1, 10), "wide": (10, 1)}
    return [(name, case(T(*SHAPES_2D[name], **lhs), T(*right[name], **rhs)))
            for name in classes]


def reduction(classes=ALL4, fill=None, **kwargs):
    tensor = dict(fill or {})
    return [(name, case(T(*SHAPES_2D[name], **tensor), **kwargs)) for name in classes]


def conv2d_cases():
    # NCHW data, OIHW weight; kernel 3, pad 1. small: dispatch; medium: a ResNet-ish layer.
    return [("small", case(T(1, 3, 16, 16), T(8, 3, 3, 3), T(8),
                           kernel=(3, 3), num_filter=8, pad=(1, 1))),
            ("medium", case(T(32, 3, 64, 64), T(64, 3, 3, 3), T(64),
                            kernel=(3, 3), num_filter=64, pad=(1, 1))),
            ("wide", case(T(8, 64, 16, 16), T(256, 64, 3, 3), T(256),
                          kernel=(3, 3), num_filter=256, pad=(1, 1)))]


def pool2d_cases(classes=("small", "medium", "wide"), **kwargs):
    shapes = {"small": (1, 3, 16, 16), "medium": (32, 64, 56, 56), "wide": (8, 512, 14, 14)}
    return [(name, case(T(*shapes[name]), **kwargs)) for name in classes]


def nchw(small=(2, 4, 8, 8), medium=(32, 64, 28, 28), **kw):
    """4-D NCHW data, small + medium (medium: 1.6M elements)."""
    return [("small", case(T(*small, **kw))), ("medium", case(T(*medium, **kw)))]



def square(fill="normal", small=16, medium=512, n_inputs=1, **kwargs):
    return [("small", case(*[T(small, small, fill=fill)] * n_inputs, **kwargs)),
            ("medium", case(*[T(medium, medium, fill=fill)] * n_inputs, **kwargs))]
