"""Short and long selections of the suite's parameter points, as asv -b regexes.

long is every point of every benchmark; short is every benchmark at a few points, chosen by
one rule over a class's parameter axes that a class may override (`short_params`, `short`,
`short_methods`); field is the short selection's field cases alone (shape values `field-...`:
the shapes of documented changes and real work, benchmarks/catalogue/field.py). All leave the
benchmarks' parameter grids as they are, so all write the same benchmark versions. The rule
and the declared exceptions: docs/measurement.md.
"""
import functools
import inspect
import re

from mxbench.core import discovery, results
from mxbench.core.errors import UserError

SELECTIONS = ("short", "long", "field")
DEFAULT_SELECTION = "short"
SHORT_SHAPE = "medium"
FIELD_PREFIX = "field-"  # the name of every field case (benchmarks/catalogue/field.py)
# asv compiles every -b into a regex and tries each on each point's name: keep each one short
# enough for the command line (a single argument may hold 128 KiB on Linux).
NAMES_PER_REGEX = 200
NOTHING = "^$(?!)"  # a -b that selects no benchmark


def class_choice(cls):
    """The attributes of a benchmark's class the selection reads, as data: short (False:
    long-only), short_methods, short_params (their values as asv writes them: repr),
    devices_only."""
    methods = getattr(cls, "short_methods", None)
    declared = getattr(cls, "short_params", {}) or {}
    only = getattr(cls, "devices_only", None)
    return {"short": getattr(cls, "short", True) is not False,
            "short_methods": list(methods) if methods is not None else None,
            "short_params": dict((name, [repr(v) for v in values])
                                 for name, values in declared.items()),
            "devices_only": list(only) if only else None}


class Benchmark(object):
    """One asv benchmark as asv names it: module.Class.method, its parameter axes and
    values (as asv writes them: repr), its version (asv's: the declared one, else a hash of
    its code), what its class declares for the selection (choice: class_choice), and its
    class (found when asked, for a benchmark discovery.py kept)."""

    def __init__(self, name, cls, param_names, params, version=None, choice=None,
                 find_class=None):
        self.name = name
        self.method = name.rsplit(".", 1)[-1]
        self._cls, self._find_class = cls, find_class
        self.param_names = list(param_names)
        self.params = [list(axis) for axis in params]
        self.version = version
        self.choice = choice if choice is not None else class_choice(cls)

    @property
    def cls(self):
        if self._cls is None:
            self._cls = self._find_class()
        return self._cls

    @classmethod
    def of_asv(cls, found):
        """The wrapper of one benchmark that asv_runner's discovery yields."""
        return cls(found.name, owner(found), found.param_names, found.params, found.version)

    def points(self, values=None):
        """The parameter points (tuples of repr strings), all or those within `values`
        (one list of allowed repr strings per axis)."""
        return results.row_points(values if values is not None else self.params)


def owner(found):
    """The class of an asv benchmark's method (a free function's module)."""
    bound = getattr(found.func, "__self__", None)
    return type(bound) if bound is not None else inspect.getmodule(found.func)


@functools.lru_cache(maxsize=None)
def discover(package="benchmarks"):
    """Every benchmark of the suite, found by asv's own discovery (asv_runner, the code asv
    runs in each environment: one truth for the names, parameters and versions), in the
    order of their names (a tuple). It imports the suite's modules (and the MXNet they
    guard where one is installed, as in the tool venv), and asv_runner hashes every
    benchmark's source (2-3 s here): once per process, and kept in the checkout for the next
    command while nothing it depended on changed (discovery.py)."""
    kept = discovery.load(package)
    if kept is not None:
        return tuple(Benchmark(name, None, param_names, params, version, choice,
                               find_class=functools.partial(discovery.find_class, *place))
                     for name, param_names, params, version, choice, place in kept)
    found, inputs = discovery.discover_and_watch(discover_with_asv, package)
    discovery.store(package, found, inputs)
    return found


