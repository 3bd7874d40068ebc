"""Running the real asv for this suite: the machine record, the invocation, staged recording.

- The machine: a stable name per kind of hardware; `~/.asv-machine.json` keeps plain asv
  commands working whatever other names mxbench records under; a name already in
  results/ is never given another host's description.
- The invocation: Ctrl-C reaches asv, mxbench waits for it to finish and raises
  `Interrupted` (the commands print one line and exit 130).
- Recording (`record`): asv writes into a staging copy of the results; complete files are
  merged into results/ as they appear and at the end (mxbench.results' rule: a measured
  point is never replaced by a failure or a skip), so an interrupt, a crash or a failed
  install never destroys a recorded result.
"""
import contextlib
import fcntl
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time

from env_matrix.matrix import MatrixError
from mxbench.asvrun import conditions, guard
from mxbench.core import results
from mxbench.core.errors import UserError
from mxbench.core.project import ASV_DEFAULTS, DEFAULT_CONFIG, ROOT, read_config

INTERRUPT_GRACE = 60  # seconds asv gets to finish after Ctrl-C before it is stopped
ASV_STOPS_ITSELF = 8  # seconds asv gets to stop on a Ctrl-C of its own before it is sent one
MERGE_INTERVAL = 1.0  # seconds between merges of a running asv's complete files
HOLDER_GONE_WAIT = 10  # seconds a lock whose holder died may take to be freed (guard.py)


class Interrupted(Exception):
    """Ctrl-C (SIGINT) or SIGTERM during an asv run; asv has exited."""

    def __init__(self, signum=signal.SIGINT):
        Exception.__init__(self, "interrupted")
        self.signum = signum
        self.exit_code = 128 + signum


def asv_executable():
    """asv from the same environment as this interpreter (the tool venv)."""
    candidate = os.path.join(os.path.dirname(sys.executable), "asv")
    return candidate if os.path.exists(candidate) else "asv"


# `asv publish` with git's answer for each commit range asked once (run by path, with the
# tool venv's Python: it imports only asv)
ASV_PUBLISH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "asv_publish.py")


def config_copy(config, path, **changes):
    """Write to `path` a copy of an asv config with some keys changed. Relative paths and
    {conf_dir} are resolved against the original's folder, so the copy works from anywhere."""
    import json
    conf = read_config(config)
    for key, value in ASV_DEFAULTS.items():
        conf.setdefault(key, value)  # relative to the original, as asv reads it
    base = os.path.dirname(os.path.abspath(config))
    for key in ("repo", "env_dir", "results_dir", "html_dir", "benchmark_dir"):
        if key in conf and "://" not in conf[key]:
            conf[key] = os.path.join(base, conf[key])
    # asv splits a command with shlex, then fills in its placeholders: a path with a space
    # must be quoted here, and its braces doubled, to stay one word through both
    folder = shlex.quote(base).replace("{", "{{").replace("}", "}}")
    for key in ("build_command", "install_command", "uninstall_command"):
        if key in conf:
            conf[key] = [c.replace("{conf_dir}", folder) for c in conf[key]]
    conf.update(changes)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as fh:
        json.dump(conf, fh, indent=1)
    return path


# --- the machine -------------------------------------------------------------------------------
def machine_name(cpuinfo=None, store=None):
    """A stable name for this kind of machine: the CPU's model name, its kind (vendor,
    family, model: `f25m17`), `-avx512` where it has AVX-512, the CPU count and the memory.

    asv defaults to the host name, which differs on every cloud VM; results from identical
    machines should land in one history, and different hardware in different ones. A cloud
    VM's model name can be only the product line ("AMD EPYC" named three kinds of host here,
    1.4-2x apart), so the kind is in the name. A history recorded before that under the
    name without it (results/amd-epyc-avx512-2cpu-24gb) keeps its name on its own CPU kind.
    store: where such a history is looked for (default: the checkout's results/).
    """
    text = conditions.read_cpuinfo() if cpuinfo is None else cpuinfo
    identity = conditions.cpu_identity(text)
    kind = conditions.cpu_kind(identity)
    legacy = _legacy_machine_name(text, identity)
    if kind is None:
        return legacy
    if store is None:
        store = results.Store(os.path.join(ROOT, "results"))
    if conditions.recorded_cpu_kinds(store, legacy) == [kind]:
        return legacy
    model = re.sub(r"\((r|tm)\)", " ", _model_name(text) or "cpu", flags=re.I)
    slug = _slug(model) or "cpu"
    return "%s-f%sm%s%s-%dcpu-%dgb" % (slug, kind[1], kind[2],
                                       "-avx512" if identity.get("vector") == "avx512" else "",
                                       os.cpu_count() or 1, _ram_gb())


