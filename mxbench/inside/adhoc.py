"""Ad-hoc operator timing on the installed MXNet, without asv, from the same catalogue.

    python -m mxbench adhoc --op softmax --shape 32,1000 --dtype float16 --runs 50 --warmup 5
    python -m mxbench adhoc --category reduction --dtype float32 --case small --format csv
    python -m mxbench adhoc --all --runs 10 --format json -o all.json
    python -m mxbench adhoc --op dot --shape 512,512 --shape 512,512 --profile
    python -m mxbench adhoc --list

Library API (each row is a dict; times in seconds):

    from mxbench.inside import adhoc
    adhoc.benchmark("softmax", inputs=[(32, 1000)], dtype="float16", kwargs={"axis": -1})
    adhoc.run_operator("LeakyReLU", cases=["small"])   # every entry (other forms too) x cases x dtypes
    adhoc.run_category("reduction")
    adhoc.run_all(dtypes=["float32"])

Names are mx.nd operator names (softmax, linalg_gemm2); an operator name means its catalogue
entry and its other forms, an asv class name (LeakyReLU_elu, Convolution_3d) one form.
Inputs given as shapes are built as the asv benchmarks build them (benchmarks/harness/:
the catalogue's fill for that position, fixed seed, its keyword inputs and arguments);
numpy arrays and NDArrays are used as they are.

Three phases are timed separately, each run ending in a sync (wait_to_read):
  forward           - the call outside autograd (inference), as asv's time_forward
  backward          - the backward pass alone, after a recorded forward that is synced
                      before the clock starts
  forward_backward  - record + forward + backward, as asv's time_forward_backward
--profile adds a pass under MXNet's aggregate profiler and reports the operator kernels'
own time per call (rows named _backward_* are the backward kernels).

A row's status is ok, skipped (the operator is not in this MXNet release, or the catalogue
excludes it) or error (unknown operator, impossible shape, unsupported dtype, no GPU, inputs
too large for the memory available, ...), with a one-line message; one bad row never stops
the others. Memory is checked before anything is allocated: the inputs' bytes, with a margin
for outputs and gradients, against the memory the system says is available. Entries the
catalogue marks `isolate` (a history of crashing the process) run in a child process, so a
crash is an error row. Exit code: 0 when every row ran, 1 when some row errored, 2 on a
usage error, 130 when interrupted (Ctrl-C keeps and writes the rows that finished).

Runs in whatever Python has mxnet: Python 3.7 syntax; tqdm and tabulate are optional.
"""
import difflib
import json
import os
import signal
import subprocess
import sys
from collections import OrderedDict, namedtuple

import numpy as np

from benchmarks import catalogue as C
from mxbench.core import errors, stats, tables
from mxbench.core.formatting import human_value
from mxbench.core.lazy import harness as H
from mxbench.core.project import ROOT

# Building, running and timing a call are the harness's (adhoc is its front end for runs
# without asv); these names are read here too, as part of this module's library API.
HARNESS_NAMES = ("one_line", "profiler_problem", "parse_operator_table", "kernel_phase")


def __getattr__(name):
    if name in HARNESS_NAMES:
        return getattr(H, name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))

PHASES = ("forward", "backward", "forward_backward")
OK, SKIPPED, ERROR = "ok", "skipped", "error"
CUSTOM_CASE = "custom"
DEFAULT_RUNS = 20
DEFAULT_WARMUP = 3
CHILD_ENV = "MXBENCH_ADHOC_CHILD"  # set in the child that runs an isolated entry
CHILD_TIMEOUT = 1800


def require_writable_output(path):
    """-o is checked before anything is measured (else the measurements are lost): its
    folder must exist and be writable, and it must not be a folder."""
    if path in (None, "-"):
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError("-o %s: there is no folder %s" % (path, folder))
    if os.path.isdir(path) or not os.access(folder, os.W_OK):
        raise ValueError("-o %s: cannot be written (%s)" % (
            path, "a folder" if os.path.isdir(path) else "the folder is not writable"))


class RowProblem(Exception):
    """Ends one row with a status and a one-line message."""

    def __init__(self, status, message):
        Exception.__init__(self, message)
        self.status = status
        self.message = message


