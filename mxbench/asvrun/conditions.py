"""The machine's conditions around a recording: its load, and a speed reference.

A recording is a measurement: other work on the machine (a test run, a build, another
session) slows the benchmarks and the history then shows a change that MXNet never made.
So every recording (`runner.record`) first samples the machine for a moment and refuses to
start when other processes use the CPU (`--allow-busy`, or MXBENCH_ALLOW_BUSY=1, records
anyway and the record says so); while it runs, a thread keeps sampling; before and after,
three fixed workloads that do not depend on MXNet (Python call dispatch, a NumPy GEMM, a
memory copy, in the tool venv: the same interpreter and NumPy for every release) measure
how fast the machine itself is that day. One line per recording goes to
`<results>/<machine>/conditions.jsonl` (asv reads only `*.json`), and the reports set a
release's change beside the machine's own change between the two records.

Linux only (/proc); elsewhere the figures are None and nothing is refused.
"""
import json
import os
import subprocess
import sys
import threading
import time

from benchmarks.catalogue import crashes as known_crashes
from mxbench.core import counting, results
from mxbench.core.errors import UserError

# Other processes' CPU use, in cores, above which the machine counts as busy: an idle VM
# here shows 0.00-0.05 cores of agents and kernel threads; one stray test run uses a whole
# core. Steal: a hypervisor that takes this share of the CPU from the VM.
BUSY_CORES = 0.25
BUSY_STEAL = 0.10
SAMPLE_SECONDS = 2.0  # the look before a recording starts: at least this long
LOOK_AT_MOST = 10.0  # ... and at most this long
DURING_INTERVAL = 5.0  # seconds between looks while it runs
ALLOW_BUSY_ENV = "MXBENCH_ALLOW_BUSY"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