def _slug(text):
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return re.sub(r"-?(\(r\)|\(tm\)|cpu|processor)", "", slug).strip("-")


def _ram_gb():
    try:
        return round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30)
    except (ValueError, OSError):
        return 0


def _model_name(text):
    """/proc/cpuinfo's model name, or None."""
    found = re.search(r"^model name\s*:\s*(.+)$", text, re.M)
    return found.group(1) if found else None


def _legacy_machine_name(text, identity):
    """The name before the CPU kind was part of it: model name, -avx512, CPUs, memory."""
    model = _model_name(text) or platform.processor() or platform.machine()
    slug = _slug(model) or "cpu"
    if identity.get("vector") == "avx512":
        slug += "-avx512"
    return "%s-%dcpu-%dgb" % (slug, os.cpu_count() or 1, _ram_gb())


def reading_machine(store, requested, wanted=None, what="results"):
    """The machine whose results a report reads: the one asked for, else this machine when
    it has them (or no machine does), else the only machine that has them."""
    if requested:
        return requested
    having = [m for m in store.machines() if wanted is None or wanted(m)]
    here = machine_name(store=store)
    if here in having or not having:
        return here
    if len(having) > 1:
        raise MatrixError("several machines have %s (%s), not this one (%s): pick one with "
                          "--machine" % (what, ", ".join(having), here))
    return having[0]


def this_host():
    """asv's description of this host (what asv writes into machine.json)."""
    from asv.machine import Machine
    return Machine.get_defaults()


def same_hardware(recorded, host):
    """Do two machine descriptions name the same kind of hardware? (The OS release and the
    exact RAM move between boots of one kind of VM.)"""
    if any(recorded.get(f) != host.get(f) for f in results.HOST_FIELDS):
        return False
    try:
        a, b = float(recorded.get("ram")), float(host.get("ram"))
        return abs(a - b) <= 0.1 * max(a, b)
    except (TypeError, ValueError):
        return True


def ensure_machine(name=None, store=None):
    """Record this host in ~/.asv-machine.json without questions; returns the name used.

    The default name (machine_name()) is also stored under the host name, which is the key
    plain asv commands look up without --machine; so another name recorded here (tests,
    --machine) never leaves plain `asv run`/`asv find` without a machine.
    """
    from asv.machine import MachineCollection
    default = machine_name(store=store)
    host = this_host()
    for key, machine in ((default, default), (host["machine"], default), (name, name)):
        if key:
            MachineCollection.save(key, dict(host, machine=machine))
    return name or default


def require_machine_is_this_host(store, machine):
    """A machine name recorded in results/ by other hardware is not recorded over; nor one
    whose recordings were made on another CPU kind (unless MXBENCH_OTHER_CPU / --other-cpu:
    then it says so, and the conditions log keeps this CPU)."""
    try:
        recorded = store.machine_info(machine)
    except results.ResultFileError as exc:
        raise results.ResultsProblem([exc])
    require_same_cpu_kind(store, machine)
    host = this_host()
    if recorded and not same_hardware(recorded, host):
        raise MatrixError(
            "%s/%s/machine.json describes another host (%s, %s CPUs); this one is %s, %s CPUs. "
            "Its results are kept: record this host under another name (drop --machine, or "
            "give a new one)." % (os.path.basename(store.results_dir), machine,
                                  recorded.get("cpu"), recorded.get("num_cpu"),
                                  host.get("cpu"), host.get("num_cpu")))