def discover_with_asv(package):
    from asv_runner.discovery import disc_benchmarks
    from env_matrix.matrix import MatrixError
    try:
        found = [Benchmark.of_asv(b) for b in disc_benchmarks(package)]
    except ImportError as exc:
        raise MatrixError("cannot import the benchmark suite to select its points: %s" % exc)
    return tuple(sorted(found, key=lambda b: b.name.split(".")))


def short_values(benchmark):
    """Per axis, the values (repr) of the short points; None when the class is long-only."""
    choice = benchmark.choice
    if not choice["short"]:
        return None
    methods = choice["short_methods"]
    if methods is not None and benchmark.method not in methods:
        return None
    declared = choice["short_params"]
    values = []
    for name, axis in zip(benchmark.param_names, benchmark.params):
        if name in declared:
            values.append(list(declared[name]))
        elif name == "device":
            values.append(list(axis))
        elif name == "shape" and repr(SHORT_SHAPE) in axis:
            values.append([repr(SHORT_SHAPE)])
        else:
            values.append(axis[:1])
    return values


def field_values(benchmark):
    """The short selection's values narrowed to its field cases; None when it has none."""
    values = short_values(benchmark)
    if values is None or "shape" not in benchmark.param_names:
        return None
    i = benchmark.param_names.index("shape")
    field = [v for v in values[i] if v.strip("'\"").startswith(FIELD_PREFIX)]
    if not field:
        return None
    return values[:i] + [field] + values[i + 1:]


def selected_points(benchmark, selection, devices=None):
    """The benchmark's points in this selection (tuples of repr strings), restricted to
    these devices when the class has a device axis; none when the class declares
    `devices_only` and the run has none of them; [()] for a class without parameters."""
    if selection not in SELECTIONS:
        raise ValueError("selection %r is not one of %s" % (selection, ", ".join(SELECTIONS)))
    values = {"long": lambda b: b.params, "short": short_values,
              "field": field_values}[selection](benchmark)
    only_on = benchmark.choice["devices_only"]
    if values is None or (devices is not None and only_on
                          and not set(only_on) & set(devices)):
        return []  # long-only in a short run; a GPU-only class on CPU flavors
    if devices is not None and "device" in benchmark.param_names:
        i = benchmark.param_names.index("device")
        values = list(values)
        values[i] = [v for v in values[i] if v in [repr(d) for d in devices]]
    return benchmark.points(values)


def point_name(benchmark, point):
    return results.point_name(benchmark.name, point)


def _alternation(names):
    return "|".join(re.escape(n) for n in names)


def regexes(benchmarks, selection, devices=None):
    """asv -b regexes (any may match) for exactly the selection's points of these
    benchmarks; [] when that is every point of every benchmark (no -b needed)."""
    names, everything = [], True
    for benchmark in benchmarks:
        points = selected_points(benchmark, selection, devices)
        everything = everything and len(points) == len(benchmark.points())
        names.extend(point_name(benchmark, p) for p in points)
    if everything:
        return []
    return names_regexes(names) or [NOTHING]


def narrowed(patterns, user_regex):
    """The patterns, each also required to match the user's -b (asv takes any of them)."""
    if not user_regex:
        return list(patterns)
    if not patterns:
        return [user_regex]
    return ["(?=.*?(?:%s))%s" % (user_regex, p) for p in patterns]


def count_points(benchmarks, selection, devices=None):
    return sum(len(selected_points(b, selection, devices)) for b in benchmarks)


def known_bug(point, param_names, release, devices, cpu=None, rows=None):
    """The known MXNet crash (benchmarks/catalogue/known_crashes.jsonl: a row) of a point
    of this release on this CPU kind (cpu: this host's when None), or None. point: a
    results.Point; param_names: its benchmark's parameter names. (A GPU point of a CPU
    flavor skips for want of a GPU, whatever the bug.)"""
    from benchmarks.catalogue import crashes
    parts = point.benchmark.split(".")
    values = dict((name, value.strip("'\"")) for name, value
                  in zip(param_names or (), point.params))
    if len(parts) != 3 or values.get("device", devices[0]) not in devices:
        return None
    return crashes.known_crash(parts[1], release, values.get("shape"), parts[2], cpu, rows,
                               module=parts[0])