class RunResult(list):
    """The rows of a run; `interrupted` is True when Ctrl-C stopped it early."""
    interrupted = False
    planned = 0


# One unit of work. `case` is a catalogue Case (positional Tensors, keyword arguments that may
# hold Tensors); `arrays` maps positions to user arrays that replace the built ones;
# and `kwargs` the user's extra arguments.
Job = namedtuple("Job", "entry operator case_name case arrays dtype kwargs backward problem")


# --- names -----------------------------------------------------------------------------------
def entries_named(name):
    """Catalogue entries a name means: an operator (its entry and other forms) or a class name."""
    entries = [op for op in C.OPERATORS  # mx.np's entries by class name (np_dot)
               if op.name == name and op.call not in getattr(C, "NUMPY_CALLS", ())]
    if not entries and name in C.by_class_name():
        entries = [C.by_class_name()[name]]
    return entries


def main_entry(name):
    """The one entry a name means on its own: an operator's main entry, or the form named."""
    entries = entries_named(name)
    return ([op for op in entries if not op.form] or entries or [None])[0]


def excluded():
    return dict(getattr(C, "EXCLUDED", {}) or {})


def mxnet_operator_names():
    """Public mx.nd functions, namespaced ones as 'linalg.gemm2' (for suggestions)."""
    if H.mx is None:
        return []
    names = [n for n in dir(H.mx.nd) if not n.startswith("_")]
    for space in ("linalg", "contrib", "random", "image", "sparse"):
        module = getattr(H.mx.nd, space, None)
        if module is not None:
            names += ["%s.%s" % (space, n) for n in dir(module) if not n.startswith("_")]
    return names


def unknown_operator_message(name):
    known = list(OrderedDict.fromkeys(list(C.by_class_name()) + mxnet_operator_names()))
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    hint = " (did you mean: %s?)" % ", ".join(close) if close else ""
    return "unknown operator %r%s" % (name, hint)


def category_names():
    return sorted(set(op.category for op in C.OPERATORS))


def operators_in_category(category):
    ops = [op for op in C.OPERATORS if op.category == category]
    if not ops:
        close = difflib.get_close_matches(category, category_names(), n=3, cutoff=0.5)
        hint = " (did you mean: %s?)" % ", ".join(close) if close else ""
        raise ValueError("unknown category %r%s; categories: %s"
                         % (category, hint, ", ".join(category_names())))
    return ops


# --- checks that end a row -------------------------------------------------------------------
def mxnet_dtypes():
    table = getattr(getattr(H.mx.nd, "ndarray", None), "_DTYPE_NP_TO_MX", None) or {}
    names = [np.dtype(k).name for k in table if k is not None]
    return [n for n in names if n != "void16"] or ["float16", "float32", "float64", "uint8",
                                                  "int8", "int32", "int64"]


def check_dtype(dtype):
    """The dtype's canonical name, or a RowProblem when MXNet cannot hold it."""
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = None
    supported = mxnet_dtypes()
    if name not in supported:
        raise RowProblem(ERROR, "unsupported dtype %r for mxnet %s (supported: %s)"
                         % (dtype, H.mx.__version__, ", ".join(supported)))
    return name


def resolve_context(device):
    try:
        return H.context(device)
    except NotImplementedError as exc:
        raise RowProblem(ERROR, "ctx %s: %s" % (device, exc))
    except ValueError:
        raise RowProblem(ERROR, "unknown ctx %r (cpu or gpu)" % (device,))


# --- inputs ----------------------------------------------------------------------------------
def is_array(item):
    return isinstance(item, np.ndarray) or (H.mx is not None and isinstance(item, H.mx.nd.NDArray))


def dtype_name(array):
    return np.dtype(array.dtype).name


def custom_inputs(items, base_case, want_grad=True):
    """(Tensors, {position: user array}) for user inputs.

    A shape takes the catalogue's Tensor for its position (its fill, pinned dtype, bounds);
    an array gets a Tensor that describes it (the harness uses the array in its place), with
    a gradient when it is a float array and `want_grad`.
    """
    base = base_case.inputs if base_case is not None else ()
    tensors, arrays = [], {}
    for i, item in enumerate(items):
        if is_array(item):
            arrays[i] = item
            tensors.append(C.T(*item.shape, dtype=dtype_name(item),
                               grad=want_grad and is_float(item.dtype)))
            continue
        shape = tuple(int(n) for n in item)
        tensors.append(base[i]._replace(shape=shape) if i < len(base) else C.T(*shape))
    return tuple(tensors), arrays


