"""An operator call with its inputs built: mx.nd (imperative), a bound symbol, and the numpy
interface (mx.np / mx.npx); the arguments check against old releases; CustomOp preparation.

Runs inside benchmark environments: Python 3.7 syntax, mxnet only through environment.
"""
import os
import re

from .environment import (IMPORT_PID, _rejected, autograd, check_release, heads, mx,
                          numpy_semantics, release_tuple, sync)
from .inputs import build_call, build_tensor, seed_everything


# Operator-specific preparation, named by a catalogue entry's `prepare`.
class OperatorCall(object):
    """An imperative call with its inputs built: forward(), forward_backward(), and the
    backward pass alone: record_forward() off the clock, then backward()."""

    def __init__(self, fn, args, kwargs, grads):
        self.fn, self.args, self.kwargs, self.grads = fn, args, kwargs, grads
        self.takes_gradients = bool(grads)
        self._recorded = None

    def forward(self):
        out = self.fn(*self.args, **self.kwargs)
        sync(out)
        return out

    def forward_backward(self):
        try:
            with autograd.record():
                out = self.fn(*self.args, **self.kwargs)
            autograd.backward(heads(out))
            sync([g.grad for g in self.grads])
        except mx.base.MXNetError as exc:
            _rejected(exc, "backward")

    def record_forward(self):
        with autograd.record():
            self._recorded = self.fn(*self.args, **self.kwargs)
        sync(self._recorded)

    def backward(self):
        """Differentiate the last record_forward(); an MXNetError is left to the caller."""
        out, self._recorded = self._recorded, None  # the graph is freed with the output
        autograd.backward(heads(out))
        sync([g.grad for g in self.grads])


class SymbolCall(object):
    """A bound symbolic executor, for operators whose inputs mx.nd cannot pass (aux states)."""
    takes_gradients = True  # bound with grad_req="write"

    def __init__(self, name, case, kwargs, dtype, ctx):
        rng = seed_everything()
        names = ["in%d" % i for i in range(len(case.inputs))]
        op = getattr(mx.sym, name)
        sym = op(*[mx.sym.var(n) for n in names], **kwargs)
        shapes = dict((n, t.shape) for n, t in zip(names, case.inputs))
        types = dict((n, t.dtype or dtype) for n, t in zip(names, case.inputs))
        # Symbol.simple_bind is _simple_bind in MXNet 2.0 (the executor API became internal).
        bind = getattr(sym, "simple_bind", None) or getattr(sym, "_simple_bind")
        self.exe = bind(ctx, grad_req="write", type_dict=types, **shapes)
        for n, t in zip(names, case.inputs):
            self.exe.arg_dict[n][:] = build_tensor(t._replace(grad=False), dtype, ctx, rng)
        for aux in self.exe.aux_arrays:
            aux[:] = 0.5
        # 1.x allocates the outputs when binding; 2.0's executor only at the first forward.
        outputs = self.exe.outputs
        if outputs is None:
            outputs = self.exe.forward(is_train=False)
        self.head_grads = [mx.nd.ones(o.shape, ctx=ctx, dtype=o.dtype) for o in outputs]

    def forward(self):
        out = self.exe.forward(is_train=False)
        sync(out)
        return out

    def forward_backward(self):
        try:
            self.exe.forward(is_train=True)
            self.exe.backward(self.head_grads)
            sync([g for g in self.exe.grad_arrays if g is not None])
        except mx.base.MXNetError as exc:
            _rejected(exc, "backward")

    def record_forward(self):
        sync(self.exe.forward(is_train=True))

    def backward(self):
        """Differentiate the last record_forward(); an MXNetError is left to the caller."""
        self.exe.backward(self.head_grads)
        sync([g for g in self.exe.grad_arrays if g is not None])


def register_custom_op():
    """Register 'mxbench_square', a Python CustomOp (x -> x*x), once per process.

    Before 1.5.0 a CustomOp hangs in a forked child (apache/mxnet#14396, fixed by #14451),
    and asv's forkserver runs every benchmark in one: a skip there, not a 120 s timeout.
    """
    if os.getpid() != IMPORT_PID and release_tuple() < (1, 5, 0):
        raise NotImplementedError("CustomOp hangs in a forked process before mxnet 1.5.0 "
                                  "(apache/mxnet#14396)")
    if "mxbench_square" in _PREPARED:
        return

    class Square(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * in_data[0])

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], 2 * in_data[0] * out_grad[0])

    class SquareProp(mx.operator.CustomOpProp):
        def __init__(self):
            super(SquareProp, self).__init__(need_top_grad=True)

        def list_arguments(self):
            return ["data"]

        def list_outputs(self):
            return ["output"]

        def infer_shape(self, in_shape):
            return in_shape, [in_shape[0]], []

        def create_operator(self, ctx, shapes, dtypes):
            return Square()

    mx.operator.register("mxbench_square")(SquareProp)
    _PREPARED.add("mxbench_square")


