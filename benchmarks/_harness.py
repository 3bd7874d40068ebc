"""What every benchmark shares: the guarded mxnet import, build status, contexts, inputs, sync.

It is also the one model of an operator call for runs without asv (mxbench/adhoc.py is its
front end): build_operator_call builds it, timed_calls times it, one_line words its errors.

Runs inside benchmark environments (Python 3.7+, any MXNet 1.0-1.9.1), so it must import
everywhere: no mxnet attribute is touched at import time, and nothing newer than 3.7 syntax.
"""
import json
import os
import re
import shutil
import sys
import tempfile
import time

import numpy as np

VARIANTS_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                             "env_matrix", "variants.json")


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


class Timing(object):
    """asv's timing settings of the time_ benchmarks but the model ones (bench_models sets
    its own; asv runs a track_ or peakmem_ benchmark once anyway), written out: asv's
    defaults, two rounds (each its own process) of a 0.1 s warm-up and 1-5 samples (asv_runner
    times a benchmark with a setup one call per sample). Cheaper settings were measured side
    by side (docs/measurement.md) and each measured worse: a 0.02-0.05 s warm-up reads 4-30 %
    slower (the warm-up is what brings this VM's CPU to speed); one round gives a wider A/A;
    at most 3 samples a round leaves asv's rank test 6 samples a side, too few to reach its
    p < 0.002, so nothing is ever flagged (a 9x regression included). Timing settings are not
    part of a benchmark's version: the same calls are measured, so the history stays one."""
    rounds = 2
    warmup_time = 0.1
    repeat = (1, 5, 10.0)


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


def device_memory_used(ctx):
    """Bytes in use on ctx's GPU (total - free, the whole device), or None where MXNet has no
    mx.context.gpu_memory_info (before 1.3.1)."""
    info = getattr(mx.context, "gpu_memory_info", None)
    if info is None:
        return None
    free, total = info(ctx.device_id)
    return total - free


def first_call_device_bytes(call, ctx):
    """By how many bytes device memory in use rose during the first call. MXNet's pooled GPU
    allocator keeps what the call freed, so the rise is the call's peak (outputs, workspace,
    cuDNN/cuBLAS handles it set up)."""
    before = device_memory_used(ctx)
    if before is None:
        skip("device memory needs mx.context.gpu_memory_info (MXNet >= 1.3.1)")
    mx.nd.waitall()
    before = device_memory_used(ctx)
    sync(call())
    return device_memory_used(ctx) - before


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


def seed_everything():
    np.random.seed(SEED)
    if mx is not None:
        mx.random.seed(SEED)
    return np.random.RandomState(SEED)


# --- memory --------------------------------------------------------------------------------
def _status_kib(field, path="/proc/self/status"):
    """A 'Field:  123 kB' line of a /proc file, in KiB (None when the file lacks it)."""
    with open(path) as fh:
        match = re.search(r"^%s:\s+(\d+) kB" % field, fh.read(), re.M)
    return int(match.group(1)) if match else None