def require_same_cpu_kind(store, machine, what="recording"):
    """UserError when `machine`'s recordings in `store` were made on another CPU kind than
    this host's (a warning when allowed): one kind's timings never join another's history
    without a word."""
    here = conditions.cpu_kind(conditions.cpu_identity())
    kinds = conditions.recorded_cpu_kinds(store, machine)
    others = [k for k in kinds if k != here]
    if not here or not others:
        return
    text = ("%s/%s was recorded on %s; this host is %s" % (
        os.path.basename(store.results_dir.rstrip(os.sep)), machine,
        " and ".join(conditions.cpu_kind_text(k) for k in kinds), conditions.cpu_kind_text(here)))
    if conditions.allow_other_cpu_from_env():
        print("warning: %s: %s adds this CPU's timings to that history (--other-cpu)"
              % (text, what), file=sys.stderr, flush=True)
        return
    raise UserError("%s, a history of another CPU kind: record under this host's own name "
                    "(the default: %s), or add --other-cpu to mix them knowingly"
                    % (text, machine_name(store=store)))


# --- running asv -------------------------------------------------------------------------------
# The asv command each mxbench command passes the arguments after `--` to, with the positional
# arguments mxbench puts before and after them: asv's own parser judges them before anything
# runs (asv run would refuse them after the installs, with the exit 2 of a failed benchmark).
ASV_POSITIONALS = {"run": (["RANGE"], []), "continuous": ([], ["BASE", "HEAD"]),
                   "compare": ([], ["BASE", "HEAD"]), "publish": ([], [])}


class _AsvRefusal(Exception):
    pass


def asv_arguments_problem(command, asv_args):
    """asv's own complaint about `asv COMMAND ... ASV_ARGS ...` as mxbench runs it, or None."""
    from asv.commands import make_argparser

    def refuse(message):
        raise _AsvRefusal(message)
    parser, subparsers = make_argparser()
    parser.error = subparsers.choices[command].error = refuse
    before, after = ASV_POSITIONALS[command]
    try:
        parser.parse_args([command] + before + list(asv_args) + after)
    except _AsvRefusal as refusal:
        return "asv %s refuses the arguments after --: %s" % (command, refusal)
    return None


def run_asv(args, config=DEFAULT_CONFIG, env=None, cwd=ROOT, keep_line=None):
    """`asv --config CONFIG ARGS...`; returns asv's exit code. Ctrl-C goes to asv (the
    terminal sends it to both; a signal to mxbench alone is passed on), mxbench waits for
    asv to exit and raises Interrupted. keep_line(line) -> bool filters asv's stdout."""
    cmd = [asv_executable(), "--config", str(config)] + list(args)
    # a selection's -b regexes can be thousands of characters: shown abbreviated
    shown = [a if len(a) <= 200 else "%s...(%d characters)" % (a[:80], len(a)) for a in cmd]
    print("$ " + " ".join(shown), flush=True)
    full_env = dict(os.environ)
    full_env.update(env or {})
    # through a guard: asv and all it starts end with mxbench, however mxbench ends, and the
    # recording locks this process holds live until they have (guard.py)
    proc = guard.Guarded(cmd, hold=held_locks(), cwd=cwd, env=full_env,
                         stderr=subprocess.PIPE, stdout=subprocess.PIPE if keep_line else None,
                         universal_newlines=True, errors="replace")
    relays = [threading.Thread(target=relay_stderr, args=(proc.stderr,), daemon=True)]
    if keep_line:
        relays.append(threading.Thread(target=relay_stdout, args=(proc.stdout, keep_line),
                                       daemon=True))
    for relay in relays:
        relay.start()
    received = []

    def note(signum, frame):
        received.append(signum)

    previous = [(s, signal.signal(s, note)) for s in (signal.SIGINT, signal.SIGTERM)]
    try:
        code = _wait(proc, received)
    finally:
        if proc.poll() is None:  # an exception in _wait: asv must not outlive the locks
            proc.kill()
            proc.wait()
        for signum, handler in previous:
            signal.signal(signum, handler)
        for relay in relays:
            relay.join(timeout=5)
    if received:
        raise Interrupted(received[0])
    return code


def relay_stdout(stream, keep_line):
    for line in stream:
        if keep_line(line):
            sys.stdout.write(line)
            sys.stdout.flush()


