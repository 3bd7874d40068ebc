"""python -m mxbench search: a property-based search for each operator's performance cliffs.

    python -m mxbench search softmax dot --budget 120 --seed 0
    python -m mxbench search                    # the operators of DEFAULT_OPERATORS
    python -m mxbench search --list             # which entries can be searched, and why not

For each catalogue entry, Hypothesis draws shapes (and dtypes, and the reduction axis where
the entry has one) from the entry's own cases (search_space.py), each a valid call; each is
timed through the harness (the suite's call builder, forward phase, median of --runs calls)
and Hypothesis is steered with target() toward a high cost per input element, less the
call's fixed cost (the median of the entry's `small` case, dispatch-bound). Most of --budget
goes to the search; the rest confirms cliffs among the costliest shapes: each one's
neighbours are timed once, and those at least 2x cheaper per element are re-measured with
it in ROUNDS interleaved rounds (mxbench.core.cliff_rule has the rule). A confirmed cliff is
written into benchmarks/catalogue/cliffs.json as a named case of its entry (bench_cliffs
times it along the ladder), and every search leaves its log in --out.

Reproducible: the shapes drawn follow from --seed and the costs measured (Hypothesis runs in
rounds until the search share is spent, round r seeded seed * 1000 + r); its example
database keeps the best shapes found and replays them first: every entry's in one archive,
--out/examples.tar.xz (<entry>/<key>/<value>: the files of Hypothesis' own folder database,
which searches an entry in a scratch folder unpacked from it and packed back after; an old
--out/examples/ folder is packed into it, content unchanged, on the next search).
Resumable: an entry whose log in --out has this seed and budget is not searched again
(--again searches it anyway). Ctrl-C keeps the logs of the finished entries. Each entry is
searched in a child process: a crash of MXNet's on some shape is that entry's log (crashed).
"""
import contextlib
import fcntl
import importlib.util
import io
import json
import os
import shutil
import signal
import statistics
import sys
import tarfile
import tempfile
import time
from collections import OrderedDict

from benchmarks import catalogue as C
from mxbench.core import cliff_rule as rule
from mxbench.core import errors
from mxbench.core.lazy import harness as H
from mxbench.core.project import ROOT
from mxbench.inside import search_space as S

# The list (issue 27): convolution, pooling, normalisations, softmaxes, layouts,
# GEMMs, reductions, indexing, sort, joins, slices and elementwise with broadcasting.
DEFAULT_OPERATORS = (
    "Convolution", "Convolution_1d", "Deconvolution", "Pooling", "Pooling_avg", "BatchNorm",
    "LayerNorm", "InstanceNorm", "softmax", "log_softmax", "transpose", "swapaxes", "dot",
    "batch_dot", "FullyConnected", "sum", "mean", "max", "norm", "argmax", "take", "pick",
    "topk", "sort", "argsort", "concat", "slice", "slice_axis", "broadcast_add",
    "broadcast_mul", "elemwise_add", "relu", "exp", "Activation", "cumsum", "where", "tile",
    "repeat", "LRN")
DEFAULT_BUDGET = 120
SEARCH_SHARE = 0.7  # of the budget; the rest confirms cliffs
RUNS, WARMUP = 5, 2
CANDIDATES = 5  # the costliest shapes whose neighbours are timed
SEARCH_FORMAT = 1  # of the logs: a log of another format is searched again
CHILD_ENV = "MXBENCH_SEARCH_CHILD"  # set in the child process that searches one entry
CHILD_TIMEOUT_FACTOR, CHILD_TIMEOUT_EXTRA = 3, 300  # a child's limit: 3x its budget + 5 min


class BudgetSpent(BaseException):
    """Ends Hypothesis' run when the search's share of the budget is spent (a BaseException:
    Hypothesis takes an Exception for a failing example and would shrink it)."""


# --- timing through the harness ------------------------------------------------------------
def median_seconds(call, runs=RUNS, warmup=WARMUP):
    return statistics.median(H.timed_calls(call.forward, runs, warmup))


