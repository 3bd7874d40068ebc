"""Instructions one operator call executes, counted by Valgrind's callgrind: the same call as
the timing benchmarks time (prepare.prepare_call), warmed up, then one call counted.

JOBS callgrind processes at once share the table's points. Each imports mxnet once (~45 s
of CPU under Valgrind's instrumentation, a few seconds without it), turns instrumentation on,
warms up the code every call runs, and then, for each point no other process has claimed,
forks a child: the child prepares its call, warms it up, zeroes the counters, turns
collection on, makes the call, turns collection off, dumps, writes its record and exits; the
parent (count_table) reads each dump back. Every point starts
from the same state, so its count does not depend on which points were counted before it,
and a crash loses one point. Counted is what the timed call runs inside libmxnet (and what
libmxnet calls), not input creation or set-up. Deterministic settings: one OpenMP thread, the
naive engine (the operator runs in the calling thread), a fixed hash seed, the harness's
seeded inputs.

The counting process talks to callgrind through Valgrind's client requests, the fixed
x86-64 instruction sequence valgrind.h's macros emit, put in an executable page with ctypes:
no compiler is needed in a benchmark environment. Outside Valgrind the sequence does nothing.

count_table() runs in the parent (the benchmark's setup_cache); `python -m
benchmarks.harness.instructions POINTS_FILE OUT_FILE` is the process under Valgrind.
Runs inside benchmark environments: Python 3.7 syntax, mxnet only in the counting process.
"""
import json
import os
import subprocess
import sys
import tempfile

from .. import ROOT

# Bump when what is counted or how changes; part of every instruction benchmark's version.
METHOD_VERSION = "5"
VALGRIND = os.environ.get("MXBENCH_VALGRIND", "valgrind")
METHODS = ("forward", "forward_backward")
# The counting process's whole environment (with PYTHONPATH): nothing of the caller's. A
# count moves with the environment's size (MXNet calls getenv; the heap and the pointers that
# key MXNet's hash tables shift): a 3,000-byte variable moved small calls' counts by up to
# 0.24 %, and the input cache (a file read instead of a draw) would move them too.
COUNTING_ENV = {
    "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
    "MXNET_ENGINE_TYPE": "NaiveEngine", "PYTHONHASHSEED": "0",
    # the counts are the build's, whatever A/B variant the parent runs
    "MXBENCH_VARIANT": "default",
    "MXBENCH_INPUT_CACHE": "0", "PATH": "/usr/bin:/bin", "LC_ALL": "C",
    "PYTHONDONTWRITEBYTECODE": "1",
}
# Points at these shape classes are prepared and warmed up at Valgrind's base speed (its
# instrumentation off in the child, on again for the counted call): their inputs and warm-up
# calls cost minutes under instrumentation. A small point does not gain: the two switches
# (each flushes the translations) cost it more than its preparation.
UNINSTRUMENTED_PREPARATION = ("medium", "large", "layer")
# The shape class of a model layer's point (bench_instructions' layer classes): the layer's
# own recorded shapes, its call the one-operator graph bench_models times (_models.LayerCall).
LAYER_SHAPE = "layer"
# A counting process that crashes loses only the point it was on: the rest go to a new one,
# this many times at most.
MAX_PROCESSES = 4
# Counting processes at once, sharing one list of points (each takes the next unclaimed
# one): a fixed number, not the machine's cores. Which process counts a point does not
# change its count (every point is counted in a child of the same state).
JOBS = int(os.environ.get("MXBENCH_JOBS", "2"))
# Calls before the counted one: the first calls of a point still allocate (memory pool,
# caches); by the third a small call's count repeats. A medium or large call repeats after
# one, and costs seconds even at Valgrind's base speed (contrib.interleaved_matmul_*: ~8 s a
# call): three warm-up calls were half of a table's time (docs/instructions.md).
WARM_CALLS = 3
WARM_CALLS_UNINSTRUMENTED = 1
# A point's child process is killed after this long (a hang, or a medium call under Valgrind
# that never ends): the point is a skip.
POINT_TIMEOUT = 900
SKIP, FAILED = "skip", "failed"  # a point's outcome when it has no count

