"""The benchmark environment: the A/B variant applied before mxnet loads, the guarded mxnet
import, the install step's build status, devices, what this release has, and how a limit of
the release or the machine becomes a skip (strict mode: a failure).

Every benchmark module imports this first. Runs inside benchmark environments (Python 3.7+,
any MXNet 1.0-2.0), so it imports everywhere: no mxnet attribute is touched at import time.
"""
import json
import os
import re
import sys

from .. import ROOT
from ..catalogue import crashes

VARIANTS_FILE = os.path.join(ROOT, "env_matrix", "variants.json")


def apply_variant(name):
    """Set the environment variables and CPU affinity of an A/B variant (variants.json).

    Runs before mxnet is imported: OpenMP reads OMP_NUM_THREADS when the library loads.
    An unknown name is an error, not a silent run of the defaults under the wrong label.
    """
    with open(VARIANTS_FILE) as fh:
        variants = json.load(fh)["variants"]
    if name not in variants:
        raise ValueError("unknown MXBENCH_VARIANT %r (env_matrix/variants.json has: %s)"
                         % (name, ", ".join(sorted(variants))))
    variant = variants[name]
    os.environ.update(variant.get("env", {}))
    if variant.get("cpu_affinity") is not None:
        os.sched_setaffinity(0, variant["cpu_affinity"])
    for param, value in sorted(variant.get("mallopt", {}).items()):
        set_malloc_option(param, value)
    return variant


# glibc's mallopt() parameters (malloc.h). MALLOC_*_ environment variables would be read
# when the process starts, too early to set from here; mallopt applies from now on.
MALLOPT_PARAMS = {"M_TRIM_THRESHOLD": -1, "M_TOP_PAD": -2, "M_MMAP_THRESHOLD": -3}


def set_malloc_option(param, value):
    import ctypes
    libc = ctypes.CDLL("libc.so.6")
    if libc.mallopt(MALLOPT_PARAMS[param], int(value)) != 1:
        raise ValueError("mallopt(%s, %d) was refused" % (param, value))


# asv's forkserver imports this module once, then forks a process per benchmark.
IMPORT_PID = os.getpid()
VARIANT = os.environ.get("MXBENCH_VARIANT", "default")
apply_variant(VARIANT)


def discovering():
    """True in asv's discovery process (`asv/benchmark.py discover DIR FILE`): it builds the
    benchmarks to list them and runs none."""
    return (len(sys.argv) == 4 and sys.argv[1] == "discover"
            and os.path.basename(sys.argv[0]) == "benchmark.py")


# Loading MXNet is 1.5-2 s, two thirds of an `asv run`'s discovery, which touches no mxnet
# attribute (none is touched at import); the forkserver and every process that runs a
# benchmark load it here, before they fork or time anything.
if discovering():
    mx = autograd = None
    _IMPORT_ERROR = "not loaded in asv's discovery, which runs no benchmark"
else:
    try:
        import mxnet as mx
        from mxnet import autograd
        _IMPORT_ERROR = None
    except Exception as exc:  # no build installed, or a build that cannot load here
        mx = autograd = None
        _IMPORT_ERROR = "%s: %s" % (type(exc).__name__, exc)

# Bump when a change here alters what every benchmark measures; asv's `version` of each
# generated benchmark includes it, so unrelated edits do not orphan the history.
HARNESS_VERSION = "1"
SEED = 20221121
BFLOAT16 = "bfloat16"  # MXNet's own dtype (numpy has none): see inputs.to_bfloat16


BUILD_MARKER = "mxbench-build.json"
# With MXBENCH_NO_BUILD=fail a missing build is a failure (null) instead of a skip (NaN):
# plain `asv find` walks past failed commits but would bisect on NaN ones (see README).
NO_BUILD_ACTION = os.environ.get("MXBENCH_NO_BUILD", "skip")


def build_status():
    """The install step's record for this environment ({} outside asv)."""
    path = os.path.join(sys.prefix, BUILD_MARKER)
    try:
        with open(path) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return {}


def require_mxnet():
    """Raise the right skip when this environment has no usable MXNet."""
    status = build_status()
    if status and status.get("status") != "ok":
        message = "%s: %s" % (status.get("status"), status.get("reason"))
    elif mx is None:
        message = "mxnet does not import here: %s" % _IMPORT_ERROR
    else:
        numpy_semantics(False)  # an np entry set up earlier in this process switched it on
        return
    if NO_BUILD_ACTION == "fail":
        raise RuntimeError(message)
    raise NotImplementedError(message)


def release_tuple():
    """MXNet's version as a comparable tuple, e.g. (1, 9, 1)."""
    nums = re.findall(r"\d+", mx.__version__)[:3]
    return tuple(int(n) for n in nums)