def available_memory():
    """Bytes that can be allocated now without swapping (None if the system will not say).

    MemAvailable counts reclaimable page cache too; free pages alone (the fallback, for
    kernels before 3.14 and systems without /proc) understate what can be had.
    """
    try:
        kib = _status_kib("MemAvailable", "/proc/meminfo")
    except OSError:
        kib = None
    if kib is not None:
        return kib * 1024
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def reset_peak_rss():
    """Reset the kernel's peak-RSS counter (Linux >= 4.0); False where that is impossible."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def peak_rss_increase(work):
    """Bytes by which the process's peak RSS rose above its RSS while `work()` ran.

    Unlike asv's `peakmem_`, this leaves out the interpreter, the mxnet import and the
    inputs built in setup: it is the memory `work` itself made resident.
    """
    if not reset_peak_rss():
        raise NotImplementedError("peak RSS cannot be reset on this system")
    before = _status_kib("VmRSS")
    work()
    return max(0, (_status_kib("VmHWM") - before)) * 1024


def first_call_peak_rss(call, dtype=None):
    """Peak-RSS increase of an operator's first call in a fresh process (asv forks one per
    benchmark): output, workspace and the one-time set-up the call triggers (oneDNN
    primitives, OpenMP threads). Measured on a warmed-up call instead, the figure flipped
    between 0 and the output size from run to run, depending on whether the allocator
    handed back a block freed by an earlier call; the first call has nothing to reuse.
    """
    mx.nd.waitall()  # nothing left pending from setup
    try:
        return peak_rss_increase(call.forward)
    except (mx.base.MXNetError, TypeError) as exc:  # TypeError: an older mx.nd signature
        _rejected(exc, "case", dtype)


# --- inputs ----------------------------------------------------------------------------------
def _bounds(tensor, low, high):
    """(low, high) for a fill: the tensor's own bounds where given, else the fill's defaults."""
    return (low if tensor.low is None else tensor.low,
            high if tensor.high is None else tensor.high)


def _per_row(bound, shape):
    """A bound given per row (a tuple: row i of an index matrix indexes axis i) broadcasts."""
    if isinstance(bound, (tuple, list)):
        return np.array(bound).reshape((-1,) + (1,) * (len(shape) - 1))
    return bound


def _values(tensor, dtype, rng):
    shape = tensor.shape
    fill = tensor.fill
    if fill == "normal":
        return rng.standard_normal(shape)
    if fill == "uniform":
        low, high = _bounds(tensor, -1.0, 1.0)
        return rng.uniform(low, high, shape)
    if fill == "positive":
        low, high = _bounds(tensor, 0.1, 2.0)
        return rng.uniform(low, high, shape)
    if fill == "ones":
        return np.ones(shape)
    if fill == "zeros":
        return np.zeros(shape)
    if fill == "index":  # integers in [low, high); a tuple high bounds each row separately
        return rng.randint(_per_row(tensor.low or 0, shape), _per_row(tensor.high, shape), shape)
    if fill == "spd":  # symmetric positive definite along the last two axes, determinant 1
        a = rng.standard_normal(shape)
        n = shape[-1]
        spd = np.matmul(a, np.swapaxes(a, -1, -2)) / n + np.eye(n)
        # Unit determinant keeps det/slogdet finite at any size (det of a 512x512 matrix with
        # eigenvalues in [1, 5] overflows float32); the conditioning is unchanged.
        logdet = np.linalg.slogdet(spd)[1]
        return spd * np.exp(-logdet / n)[..., None, None]
    if fill == "tril":  # a Cholesky factor: lower triangular, well conditioned
        return np.linalg.cholesky(_values(tensor._replace(fill="spd"), dtype, rng))
    if fill == "simplex":  # non-negative, sums to 1 along the last axis (probabilities)
        p = rng.uniform(0.1, 1.0, shape)
        return p / p.sum(axis=-1, keepdims=True)
    if fill == "sparse":  # 90% zeros, for storage-type conversions
        return rng.standard_normal(shape) * (rng.uniform(0, 1, shape) < 0.1)
    if fill == "with_nan":  # uniform(low, high) with 10% NaN, for the nan* reductions
        low, high = _bounds(tensor, -1.0, 1.0)
        values = rng.uniform(low, high, shape)
        values[rng.uniform(0, 1, shape) < 0.1] = np.nan
        return values
    if fill == "sorted":  # uniform(low, high), increasing along the last axis (grids)
        low, high = _bounds(tensor, -1.0, 1.0)
        return np.sort(rng.uniform(low, high, shape), axis=-1)
    if fill == "affine":  # (N, 6) affine transforms near the identity
        # Shrink a little and perturb within +-0.03, so every sampling point stays inside the
        # image (|x'| <= 0.93 + 0.03 + 0.03): mxnet 1.0's SpatialTransformer backward
        # segfaults on points outside it.
        return np.array([0.93, 0.0, 0.0, 0.0, 0.93, 0.0]) + rng.uniform(-0.03, 0.03, shape)
    if fill == "rois":  # (R, 5) boxes [batch, x1, y1, x2, y2] inside a (batches, height, width)
        batches, height, width = tensor.high
        rois = np.zeros(shape)
        rois[:, 0] = rng.randint(0, batches, shape[0])
        x = np.sort(rng.uniform(0, width - 1, (shape[0], 2)), axis=1)
        y = np.sort(rng.uniform(0, height - 1, (shape[0], 2)), axis=1)
        rois[:, 1], rois[:, 3] = x[:, 0], x[:, 1]
        rois[:, 2], rois[:, 4] = y[:, 0], y[:, 1]
        return rois
    raise ValueError("unknown fill %r" % (tensor.fill,))


# --- the input cache ---------------------------------------------------------------------------
# Drawing a large input from the seeded generator takes 20-50 ms a million values (the legacy
# RandomState's normal draws), a sparse entry's up to half a second, and asv's processes draw
# them again in every process: twice a point. The timing benchmarks (prepare_call) keep each
# large draw on disk the first time and read it back after, together with the generator's
# state after the draw, so every process gets the very values, in the very order, that the
# seed gives, and later draws follow as before. On a hit the draw's float64 scratch is still
# allocated and freed (untouched: no cost), so glibc's mmap threshold, which freeing a large
# block raises, ends where it did, and operator outputs are placed in memory as before.
# MXBENCH_INPUT_CACHE: a directory (default ~/.cache/mxbench/inputs-N), or 0 for none.
INPUT_CACHE_FORMAT = "1"
INPUT_CACHE_MIN_ELEMENTS = 1 << 16  # smaller draws take under a millisecond
INPUT_CACHE_LIMIT = 8 << 30  # bytes on disk; past it nothing more is kept
_INPUT_CACHE = {"on": False}


def input_cache_dir():
    setting = os.environ.get("MXBENCH_INPUT_CACHE", "")
    if setting == "0":
        return None
    return setting or os.path.join(os.path.expanduser("~"), ".cache", "mxbench",
                                   "inputs-" + INPUT_CACHE_FORMAT)


class cached_draws(object):
    """Within it, large draws (drawn()) go through the input cache."""

    def __enter__(self):
        self.was = _INPUT_CACHE["on"]
        _INPUT_CACHE["on"] = input_cache_dir() is not None

    def __exit__(self, *exc):
        _INPUT_CACHE["on"] = self.was


def _draw_key(what, rng):
    import hashlib
    _, keys, pos, has_gauss, gauss = rng.get_state()
    digest = hashlib.sha1(("%s|%s|%d|%d|%r" % (INPUT_CACHE_FORMAT, what, pos, has_gauss,
                                               gauss)).encode())
    digest.update(np.ascontiguousarray(keys, dtype=np.uint32).tobytes())
    return digest.hexdigest()


def _cache_size(folder):
    try:
        return sum(e.stat().st_size for e in os.scandir(folder) if e.is_file())
    except OSError:
        return 0


def drawn(what, rng, draw, shape, out_dtype=None):
    """draw() (values from rng, float64, of `shape`), as out_dtype (None: as drawn): read
    from the input cache when on and kept there, `what` (a repr of everything but the
    generator that decides the values) and the generator's state being the key; otherwise
    drawn, exactly as before there was a cache, and kept if large."""
    def draw_as():
        return draw() if out_dtype is None else draw().astype(out_dtype)

    elements = int(np.prod(shape)) if len(shape) else 1
    folder = input_cache_dir() if _INPUT_CACHE["on"] else None
    if folder is None or elements < INPUT_CACHE_MIN_ELEMENTS:
        return draw_as()
    path = os.path.join(folder, _draw_key(what, rng) + ".npz")
    try:
        with np.load(path, allow_pickle=False) as kept:
            values = kept["values"]
            state = ("MT19937", kept["keys"], int(kept["pos"]), int(kept["has_gauss"]),
                     float(kept["gauss"]))
        if values.shape == tuple(shape) and (out_dtype is None
                                             or values.dtype == np.dtype(out_dtype)):
            np.empty(shape, dtype=np.float64)  # the draw's scratch, freed (see above)
            rng.set_state(state)
            return values
    except Exception:  # not kept yet, or a bad file (any way a zip can be): drawn again
        pass
    values = draw_as()
    _, keys, pos, has_gauss, gauss = rng.get_state()
    tmp = None
    try:
        if not os.path.isdir(folder):
            os.makedirs(folder)
        if _cache_size(folder) + values.nbytes <= INPUT_CACHE_LIMIT:
            handle, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
            with os.fdopen(handle, "wb") as fh:
                np.savez(fh, values=values, keys=keys, pos=pos, has_gauss=has_gauss,
                         gauss=gauss)
            os.replace(tmp, path)
    except OSError:  # a full or read-only disk: this process drew its values anyway
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)
    return values


def build_tensor(tensor, dtype, ctx, rng, numpy_array=False):
    """One NDArray for a catalogue Tensor (dtype None = the benchmark's dtype); an mx.np
    ndarray with numpy_array (Gluon under the numpy interface: see numpy_interface)."""
    tdtype = tensor.dtype or dtype
    if tdtype == BFLOAT16:
        values = drawn(repr((tensor, "float32")), rng, lambda: _values(tensor, "float32", rng),
                       tensor.shape)
        arr = to_bfloat16(mx.nd.array(values, ctx=ctx, dtype="float32"))
    else:
        values = drawn(repr((tensor, tdtype)), rng, lambda: _values(tensor, tdtype, rng),
                       tensor.shape, tdtype)
        arr = mx.nd.array(values, ctx=ctx, dtype=tdtype)
    if numpy_array:
        arr = arr.as_np_ndarray()
    if tensor.grad:
        arr.attach_grad()
    return arr


BFLOAT16 = "bfloat16"


def to_bfloat16(array):
    """bfloat16 is MXNet's own dtype (numpy has none): a float32 array cast by amp_cast, the
    way AMP makes one. A build without it (before 1.7, or no oneDNN) or a CPU whose oneDNN has
    no bfloat16 kernels is a skip with the reason."""
    cast = getattr(mx.nd, "amp_cast", None)
    # MXNet's name for it: a numpy structured dtype that its dtype table maps to bfloat16
    dtype = np.dtype([(BFLOAT16, np.uint16)])
    table = getattr(getattr(mx.nd, "ndarray", None), "_DTYPE_NP_TO_MX", {})
    if cast is None or dtype not in table:
        raise NotImplementedError("mxnet %s has no bfloat16 dtype" % mx.__version__)
    try:
        out = cast(array, dtype=dtype)
        out.wait_to_read()
    except mx.base.MXNetError as exc:
        raise NotImplementedError("mxnet %s has no bfloat16 here: %s"
                                  % (mx.__version__, one_line(exc)))
    return out


def itemsize(dtype):
    return 2 if dtype == BFLOAT16 else np.dtype(dtype).itemsize


def numpy_interface():
    """Whether Gluon here runs on mx.np arrays: MXNet 2.0 turns the numpy interface on by
    default (mx.util.is_np_array() is True) and its blocks reject mx.nd inputs. Asked of the
    release, not of its version string: 1.6-1.9 have the switch, off unless set; older
    releases have no such switch (mx.util may be absent)."""
    is_np_array = getattr(getattr(mx, "util", None), "is_np_array", None)
    return bool(is_np_array()) if is_np_array is not None else False


def build_inputs(case, dtype, ctx, numpy_arrays=False):
    """NDArrays for a case's positional inputs, from the fixed seed; float inputs get
    gradients. numpy_arrays: mx.np ndarrays instead (Gluon blocks under the numpy interface)."""
    rng = seed_everything()
    arrays = [build_tensor(tensor, dtype, ctx, rng, numpy_arrays) for tensor in case.inputs]
    sync(arrays)
    return arrays, [a for a, t in zip(arrays, case.inputs) if t.grad]


def inferred(tensor):
    from .catalogue import INFERRED
    return any(n is INFERRED for n in tensor.shape)


def infer_shapes(name, case, kwargs):
    """The case with each INFERRED input shape replaced by the one the operator's shape
    inference gives from the other inputs and the scalar arguments (kwargs: the entry's and
    the case's). GroupNorm's gamma: (num_groups,) in mxnet 1.x, (channels,) in 2.0."""
    if not any(inferred(t) for t in case.inputs):
        return case
    from .catalogue import Tensor
    names = ["in%d" % i for i in range(len(case.inputs))]
    scalars = dict((k, v) for k, v in kwargs.items()
                   if isinstance(v, (bool, int, float, str, tuple)) and not isinstance(v, Tensor))
    sym = _lookup(mx.sym, name)(*[mx.sym.var(n) for n in names], **scalars)
    known = dict((n, t.shape) for n, t in zip(names, case.inputs) if not inferred(t))
    arg_shapes = dict(zip(sym.list_arguments(), sym.infer_shape(**known)[0]))
    inputs = tuple(t._replace(shape=tuple(arg_shapes[n])) if inferred(t) else t
                   for n, t in zip(names, case.inputs))
    return case._replace(inputs=inputs)


def given_array(array, tensor, ctx, numpy_array=False):
    """A caller's array (ad-hoc runs) in place of a Tensor: an NDArray as it is, a numpy
    array copied to ctx; it takes a gradient where the Tensor says so. numpy_array: as an
    mx.np ndarray."""
    if not isinstance(array, mx.nd.NDArray):
        array = mx.nd.array(array, ctx=ctx, dtype=array.dtype)
    if numpy_array and hasattr(array, "as_np_ndarray"):
        array = array.as_np_ndarray()
    if tensor.grad:
        array.attach_grad()
    return array


def build_call(case, dtype, ctx, extra_kwargs=None, arrays=None, numpy_arrays=False):
    """(args, kwargs, grads) for a case: positional and keyword Tensors become NDArrays.

    Keyword values may also be catalogue markers: Input(key) is another input of the same call
    (e.g. out=Input(0) updates a weight in place, as optimizers do; a list of them gives a
    list), CTX is the benchmark's context and DTYPE its dtype (for creation ops).
    arrays: {position: numpy array or NDArray} used instead of building that position's Tensor.
    numpy_arrays: mx.np ndarrays instead of NDArrays (the numpy interface's entries).
    """
    # Deferred: the catalogue imports nothing, but keep this module importable on its own.
    from .catalogue import CTX, DTYPE, Input, Tensor
    rng = seed_everything()
    arrays = arrays or {}
    merged = dict(extra_kwargs or {}, **case.kwargs)
    args = [given_array(arrays[i], t, ctx, numpy_arrays) if i in arrays
            else build_tensor(t, dtype, ctx, rng, numpy_arrays)
            for i, t in enumerate(case.inputs)]
    grads = [a for a, t in zip(args, case.inputs) if t.grad]
    kwargs = {}
    for key in sorted(k for k, v in merged.items() if isinstance(v, Tensor)):
        kwargs[key] = build_tensor(merged[key], dtype, ctx, rng, numpy_arrays)
        if merged[key].grad:
            grads.append(kwargs[key])
    # A tuple of Tensors is a tuple of arrays (x[rows, cols]: a tuple of index arrays).
    for key in sorted(k for k, v in merged.items() if not isinstance(v, Tensor)
                      and isinstance(v, tuple) and v and all(isinstance(t, Tensor) for t in v)):
        kwargs[key] = tuple(build_tensor(t, dtype, ctx, rng, numpy_arrays)
                            for t in merged[key])

    def resolve(value):
        if isinstance(value, list):
            return [resolve(v) for v in value]
        if isinstance(value, Input):
            return args[value.key] if isinstance(value.key, int) else kwargs[value.key]
        if value is CTX:
            return ctx
        if value is DTYPE:
            return dtype
        return value

    for key, value in merged.items():
        if key not in kwargs:
            kwargs[key] = resolve(value)
    sync(args + [v for v in kwargs.values() if hasattr(v, "wait_to_read")])
    return args, kwargs, grads


# --- what a call needs: memory ---------------------------------------------------------------
# Running holds, beyond the inputs, this many times their bytes: the inputs' gradients, the
# output (as large as an input for elementwise operators), its head gradient, and one more
# for the operator's workspace. Meant to overestimate: a refused run that would have fitted
# costs a smaller shape; one that does not fit swaps or is killed after minutes. Outputs far
# larger than the inputs (an outer product) are not foreseen.
RUN_MEMORY_MULTIPLE = 4
# build_tensor goes through numpy: float64 values, then a copy in the input's dtype.
NUMPY_VALUE_BYTES = 8


def memory_needed(case, dtype, arrays=None):
    """(bytes a call of a case may need at its peak, bytes of its inputs), before any is built.

    The peak is the larger of building (the inputs and their gradients, plus the numpy values
    of the largest input built) and running (see RUN_MEMORY_MULTIPLE). arrays: the positions
    given as arrays (build_call's `arrays`), which exist already and need no building.
    """
    from .catalogue import INFERRED, Tensor
    tensors = list(enumerate(case.inputs)) + sorted(
        (k, v) for k, v in case.kwargs.items() if isinstance(v, Tensor))
    inputs = build_scratch = 0
    for key, tensor in tensors:
        elements = 1
        for n in tensor.shape:
            # An INFERRED dimension (a parameter vector such as GroupNorm's gamma) is not
            # known before mxnet is asked: counted as 1, next to the data it is negligible.
            elements *= 1 if n is INFERRED else int(n)
        size = itemsize(tensor.dtype or dtype)
        inputs += elements * size
        if key not in (arrays or {}):
            build_scratch = max(build_scratch, elements * (NUMPY_VALUE_BYTES + size))
    return max(2 * inputs + build_scratch, (1 + RUN_MEMORY_MULTIPLE) * inputs), inputs


# --- calling operators -------------------------------------------------------------------------
# Strict mode (MXBENCH_STRICT=1; tests/test_smoke.py sets it): an MXNetError from one of our
# calls (the first call in setup, or a backward) is a failure, because on the release the
# catalogue is written for it means our inputs are wrong. Otherwise (asv over old releases) it
# is a skip: that release rejects the case (an argument, dtype or gradient it did not have
# yet), which is not a regression.
STRICT = os.environ.get("MXBENCH_STRICT", "") not in ("", "0")


def heads(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


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


def timed_calls(work, runs, warmup, before=None):
    """Seconds taken by each of `runs` calls of work(), after `warmup` untimed calls.

    work() must end in a sync, or the clock would stop before the computation does.
    before() runs ahead of every call, off the clock (the recorded forward of a backward
    timed alone). asv times the asv benchmarks itself; this loop is for runs without it.
    """
    samples = []
    for i in range(warmup + runs):
        if before is not None:
            before()
        start = time.perf_counter()
        work()
        elapsed = time.perf_counter() - start
        if i >= warmup:
            samples.append(elapsed)
    return samples


# --- kernel time: MXNet's aggregate profiler (ad-hoc runs' --profile) ------------------------
def profiler_problem():
    """Why MXNet's aggregate profiler cannot be used here, or None."""
    profiler = getattr(mx, "profiler", None)
    if profiler is None or not hasattr(profiler, "set_config") or not hasattr(profiler, "dumps"):
        return ("mxnet %s has no aggregate profiler (mx.profiler.set_config(aggregate_stats="
                "True) and mx.profiler.dumps() arrived in later 1.x releases; 1.0.x has "
                "neither): --profile gives no kernel times here" % mx.__version__)
    return None


def parse_operator_table(text):
    """Rows of the 'operator' section of mx.profiler.dumps(): name, count, total_ms, avg_ms."""
    rows, in_section = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped == "operator":
            in_section = True
            continue
        if not in_section or not stripped or stripped.startswith(("=", "-", "Name")):
            if in_section and rows and not stripped:
                break  # a blank line ends the section
            continue
        parts = stripped.rsplit(None, 5)
        if len(parts) == 6:
            rows.append({"name": parts[0], "count": int(parts[1]), "total_ms": float(parts[2]),
                         "avg_ms": float(parts[5])})
    return rows


def registered_names(name):
    """Names the profiler may give the forward kernel: 'softmax', '_linalg_gemm2', ..."""
    head, _, tail = name.partition(".")
    names = {name, name.split(".")[-1]}
    if tail:
        names.add("_%s_%s" % (head, tail))
    if name.startswith(("linalg_", "contrib_", "random_", "image_", "sparse_")):
        names.add("_" + name)
    return names


def kernel_phase(row_name, op_names):
    """forward, backward or other: what a row of the profiler's table belongs to."""
    if row_name.startswith("_backward"):
        return "backward"
    return "forward" if row_name in op_names else "other"


def profile_kernels(name, call, runs, backward):
    """Kernel time per call from MXNet's aggregate profiler (seconds), plus its rows."""
    problem = profiler_problem()
    if problem:
        return {"available": False, "message": problem}
    profiler = mx.profiler
    workdir = tempfile.mkdtemp(prefix="mxbench-profile-")
    try:
        profiler.set_config(profile_imperative=True, profile_symbolic=True,
                            aggregate_stats=True, filename=os.path.join(workdir, "prof.json"))
        profiler.dumps(reset=True)  # drop what earlier rows left
        profiler.set_state("run")
        try:
            for _ in range(runs):
                call.forward()
            for _ in range(runs if backward else 0):
                call.forward_backward()
            mx.nd.waitall()
        finally:
            profiler.set_state("stop")
        table = profiler.dumps(reset=True)
    except Exception as exc:  # an older profiler API: say so instead of failing the row
        return {"available": False, "message": "profiler: %s" % one_line(exc)}
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    rows = parse_operator_table(table)
    for row in rows:
        row["phase"] = kernel_phase(row["name"], registered_names(name))
    calls = {"forward": runs * (2 if backward else 1), "backward": runs if backward else 0}
    per_call = {}
    for phase, count in calls.items():
        total_ms = sum(r["total_ms"] for r in rows if r["phase"] == phase)
        per_call[phase] = total_ms / 1000.0 / count if count and total_ms else None
    return {"available": True, "message": "", "forward_seconds": per_call["forward"],
            "backward_seconds": per_call["backward"], "rows": rows}


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


# Operator-specific preparation, named by a catalogue entry's `prepare`.
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

# setup() runs before every asv sample: build each (benchmark, params) once per process.
_CALLS = {}


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


def build_operator_call(op, shape, dtype, ctx, case=None, overrides=None, arrays=None):
    """The call for a catalogue entry at one parameter point, inputs built, not yet run.

    Ad-hoc runs give their own `case` (inputs of other shapes; `shape` then only names it),
    `overrides` (arguments over the entry's and the case's, passed as they are: a wrong one is
    MXNet's error to report) and `arrays` ({position: array} used instead of building).
    Raises NotImplementedError (asv: skipped) when this MXNet lacks the operator or one of
    the entry's arguments.
    """
    if op.prepare:
        PREPARE[op.prepare]()
    if getattr(op, "covers", None):  # a catalogue_registry entry: its own call kinds
        from . import _harness_registry
        return _harness_registry.build_call(op, shape, dtype, ctx, case, overrides, arrays)
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


# --- the numpy interface: mx.np / mx.npx entries (catalogue_np.py) ----------------------------
NUMPY_CALLS = ("np", "npx")  # as catalogue.NUMPY_CALLS
NUMPY_SINCE = (1, 6, 0)
# Functions that take their arrays as one sequence (concatenate([a, b])): the case's inputs.
NUMPY_SEQUENCE_FUNCTIONS = ("concatenate", "stack", "column_stack", "dstack", "hstack", "vstack")
# Arguments a function takes positionally before its arrays (einsum(subscripts, *operands)).
NUMPY_LEADING_ARGUMENTS = {"einsum": "subscripts"}
# Arguments MXNet 2.0 renamed (the array API's names): passed under the name the release takes.
NUMPY_RENAMED_ARGUMENTS = (("ctx", "device"), ("rcond", "rtol"))
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
    from ._harness_registry import check_release
    check_release(op)  # MXNet 2.0's new functions: a skip with the reason before 2.0
    fn = numpy_function(op)
    from .catalogue_np import KNOWN_CRASHES
    crash = KNOWN_CRASHES.get(op.class_name)
    if crash and release_tuple() >= crash[0]:
        raise NotImplementedError("crashes the process in mxnet %s: %s"
                                  % (mx.__version__, crash[1]))
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


def prepare_call(op, shape, dtype, ctx):
    """The ready-to-run call for a catalogue entry at one parameter point, warmed up.

    Raises NotImplementedError (asv: skipped) when this MXNet lacks the operator, or, outside
    strict mode, when it rejects the case.
    """
    key = (op.class_name, shape, dtype, str(ctx))
    if key in _CALLS:
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
