"""Measuring a call outside asv's own timer: a timing loop, the memory a call makes resident
(peak RSS, GPU memory) and kernel time from MXNet's profiler; and Timing, asv's settings of
the time_ benchmarks (docs/measurement.md).

Runs inside benchmark environments: Python 3.7 syntax, mxnet only through environment.
"""
import os
import re
import shutil
import tempfile
import time

from .environment import _rejected, mx, one_line, skip, sync


class Timing(object):
    """asv's timing settings of the time_ benchmarks but the model ones (bench_models sets
    its own; asv runs a track_ or peakmem_ benchmark once anyway), written out: asv's
    defaults, two rounds (each its own process) of a 0.1 s warm-up and 1-5 samples (asv_runner
    times a benchmark with a setup one call per sample). Cheaper settings measured worse
    (docs/measurement.md). Timing settings are not part of a benchmark's version: the same
    calls are measured, so the history stays one."""
    rounds = 2
    warmup_time = 0.1
    repeat = (1, 5, 10.0)


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