def known_bug_points(store, machine, commit, env_name, release, devices):
    """[(Point, row)] of the points of one result file that are not measured (failed: the
    crash itself; skipped: the harness's skip) for a known MXNet crash on this CPU kind."""
    from benchmarks.catalogue import crashes
    info = store.benchmark_info()
    try:
        rows, cpu = crashes.read_rows(), crashes.cpu_kind()
    except crashes.CrashDataError as exc:
        raise UserError(str(exc))
    found = []
    for point in store.points(machine, commit, env_name):
        if not results.measured(point.value):
            bug = known_bug(point, info.get(point.benchmark, {}).get("param_names"), release,
                            devices, cpu, rows)
            if bug:
                found.append((point, bug))
    return found


def measured_points(store, machine, commit, env_name, release=None, devices=("cpu",)):
    """{point name: benchmark version} of the points measured in one result file, and, with
    the file's release, of those that crashed or skipped for a known MXNet crash (run again,
    they crash or skip again)."""
    done = dict((p.name, p.version) for p in store.points(machine, commit, env_name)
                if results.measured(p.value))
    if release is not None:
        done.update((p.name, p.version) for p, _ in known_bug_points(
            store, machine, commit, env_name, release, devices))
    return done


def to_measure(benchmarks, selection, devices, store, machine, commit, env_names, rerun=False,
               release=None):
    """The selection's point names that a run of `commit` (`release`) must measure in these
    environments: the ones not measured yet (never run, failed, or skipped: a skip costs
    a fork, and may have been a failure's reason that is gone; but not a point of a known
    MXNet crash of the release on this CPU kind) under the benchmark's current version; every one with rerun."""
    wanted = [(b, point_name(b, p)) for b in benchmarks
              for p in selected_points(b, selection, devices)]
    if rerun:
        return [name for _, name in wanted]
    files = [measured_points(store, machine, commit, env, release, devices or ("cpu",))
             for env in env_names]
    missing = []
    for benchmark, name in wanted:
        for versions in files:
            stale = (benchmark.version is not None
                     and versions.get(name) != str(benchmark.version))
            if stale or name not in versions:
                missing.append(name)
                break
    return missing


def names_regexes(names):
    """asv -b regexes for exactly these point names."""
    return ["^(%s)$" % _alternation(names[i:i + NAMES_PER_REGEX])
            for i in range(0, len(names), NAMES_PER_REGEX)]


# --- the entries whose medium call is too slow for the short selection -----------------------
SLOW_MEDIUM_OVER_MS = 50  # a medium call at least this long takes `small` as its short point


def slow_medium(store, machine, commit, env_name, over_ms=SLOW_MEDIUM_OVER_MS):
    """{class name: milliseconds} of the catalogue entries that have a `small` case and whose
    medium point (first dtype, cpu), forward or forward+backward, is recorded at `over_ms` or
    more in one result file: the slower of the two, rounded down to the millisecond."""
    from benchmarks.catalogue import OPERATORS
    points = results.by_name(store.points(machine, commit, env_name))
    out = {}
    for op in OPERATORS:
        if "small" not in op.cases or "medium" not in op.cases:
            continue
        times = [points[name].value for name in
                 ("bench_operators.%s.%s('medium', %r, 'cpu')" % (op.class_name, method,
                                                                  op.dtypes[0])
                  for method in ("time_forward", "time_forward_backward"))
                 if name in points and results.measured(points[name].value)]
        if times and max(times) * 1e3 >= over_ms:
            out[op.class_name] = int(max(times) * 1e3)
    return out


def chosen(args):
    """--selection, else long within an explicit --bench (the regex is the choice), else
    short."""
    return args.selection or ("long" if args.bench else DEFAULT_SELECTION)