# --- load ---------------------------------------------------------------------------------------
def _cpu_ticks():
    """(busy, steal, total) ticks of all CPUs since boot, or None off Linux."""
    try:
        with open("/proc/stat") as fh:
            fields = [int(x) for x in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal (guest time is inside user already)
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    steal = fields[7] if len(fields) > 7 else 0
    total = sum(fields[:8])
    return total - idle - steal, steal, total


def _tree_ticks(root_pid):
    """CPU ticks of `root_pid` and every live descendant, with what each has reaped (a
    finished child's time moves into its parent's cutime/cstime, so nothing counts twice)."""
    parents, ticks = {}, {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as fh:
                text = fh.read()
        except OSError:
            continue
        fields = text[text.rfind(")") + 2:].split()  # the command name may hold spaces
        pid = int(name)
        parents[pid] = int(fields[1])
        ticks[pid] = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    inside, total = {root_pid}, 0
    changed = True
    while changed:
        changed = False
        for pid, parent in parents.items():
            if parent in inside and pid not in inside:
                inside.add(pid)
                changed = True
    for pid in inside:
        total += ticks.get(pid, 0)
    return total


def _loadavg():
    try:
        with open("/proc/loadavg") as fh:
            return float(fh.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


class LoadProbe(object):
    """Other processes' CPU use between two looks: everything busy on the machine minus this
    process tree (mxbench, asv and the benchmarks it runs)."""

    def __init__(self, root_pid=None):
        self.root_pid = root_pid or os.getpid()
        self.start = self._look()

    def _look(self):
        cpu = _cpu_ticks()
        if cpu is None:
            return None
        return time.time(), cpu, _tree_ticks(self.root_pid)

    def figures(self):
        """{'other_cores', 'steal', 'load_1min', 'seconds'} since the last call (or the
        start); the figures are None off Linux."""
        now = self._look()
        before, self.start = self.start, now
        if before is None or now is None:
            return {"other_cores": None, "steal": None, "load_1min": _loadavg(), "seconds": 0}
        (t0, (busy0, steal0, total0), ours0), (t1, (busy1, steal1, total1), ours1) = before, now
        seconds = max(t1 - t0, 1e-6)
        others = max(0, (busy1 - busy0) - (ours1 - ours0)) / float(CLOCK_TICKS)
        elapsed_ticks = max(total1 - total0, 1)
        return {"other_cores": round(others / seconds, 3),
                "steal": round((steal1 - steal0) / float(elapsed_ticks), 3),
                "load_1min": _loadavg(), "seconds": round(seconds, 1)}


def is_busy(figures):
    return bool((figures.get("other_cores") or 0) > BUSY_CORES
                or (figures.get("steal") or 0) > BUSY_STEAL)


def busy_text(figures):
    return ("other processes use %.2f cores (limit %.2f), steal %.0f %% (limit %.0f %%), "
            "load average %s" % (figures.get("other_cores") or 0, BUSY_CORES,
                                 100 * (figures.get("steal") or 0), 100 * BUSY_STEAL,
                                 figures.get("load_1min")))


_begun = None  # the look begun at the command's start, or at the last recording's end


def begin_look():
    """Begin the look before the next recording now: the command's own preparation
    (discovery, selection, staging) then runs inside it instead of before it; the probe leaves
    this process tree's CPU out, so it reads other processes alone."""
    global _begun
    _begun = LoadProbe()


def look_before(seconds=SAMPLE_SECONDS):
    """Other processes' use over at least `seconds` before now: since the look begun (when it
    is no older than LOOK_AT_MOST: a longer window would thin out a load that just started),
    else a fresh look that waits them out."""
    global _begun
    probe, _begun = _begun, None
    if probe is None or probe.start is None or time.time() - probe.start[0] > LOOK_AT_MOST:
        probe = LoadProbe()
    begun = probe.start[0] if probe.start is not None else time.time()  # None off Linux
    time.sleep(max(0.0, seconds - (time.time() - begun)))
    return probe.figures()


class DuringRun(object):
    """Samples the load every DURING_INTERVAL seconds in a thread; summary() gives the mean
    and the worst look."""

    def __init__(self):
        self.looks = []
        self._stop = threading.Event()
        self._probe = LoadProbe()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self):
        while not self._stop.wait(DURING_INTERVAL):
            self.looks.append(self._probe.figures())

    def summary(self):
        self._stop.set()
        self._thread.join(timeout=DURING_INTERVAL + 1)
        self.looks.append(self._probe.figures())
        looks = [x for x in self.looks if x["other_cores"] is not None and x["seconds"] > 0]
        if not looks:
            return {"other_cores_mean": None, "other_cores_max": None, "steal_max": None,
                    "busy_looks": 0, "looks": 0}
        seconds = sum(x["seconds"] for x in looks)
        return {"other_cores_mean": round(sum(x["other_cores"] * x["seconds"] for x in looks)
                                          / seconds, 3),
                "other_cores_max": max(x["other_cores"] for x in looks),
                "steal_max": max(x["steal"] for x in looks),
                "busy_looks": sum(is_busy(x) for x in looks), "looks": len(looks)}


# --- the machine's own speed ----------------------------------------------------------------
REFERENCE_SCRIPT = r"""
import json, timeit
import numpy as np
def best(stmt, number, repeat=7):
    return min(timeit.repeat(stmt, number=number, repeat=repeat)) / number
def nothing():
    pass
n = 256
a = np.random.RandomState(0).rand(n, n); b = a.copy()
src = np.ones(4 * 1024 * 1024); dst = np.empty_like(src)   # 32 MiB each
print(json.dumps({
    "python_call_ns": round(best(nothing, 20000) * 1e9, 2),
    "numpy_gemm_gflops": round(2.0 * n ** 3 / best(lambda: a.dot(b), 10) / 1e9, 3),
    "memory_copy_gbs": round(2 * src.nbytes / best(lambda: np.copyto(dst, src), 5) / 1e9, 3),
}))
"""
# what each figure means, and which way is faster (the reports' ratio: > 1 = slower machine)
REFERENCE = {"python_call_ns": ("Python call dispatch, ns a call", "lower"),
             "numpy_gemm_gflops": ("NumPy 256x256 float64 GEMM, one thread, GFLOP/s", "higher"),
             "memory_copy_gbs": ("32 MiB copy, GB/s read+write", "higher")}


def reference_figures():
    """The three workloads in a fresh interpreter of the tool venv, one BLAS thread; None for
    each when they cannot run."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    try:
        out = subprocess.run([sys.executable, "-c", REFERENCE_SCRIPT], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             universal_newlines=True, timeout=120)
        return json.loads(out.stdout)
    except (OSError, ValueError, subprocess.SubprocessError):
        return dict((name, None) for name in REFERENCE)


def slowdown(before, after):
    """{figure: how much slower the machine was at `after` than at `before` (> 1: slower)}
    for the figures both have."""
    out = {}
    for name, (_, better) in REFERENCE.items():
        a, b = (before or {}).get(name), (after or {}).get(name)
        if a and b:
            out[name] = b / a if better == "lower" else a / b
    return out


# --- the hardware -------------------------------------------------------------------------------
# /proc/cpuinfo is read from this file instead when it is set (a test of another CPU kind):
# one reader, the harness's, so the host and the known crashes see the same CPU
CPUINFO_ENV = known_crashes.CPUINFO_VARIABLE
OTHER_CPU_ENV = "MXBENCH_OTHER_CPU"
read_cpuinfo = known_crashes.cpuinfo_text


def cpu_kind(identity):
    """(vendor, family, model) of a cpu_identity: what a CPU kind is here (a history, a
    known crash and a verdict belong to one); None when unknown."""
    kind = tuple((identity or {}).get(k) for k in ("vendor", "family", "model"))
    return kind if all(kind) else None


def cpu_kind_text(kind):
    """'AuthenticAMD family 25 model 17'."""
    return "%s family %s model %s" % kind if kind else "an unrecorded CPU"


def recorded_cpu_kinds(store, machine, commit=None, env_name=None):
    """The CPU kinds (sorted) that the recordings of a machine (of one result file, with
    commit and env_name) were made on, as their conditions log says; [] before the log
    named CPUs. Every recording counts, a few re-recorded points (--bench) too."""
    entries = store.conditions(machine, commit, env_name)
    return sorted(set(k for k in (cpu_kind(e.get("cpu")) for e in entries) if k))


def recordings_note(store, machine, sides):
    """What a report that sets recordings side by side must say of them: two CPU kinds, or a
    busy recording, among every recording that measured each side (a few points re-recorded
    with --bench included: they replaced timings of the record). sides: [(label, commit,
    env_name)]. '' when neither."""
    kinds, busy = {}, []
    for label, commit, env_name in sides:
        entries = store.conditions(machine, commit, env_name)
        kinds[label] = sorted(set(k for k in (cpu_kind(e.get("cpu")) for e in entries) if k))
        if any(e.get("busy") for e in entries):
            busy.append(label)
    parts = []
    if len(set(k for found in kinds.values() for k in found)) > 1:
        parts.append("recorded on two kinds of CPU: %s" % " against ".join(
            "%s on %s" % (label, " and ".join(map(cpu_kind_text, found)) or "an unrecorded CPU")
            for label, found in kinds.items()))
    if busy:
        parts.append("recorded on a busy machine: %s" % ", ".join(busy))
    return "; ".join(parts)


def allow_other_cpu_from_env():
    return os.environ.get(OTHER_CPU_ENV, "") not in ("", "0")


def cpu_identity(cpuinfo=None):
    """The first CPU as /proc/cpuinfo describes it beneath its model name: vendor, family,
    model, stepping and the widest vector extension. A cloud VM's model name can be only the
    product line: "AMD EPYC" named both an AVX2-only host and an AVX-512 one (family 25,
    model 17) here, 1.3-2x apart in the reference workloads. {} without /proc/cpuinfo."""
    fields = known_crashes.first_cpu_fields(read_cpuinfo() if cpuinfo is None else cpuinfo)
    if not fields:
        return {}
    flags = fields.get("flags", "").split()
    vector = next((v for v, flag in VECTOR_EXTENSIONS if flag in flags), "none")
    return {"vendor": fields.get("vendor_id"), "family": fields.get("cpu family"),
            "model": fields.get("model"), "stepping": fields.get("stepping"),
            "vector": vector}


# the widest first: (the name machine_name and the conditions log use, its cpuinfo flag)
VECTOR_EXTENSIONS = (("avx512", "avx512f"), ("avx2", "avx2"), ("avx", "avx"), ("sse4", "sse4_2"))


# --- around a recording -----------------------------------------------------------------------
def allow_busy_from_env():
    return os.environ.get(ALLOW_BUSY_ENV, "") not in ("", "0")


def require_quiet(allow_busy=False):
    """Look at the machine before a measurement: busy is a UserError unless allowed (then a
    warning). Returns the figures."""
    before = look_before()
    if is_busy(before):
        if not (allow_busy or allow_busy_from_env()):
            raise UserError("the machine is busy: %s; a recording beside other work reads "
                            "it as a slower release. Wait, or record anyway with "
                            "--allow-busy (the record is then marked busy)" % busy_text(before))
        print("warning: recording on a busy machine (%s): the record is marked busy"
              % busy_text(before), file=sys.stderr, flush=True)
    return before


class Watch(object):
    """Everything a recording notes about its machine: start() refuses a busy machine
    (unless allowed), finish() writes the log line."""

    def __init__(self, store, machine, allow_busy=False):
        self.store, self.machine = store, machine
        self.allow_busy = allow_busy or allow_busy_from_env()
        self.entry = None
        self.during = None

    def start(self, commits, env_names, command):
        before = require_quiet(self.allow_busy)
        busy = is_busy(before)
        self.entry = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                      "command": command, "commits": list(commits),
                      "env_names": sorted(env_names), "load_before": before,
                      "busy": busy, "allowed_busy": bool(self.allow_busy),
                      "cpu": cpu_identity(), "reference_before": reference_figures(),
                      # the counts this recording makes compare only with counts of it
                      counting.FIELD: counting.current()}
        self.during = DuringRun()

    def finish(self, outcome):
        if self.entry is None:
            return
        during = self.during.summary()
        self.entry.update({"ended": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                           "outcome": outcome, "load_during": during,
                           "reference_after": reference_figures()})
        self.entry["busy"] = bool(self.entry["busy"] or during["busy_looks"])
        try:
            append_entry(self.store, self.machine, self.entry)
        except OSError as exc:
            # results/ that cannot be written (disk full, read-only) is the recording's own
            # error to report; the log line is not a measurement and must not replace it
            print("warning: the conditions of this recording could not be written to %s (%s)"
                  % (self.store.conditions_path(self.machine), exc.strerror or exc),
                  file=sys.stderr, flush=True)
        self.entry = None
        begin_look()  # a command's next recording looks from here


def append_entry(store, machine, entry):
    path = store.conditions_path(machine)
    entries = results.read_conditions_log(path)
    results.write_conditions_log(path, entries + [entry])
