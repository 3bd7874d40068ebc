"""What the installed MXNet registers: operator names, which names share an operator, and
which operators a call runs (MXNet's aggregate profiler). mxbench/reports/coverage.py sets
these against the catalogue.
"""
import ctypes
from collections import OrderedDict


def installed_mxnet():
    """The mxnet module of this Python (ImportError where there is none)."""
    import mxnet
    return mxnet


def registered_names(mx):
    """All registered operator names (MXListAllOpNames works on every 1.x release)."""
    getter = getattr(getattr(mx, "operator", None), "get_all_registered_operators", None)
    if getter is not None:
        return sorted(getter())
    from mxnet.base import _LIB, check_call, py_str
    size = ctypes.c_uint()
    names = ctypes.POINTER(ctypes.c_char_p)()
    check_call(_LIB.MXListAllOpNames(ctypes.byref(size), ctypes.byref(names)))
    return sorted(py_str(names[i]) for i in range(size.value))


def op_handles(mx, names):
    """{name: registry handle}; names of one operator (aliases) share a handle."""
    from mxnet.base import _LIB, OpHandle, c_str, check_call
    handles = {}
    for name in names:
        handle = OpHandle()
        check_call(_LIB.NNGetOpHandle(c_str(name), ctypes.byref(handle)))
        handles[name] = handle.value
    return handles


def alias_groups(mx, names):
    """[[name, ...]] per registered operator, each group sorted, groups in name order."""
    groups = OrderedDict()
    for name, handle in sorted(op_handles(mx, names).items()):
        groups.setdefault(handle, []).append(name)
    return sorted(groups.values())


NUMPY_PREFIXES = ("_np_", "_npi_", "_npx_")


def numpy_groups(mx):
    """[[name, ...]] per registered operator that has a _np_/_npi_/_npx_ name and no public
    one (1.9.1: 230 of the 287 such names' operators; 2.0.0b1: 315)."""
    names = registered_names(mx)
    groups = alias_groups(mx, names)
    return [g for g in groups if any(n.startswith(NUMPY_PREFIXES) for n in g)
            and not any(not n.startswith("_") for n in g)]


def operators_run(op, shape=None):
    """(registered operator names an entry's call runs, forward and backward, or None; the
    reason when it cannot run here), from MXNet's aggregate profiler."""
    from benchmarks import harness as H
    shape = shape or next(iter(op.cases))
    try:
        call = H.build_operator_call(op, shape, op.dtypes[0], H.mx.cpu())
        call.forward()
    except (NotImplementedError, H.mx.base.MXNetError, TypeError, ValueError) as exc:
        return None, H.one_line(exc)
    profile = H.profile_kernels(op.name, call, 1, op.backward)
    if not profile["available"]:
        return None, profile["message"]
    return set(row["name"] for row in profile["rows"]), ""


class Registry(object):
    """The installed MXNet's operator registry, as mxbench/reports/coverage.py reads it: the
    command hands it to the report, which imports no MXNet itself."""

    def __init__(self, mx=None):
        self.mx = installed_mxnet() if mx is None else mx
        self.version = getattr(self.mx, "__version__", "?")

    def names(self):
        return registered_names(self.mx)

    def groups(self, names):
        return alias_groups(self.mx, names)

    def numpy_groups(self):
        return numpy_groups(self.mx)

    def numpy_names(self):
        return [n for n in self.names() if n.startswith(NUMPY_PREFIXES)]

    def operators_run(self, op):
        return operators_run(op)
