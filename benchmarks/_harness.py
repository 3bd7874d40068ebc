"""What every benchmark shares: the guarded mxnet import, build status, contexts, inputs, sync.

Runs inside benchmark environments (Python 3.7+, any MXNet 1.0-1.9.1), so it must import
everywhere: no mxnet attribute is touched at import time, and nothing newer than 3.7 syntax.
"""
import json
import os
import re
import sys

import numpy as np

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
BUILD_MARKER = "mxbench-build.json"
# With MXBENCH_NO_BUILD=fail a missing build is a failure (null) instead of a skip (NaN):
# `asv find` walks past failed commits but would bisect on NaN ones (env_matrix find sets it).
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
        num_gpus = getattr(getattr(mx, "context", None), "num_gpus", None)
        count = 0
        if num_gpus is not None:
            try:
                count = num_gpus()
            except Exception:
                count = 0
        if count < 1:
            raise NotImplementedError("no GPU visible to this MXNet build")
        return mx.gpu(0)
    raise ValueError("unknown device %r" % (device,))


def operator_function(name):
    """mx.nd.<name>, or a skip if this release does not have it."""
    fn = getattr(mx.nd, name, None)
    if fn is None:
        # Namespaced names ("linalg.gemm2", "contrib.foo") live in submodules.
        head, _, tail = name.partition(".")
        fn = getattr(getattr(mx.nd, head, None), tail, None) if tail else None
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
def _status_kib(field):
    with open("/proc/self/status") as fh:
        match = re.search(r"^%s:\s+(\d+) kB" % field, fh.read(), re.M)
    return int(match.group(1)) if match else None


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
    inputs built in setup: it is the memory the operator call itself made resident.
    """
    if not reset_peak_rss():
        raise NotImplementedError("peak RSS cannot be reset on this system")
    before = _status_kib("VmRSS")
    work()
    return max(0, (_status_kib("VmHWM") - before)) * 1024


# --- inputs ----------------------------------------------------------------------------------
def _values(tensor, dtype, rng):
    shape = tensor.shape
    if tensor.fill == "normal":
        return rng.standard_normal(shape)
    if tensor.fill == "uniform":
        return rng.uniform(-1.0, 1.0, shape)
    if tensor.fill == "positive":
        return rng.uniform(0.1, 2.0, shape)
    if tensor.fill == "ones":
        return np.ones(shape)
    if tensor.fill == "index":
        return rng.randint(0, tensor.high, shape)
    if tensor.fill == "spd":  # symmetric positive definite along the last two axes
        a = rng.standard_normal(shape)
        n = shape[-1]
        return np.matmul(a, np.swapaxes(a, -1, -2)) / n + np.eye(n)
    raise ValueError("unknown fill %r" % (tensor.fill,))


def build_inputs(case, dtype, ctx):
    """NDArrays for a catalogue case, from the fixed seed; float inputs get gradient buffers."""
    rng = seed_everything()
    arrays, grads = [], []
    for tensor in case.inputs:
        tdtype = tensor.dtype or dtype
        arr = mx.nd.array(_values(tensor, tdtype, rng).astype(tdtype), ctx=ctx, dtype=tdtype)
        if tensor.grad:
            arr.attach_grad()
            grads.append(arr)
        arrays.append(arr)
    sync(arrays)
    return arrays, grads