def relay_stderr(stream, out=None):
    """Pass asv's stderr on as it comes, except a KeyboardInterrupt traceback: asv 0.6 has
    no handler for Ctrl-C outside its benchmark loop (nor while its interpreter shuts down:
    "Exception ignored in ..."), and mxbench says it in one line."""
    out = out or sys.stderr
    held = []
    for line in stream:
        starts = line.startswith(("Traceback (most recent call last):", "Exception ignored in"))
        if held or starts:
            held.append(line)
            # the exception's own line (unindented, not the block's first lines) ends it
            if line.strip() and not line.startswith((" ", "Traceback", "Exception ignored")):
                if line.split(":")[0].strip() != "KeyboardInterrupt":
                    out.writelines(held)
                held = []
        else:
            out.write(line)
        out.flush()
    out.writelines(held)
    out.flush()


def _wait(proc, received):
    """Wait for asv; after a signal, give it a moment to stop by itself (a Ctrl-C at the
    terminal reaches it too), then pass SIGINT on, then stop it after INTERRUPT_GRACE (the
    guard's SIGKILL ends asv and every process it started)."""
    while True:
        try:
            return proc.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            if received:
                break
    for action, seconds in ((None, ASV_STOPS_ITSELF), (signal.SIGINT, INTERRUPT_GRACE),
                            (signal.SIGKILL, None)):
        if action is not None:
            proc.send_signal(action)
        try:
            return proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            continue


# --- one recording at a time -------------------------------------------------------------------
_HELD = {}  # lock path -> [fd, depth] of the locks this process holds


def _command_line():
    argv = list(sys.argv)
    if argv and argv[0].endswith(os.path.join("mxbench", "__main__.py")):
        argv[:1] = ["python", "-m", "mxbench"]
    text = " ".join(argv)
    return text if len(text) <= 200 else text[:197] + "..."


def _acquire(path, what):
    if path in _HELD:
        _HELD[path][1] += 1
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.time() + HOLDER_GONE_WAIT
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except OSError:
            os.lseek(fd, 0, os.SEEK_SET)
            holder = os.read(fd, 4096).decode("utf-8", "replace").split("\n", 1)
        pid, command = (holder + [""])[:2]
        # a holder that is gone: its children's guard holds the lock while it ends them
        if not _pid_alive(pid) and time.time() < deadline:
            time.sleep(0.1)
            continue
        os.close(fd)
        raise UserError("another mxbench run is recording into this %s: pid %s (%s); lock "
                        "%s. One recording at a time: wait for it to finish (or stop it), "
                        "then run this again" % (what, pid.strip() or "?",
                                                 command.strip() or "command unknown", path))
    # the lock is the kernel's (released when its holder dies, however): a file naming a
    # dead holder is simply taken over
    os.ftruncate(fd, 0)
    os.write(fd, ("%d\n%s\n" % (os.getpid(), _command_line())).encode("utf-8"))
    _HELD[path] = [fd, 1]


def held_locks():
    """The descriptors of the recording locks this process holds (a child's guard keeps
    them open: a lock lives as long as anything that may write under it)."""
    return [fd for fd, _ in _HELD.values()]


def _pid_alive(text):
    try:
        os.kill(int(text.strip()), 0)
    except (ValueError, OverflowError):
        return True  # unknown: as if alive
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _release(path):
    held = _HELD.get(path)
    if held is None:
        return
    held[1] -= 1
    if held[1] == 0:
        del _HELD[path]
        fcntl.flock(held[0], fcntl.LOCK_UN)
        os.close(held[0])


def lock_paths(project, environments=True):
    """(path, what) of the locks a recording holds: the checkout's (its results and staging)
    and, unless environments is False, the asv environments' (one wheel installed at a
    time)."""
    return [(os.path.join(project.work_dir, "record.lock"),
             "checkout (results in %s)" % project.results_dir)] + (
        [(os.path.abspath(project.env_dir) + ".lock",
          "asv environment directory (%s)" % project.env_dir)] if environments else [])