# callgrind.h: VG_USERREQ_TOOL_BASE('C', 'T') + n
_CALLGRIND_BASE = (ord("C") << 24) | (ord("T") << 16)
ZERO_STATS, TOGGLE_COLLECT, DUMP_STATS_AT, START_INSTRUMENTATION, STOP_INSTRUMENTATION = (
    _CALLGRIND_BASE + n for n in (1, 2, 3, 4, 5))
# long request(long *args): valgrind.h's amd64 client request with args in rax, default 0 in rdx
_CLIENT_REQUEST_X86_64 = bytes(bytearray([
    0x48, 0x89, 0xf8,              # mov rax, rdi      (the request's argument block)
    0x31, 0xd2,                    # xor edx, edx      (the result outside Valgrind: 0)
    0x48, 0xc1, 0xc7, 0x03,        # rol rdi, 3   \
    0x48, 0xc1, 0xc7, 0x0d,        # rol rdi, 13   | the preamble Valgrind recognises
    0x48, 0xc1, 0xc7, 0x3d,        # rol rdi, 61   | (128 bits of rotation: rdi unchanged)
    0x48, 0xc1, 0xc7, 0x33,        # rol rdi, 51  /
    0x48, 0x87, 0xdb,              # xchg rbx, rbx     (the client request)
    0x48, 0x89, 0xd0,              # mov rax, rdx
    0xc3,                          # ret
]))


def valgrind_problem():
    """Why instructions cannot be counted here, or None."""
    import platform
    if platform.machine() not in ("x86_64", "AMD64"):
        return "instruction counts need x86-64 (the client request is x86-64 code)"
    try:
        out = subprocess.check_output([VALGRIND, "--version"], stderr=subprocess.STDOUT)
    except (OSError, subprocess.CalledProcessError) as exc:
        return "valgrind is not available (%s): instruction counts need it" % exc
    if not out.decode("ascii", "replace").startswith("valgrind-3"):
        return "unexpected `valgrind --version`: %r" % out[:80]
    return None