def build(space, draw, ctx):
    """The harness's call for a draw, first call made (shape inference, primitive creation).
    Refuses a call whose inputs would not fit in the memory available."""
    case = space.case(draw)
    needed, _ = H.memory_needed(case, draw.dtype)
    available = H.available_memory()
    if available is not None and needed > available:
        raise MemoryError("needs about %d bytes, %d available" % (needed, available))
    call = H.build_operator_call(space.entry, space.base_name, draw.dtype, ctx, case=case)
    call.forward()
    return call


def fixed_cost(entry, ctx, dtype):
    """Seconds of the entry's dispatch-bound `small` call (0 where it has none)."""
    if "small" not in entry.cases:
        return 0.0
    call = H.build_operator_call(entry, "small", dtype, ctx)
    call.forward()
    return median_seconds(call, runs=2 * RUNS)


def time_draw(space, draw, ctx, floor):
    """A tried shape: its description, elements, median seconds and cost per element."""
    elements = space.elements(draw)
    seconds = median_seconds(build(space, draw, ctx))
    return OrderedDict([("case", space.describe(draw)), ("dtype", draw.dtype),
                        ("axis", draw.axis), ("sizes", OrderedDict(sorted(draw.sizes.items()))),
                        ("elements", elements), ("seconds", seconds),
                        ("cost_per_element", seconds / elements),
                        ("score", max(seconds - floor, 0.0) / elements)])