@contextlib.contextmanager
def recording(project, environments=True):
    """Hold this checkout's and (unless environments is False: a command that installs
    nothing, such as a merge) these asv environments' recording locks (re-entrant);
    UserError naming the holder when another process has one."""
    taken = []
    try:
        for path, what in lock_paths(project, environments):
            _acquire(path, what)
            taken.append(path)
        yield
    finally:
        for path in reversed(taken):
            _release(path)


# --- recording into results/ ------------------------------------------------------------------
WHOLE_RUN = "whole-run"  # in a staging: merge only once asv has finished (a confirmation)
FINISHED = "finished"    # in a staging: asv exited by itself, its results are whole
HASHES = "hashes"        # in a staging: asv's HASHFILE of the run's commits
COMMITS = "HASHFILE:<the commits>"  # in record()'s asv arguments: the staging's HASHFILE


class Staging(object):
    """A staging results directory for one run: asv writes there, complete files are merged
    into the store. A staging left by a killed run is merged by the next run, except a whole
    run's (a confirmation's rounds): that one only once asv has finished, never in part."""

    def __init__(self, project, machine):
        self.project = project
        self.store = project.store
        self.machine = machine
        self.root = os.path.join(project.work_dir, "staging")
        self.dir = os.path.join(self.root, "run-%d" % os.getpid())
        self.results_dir = os.path.join(self.dir, "results")
        self.config = os.path.join(self.dir, "asv.conf.json")
        self._seen = {}
        self.whole_run = False
        self.discarded = 0  # unfinished whole runs' stagings removed unmerged
        self.merged = set()
        self.unreadable = []
        self.write_error = None  # an OSError writing into results/ (disk full, read-only)
        self.stamp = project.result_stamp()

    @property
    def hashfile(self):
        return os.path.join(self.dir, HASHES)

    def prepare(self, commits, whole_run=False):
        """Copy in what is recorded for these commits (asv's --skip-existing reads it).
        whole_run: nothing is merged until finish() (a confirmation's verdict needs every
        round of a run that finished: a killed run's rounds are never merged)."""
        if os.path.isdir(self.dir):
            shutil.rmtree(self.dir)
        target = os.path.join(self.results_dir, self.machine)
        os.makedirs(target)
        with open(os.path.join(self.dir, "pid"), "w") as fh:
            fh.write(str(os.getpid()))
        self.whole_run = whole_run
        if whole_run:
            _touch(os.path.join(self.dir, WHOLE_RUN))
        # the commits for asv's HASHFILE: in here, so nothing is left in /tmp by a kill
        with open(self.hashfile, "w") as fh:
            fh.write("\n".join(commits) + "\n")
        prefixes = tuple(c[:8] for c in commits)
        # what the run starts from, kept apart: a point still equal to it was not measured
        start = os.path.join(self.dir, BASELINE, self.machine)
        os.makedirs(start)
        for path in self.store.files(self.machine):
            if os.path.basename(path).startswith(prefixes):
                # asv sees the file as it wrote it: with a CPU environment's 'gpu' skips
                staged = os.path.join(target, os.path.basename(path))
                results.copy_for_asv(path, staged)
                shutil.copy2(staged, os.path.join(start, os.path.basename(path)))
        for name in (results.BENCHMARKS_FILE,):
            path = os.path.join(self.store.results_dir, name)
            if os.path.exists(path):
                shutil.copy2(path, os.path.join(self.results_dir, name))
        config_copy(self.project.config, self.config, results_dir=self.results_dir)
        self._seen = dict((p, self._stamp(p)) for p in self._staged_files())

    @staticmethod
    def _stamp(path):
        try:
            st = os.stat(path)
            return (st.st_mtime_ns, st.st_size)
        except OSError:
            return None

    def _staged_files(self, root=None):
        root = root or self.results_dir
        out = []
        if os.path.isdir(root):
            for machine in os.listdir(root):
                folder = os.path.join(root, machine)
                if os.path.isdir(folder):
                    out += [os.path.join(folder, f) for f in os.listdir(folder)
                            if f.endswith(".json") and f != results.MACHINE_FILE]
        return out

    def merge(self, final=False):
        """Merge staged result files asv has changed since the last merge. A write into
        results/ that fails (disk full, read-only) is kept in write_error; the staging
        keeps the measurements."""
        for path in self._staged_files():
            stamp = self._stamp(path)
            if stamp is None or self._seen.get(path) == stamp:
                continue
            relative = os.path.relpath(path, self.results_dir)
            recorded = os.path.join(self.store.results_dir, relative)
            try:
                done = results.merge_result_file(path, recorded, _start_of(self.dir, relative),
                                                 self.stamp)
            except OSError as exc:
                self.write_error = exc
                continue
            if done:
                self._seen[path] = stamp
                self.merged.add(recorded)
            elif final:
                self.unreadable.append(path)
        if final:
            try:
                self._merge_side_files(self.results_dir)
            except OSError as exc:
                self.write_error = exc

    def _merge_side_files(self, staged_root):
        """benchmarks.json (the suite asv discovered) and a machine.json the record lacks."""
        staged = os.path.join(staged_root, results.BENCHMARKS_FILE)
        try:
            results.read_benchmarks_file(staged)
            results.copy_atomic(staged, os.path.join(self.store.results_dir,
                                                     results.BENCHMARKS_FILE))
        except results.ResultFileError:
            pass  # asv did not get as far as discovery: the recorded file stays
        for machine in os.listdir(staged_root) if os.path.isdir(staged_root) else []:
            staged = os.path.join(staged_root, machine, results.MACHINE_FILE)
            recorded = os.path.join(self.store.results_dir, machine, results.MACHINE_FILE)
            if os.path.exists(staged) and not os.path.exists(recorded):
                try:
                    results.read_machine_file(staged)
                    results.copy_atomic(staged, recorded)
                except results.ResultFileError:
                    pass

    def finish(self):
        """asv exited by itself: the staging's results are whole (a whole run's may be merged,
        by this run or, if it is killed before it merges, by the next)."""
        _touch(os.path.join(self.dir, FINISHED))

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def recover_abandoned(self):
        """Merge what runs that were killed (SIGKILL, power loss) left in staging."""
        recovered = 0
        if not os.path.isdir(self.root):
            return 0
        for name in sorted(os.listdir(self.root)):
            folder = os.path.join(self.root, name)
            if folder == self.dir or _alive(folder):
                continue
            if not _mergeable(folder):
                shutil.rmtree(folder, ignore_errors=True)
                self.discarded += 1
                continue
            staged_root = os.path.join(folder, "results")
            try:
                for path in self._staged_files(staged_root):
                    relative = os.path.relpath(path, staged_root)
                    recorded = os.path.join(self.store.results_dir, relative)
                    if results.merge_result_file(path, recorded, _start_of(folder, relative),
                                                 self.stamp):
                        recovered += 1
                self._merge_side_files(staged_root)
            except OSError as exc:
                raise UserError(
                    "cannot write into %s (%s): the results there are unchanged; the "
                    "measurements of an interrupted run are kept in %s and are merged by the "
                    "next run" % (self.store.results_dir, exc.strerror or exc, folder))
            shutil.rmtree(folder, ignore_errors=True)
        for path in self.store.stale_temporaries():
            os.unlink(path)
        return recovered