def describe(value):
    """Keyword values for reports: inputs built from Tensors are shown by their shape."""
    if isinstance(value, C.Tensor):
        return "tensor %s" % ("x".join(str(n) for n in value.shape) or "()")
    if isinstance(value, (list, tuple)):
        return [describe(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


def merged_kwargs(job):
    """The operator's arguments: entry defaults, then the case's, then the user's."""
    merged = dict(job.operator.kwargs) if job.operator is not None else {}
    merged.update(job.case.kwargs if job.case is not None else {})
    merged.update(job.kwargs)
    return merged


def shapes_label(job):
    if job.case is None:
        return ""
    return ", ".join("x".join(str(n) for n in t.shape) or "()" for t in job.case.inputs)


def is_float(dtype):
    return np.issubdtype(np.dtype(dtype), np.floating)


def build_call(job, dtype, ctx):
    """The harness's call for a job (an operator outside the catalogue stands in as an entry)."""
    operator = job.operator or C.Operator(job.entry, "", [])
    if job.arrays and operator.call == "symbol":
        raise RowProblem(ERROR, "%s runs as a bound symbol: give shapes, not arrays"
                         % operator.name)
    try:
        return H.build_operator_call(operator, job.case_name, dtype, ctx, job.case, job.kwargs,
                                     job.arrays)
    except NotImplementedError as exc:  # this MXNet lacks the operator or an entry's argument
        if job.operator is None:
            raise RowProblem(ERROR, unknown_operator_message(job.entry))
        raise RowProblem(SKIPPED, str(exc))


# --- memory: refuse what cannot fit, before allocating it ---------------------------------------
def check_memory(job, dtype, available=None):
    """A RowProblem when a job's inputs cannot fit in the memory available (default: what
    the system reports now; no check where it reports nothing)."""
    available = H.available_memory() if available is None else available
    needed, inputs = H.memory_needed(job.case._replace(kwargs=merged_kwargs(job)), dtype,
                                     job.arrays)
    if available is not None and needed > available:
        raise RowProblem(ERROR, "too large for the memory available: %s of inputs need about "
                         "%s with outputs and gradients, %s available"
                         % tuple(size_label(n) for n in (inputs, needed, available)))


def size_label(size):
    """Bytes for a message: '128MiB', '33.5GiB', '7.28TiB' (shapes can be absurd)."""
    if size >= 2 ** 40:
        return "%.3gTiB" % (size / 2.0 ** 40)
    return human_value(size, "bytes")


# --- one row ---------------------------------------------------------------------------------
def new_row(job, device, runs, warmup):
    operator = job.operator
    row = OrderedDict()
    row["entry"] = job.entry
    row["operator"] = operator.name if operator is not None else job.entry
    row["form"] = operator.form if operator is not None else ""
    row["category"] = operator.category if operator is not None else ""
    row["case"] = job.case_name
    row["inputs"] = shapes_label(job)
    row["dtype"] = job.dtype
    row["ctx"] = device
    row["kwargs"] = dict((k, describe(v)) for k, v in merged_kwargs(job).items())
    row["runs"] = runs
    row["warmup"] = warmup
    row["status"] = OK
    row["message"] = ""
    row["mxnet"] = getattr(H.mx, "__version__", None)
    row["unit"] = "seconds"
    for phase in PHASES:
        row[phase] = None
    row["profile"] = None
    return row


def measure_phases(row, call, backward, runs, warmup, crashing=None):
    """Time the row's phases; `crashing` ({benchmark method: reason}, known_crashes.jsonl):
    a phase known to kill the process on this release and CPU is not run (this process is
    the caller's)."""
    crashing = crashing or {}
    if "time_forward" in crashing:
        raise RowProblem(SKIPPED, crashing["time_forward"])
    row["forward"] = stats.summarize_samples(H.timed_calls(call.forward, runs, warmup))
    if not backward:
        return
    if "time_forward_backward" in crashing:
        row["message"] = "backward not measured: %s" % crashing["time_forward_backward"]
        return
    if not call.takes_gradients:
        row["message"] = "no input takes a gradient: backward not measured"
        return
    try:
        # The backward alone: the recorded forward runs (and is synced) off the clock.
        alone = H.timed_calls(call.backward, runs, warmup, before=call.record_forward)
        both = H.timed_calls(call.forward_backward, runs, warmup)
    except H.mx.base.MXNetError as exc:
        raise RowProblem(ERROR, "backward: %s" % H.one_line(exc))
    row["backward"] = stats.summarize_samples(alone)
    row["forward_backward"] = stats.summarize_samples(both)


def measure(job, ctx="cpu", runs=DEFAULT_RUNS, warmup=DEFAULT_WARMUP, profile=False):
    """Time one job in this process; every problem becomes the row's status and message."""
    row = new_row(job, ctx, runs, warmup)
    try:
        if job.problem is not None:
            raise job.problem
        H.require_mxnet()
        device = resolve_context(ctx)
        row["dtype"] = check_dtype(job.dtype)
        check_memory(job, row["dtype"])
        try:
            call = build_call(job, row["dtype"], device)
            call.forward()  # shape inference and argument checks happen in the first call
        except (H.mx.base.MXNetError, TypeError) as exc:
            raise RowProblem(ERROR, "forward: %s" % H.one_line(exc))
        crashing = (H.crashing_methods(job.operator, job.case_name)
                    if job.operator is not None else {})
        measure_phases(row, call, job.backward, runs, warmup, crashing)
        if profile:
            name = job.operator.name if job.operator is not None else job.entry
            row["profile"] = H.profile_kernels(name, call, runs, row["backward"] is not None)
            if not row["profile"]["available"]:
                row["message"] = "; ".join(m for m in (row["message"],
                                                       row["profile"]["message"]) if m)
    except RowProblem as problem:
        row["status"], row["message"] = problem.status, problem.message
    except NotImplementedError as exc:  # require_mxnet: no usable MXNet here
        row["status"], row["message"] = ERROR, str(exc)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # any other failure of this row (bad fill for a shape, ...)
        row["status"], row["message"] = ERROR, H.one_line(exc)
    return row


# --- isolated entries: a child process per row ------------------------------------------------
def child_command(job, ctx, runs, warmup, profile):
    command = [sys.executable, "-m", "mxbench", "adhoc", "--op", job.entry,
               "--case", job.case_name, "--dtype", job.dtype, "--ctx", ctx, "--runs", str(runs),
               "--warmup", str(warmup), "--format", "json"]
    if job.kwargs:
        command += ["--kwargs", json.dumps(job.kwargs)]
    if not job.backward:
        command.append("--no-backward")
    if profile:
        command.append("--profile")
    return command


def signal_name(returncode):
    try:
        return signal.Signals(-returncode).name
    except (ValueError, AttributeError):
        return "signal %d" % -returncode


def measure_in_child(job, ctx, runs, warmup, profile):
    """The row of an `isolate` entry, measured in a child process: a crash is an error row."""
    env = dict(os.environ)
    env[CHILD_ENV] = "1"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
    proc = subprocess.run(child_command(job, ctx, runs, warmup, profile), cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=CHILD_TIMEOUT)
    if proc.returncode == 130:
        raise KeyboardInterrupt
    try:
        return json.loads(proc.stdout)[0]
    except (ValueError, IndexError):
        row = new_row(job, ctx, runs, warmup)
        cause = signal_name(proc.returncode) if proc.returncode < 0 else \
            "exit code %d" % proc.returncode
        last = [l for l in proc.stderr.splitlines() if l.strip()][-1:]
        row["status"] = ERROR
        row["message"] = "crashed the process (%s)%s" % (cause, ": " + last[0] if last else "")
        return row


def runs_isolated(job):
    """Catalogue cases of `isolate` entries; custom inputs stay in the caller's process."""
    return (job.operator is not None and getattr(job.operator, "isolate", False)
            and job.case_name != CUSTOM_CASE and job.problem is None
            and not os.environ.get(CHILD_ENV))


# --- planning: which jobs a request means -----------------------------------------------------
def normalise_kwargs(kwargs):
    """JSON gives lists where MXNet wants tuples (kernel=(3, 3))."""
    return dict((k, tuple(v) if isinstance(v, list) else v) for k, v in (kwargs or {}).items())


def problem_job(name, operator, problem, dtype=None, case_name=""):
    return Job(name, operator, case_name, None, {}, dtype or "", {}, False, problem)


def wants_backward(operator, backward):
    if backward is not None:
        return bool(backward)
    return operator.backward if operator is not None else True


def unknown_jobs(name):
    """The one row for a name without catalogue entries and without inputs."""
    if name in excluded():
        problem = RowProblem(SKIPPED, "excluded from the catalogue: " + excluded()[name])
    elif H.mx is not None and name in mxnet_operator_names():
        problem = RowProblem(ERROR, "%s is not in the catalogue: give its inputs (--shape)"
                             % name)
    else:
        problem = RowProblem(ERROR, unknown_operator_message(name))
    return [problem_job(name, None, problem)]


def entry_jobs(operator, cases=None, dtypes=None, kwargs=None, backward=None):
    """Jobs for one catalogue entry: its cases x dtypes (or those named)."""
    jobs = []
    for case_name in (cases or list(operator.cases)):
        case = operator.all_cases.get(case_name)  # a field case when named (field.py)
        for dtype in (dtypes or operator.dtypes):
            if case is None:
                jobs.append(problem_job(operator.class_name, operator, RowProblem(
                    ERROR, "no shape class %r for %s (has: %s)"
                    % (case_name, operator.class_name, ", ".join(operator.all_cases))),
                    dtype, case_name))
                continue
            jobs.append(Job(operator.class_name, operator, case_name, case, {}, dtype,
                            normalise_kwargs(kwargs), wants_backward(operator, backward), None))
    return jobs


def operator_jobs(name, inputs=None, cases=None, dtypes=None, kwargs=None, backward=None):
    """Jobs for a name: every entry it means x cases x dtypes, or the inputs given."""
    entries = entries_named(name)
    if inputs is not None and len(inputs):
        return custom_jobs(name, main_entry(name), inputs, cases, dtypes, kwargs, backward)
    if not entries:
        return unknown_jobs(name)
    jobs = []
    for operator in entries:
        jobs += entry_jobs(operator, cases, dtypes, kwargs, backward)
    return jobs


def custom_jobs(name, operator, inputs, cases, dtypes, kwargs, backward):
    """Jobs for user inputs; fills and operator arguments come from a catalogue case."""
    entry = operator.class_name if operator is not None else name
    base_case = C.case()
    if operator is not None:
        base_name = (cases or [next(iter(operator.cases))])[0]
        if base_name not in operator.cases:
            return [problem_job(entry, operator, RowProblem(
                ERROR, "no shape class %r for %s (has: %s)"
                % (base_name, entry, ", ".join(operator.cases))))]
        base_case = operator.cases[base_name]
    if all(isinstance(n, (int, np.integer)) for n in inputs):
        inputs = [tuple(inputs)]  # one shape given bare: inputs=(32, 1000)
    backward = wants_backward(operator, backward)
    tensors, arrays = custom_inputs(inputs, base_case, want_grad=backward)
    case = base_case._replace(inputs=tensors)
    if dtypes:
        chosen = list(dtypes)
    elif arrays:
        chosen = [dtype_name(arrays[min(arrays)])]  # user arrays keep their own dtype
    else:
        chosen = [operator.dtypes[0] if operator is not None else "float32"]
    return [Job(entry, operator, CUSTOM_CASE, case, arrays, dtype, normalise_kwargs(kwargs),
                backward, None) for dtype in chosen]


def category_jobs(category, cases=None, dtypes=None, kwargs=None, backward=None):
    jobs = []
    for operator in operators_in_category(category):
        chosen = [c for c in operator.cases if c in cases] if cases else None
        if cases and not chosen:
            continue  # this entry has none of the shape classes asked for
        jobs += entry_jobs(operator, chosen, dtypes, kwargs, backward)
    return jobs


# --- running many ----------------------------------------------------------------------------
def progress_bar(total):
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    # tqdm's disable=None turns the bar off when stderr is not a terminal.
    return tqdm(total=total, unit="row", disable=None if total > 1 else True,
                file=sys.stderr, leave=False)


def run_jobs(jobs, ctx="cpu", runs=DEFAULT_RUNS, warmup=DEFAULT_WARMUP, profile=False,
             on_row=None, announce=False):
    """Rows for jobs in order; Ctrl-C stops early and keeps the rows that finished.

    on_row(row) is called as each row finishes; announce says on stderr how many rows
    are planned once the run (and so its Ctrl-C handling) has started.
    """
    rows = RunResult()
    rows.planned = len(jobs)
    bar = progress_bar(len(jobs))
    try:
        if announce:
            print("mxbench.adhoc: running %d rows" % len(jobs), file=sys.stderr, flush=True)
        for job in jobs:
            if bar is not None:
                bar.set_description("%s %s %s" % (job.entry, job.case_name, job.dtype))
            measure_row = measure_in_child if runs_isolated(job) else measure
            rows.append(measure_row(job, ctx, runs, warmup, profile))
            if bar is not None:
                bar.update(1)
            if on_row is not None:
                on_row(rows[-1])
    except KeyboardInterrupt:
        rows.interrupted = True
        print("mxbench.adhoc: interrupted: keeping %d of %d rows" % (len(rows), len(jobs)),
              file=sys.stderr)
    finally:
        if bar is not None:
            bar.close()
    return rows


# --- library API ------------------------------------------------------------------------------
def benchmark(name, inputs=None, dtype=None, ctx="cpu", kwargs=None, runs=DEFAULT_RUNS,
              warmup=DEFAULT_WARMUP, case=None, backward=None, profile=False):
    """One row (a dict) for one operator: given inputs, or one catalogue case.

    name: an operator (its main entry) or an asv class name (one form, LeakyReLU_elu).
    inputs: shapes (tuples), numpy arrays or NDArrays, one per positional input.
    case: the catalogue shape class (default: the entry's first); with `inputs` it supplies
    the fills and operator arguments. dtype: default the entry's first dtype.
    """
    operator = main_entry(name)
    if inputs is not None and len(inputs):
        jobs = operator_jobs(name, inputs, [case] if case else None,
                             [dtype] if dtype else None, kwargs, backward)
    elif operator is None:
        jobs = unknown_jobs(name)
    else:
        jobs = entry_jobs(operator, [case or next(iter(operator.cases))],
                          [dtype or operator.dtypes[0]], kwargs, backward)
    rows = run_jobs(jobs[:1], ctx, runs, warmup, profile)
    if rows.interrupted:
        raise KeyboardInterrupt
    return rows[0]


def run_operator(name, cases=None, dtypes=None, ctx="cpu", kwargs=None, runs=DEFAULT_RUNS,
                 warmup=DEFAULT_WARMUP, inputs=None, backward=None, profile=False):
    """Rows for an operator: each of its entries x catalogue cases x dtypes (or those named)."""
    jobs = operator_jobs(name, inputs, cases, dtypes, kwargs, backward)
    return run_jobs(jobs, ctx, runs, warmup, profile)


def run_category(category, cases=None, dtypes=None, ctx="cpu", kwargs=None,
                 runs=DEFAULT_RUNS, warmup=DEFAULT_WARMUP, backward=None, profile=False):
    """Rows for every catalogue entry of a category (ValueError for an unknown one)."""
    jobs = category_jobs(category, cases, dtypes, kwargs, backward)
    return run_jobs(jobs, ctx, runs, warmup, profile)


def run_all(cases=None, dtypes=None, ctx="cpu", runs=DEFAULT_RUNS, warmup=DEFAULT_WARMUP,
            backward=None, profile=False):
    """Rows for the whole catalogue."""
    jobs = []
    for category in category_names():
        jobs += category_jobs(category, cases, dtypes, None, backward)
    return run_jobs(jobs, ctx, runs, warmup, profile)


# --- output ----------------------------------------------------------------------------------
TABLE_COLUMNS = ("entry", "operator", "form", "category", "case", "inputs", "dtype", "ctx",
                 "kwargs", "phase", "status", "unit", "sample_count", "mean", "median", "min",
                 "max", "p50", "p90", "p99", "q25", "q75", "iqr", "kernel", "mxnet", "message")
MARKDOWN_COLUMNS = ("entry", "case", "inputs", "dtype", "ctx", "phase", "status",
                    "sample_count", "p50", "mean", "min", "p90", "p99", "max", "iqr", "kernel",
                    "message")


def kernel_seconds(row, phase):
    profile = row.get("profile") or {}
    if not profile.get("available"):
        return None
    forward, backward = profile.get("forward_seconds"), profile.get("backward_seconds")
    if phase == "forward":
        return forward
    if phase == "backward":
        return backward
    return forward + backward if forward is not None and backward is not None else None


def flat_rows(rows):
    """One table line per measured phase (one line for a row that measured nothing)."""
    lines = []
    for row in rows:
        base = dict((k, v) for k, v in row.items() if k not in PHASES + ("profile",))
        base["kwargs"] = json.dumps(row["kwargs"], sort_keys=True, default=str)
        phases = [p for p in PHASES if row.get(p)]
        if not phases:
            lines.append(dict(base, phase=""))
        for phase in phases:
            line = dict(base, phase=phase, kernel=kernel_seconds(row, phase))
            line.update(row[phase])
            lines.append(line)
    return lines


def render(rows, fmt):
    if fmt == "json":
        return tables.render_json(rows)
    if fmt == "csv":
        return tables.render_csv(flat_rows(rows), TABLE_COLUMNS)
    if fmt == "markdown":
        return tables.render_markdown(flat_rows(rows), MARKDOWN_COLUMNS,
                                      value_columns=tables.VALUE_COLUMNS + ("kernel",))
    raise ValueError("unknown format %r" % (fmt,))


def summary_line(rows):
    counts = dict((s, sum(1 for r in rows if r["status"] == s)) for s in (OK, SKIPPED, ERROR))
    text = "%d rows: %d ok, %d skipped, %d error" % (len(rows), counts[OK], counts[SKIPPED],
                                                     counts[ERROR])
    if getattr(rows, "interrupted", False):
        text += " - interrupted after %d of %d planned rows" % (len(rows), rows.planned)
    elif counts[ERROR]:
        text += " - some rows errored (see their message)"
    return text


def exit_code(rows):
    if getattr(rows, "interrupted", False):
        return errors.INTERRUPTED
    return errors.FAILED if any(r["status"] == ERROR for r in rows) else errors.OK


# --- command line -----------------------------------------------------------------------------
def list_catalogue():
    lines = ["%-28s %-20s %s" % ("entry", "category", "shape classes / dtypes")]
    for op in C.OPERATORS:
        lines.append("%-28s %-20s %s / %s" % (op.class_name, op.category, ", ".join(op.cases),
                                              ", ".join(op.dtypes)))
    for name, reason in sorted(excluded().items()):
        lines.append("%-28s %-20s %s" % (name, "(excluded)", reason))
    return "\n".join(lines) + "\n"


def plan(ops=None, categories=None, shapes=None, cases=None, dtypes=None, kwargs=None,
         backward=None):
    """The jobs of some operators (with their inputs' shapes), else of some categories (of
    every category when none is named)."""
    if ops:
        jobs = []
        for name in ops:
            jobs += operator_jobs(name, shapes, cases, dtypes, kwargs, backward)
        return jobs
    jobs = []
    for category in (categories or category_names()):
        jobs += category_jobs(category, cases, dtypes, kwargs, backward)
    return jobs


def planned_jobs(output, ops=None, categories=None, shapes=None, cases=None, dtypes=None,
                 kwargs=None, backward=None):
    """plan()'s jobs, once -o can be written and MXNet imports (else a UserError)."""
    if shapes and not ops:
        raise errors.UserError("--shape goes with --op")
    try:
        require_writable_output(output)
        H.require_mxnet()
        return plan(ops, categories, shapes, cases, dtypes, kwargs, backward)
    except (NotImplementedError, RuntimeError, ValueError) as exc:
        raise errors.UserError(exc)
