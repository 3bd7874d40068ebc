"""Every benchmark at every parameter point, once, on the installed MXNet (no asv).

Each generated class is instantiated and driven the way asv_runner drives it: setup, every
time_/track_ method once, teardown. NotImplementedError from setup is a skip, as in asv, with
one difference: strict mode (the default here; MXBENCH_STRICT=0 turns it off, for runs on old
releases) makes an MXNetError from our calls a failure, allows no skip but "no GPU", and
requires finite outputs and gradients. So bad catalogue inputs fail this test instead of
turning into silent NaNs or n/a in asv.

By default each class runs its first shape class (usually `small`) with every dtype, mode and
device, so every entry is called forward and backward at least once per dtype in about half
the time; MXBENCH_SMOKE_FULL=1 runs every shape class (medium, tall, wide, large) too, as
tests/test_mx20.py does:

    MXBENCH_SMOKE_FULL=1 .venv/bin/python -m pytest tests/test_smoke.py -q

GPU points skip unless this MXNet sees a GPU. Entries marked `isolate` in the catalogue (with a
history of crashing the process) run in a child process, so a crash fails one test only.

    .venv/bin/python -m pytest tests/test_smoke.py -x -q
"""
import itertools
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent

from benchmarks import harness as H
from benchmarks.harness import environment as HE
from benchmarks import bench_gluon, bench_memory, bench_operators
from benchmarks import catalogue as C

# Strict unless MXBENCH_STRICT=0. Set on the harness for this module only (strict_harness):
# another test module may have imported it first, with the environment's default (lenient).
STRICT = os.environ.get("MXBENCH_STRICT", "1") not in ("", "0")
ISOLATED_TIMEOUT = 300
# Every shape class, or (default) each class's first: see the module doc.
FULL = os.environ.get("MXBENCH_SMOKE_FULL", "") not in ("", "0")
# In strict mode the only skip that is not ours to fix: no GPU. (A missing operator or Gluon
# class is a skip on old releases, but on the release the catalogue is written for, a typo.)
# catalogue_registry entries of one release or build only: since/until, and the opt-in
# int64 large-tensor entries (builds with INT64_TENSOR_SIZE); catalogue/known_crashes.jsonl.
ALLOWED_SKIPS = ("no GPU visible", "arrived in mxnet", "was removed in mxnet",
                 "int64 large-tensor entry", "crashes the process in mxnet",
                 "this CPU has no AVX-512, which oneDNN's bfloat16 kernels need")


def benchmark_methods(cls):
    return sorted(name for name in dir(cls) if name.startswith(("time_", "track_")))


# Outputs that are not results, by entry: (indices, why).
UNCHECKED_OUTPUTS = {
    "LeakyReLU_rrelu": (1,),  # the random-slope mask: left unwritten outside training
    "masked_log_softmax": (0,),  # -inf where masked: log(0), by definition
}


def non_finite(arrays):
    """Names of float arrays holding NaN or infinity (bad inputs often show up this way)."""
    bad = []
    for i, arr in enumerate(arrays):
        if not hasattr(arr, "asnumpy"):  # a Python answer (np.shares_memory: a bool)
            continue
        values = arr.asnumpy()
        if np.issubdtype(values.dtype, np.floating) and not np.isfinite(values).all():
            bad.append("#%d %s %s" % (i, values.dtype, values.shape))
    return bad


def check_finite(bench, params):
    """Operator benchmarks: outputs and gradients are finite, so the inputs are in domain."""
    call = getattr(bench, "call", None)
    if call is None or not STRICT or H.BFLOAT16 in params:
        return  # bfloat16: asnumpy() gives raw uint16, and the method says what this CPU runs
    outputs = H.heads(call.forward())
    if len(outputs) == 1 and outputs[0] is None:  # in place (x[key] = value): the result is the updated input
        outputs = call.args[:1]
    unchecked = UNCHECKED_OUTPUTS.get(bench.operator.class_name, ())
    bad = non_finite([o for i, o in enumerate(outputs) if i not in unchecked])
    assert not bad, "non-finite outputs %s" % bad
    # a backward known to kill the process here (known_crashes.jsonl) is not run: its
    # benchmark method skips, and this check would take the test process with it
    if bench.operator.backward and "time_forward_backward" not in H.crashing_methods(
            bench.operator, params[0]):
        call.forward_backward()
        grads = [g.grad for g in call.grads] if hasattr(call, "grads") else \
            [g for g in call.exe.grad_arrays if g is not None]
        bad = non_finite(grads)
        assert not bad, "non-finite gradients %s" % bad