BASELINE = "start"  # a staging's copy of the record as the run began


def _start_of(staging_dir, relative):
    """What the staged file `relative` started from: its copy in the staging's start/ ({}
    of results when the run started without one), or None for a staging made before start/
    was kept (then merges go by started_at alone)."""
    start = os.path.join(staging_dir, BASELINE)
    if not os.path.isdir(start):
        return None
    path = os.path.join(start, relative)
    if not os.path.exists(path):
        return {"results": {}, "result_columns": list(results.COLUMNS)}
    try:
        return results.read_result_file(path)
    except results.ResultFileError:
        return None


def _touch(path):
    with open(path, "w"):
        pass


def _mergeable(staging_dir):
    """A staging's results may be merged: any run's, but a whole run's only once finished."""
    return (not os.path.exists(os.path.join(staging_dir, WHOLE_RUN))
            or os.path.exists(os.path.join(staging_dir, FINISHED)))


def _alive(staging_dir):
    try:
        with open(os.path.join(staging_dir, "pid")) as fh:
            pid = int(fh.read().strip())
    except (OSError, ValueError):
        return False
    return pid != os.getpid() and _pid_alive(str(pid))


def recover_interrupted_runs(project, machine):
    """Merge what killed runs left in staging; callers that decide what to measure from the
    store call it first (a run with nothing left to measure still recovers). Returns this
    process's Staging."""
    staging = Staging(project, machine)
    recovered = staging.recover_abandoned()
    if recovered:
        print("recovered %d result file(s) from an interrupted run" % recovered, flush=True)
    if staging.discarded:
        print("discarded the rounds of %d confirmation run(s) that did not finish: a verdict "
              "needs every round of a finished run" % staging.discarded, flush=True)
    return staging