def context(device):
    """The mx.Context for 'cpu' / 'gpu', or a skip when that device is not usable."""
    if device == "cpu":
        return mx.cpu()
    if device == "gpu":
        unsupported = gpu_architecture_problem(build_status())
        if unsupported:
            raise NotImplementedError(unsupported)
        num_gpus = getattr(getattr(mx, "context", None), "num_gpus", None)
        count = 0
        if num_gpus is not None:
            try:
                count = num_gpus()
            except Exception:
                count = 0
        else:
            count = gpu_probe()
        if count < 1:
            raise NotImplementedError("no GPU visible to this MXNet build")
        return mx.gpu(0)
    raise ValueError("unknown device %r" % (device,))


def gpu_compute_capability(ordinal=0):
    """Compute capability of CUDA device `ordinal` as an int (8.6 -> 86), asked of the
    driver's libcuda.so.1 itself (MXNet does not say); None without a driver or device."""
    import ctypes
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    dev, major, minor = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    if lib.cuInit(0) != 0 or lib.cuDeviceGet(ctypes.byref(dev), ordinal) != 0:
        return None
    # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR
    if (lib.cuDeviceGetAttribute(ctypes.byref(major), 75, dev) != 0
            or lib.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev) != 0):
        return None
    return major.value * 10 + minor.value