def run_point(cls, params):
    """Drive one parameter point; returns None, or the skip message."""
    bench = cls()
    try:
        bench.setup(*params)
    except NotImplementedError as exc:
        return str(exc) or "NotImplementedError"
    skipped = []
    try:
        check_finite(bench, params)
        for name in benchmark_methods(cls):
            try:
                getattr(bench, name)(*params)
            except NotImplementedError as exc:  # H.skip() from a method (non-strict only)
                skipped.append("%s: %s" % (name, exc))
    finally:
        teardown = getattr(bench, "teardown", None)
        if teardown is not None:
            teardown(*params)
    return "; ".join(skipped) or None


def points(cls):
    """The parameter points to drive: all of them with FULL, else the first shape class's."""
    params = list(cls.params)
    if not FULL and cls.param_names[:1] == ["shape"]:
        params[0] = params[0][:1]
    return itertools.product(*params)


def run_class(cls):
    """The parameter points of one class (points()); returns [(params, skip message)] for the
    skips."""
    skips = []
    for params in points(cls):
        try:
            message = run_point(cls, params)
        except Exception as exc:
            raise AssertionError("%s%r: %s: %s" % (cls.__name__, params, type(exc).__name__,
                                                   H._first_line(exc)))
        if message is not None:
            skips.append((params, message))
    return skips


def check_skips(cls, skips):
    """In strict mode, every skip must be the machine's or the release's, not ours."""
    if not STRICT:
        return
    ours = [(p, m) for p, m in skips if not any(reason in m for reason in ALLOWED_SKIPS)]
    assert not ours, "%s skipped for our own reasons: %s" % (cls.__name__, ours)


@pytest.fixture(scope="module", autouse=True)
def strict_harness():
    if H.mx is None:
        pytest.skip("mxnet does not import: %s" % H._IMPORT_ERROR)
    saved, HE.STRICT = HE.STRICT, STRICT
    H._CALLS.clear()  # nothing prepared under another mode
    yield
    HE.STRICT = saved


@pytest.mark.parametrize("op", C.OPERATORS, ids=lambda op: op.class_name)
def test_operator(op):
    name = bench_operators.global_name(op.class_name)
    modules = (bench_operators, bench_memory) if op in bench_memory.MEASURED else (bench_operators,)
    for module in modules:
        if op.isolate:
            run_isolated(module.__name__.split(".")[-1], name)
        else:
            cls = getattr(module, name)
            check_skips(cls, run_class(cls))


@pytest.mark.parametrize("block", C.BLOCKS, ids=lambda block: block.name)
def test_block(block):
    cls = getattr(bench_gluon, block.name)
    check_skips(cls, run_class(cls))


def run_isolated(module, class_name):
    """Run one class's points in a child process: a crash there fails this test only."""
    code = ("from tests import test_smoke as s\n"
            "from benchmarks import %s as m\n"
            "s.HE.STRICT = s.STRICT\n"
            "cls = getattr(m, %r)\n"
            "s.check_skips(cls, s.run_class(cls))\n" % (module, class_name))
    started = time.time()
    env = dict(os.environ, MXBENCH_STRICT="1" if STRICT else "0")
    proc = subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True,
                          timeout=ISOLATED_TIMEOUT, env=env)
    assert proc.returncode == 0, "%s.%s exited with %d after %.1fs:\n%s" % (
        module, class_name, proc.returncode, time.time() - started, proc.stdout[-3000:])


def defined_classes(module, base):
    return set(value.__name__ for value in vars(module).values()
               if isinstance(value, type) and issubclass(value, base) and value is not base)


def test_every_generated_class_is_driven():
    """The parametrized tests above reach every class the benchmark modules define."""
    assert defined_classes(bench_operators, bench_operators._OperatorBenchmark) == \
        set(op.class_name for op in C.OPERATORS)
    assert defined_classes(bench_memory, bench_memory._FirstCallMemory) == \
        set(op.class_name for op in bench_memory.MEASURED)
    assert defined_classes(bench_gluon, bench_gluon._BlockBenchmark) == \
        set(block.name for block in C.BLOCKS)