def record(project, machine, commits, asv_args, env=None, allow_busy=False, whole_run=False):
    """`asv run ASV_ARGS` recording into project's results/ through a staging copy; COMMITS
    among ASV_ARGS becomes a HASHFILE of `commits`.

    Before: files of these commits are validated (a bad one: ResultsProblem, nothing runs),
    the machine record is checked, the machine's load is looked at (busy: UserError unless
    allow_busy; conditions.py), a killed run's staging is recovered. During and after:
    complete files are merged (never a measured point replaced by a failure or a skip).
    Returns asv's exit code; Interrupted after merging what finished. Holds the recording
    locks throughout (another run recording here: UserError naming it); results/ that
    cannot be written (disk full, read-only): UserError naming the staging that keeps the
    measurements, which the next run merges. whole_run (a confirmation): nothing is merged
    unless asv finishes (exit 0, or 2: some benchmark failed); an interrupted run's results
    are discarded."""
    with recording(project):
        project.store.require_valid(machine, commits)
        require_machine_is_this_host(project.store, machine)
        watch = conditions.Watch(project.store, machine, allow_busy)
        watch.start(commits, _environments(asv_args), _command_line())
        outcome = "failed"
        try:
            code = _record(project, machine, commits, asv_args, env, whole_run)
            outcome = "exit %d" % code
            return code
        except (Interrupted, KeyboardInterrupt):
            outcome = "interrupted"
            raise
        finally:
            watch.finish(outcome)


def _environments(asv_args):
    return [asv_args[i + 1] for i, arg in enumerate(asv_args[:-1]) if arg == "-E"]


ASV_FINISHED = (0, 2)  # asv run's exits of a run that went through (2: a benchmark failed)


def _record(project, machine, commits, asv_args, env=None, whole_run=False):
    staging = recover_interrupted_runs(project, machine)
    staging.prepare(commits, whole_run)
    asv_args = ["HASHFILE:%s" % staging.hashfile if a == COMMITS else a for a in asv_args]
    stop = threading.Event()

    def merge_while_running():
        while not stop.wait(MERGE_INTERVAL):
            staging.merge()

    # a whole run's rounds are merged at the end or not at all
    merger = threading.Thread(target=merge_while_running, daemon=True)
    if not whole_run:
        merger.start()
    code = None
    try:
        code = run_asv(["run", "--machine", machine] + asv_args, config=staging.config,
                       env=env, cwd=project.base)
        return code
    finally:
        stop.set()
        if merger.is_alive():
            merger.join()
        _end_staging(staging, code)


def _end_staging(staging, code):
    """Merge what asv left in the staging (a whole run's: only if asv finished), remove it."""
    if code in ASV_FINISHED:
        staging.finish()
    elif staging.whole_run:
        staging.close()
        print("the confirmation run did not finish (%s): its rounds are discarded, a verdict "
              "needs every round" % ("asv exit %d" % code if code is not None
                                     else "interrupted"), file=sys.stderr, flush=True)
        return
    staging.merge(final=True)
    for path in staging.unreadable:
        print("warning: asv left %s incomplete; the recorded results are unchanged and a "
              "resume measures it again" % path, file=sys.stderr, flush=True)
    if staging.write_error is not None:
        exc = staging.write_error
        raise UserError(
            "cannot write into %s (%s): what was recorded there before is unchanged "
            "(%d file(s) merged); this run's measurements are kept in %s and merged by "
            "the next run once it can write" % (staging.store.results_dir, exc.strerror or exc,
                                               len(staging.merged), staging.dir))
    staging.close()