class Callgrind(object):
    """Callgrind's client requests from Python (do nothing outside Valgrind)."""

    def __init__(self):
        import ctypes
        import mmap
        self._page = mmap.mmap(-1, mmap.PAGESIZE,
                               prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        self._page.write(_CLIENT_REQUEST_X86_64)
        address = ctypes.addressof(ctypes.c_char.from_buffer(self._page))
        self._request = ctypes.CFUNCTYPE(ctypes.c_long, ctypes.c_void_p)(address)
        self._args = (ctypes.c_long * 6)()
        self._ctypes = ctypes

    def request(self, code, arg=0):
        self._args[0], self._args[1] = code, arg
        return self._request(self._ctypes.addressof(self._args))

    def zero(self):
        self.request(ZERO_STATS)

    def start_instrumentation(self):
        """Callgrind's instrumentation on (with --instr-atstart=no; the switch flushes
        Valgrind's translations: the code that runs next is translated again)."""
        self.request(START_INSTRUMENTATION)

    def stop_instrumentation(self):
        """Valgrind's base speed (~5x native, not ~50x); also flushes the translations."""
        self.request(STOP_INSTRUMENTATION)

    def toggle_collect(self):
        self.request(TOGGLE_COLLECT)

    def dump(self, label):
        self._label = self._ctypes.c_char_p(label.encode("ascii"))  # alive during the request
        self.request(DUMP_STATS_AT, self._ctypes.cast(self._label, self._ctypes.c_void_p).value)


# --- the parent: one callgrind process for a table of points ---------------------------------
def point_key(class_name, shape, dtype, method):
    return "%s|%s|%s|%s" % (class_name, shape, dtype, method)


def count_table(points, timeout=None):
    """{point key: instructions (int), or (SKIP or FAILED, reason)} for points, a list of
    (class name, shape, dtype, method), counted in JOBS callgrind processes at once, each
    taking the next point no process has claimed (`medium` and `large` ones first: the
    longest), so that they end together.

    A point whose counting process died (Valgrind cannot run something the build does) is
    a skip with the process's last words; the unclaimed points go to a new process.
    """
    import shutil
    problem = valgrind_problem()
    if problem:
        return dict((point_key(*p), (SKIP, problem)) for p in points)
    from concurrent.futures import ThreadPoolExecutor
    compile_imported_code()
    ordered = sorted(points, key=lambda p: p[1] not in UNINSTRUMENTED_PREPARATION)
    shared = tempfile.mkdtemp(prefix="mxbench-table-")
    try:
        os.mkdir(os.path.join(shared, "claims"))
        os.mkdir(os.path.join(shared, "points"))
        for index, point in enumerate(ordered):
            with open(point_path(shared, index), "w") as fh:
                json.dump(list(point), fh)
        table, endings = {}, []
        with ThreadPoolExecutor(JOBS) as pool:
            for counted, ended in pool.map(
                    lambda _: _count_shared(len(ordered), shared, timeout), range(JOBS)):
                table.update(counted)
                endings += ended
        for index, point in enumerate(ordered):
            key = point_key(*point)
            if key in table:
                continue
            if os.path.exists(claim_path(shared, index)):  # claimed, never finished
                table[key] = (SKIP, " / ".join(endings))
            else:
                table[key] = (SKIP, "not counted: the counting processes kept dying (%d "
                                    "tried)" % (JOBS * MAX_PROCESSES))
        return table
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def _count_shared(count, shared, timeout):
    """({key: outcome}, [why each process ended early]): counting processes one after
    another over the shared list, a new one when one dies, MAX_PROCESSES at most."""
    table, endings = {}, []
    for _ in range(MAX_PROCESSES):
        counted, ended = _count_in_one_process(count, shared, timeout)
        table.update(counted)
        if not ended:
            break
        endings.append(ended)
        if all(os.path.exists(claim_path(shared, i)) for i in range(count)):
            break  # every point taken: a new process (~45 s of import) would count none
    return table, endings


# The shared table: one file per point (points/<index>), read by the child that counts it. The
# counting process never loads the list: a list of 1,000 points left its heap in another
# state than a list of 19, and a point's count moved with the table (up to 1.3 %).
def point_path(shared, index):
    return os.path.join(shared, "points", str(index))


def claim_path(shared, index):
    return os.path.join(shared, "claims", str(index))


def read_point(shared, index):
    with open(point_path(shared, index)) as fh:
        return tuple(json.load(fh))


def claim(shared, index):
    """Whether this counting process takes point `index` of the shared table: the first to
    create its claim file does. Small objects only (no heap block of glibc's is touched, so
    the next child starts from the same state)."""
    try:
        os.close(os.open(claim_path(shared, index), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        return True
    except OSError:
        return False


def compile_imported_code(python=sys.executable):
    """Byte-compile what the counting process imports (this suite, mxnet, numpy) before it
    runs: a module compiled in that process instead of loaded from its .pyc leaves the heap
    in another state, and the first run after an edit counted small calls up to 0.4 % apart
    from the next."""
    subprocess.call([python, "-c", _COMPILE, os.path.join(ROOT, "benchmarks")],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


_COMPILE = """
import compileall, importlib.util, sys
folders = sys.argv[1:]
for package in ("mxnet", "numpy"):
    spec = importlib.util.find_spec(package)  # found, not imported
    if spec is not None and spec.submodule_search_locations:
        folders += list(spec.submodule_search_locations)
for folder in folders:
    compileall.compile_dir(folder, quiet=1)
"""


def callgrind_command(out_file, python=sys.executable):
    return [VALGRIND, "--tool=callgrind", "--collect-atstart=no",
            "--instr-atstart=no",
            "--callgrind-out-file=%s" % out_file, "--dump-line=no", "--compress-pos=no",
            "--compress-strings=no", "--error-limit=no", python, "-m",
            "benchmarks.harness.instructions"]


def _count_in_one_process(count, shared, timeout):
    """({point key: count or skip reason}, why the process ended early or None). Each
    dump is read and deleted as soon as the counting process has written it (a dump is
    ~0.4 MB; a table has ~1,000)."""
    import shutil
    import time
    work = tempfile.mkdtemp(prefix="mxbench-callgrind-")
    try:
        manifest = os.path.join(work, "manifest.jsonl")
        log = os.path.join(work, "valgrind.log")
        env = dict(COUNTING_ENV, PYTHONPATH=ROOT)
        command = callgrind_command(os.path.join(work, DUMP_PREFIX + ".%p")) + [
            shared, "%09d" % count, manifest]  # fixed width: argv is on the stack
        table, read, killed = {}, [0], False
        started = time.time()
        with open(log, "wb") as out:
            proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out,
                                    stderr=subprocess.STDOUT)
            while proc.poll() is None:
                if timeout and time.time() - started > timeout:
                    proc.kill()
                    proc.wait()
                    killed = True
                    break
                _read_manifest(work, manifest, table, read)
                time.sleep(0.5)
        _read_manifest(work, manifest, table, read)
        ended = None
        if proc.returncode != 0:
            with open(log, "rb") as fh:
                tail = fh.read().decode("utf-8", "replace").strip().splitlines()[-3:]
            ended = "the counting process under valgrind ended (%s): %s" % (
                "killed after %ss" % timeout if killed else "exit %s" % proc.returncode,
                " / ".join(line.strip() for line in tail))
        return table, ended
    finally:
        shutil.rmtree(work, ignore_errors=True)


DUMP_PREFIX = "callgrind.out"
LIBRARY = "libmxnet"
# {point key: {step: seconds}} of the points counted in this process: what each step cost
# under Valgrind (the cost, never the count).
SECONDS = {}


def _read_manifest(work, manifest, table, read):
    """Add the manifest's new complete lines (from line read[0] on) to the table: a point's
    instructions from its dump (then deleted), or its skip reason."""
    if not os.path.exists(manifest):
        return
    with open(manifest) as fh:
        lines = fh.readlines()
    for line in lines[read[0]:]:
        if not line.endswith("\n"):
            break  # being written
        read[0] += 1
        record = json.loads(line)
        if "seconds" in record:
            SECONDS[record["key"]] = record["seconds"]
        if "dump" in record:
            dump = os.path.join(work, record["dump"])
            table[record["key"]] = library_instructions(dump, LIBRARY)
            os.remove(dump)
        else:
            table[record["key"]] = (record["outcome"], record["reason"])


def _is_library(name, library):
    return name is not None and os.path.basename(name).startswith(library)


def library_instructions(dump, library):
    """The instructions executed inside `library` (by basename prefix) in a callgrind dump:
    the inclusive cost of every call into it from outside it. So the Python interpreter's
    share of a call (which depends on how warm its adaptive specialisation is) is left out,
    and whatever the library calls (OpenMP, MKL, oneDNN's generated code) is in."""
    total, ob, cob, call = 0, None, None, False
    with open(dump) as fh:
        for line in fh:
            if call:
                if line[:1].isdigit() or line[:1] in "+-*":
                    if _is_library(cob or ob, library) and not _is_library(ob, library):
                        total += int(line.split()[1])
                    call, cob = False, None
                continue
            if line.startswith("ob="):
                ob = line[3:].strip()
            elif line.startswith("cob="):
                cob = line[4:].strip()
            elif line.startswith("calls="):
                call = True
            elif line.startswith("fn="):
                cob = None
    return total


# --- the counting process, under Valgrind ---------------------------------------------------
def _count_points(shared, count, manifest):
    """Count each point no other counting process has claimed, in its own child of this
    process (count_point), one after another; each outcome is a line of the manifest."""
    from . import environment as E
    from ..catalogue import by_class_name
    import gc

    callgrind = Callgrind()
    entries = by_class_name()
    try:
        E.require_mxnet()  # imported once, before the children are forked
    except NotImplementedError:
        pass  # each point says so
    # Valgrind's base cost (~5x) for the import, then its instrumentation for good: a switch
    # flushes every translation, and a point's children inherit the translations made here.
    callgrind.start_instrumentation()
    _warm_up(entries)
    gc.collect()
    if hasattr(gc, "freeze"):  # Python 3.7+: the children's collections skip these objects
        gc.freeze()
    for index in range(count):
        if claim(shared, index):
            count_point(callgrind, entries, shared, index, manifest)


def _warm_up(entries):
    """A few calls of every kind in the counting process, instrumented, before any point is
    forked: the code every call runs (MXNet's Python front end, the engine, autograd) is
    translated once here instead of once per point. Part of the state every point starts
    from, so the same on every run."""
    from . import environment as E
    from .prepare import prepare_call
    for name in WARM_UP_ENTRIES:
        try:
            call = prepare_call(entries[name], "small", "float32", E.context("cpu"))
            for _ in range(2):
                call.forward_backward()
        except Exception:  # noqa: BLE001  (an entry this release lacks: nothing to warm)
            pass


# In every release of the ladder: a unary, a broadcasting binary and a reduction.
WARM_UP_ENTRIES = ("relu", "broadcast_add", "sum")


def count_point(callgrind, entries, shared, index, manifest):
    """Count a point in a child forked from the counting process; the child appends the
    point's record ({"key", "dump"} or {"key", "outcome", "reason"}) to the manifest, or this
    process does when the child died first. So every point starts from the same state
    (MXNet imported, no other point run): its count does not depend on which points were
    counted before it (in one process they moved it by up to 0.8 %: the heap's state changes
    what malloc and memset execute), and a crash loses only this point. This process only
    forks and waits: reading a child's record here (a buffer allocated, then shrunk to the
    record's length) left the heap of the next children in another state, and a table counted
    in reverse order came out up to 0.4 % apart."""
    import signal
    pid = os.fork()
    if pid == 0:  # the child: count, write, exit without running the parent's clean-up
        status = 1
        try:
            signal.alarm(POINT_TIMEOUT)  # SIGALRM's default action ends a hung child
            point = read_point(shared, index)
            try:
                record = _count_here(callgrind, entries, point)
            except BaseException as exc:  # noqa: BLE001  (the record says why)
                record = {"key": point_key(*point), "outcome": FAILED, "reason": repr(exc)}
            with open(manifest, "a") as out:
                out.write(json.dumps(record) + "\n")
            status = 0
        finally:
            os._exit(status)  # never back into the counting process's loop
    _, status = os.waitpid(pid, 0)
    if status == 0:
        return
    ended = ("killed after %ss" % POINT_TIMEOUT if os.WIFSIGNALED(status) and
             os.WTERMSIG(status) == signal.SIGALRM else "status %d" % status)
    with open(manifest, "a") as out:
        out.write(json.dumps({
            "key": point_key(*read_point(shared, index)), "outcome": SKIP,
            "reason": "the process counting this point under valgrind died (%s): Valgrind "
                      "cannot run what the build does here" % ended}) + "\n")


def _count_here(callgrind, entries, point):
    """In the child: the call prepared and warmed up, then counted and dumped. No garbage
    collection in the child: it starts from its parent's state, and collecting during the
    counted call would add work that depends on the preparation."""
    from . import environment as E
    from .prepare import prepare_call
    import gc
    import time
    class_name, shape, dtype, method = point
    record = {"key": point_key(*point)}
    clock = [time.time()]

    def lap():  # the seconds of each step under Valgrind, for the cost (not the count)
        clock.append(time.time())
        return round(clock[-1] - clock[-2], 2)

    gc.disable()
    uninstrumented = shape in UNINSTRUMENTED_PREPARATION
    try:
        if uninstrumented:  # what runs is the same; only Valgrind's cost differs
            callgrind.stop_instrumentation()
        E.require_mxnet()
        if shape == LAYER_SHAPE:  # imported here, in the child: the counting process and
            from .. import _models  # the operators' points stay as they were without it
            call = _models.LayerCall(_models.layer_by_name(class_name), E.context("cpu"))
        else:
            call = prepare_call(entries[class_name], shape, dtype, E.context("cpu"))
            crashing = E.crashing_methods(entries[class_name], shape)
            if "time_" + method in crashing:  # the timed method's known crash: not counted
                raise NotImplementedError(crashing["time_" + method])
        run = getattr(call, method)
        record["seconds"] = {"prepare": lap()}
        warm_calls = WARM_CALLS_UNINSTRUMENTED if uninstrumented else WARM_CALLS
        for _ in range(warm_calls):  # forward_backward's first backward, caches
            run()
        record["seconds"]["warm-up"] = lap()
        if uninstrumented:
            callgrind.start_instrumentation()
        callgrind.zero()
        callgrind.toggle_collect()
        try:
            run()
        finally:
            callgrind.toggle_collect()
            callgrind.dump(record["key"])
        record["seconds"]["counted"] = lap()
        record["dump"] = "%s.%d.1" % (DUMP_PREFIX, os.getpid())  # the child's first dump
    except NotImplementedError as exc:
        record.update(outcome=SKIP, reason=str(exc))
    except Exception as exc:  # noqa: BLE001  (a failure of one point is its result)
        record.update(outcome=FAILED, reason=E.one_line(exc))
    return record


def main(argv=None):
    shared, count, manifest = (argv or sys.argv[1:])[:3]
    _count_points(shared, int(count), manifest)


if __name__ == "__main__":
    main()