def first_call_peak_rss_in_fork(cls, params):
    """One measurement the way asv's forkserver takes it: a fork per benchmark."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: setup + the track method, then leave without cleanup
        os.close(read_end)
        bench = cls()
        bench.setup(*params)
        os.write(write_end, str(bench.track_first_call_peak_rss(*params)).encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as fh:
        value = fh.read()
    os.waitpid(pid, 0)
    return int(value)


@pytest.mark.parametrize("name, shape", [("softmax", "medium"), ("concat", "medium"),
                                         ("sum", "tall")])
def test_first_call_peak_rss_repeats(name, shape):
    """The memory metric reads the same in fresh processes (the warmed-up method it replaced
    flipped between 0 and the output size), and is not 0: the output alone is resident."""
    cls = getattr(bench_memory, name)
    values = [first_call_peak_rss_in_fork(cls, (shape, "float32")) for _ in range(4)]
    assert min(values) > 0, values
    assert max(values) <= 1.05 * min(values), values


def test_strict_mode_fails_bad_inputs_that_lenient_mode_skips():
    """dot of (4, 3) by (4, 3): our mistake. Strict: MXNetError; lenient: a skip (n/a)."""
    bad = C.Operator("dot", "gemm", [("small", C.case(C.T(4, 3), C.T(4, 3)))])
    ctx = H.context("cpu")
    saved = HE.STRICT
    try:
        HE.STRICT = True
        H._CALLS.clear()
        with pytest.raises(H.mx.base.MXNetError):
            H.prepare_call(bad, "small", "float32", ctx)
        HE.STRICT = False
        H._CALLS.clear()
        with pytest.raises(NotImplementedError, match="rejects"):
            H.prepare_call(bad, "small", "float32", ctx)
    finally:
        HE.STRICT = saved
        H._CALLS.clear()


def test_an_argument_the_release_lacks_is_a_skip_not_silently_ignored():
    """mxnet 1.1.0's norm documents only `data` and drops ord/axis without a word; its
    generated docstring is the evidence the harness reads (this one is 1.1.0's, abridged)."""
    def norm(data=None, out=None, name=None, **kwargs):
        """Flattens the input array and then computes the l2 norm.

        Parameters
        ----------
        data : NDArray
            Source input

        out : NDArray, optional
            The output NDArray to hold the result.
        """
    with pytest.raises(NotImplementedError, match="has no argument axis, ord"):
        H.check_arguments(norm, "norm", {"ord": 2, "axis": 1})
    H.check_arguments(norm, "norm", {"out": None})
    H.check_arguments(H.mx.nd.norm, "norm", {"ord": 2, "axis": 1})  # this release has both


def test_an_np_entry_runs_when_asv_sets_it_up_again_between_samples():
    """asv_runner re-runs setup between samples; setup switches the numpy semantics off and
    the call comes from the harness's cache, so an np entry with a 0-d tensor input (pinv's
    rcond) failed with 'inferring shapes failed' in every asv run (make bench on 1.9.x)."""
    from asv_runner.discovery import get_benchmark_from_name
    benchmark = get_benchmark_from_name(
        str(ROOT / "benchmarks"), "bench_operators.np_linalg_pinv_tensor.time_forward-0")
    assert benchmark._current_params == ("small", "float32", "cpu")
    assert not benchmark.do_setup()
    assert len(benchmark.do_run()["samples"]) > 1


def test_a_known_crash_skips_only_the_shape_classes_it_names():
    """npx.image.random_color_jitter segfaults on 256x256x3 (medium) within ten calls on
    1.9.x (known_crashes.jsonl): that point skips with the reason; the small one runs."""
    from benchmarks.catalogue import crashes
    op = C.by_class_name()["npx_image_random_color_jitter"]
    if not crashes.known_crash(op.class_name, H.mx.__version__, "medium"):
        pytest.skip("no known crash of mxnet %s here" % H.mx.__version__)
    with pytest.raises(NotImplementedError, match="segmentation fault"):
        H.build_operator_call(op, "medium", "float32", H.mx.cpu())
    H.build_operator_call(op, "small", "float32", H.mx.cpu()).forward()