# --- the search -------------------------------------------------------------------------------
def hypothesis_run(space, probe, seed, max_examples, database_dir):
    """Run `probe(draw)` on Hypothesis' draws until max_examples or BudgetSpent."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as fixed_seed
    from hypothesis.database import DirectoryBasedExampleDatabase

    database = DirectoryBasedExampleDatabase(database_dir) if database_dir else None
    run = settings(database=database, max_examples=max_examples, deadline=None,
                   suppress_health_check=list(HealthCheck), print_blob=False,
                   phases=(Phase.reuse, Phase.generate, Phase.target))(
        fixed_seed(seed)(given(space.strategy())(probe)))
    try:
        run()
    except BudgetSpent:
        pass


def search_draws(space, seed, deadline, examples, measure, database_dir=None, rounds=1):
    """The draws Hypothesis makes, in order, each measured by measure(draw) -> (score,
    result) and steered toward high scores (one target per dtype); a score of None is a draw
    the operator refused, which Hypothesis is told to reject. Hypothesis runs `rounds`
    times (None: until the deadline, time.monotonic()), `examples` draws each, round r with
    seed `seed * 1000 + r`: its targeting starts halfway through a round, and the example
    database carries the best shapes of a round into the next. Returns [(draw, result)]."""
    from hypothesis import reject, target
    tried = []

    def probe(draw):
        if time.monotonic() > deadline:
            raise BudgetSpent()
        score, result = measure(draw)
        if score is None:
            reject()
        tried.append((draw, result))
        target(score, label=draw.dtype)

    done = 0
    while (rounds is None or done < rounds) and time.monotonic() < deadline:
        hypothesis_run(space, probe, seed * 1000 + done, examples, database_dir)
        done += 1
    return tried


# --- the example database: one archive of every entry's ----------------------------------------
EXAMPLES_ARCHIVE = "examples.tar.xz"  # in --out
OLD_EXAMPLES_DIR = "examples"  # the layout before: --out/examples/<entry>/, 16,000 files


def archive_path(out):
    return os.path.join(out, EXAMPLES_ARCHIVE)


def read_archive(path):
    """{member: bytes} of an examples archive ({} where there is none)."""
    if not os.path.exists(path):
        return {}
    with tarfile.open(path, "r:xz") as archive:
        return {m.name: archive.extractfile(m).read() for m in archive.getmembers() if m.isfile()}


def write_archive(path, members):
    """The archive of exactly `members`, sorted and without dates or owners (the same database
    gives the same bytes), swapped in whole."""
    tmp = path + ".tmp"
    with tarfile.open(tmp, "w:xz", format=tarfile.USTAR_FORMAT) as archive:
        for name in sorted(members):
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(members[name]), 0o644, 0
            archive.addfile(info, io.BytesIO(members[name]))
    os.replace(tmp, path)


def folder_files(folder, prefix):
    """{prefix/path: bytes} of the files under `folder` (Hypothesis' temporary .files left out)."""
    found = {}
    for parent, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if not name.startswith("."):
                path = os.path.join(parent, name)
                with open(path, "rb") as fh:
                    found["/".join([prefix] + os.path.relpath(path, folder).split(os.sep))] = \
                        fh.read()
    return found


@contextlib.contextmanager
def archive_lock(out):
    """One writer of --out's archive at a time (the lock is the folder's, the kernel's)."""
    fd = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def update_archive(out, replace_prefix, members):
    """Under the lock: the archive's members under replace_prefix (None: none) replaced by
    `members`, the others kept; written only where that changes it."""
    with archive_lock(out):
        before = read_archive(archive_path(out))
        after = dict((name, data) for name, data in before.items()
                     if replace_prefix is None or not name.startswith(replace_prefix))
        after.update(members)
        if after != before or not os.path.exists(archive_path(out)):
            write_archive(archive_path(out), after)


def migrate_examples(out):
    """An old --out/examples/ folder packed into the archive (the same paths and bytes; a
    database is a set of values per key, so one already in the archive is kept as well),
    then removed. Returns the number of files packed."""
    old = os.path.join(out, OLD_EXAMPLES_DIR)
    if not os.path.isdir(old):
        return 0
    found = {}
    for entry in sorted(os.listdir(old)):
        if os.path.isdir(os.path.join(old, entry)):
            found.update(folder_files(os.path.join(old, entry), entry))
    update_archive(out, None, found)
    shutil.rmtree(old)
    return len(found)


@contextlib.contextmanager
def examples_database(out, entry_name):
    """A scratch folder holding `entry_name`'s example database from --out's archive, for
    Hypothesis' DirectoryBasedExampleDatabase; packed back into the archive when the search
    ends, Ctrl-C and errors included (a crash of the process loses that search's changes)."""
    migrate_examples(out)
    prefix = entry_name + "/"
    with tempfile.TemporaryDirectory(prefix="mxbench-examples-") as scratch:
        folder = os.path.join(scratch, entry_name)
        os.makedirs(folder)
        with archive_lock(out):
            members = read_archive(archive_path(out))
        for name, data in members.items():
            if name.startswith(prefix):
                path = os.path.join(folder, *name[len(prefix):].split("/"))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as fh:
                    fh.write(data)
        try:
            yield folder
        finally:
            update_archive(out, prefix, folder_files(folder, entry_name))


# --- confirming cliffs -----------------------------------------------------------------------------
def neighbour_name(cliff_name, kind):
    return "%s/%s" % (cliff_name, kind)


def cliff_name(space, draw, taken):
    """cliff_<first input's shape>, made unique against names already taken."""
    shape = space.case(draw).inputs[0].shape
    name = "cliff_" + "x".join(str(n) for n in shape)
    if draw.axis is not None:
        name += "_axis%d" % draw.axis
    if draw.dtype != space.dtypes[0]:
        name += "_" + draw.dtype
    base, n = name, 2
    while name in taken:
        name, n = "%s_%d" % (base, n), n + 1
    return name


def confirm_cliffs(space, candidates, timer, deadline, threshold, taken, log=None):
    """Cliff records among the candidate draws: neighbours timed once, those at least
    `threshold` times cheaper per element re-measured with the shape in rounds, interleaved.
    timer(draw) -> a function that times the draw's call once more (seconds)."""
    found, screened = [], []
    for draw in candidates:
        if time.monotonic() > deadline:
            break
        try:
            timers = OrderedDict([("shape", timer(draw))])
        except Exception as exc:
            screened.append({"case": space.describe(draw), "problem": H.one_line(exc)})
            continue
        elements = {"shape": space.elements(draw)}
        kinds = OrderedDict()
        first = {"shape": timers["shape"]()}
        for kind, other in space.neighbours(draw):
            elements[kind] = space.elements(other)
            if not rule.comparable(elements["shape"], elements[kind]):
                continue
            try:
                time_it = timer(other)
            except Exception:  # a neighbour the operator refuses is no neighbour
                continue
            first[kind] = time_it()
            if rule.ratios([first], elements, "shape", kind)[0] >= threshold:
                timers[kind], kinds[kind] = time_it, other
            if time.monotonic() > deadline:
                break
        screened.append({"case": space.describe(draw), "dtype": draw.dtype,
                         "cheaper_neighbours": list(kinds)})
        if not kinds:
            continue
        rounds = [dict((name, time_it()) for name, time_it in timers.items())
                  for _ in range(rule.ROUNDS)]
        held = rule.confirm(rounds, elements, "shape", list(kinds), threshold)
        if held:
            found.append(cliff_record(space, draw, kinds, held, elements, rounds, taken))
            if log:
                log("  cliff %s: %s" % (found[-1]["name"], ", ".join(
                    "%s %.2fx" % (k, r) for k, r in held.items())))
    return found, screened


def candidates_of(tried, count=CANDIDATES):
    """The distinct draws with the highest cost per element, each against the median of its
    dtype (float16 on a CPU costs more everywhere: that is no cliff)."""
    by_dtype = {}
    for draw, result in tried:
        by_dtype.setdefault(draw.dtype, []).append(result["cost_per_element"])
    typical = dict((d, statistics.median(costs)) for d, costs in by_dtype.items())
    ranked = sorted(tried, key=lambda pair: -pair[1]["cost_per_element"] / typical[pair[0].dtype])
    out, seen = [], set()
    for draw, result in ranked:
        key = S.draw_key(draw)
        if key not in seen and len(out) < count:
            seen.add(key)
            out.append(draw)
    return out


def cliff_record(space, draw, kinds, held, elements, rounds, taken):
    name = cliff_name(space, draw, taken)
    taken.add(name)
    neighbours = [OrderedDict([("name", neighbour_name(name, kind)), ("kind", kind),
                               ("shape", space.describe(kinds[kind])),
                               ("elements", elements[kind]), ("ratio", round(ratio, 3)),
                               ("case", space.record(kinds[kind]))])
                  for kind, ratio in held.items()]
    return OrderedDict([
        ("entry", space.entry.class_name), ("name", name), ("shape", space.describe(draw)),
        ("dtype", draw.dtype), ("elements", elements["shape"]),
        ("ratio", round(max(held.values()), 3)), ("case", space.record(draw)),
        ("neighbours", neighbours),
        ("rounds", [OrderedDict((k, r[k]) for k in ["shape"] + list(held)) for r in rounds]),
        ("mxnet", getattr(H.mx, "__version__", None))])


def search_entry(entry, budget, seed, database_dir=None, threshold=rule.THRESHOLD,
                 taken=None, log=None):
    """Search one entry within `budget` seconds: its log (a dict), cliffs included."""
    started = time.monotonic()
    space = S.SearchSpace(entry)
    ctx = H.context("cpu")
    floor = fixed_cost(entry, ctx, space.dtypes[0])
    base = time_draw(space, space.base_draw(), ctx, floor)
    # Draws per Hypothesis round: about a quarter of the search's share at the base case's
    # cost, so that targeting (from halfway through a round) starts early.
    per_example = base["seconds"] * (RUNS + WARMUP + 1) + 0.05  # + building the inputs
    examples = int(min(200, max(10, SEARCH_SHARE * budget / per_example / 4)))

    refused = []

    def measure(draw):
        try:
            result = time_draw(space, draw, ctx, floor)
        except (H.mx.base.MXNetError, MemoryError, NotImplementedError) as exc:
            # the derivation missed a constraint of this entry: logged, and no cost
            refused.append({"case": space.describe(draw), "dtype": draw.dtype,
                            "problem": H.one_line(exc)})
            return None, None
        return result["score"], result

    tried = search_draws(space, seed, started + SEARCH_SHARE * budget, examples, measure,
                         database_dir, rounds=None)

    def timer(draw):
        call = build(space, draw, ctx)
        return lambda: median_seconds(call)

    cliffs, screened = confirm_cliffs(space, candidates_of(tried), timer, started + budget,
                                      threshold, set() if taken is None else taken, log)
    return OrderedDict([
        ("format", SEARCH_FORMAT), ("entry", entry.class_name), ("mxnet", H.mx.__version__),
        ("seed", seed), ("budget_s", budget), ("spent_s", round(time.monotonic() - started, 1)),
        ("base_case", space.base_name), ("fixed_cost_s", floor), ("base", base),
        ("symbols", [OrderedDict([("name", s.name), ("base", s.value), ("low", s.low),
                                  ("high", s.high), ("positions", [list(map(str, p))
                                                                   for p in s.positions])])
                     for s in space.symbols]),
        ("tried", [result for _, result in tried]), ("refused", refused),
        ("screened", screened),
        ("cliffs", cliffs)])


# --- cliffs into the catalogue's data ----------------------------------------------------------
def merge_cliffs(existing, entry_name, found):
    """The cliff records with an entry's new ones: a cliff of the same case keeps its name
    (and its place); the others are added after."""
    out = list(existing)
    known = dict((json.dumps(c["case"], sort_keys=True) + c["dtype"], c) for c in out
                 if c["entry"] == entry_name)
    for cliff in found:
        key = json.dumps(cliff["case"], sort_keys=True) + cliff["dtype"]
        if key not in known:
            out.append(cliff)
    return out


# --- command line ------------------------------------------------------------------------------
def resolve_entries(names):
    """Catalogue entries for names (an operator's main entry, or a class name)."""
    from mxbench.inside import adhoc
    out = []
    for name in names:
        entry = adhoc.main_entry(name)
        if entry is None:
            raise errors.UserError(adhoc.unknown_operator_message(name))
        try:
            S.SearchSpace(entry)
        except ValueError as exc:
            raise errors.UserError(exc)
        out.append(entry)
    return out


def log_path(out_dir, entry):
    return os.path.join(out_dir, entry.class_name + ".json")


def finished(path, seed, budget):
    try:
        with open(path) as fh:
            log = json.load(fh)
    except (OSError, ValueError):
        return False
    return (log.get("format"), log.get("seed"), log.get("budget_s")) == (SEARCH_FORMAT, seed,
                                                                         budget)


def write_json(data, path):
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(data, fh, indent=1)
        fh.write("\n")
    os.replace(tmp, path)


def list_entries():
    lines = []
    for op in C.OPERATORS:
        problem = S.why_not_searched(op)
        if problem is None:
            try:
                S.SearchSpace(op)
            except ValueError as exc:
                problem = str(exc).split(": ", 1)[1]
        lines.append("%-34s %s" % (op.class_name, "searched" if problem is None
                                   else "not searched: " + problem))
    return "\n".join(lines) + "\n"


def search_here(entry, args, cliffs_file, command):
    """Search one entry in this process; write its log and its cliffs."""
    from benchmarks.catalogue import cliffs as data
    cliffs = data.read_cliffs(cliffs_file)
    taken = set(c["name"] for c in cliffs if c["entry"] == entry.class_name)
    with examples_database(args.out, entry.class_name) as database_dir:
        log = search_entry(entry, args.budget, args.seed, database_dir, args.threshold,
                           taken, log=lambda text: print(text, file=sys.stderr))
    log["command"] = command
    for cliff in log["cliffs"]:
        cliff["found_by"] = command
    write_json(log, log_path(args.out, entry))
    if log["cliffs"]:
        data.write_cliffs(merge_cliffs(cliffs, entry.class_name, log["cliffs"]), cliffs_file)
    return log


def search_in_child(entry, args, cliffs_file, command, run_child):
    """Search one entry in a child process: a crash of MXNet's (a segfault on some shape) is
    that entry's log, and the next entry is searched. run_child: the command's guard (a child
    that ends with this process, a kill -9 included, instead of searching on to the end of its
    budget), a subprocess.run."""
    from mxbench.inside.adhoc import signal_name
    child = [sys.executable, "-m", "mxbench", "search", entry.class_name,
             "--budget", str(args.budget), "--seed", str(args.seed),
             "--threshold", str(args.threshold), "--out", args.out,
             "--cliffs-file", cliffs_file, "--again", "--command", command]
    env = dict(os.environ, **{CHILD_ENV: "1"})
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
    proc = run_child(child, cwd=ROOT, env=env, timeout=CHILD_TIMEOUT_FACTOR * args.budget
                     + CHILD_TIMEOUT_EXTRA)
    if proc.returncode in (errors.INTERRUPTED, -signal.SIGINT):
        raise KeyboardInterrupt
    if proc.returncode == 0:
        with open(log_path(args.out, entry)) as fh:
            return json.load(fh)
    cause = signal_name(proc.returncode) if proc.returncode < 0 else \
        "exit code %d" % proc.returncode
    log = OrderedDict([("format", SEARCH_FORMAT), ("entry", entry.class_name),
                       ("mxnet", None), ("seed", args.seed), ("budget_s", args.budget),
                       ("crashed", "the search's process ended (%s)" % cause),
                       ("tried", []), ("refused", []), ("cliffs", []), ("command", command)])
    write_json(log, log_path(args.out, entry))
    return log


def plan(args):
    """(entries, cliffs file, parent) of a search's arguments; parent: this process hands each
    entry to a child (the children import MXNet; this one only checks that they can)."""
    if args.budget < 5:
        raise errors.UserError("--budget must be at least 5 seconds")
    if args.threshold <= 1:
        raise errors.UserError("--threshold must be above 1")
    entries = resolve_entries(args.operators or DEFAULT_OPERATORS)
    parent = not os.environ.get(CHILD_ENV)
    try:
        if parent:
            if importlib.util.find_spec("mxnet") is None:
                raise NotImplementedError("no mxnet in this Python (%s)" % sys.executable)
        else:
            H.require_mxnet()
    except NotImplementedError as exc:
        raise errors.UserError(exc)
    from benchmarks.catalogue.cliffs import CLIFFS_FILE
    cliffs_file = os.path.abspath(args.cliffs_file or CLIFFS_FILE)
    args.out = os.path.abspath(args.out)
    if not os.path.isdir(args.out):
        os.makedirs(args.out)
    return entries, cliffs_file, parent


def search_entries(entries, args, cliffs_file, parent, run_child):
    """Search each entry not searched already (in a child each, where parent); the exit code:
    errors.INTERRUPTED after a Ctrl-C, which keeps the finished entries' logs."""
    command = args.command or " ".join(["python -m mxbench"] + sys.argv[1:])
    say = print if parent else (lambda *a, **k: None)  # the parent says it, once
    done = 0
    try:
        for entry in entries:
            path = log_path(args.out, entry)
            if not args.again and finished(path, args.seed, args.budget):
                say("mxbench.search: %s: searched already (%s)" % (entry.class_name, path),
                    file=sys.stderr)
                continue
            say("mxbench.search: %s: %ds" % (entry.class_name, args.budget), file=sys.stderr,
                flush=True)
            if parent:
                log = search_in_child(entry, args, cliffs_file, command, run_child)
            else:
                log = search_here(entry, args, cliffs_file, command)
            done += 1
            say("mxbench.search: %s: %s" % (entry.class_name, log.get("crashed") or
                                            "%d shapes tried, %d refused, %d cliffs" % (
                len(log["tried"]), len(log["refused"]), len(log["cliffs"]))), file=sys.stderr)
    except KeyboardInterrupt:
        say("mxbench.search: interrupted: the %d entries searched are kept" % done,
            file=sys.stderr)
        return errors.INTERRUPTED
    return errors.OK