_PREPARED = set()
PREPARE = {"custom_op": register_custom_op}


def documented_arguments(fn):
    """The argument names an operator's generated docstring lists (empty if it lists none)."""
    return set(re.findall(r"^\s*(\w+) : ", getattr(fn, "__doc__", None) or "", re.M))


def check_arguments(fn, name, kwargs):
    """Old releases silently drop keyword arguments an operator does not have (1.1.0's
    norm ignores ord and axis and returns one number): that would time another computation
    under this benchmark's name, so it is a skip with the reason."""
    documented = documented_arguments(fn)
    # NDArrays passed by keyword are inputs, which old docstrings do not always list.
    unknown = sorted(k for k, v in kwargs.items()
                     if documented and k not in documented and not hasattr(v, "wait_to_read"))
    if unknown:
        raise NotImplementedError("mxnet %s's %s has no argument %s; it would ignore it"
                                  % (mx.__version__, name, ", ".join(unknown)))


# --- the numpy interface: mx.np / mx.npx entries (catalogue/np_interface.py) -----------------
NUMPY_SINCE = (1, 6, 0)
# Functions that take their arrays as one sequence (concatenate([a, b])): the case's inputs.
NUMPY_SEQUENCE_FUNCTIONS = ("concatenate", "stack", "column_stack", "dstack", "hstack", "vstack")
# Arguments a function takes positionally before its arrays (einsum(subscripts, *operands)).
NUMPY_LEADING_ARGUMENTS = {"einsum": "subscripts"}
# Arguments MXNet 2.0 renamed (the array API's names): passed under the name the release takes.
NUMPY_RENAMED_ARGUMENTS = (("ctx", "device"), ("rcond", "rtol"))


def numpy_function(op):
    """mx.np.<name> / mx.npx.<name> (dotted: a submodule's, or an ndarray method), or a skip
    when this release has no numpy interface or not this function."""
    if getattr(mx, "np", None) is None or release_tuple() < NUMPY_SINCE:
        raise NotImplementedError("the numpy interface (mx.np/mx.npx) arrived in mxnet 1.6.0; "
                                  "mxnet %s has none" % mx.__version__)
    fn = getattr(mx, op.call)
    for part in op.name.split("."):
        fn = getattr(fn, part, None)
    if fn is None:
        raise NotImplementedError("mx.%s.%s is not in mxnet %s"
                                  % (op.call, op.name, mx.__version__))
    return fn


def _parameters(fn):
    """The keyword names fn accepts, or None when it takes any (**kwargs, no signature)."""
    import inspect
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind == p.VAR_KEYWORD for p in params):
        return None
    return set(p.name for p in params)


def build_numpy_call(op, case, dtype, ctx, overrides=None, arrays=None):
    """An np/npx entry's call: mx.np arrays from the same seeded values as the mx.nd path,
    numpy semantics on, and gradients through autograd as for mx.nd."""
    check_release(op)  # MXNet 2.0's new functions: a skip with the reason before 2.0
    fn = numpy_function(op)
    numpy_semantics(True)
    args, kwargs, grads = build_call(case, dtype, ctx, op.kwargs, arrays, numpy_arrays=True)
    accepted = _parameters(fn)
    for old_name, new_name in NUMPY_RENAMED_ARGUMENTS:
        if accepted is not None and old_name in kwargs and old_name not in accepted \
                and new_name in accepted:
            kwargs[new_name] = kwargs.pop(old_name)
    if accepted is not None:
        unknown = sorted(k for k in _entry_arguments(kwargs, overrides or {})
                         if k not in accepted)
        if unknown:
            raise NotImplementedError("mxnet %s's mx.%s.%s has no argument %s"
                                      % (mx.__version__, op.call, op.name, ", ".join(unknown)))
    leaf = op.name.split(".")[-1]
    if leaf in NUMPY_SEQUENCE_FUNCTIONS:
        args = [list(args)]
    if leaf in NUMPY_LEADING_ARGUMENTS:
        args = [kwargs.pop(NUMPY_LEADING_ARGUMENTS[leaf])] + list(args)
    return OperatorCall(fn, args, kwargs, grads)


def _entry_arguments(kwargs, overrides):
    return dict((k, v) for k, v in kwargs.items() if k not in overrides)
