"""A catalogue entry's call at one parameter point: built (whichever kind of call the entry
makes) and, for the timing benchmarks, warmed up and kept for the process's next samples.
This is also the one model of an operator call for runs without asv (mxbench's ad-hoc runs).

Runs inside benchmark environments: Python 3.7 syntax, mxnet only through environment.
"""
from ..catalogue.entries import NUMPY_CALLS
from . import registry_calls
from .calls import (PREPARE, OperatorCall, SymbolCall, _entry_arguments, build_numpy_call,
                    check_arguments)
from .environment import (_not_accepted, mx, numpy_semantics, operator_function,
                          operator_name, skip_known_crash)
from .inputs import build_call, cached_draws, infer_shapes


# setup() runs before every asv sample: build each (benchmark, params) once per process.
_CALLS = {}


def build_operator_call(op, shape, dtype, ctx, case=None, overrides=None, arrays=None):
    """The call for a catalogue entry at one parameter point, inputs built, not yet run.

    Ad-hoc runs give their own `case` (inputs of other shapes; `shape` then only names it),
    `overrides` (arguments over the entry's and the case's, passed as they are: a wrong one is
    MXNet's error to report) and `arrays` ({position: array} used instead of building).
    Raises NotImplementedError (asv: skipped) when this MXNet lacks the operator or one of
    the entry's arguments.
    """
    skip_known_crash(op, shape)
    if op.prepare:
        PREPARE[op.prepare]()
    if getattr(op, "covers", None):  # a registry entry: its own call kinds
        return registry_calls.build_call(op, shape, dtype, ctx, case, overrides, arrays)
    case = op.cases[shape] if case is None else case
    overrides = overrides or {}
    if overrides:
        case = case._replace(kwargs=dict(case.kwargs, **overrides))
    if op.call == "symbol":
        fn = getattr(mx.sym, op.name, None)
        if fn is None:
            raise NotImplementedError("operator %s is not in mxnet %s" % (op.name, mx.__version__))
        kwargs = dict(op.kwargs, **case.kwargs)
        check_arguments(fn, op.name, _entry_arguments(kwargs, overrides))
        return SymbolCall(op.name, case, kwargs, dtype, ctx)
    if op.call in NUMPY_CALLS:
        return build_numpy_call(op, case, dtype, ctx, overrides, arrays)
    numpy_semantics(False)
    name = operator_name(op)
    fn = operator_function(name)
    case = infer_shapes(name, case, dict(op.kwargs, **case.kwargs))
    args, kwargs, grads = build_call(case, dtype, ctx, op.kwargs, arrays)
    check_arguments(fn, name, _entry_arguments(kwargs, overrides))
    return OperatorCall(fn, args, kwargs, grads)


def prepare_call(op, shape, dtype, ctx):
    """The ready-to-run call for a catalogue entry at one parameter point, warmed up.

    Raises NotImplementedError (asv: skipped) when this MXNet lacks the operator, or, outside
    strict mode, when it rejects the case.
    """
    key = (op.class_name, shape, dtype, str(ctx))
    if key in _CALLS:
        # setup again (asv re-runs it between samples): require_mxnet switched the numpy
        # semantics back off, and an np entry's inputs (a 0-d tensor) need them on
        numpy_semantics(op.call in NUMPY_CALLS)
        return _CALLS[key]
    _CALLS.clear()  # one entry: the inputs of the previous point are freed
    try:
        with cached_draws():
            call = build_operator_call(op, shape, dtype, ctx)
        call.forward()  # first call: shape inference, primitive creation; errors surface here
    except (mx.base.MXNetError, TypeError) as exc:  # TypeError: an older mx.nd signature
        _not_accepted(exc, op, shape, dtype)
    _CALLS[key] = call
    return call


def prepare_cold_call(op, shape, dtype, ctx):
    """Like prepare_call, but the operator has not run yet in this process: for measuring
    its first call. Rejections surface when that call is made (first_call_peak_rss)."""
    try:
        return build_operator_call(op, shape, dtype, ctx)
    except (mx.base.MXNetError, TypeError) as exc:
        _not_accepted(exc, op, shape, dtype)
