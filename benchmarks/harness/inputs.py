"""Inputs: seeded values for a catalogue Tensor's fill, the on-disk input cache, NDArrays
(or mx.np arrays) for a case, and the memory a case needs before anything is built.

Runs inside benchmark environments: Python 3.7 syntax, mxnet only through environment.
"""
import os
import tempfile

import numpy as np

from ..catalogue.entries import CTX, DTYPE, INFERRED, Input, Tensor
from .environment import BFLOAT16, SEED, _lookup, mx, one_line, sync


def seed_everything():
    np.random.seed(SEED)
    if mx is not None:
        mx.random.seed(SEED)
    return np.random.RandomState(SEED)


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
# Each entry has its values' digest beside it (KEY.npz, KEY.digest), written with it: an entry
# whose values are not what was drawn (rewritten, or kept without a digest) is drawn again,
# since a benchmark cannot tell NaN inputs from real ones by their shape, dtype or key.
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


def _digest(values, state):
    """The digest of a kept draw: its values (dtype, shape, bytes) and the generator's state
    after it. blake2b: 0.7-1 GB/s on one core here (measured: docs/measurement.md)."""
    import hashlib
    digest = hashlib.blake2b(digest_size=20)
    digest.update(("%s|%r|%d|%d|%r" % ((values.dtype.str, values.shape) + tuple(state[2:])))
                  .encode())
    digest.update(np.ascontiguousarray(state[1], dtype=np.uint32).tobytes())
    digest.update(np.ascontiguousarray(values))  # its buffer, not a copy
    return digest.hexdigest()


def _read_text(path):
    try:
        with open(path) as fh:
            return fh.read().strip()
    except (OSError, ValueError):
        return None


def _write_atomic(folder, path, write):
    """write(fh) into a temporary file of `folder`, then renamed to `path`."""
    handle, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as fh:
            write(fh)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


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
    key = _draw_key(what, rng)
    path, digest_path = (os.path.join(folder, key + suffix) for suffix in (".npz", ".digest"))
    try:
        with np.load(path, allow_pickle=False) as kept:
            values = kept["values"]
            state = ("MT19937", kept["keys"], int(kept["pos"]), int(kept["has_gauss"]),
                     float(kept["gauss"]))
        if values.shape == tuple(shape) and (out_dtype is None
                                             or values.dtype == np.dtype(out_dtype)) \
                and _read_text(digest_path) == _digest(values, state):
            np.empty(shape, dtype=np.float64)  # the draw's scratch, freed (see above)
            rng.set_state(state)
            return values
    except Exception:  # not kept yet, or a bad file (any way a zip can be): drawn again
        pass
    values = draw_as()
    state = rng.get_state()
    _, keys, pos, has_gauss, gauss = state
    try:
        if not os.path.isdir(folder):
            os.makedirs(folder)
        if _cache_size(folder) + values.nbytes <= INPUT_CACHE_LIMIT:
            # the digest last: an entry is read only once both are written
            _write_atomic(folder, path, lambda fh: np.savez(
                fh, values=values, keys=keys, pos=pos, has_gauss=has_gauss, gauss=gauss))
            digest = _digest(values, state)
            _write_atomic(folder, digest_path, lambda fh: fh.write(digest.encode()))
    except OSError:  # a full or read-only disk: this process drew its values anyway
        pass
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
    return any(n is INFERRED for n in tensor.shape)


def infer_shapes(name, case, kwargs):
    """The case with each INFERRED input shape replaced by the one the operator's shape
    inference gives from the other inputs and the scalar arguments (kwargs: the entry's and
    the case's). GroupNorm's gamma: (num_groups,) in mxnet 1.x, (channels,) in 2.0."""
    if not any(inferred(t) for t in case.inputs):
        return case
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