def gpu_architecture_problem(record, capability=None):
    """Why the build in `record` (mxbench-build.json; its cuda_architectures from the install
    step) cannot run kernels on this GPU, or None. SASS for sm_XY runs on X.Y' with Y' >= Y,
    PTX for compute_XY on any capability >= XY (env_matrix/cuda.py, runs_on)."""
    archs = (record or {}).get("cuda_architectures")
    capability = capability or (gpu_compute_capability() if archs else None)
    if not archs or capability is None:
        return None
    if any(a // 10 == capability // 10 and a <= capability for a in archs.get("sass", [])) \
            or any(a <= capability for a in archs.get("ptx", [])):
        return None
    return ("this GPU (compute capability %d.%d, sm_%d) cannot run %s: its library carries "
            "kernels for %s and PTX for %s" % (
                capability // 10, capability % 10, capability, record.get("package") or "this build",
                ", ".join("sm_%d" % a for a in archs.get("sass", [])) or "no GPU",
                ", ".join("compute_%d" % a for a in archs.get("ptx", [])) or "none"))


def gpu_probe():
    """1 when an array can live on gpu(0), else 0: MXNet < 1.3 has no num_gpus()."""
    try:
        mx.nd.zeros((1,), ctx=mx.gpu(0)).wait_to_read()
    except Exception:  # a CPU build, no device, no driver: MXNetError / OSError
        return 0
    return 1


def operator_name(op):
    """The mx.nd name of a catalogue entry's computation in this release: its later_name
    where the release has that (a rename: MXNet 2.0's sample_categorical), else its name."""
    if op.later_name and _lookup(mx.nd, op.later_name) is not None:
        return op.later_name
    return op.name


def _lookup(module, name):
    """module.<name>; namespaced names ("linalg.gemm2", "contrib.foo") in submodules."""
    fn = getattr(module, name, None)
    if fn is None:
        head, _, tail = name.partition(".")
        fn = getattr(getattr(module, head, None), tail, None) if tail else None
    return fn


def operator_function(name):
    """mx.nd.<name>, or a skip if this release does not have it."""
    fn = _lookup(mx.nd, name)
    if fn is None:
        raise NotImplementedError("operator %s is not in mxnet %s" % (name, mx.__version__))
    return fn


def sync(out):
    """Block until `out` (an NDArray, or a list/tuple of them) is computed."""
    if isinstance(out, (list, tuple)):
        for item in out:
            sync(item)
    elif out is not None and hasattr(out, "wait_to_read"):
        out.wait_to_read()


# --- calling operators -------------------------------------------------------------------------
# Strict mode (MXBENCH_STRICT=1; tests/test_smoke.py sets it): an MXNetError from one of our
# calls (the first call in setup, or a backward) is a failure, because on the release the
# catalogue is written for it means our inputs are wrong. Otherwise (asv over old releases) it
# is a skip: that release rejects the case (an argument, dtype or gradient it did not have
# yet), which is not a regression.
STRICT = os.environ.get("MXBENCH_STRICT", "") not in ("", "0")


def heads(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def skip(message):
    """Skip from inside a benchmark method: asv_runner only takes its own subclass as a skip
    there (a NotImplementedError from setup() is enough)."""
    try:
        from asv_runner.benchmarks.mark import SkipNotImplemented
    except ImportError:
        raise NotImplementedError(message)
    raise SkipNotImplemented(message)


def _rejected(exc, what, dtype=None):
    """An MXNetError for one of our calls: ours to fix in strict mode, else this release's
    limit (an argument, dtype or gradient it does not have yet): a skip. bfloat16: a skip
    in strict mode too (see _not_accepted)."""
    if STRICT and dtype != BFLOAT16:
        raise exc
    skip("mxnet %s rejects this %s%s: %s" % (mx.__version__, what, _cpu_note(dtype),
                                              one_line(exc)))




_DEFAULT_NUMPY_MODE = []  # the release's (is_np_shape, is_np_array), read before changing it


def numpy_semantics(active):
    """Switch the numpy semantics (npx.set_np: NumPy shapes and mx.np arrays) on for an np
    entry, or back to the release's default (off in 1.x, on in 2.0) for everything else.
    Process-wide, so it is set in setup, never in a timed call; asv runs each benchmark in
    a fresh process, the smoke test and ad-hoc runs many in one."""
    util = getattr(mx, "util", None)
    if getattr(util, "is_np_shape", None) is None or getattr(mx, "npx", None) is None:
        return  # before 1.6: no numpy interface, nothing to switch
    current = (bool(util.is_np_shape()), bool(util.is_np_array()))
    if not _DEFAULT_NUMPY_MODE:
        _DEFAULT_NUMPY_MODE.append(current)
    wanted = (True, True) if active else _DEFAULT_NUMPY_MODE[0]
    if current != wanted:
        mx.npx.set_np(shape=wanted[0], array=wanted[1])


def _not_accepted(exc, op, shape, dtype):
    """Outside strict mode, this release rejecting a case is a skip (NotImplementedError).
    A bfloat16 point is a skip in strict mode too: oneDNN has bfloat16 kernels for some
    operators only on CPUs with AVX-512, a limit of the machine, not of our call."""
    if STRICT and dtype != BFLOAT16:
        raise exc
    raise NotImplementedError("mxnet %s rejects %s %s %s%s: %s" % (
        mx.__version__, op.class_name, shape, dtype, _cpu_note(dtype), one_line(exc)))


def _cpu_note(dtype):
    if dtype != BFLOAT16:
        return ""
    try:
        with open("/proc/cpuinfo") as fh:
            if " avx512f" in fh.read():
                return ""
    except OSError:
        pass
    return " (this CPU has no AVX-512, which oneDNN's bfloat16 kernels need)"


def one_line(exc):
    """The line of an exception that says what is wrong, named by its type: MXNetError
    carries a traceback, and releases format it differently."""
    lines = [l.strip() for l in str(exc).splitlines() if l.strip()]
    named = [l for l in lines if l.startswith("MXNetError")]
    plain = [l for l in lines if not l.startswith(("[bt]", "Stack trace", "File "))]
    text = (named[-1:] or plain or lines or [type(exc).__name__])[0]
    if not text.startswith(type(exc).__name__):
        text = "%s: %s" % (type(exc).__name__, text)
    return text


_first_line = one_line  # the name tests/test_smoke.py uses


def skip_known_crash(op, shape):
    """A point that crashes the process on this release and CPU kind (the catalogue's
    known_crashes.jsonl, whole-point rows): a skip with the reason, before any call."""
    row = crashes.known_crash(op.class_name, mx.__version__, shape)
    if row:
        raise NotImplementedError(crashes.reason(row, mx.__version__))


def crashing_methods(op, shape):
    """{method: the skip's reason} of the benchmark methods that crash at this point on this
    release and CPU kind (rows of one method: the entry's other methods run)."""
    return dict((method, crashes.reason(row, mx.__version__)) for method, row
                in crashes.crashing_methods(op.class_name, mx.__version__, shape).items())


class SkippingCall(object):
    """A prepared call whose crashing benchmark methods skip with the reason: only such
    points carry it, so no other point's timed call pays for the check."""
    CALLS = {"time_forward": "forward", "time_forward_backward": "forward_backward"}

    def __init__(self, call, reasons):
        for method, attribute in self.CALLS.items():
            if method in reasons:
                setattr(self, attribute, lambda reason=reasons[method]: skip_method(reason))
            else:
                setattr(self, attribute, getattr(call, attribute, None))


def skip_method(reason):
    """Skip the running benchmark method (setup ran; asv: n/a) with the reason: asv_runner's
    own skip inside asv, NotImplementedError elsewhere (the smoke tests, ad-hoc runs)."""
    try:
        from asv_runner.benchmarks.mark import SkipNotImplemented
    except ImportError:
        raise NotImplementedError(reason)
    sys.stderr.write("skipped: %s\n" % reason)
    raise SkipNotImplemented(reason)


def _release(text):
    return tuple(int(n) for n in text.split("."))


def check_release(op):
    """Skip an entry of some releases only (`since` / `until`) elsewhere, with the reason."""
    release = release_tuple()
    since, until = op.since, op.until
    if since and release < _release(since):
        raise NotImplementedError("%s arrived in mxnet %s (this is %s)"
                                  % (op.class_name, since, mx.__version__))
    if until and release >= _release(until):
        raise NotImplementedError("%s was removed in mxnet %s (this is %s)"
                                  % (op.class_name, until, mx.__version__))
