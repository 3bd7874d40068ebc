"""The short and long selections (mxbench/core/selection.py): the rule, asv's own selection of the
regexes, and a short run followed by a long one of the same release (real asv)."""
import json
import math
import sys
from pathlib import Path
from types import SimpleNamespace

from asv.benchmarks import Benchmarks

from benchmarks.catalogue import OPERATORS
from mxbench.core import discovery, selection as S

SUITE = S.discover()
S_ROOT = Path(__file__).resolve().parent.parent


def names(benchmarks, selection, devices):
    return set(S.point_name(b, p) for b in benchmarks
               for p in S.selected_points(b, selection, devices))


def asv_selects(regexes, benchmarks):
    """The point names asv's own -b rule (asv.benchmarks.Benchmarks) runs for these regexes."""
    conf = SimpleNamespace(benchmark_dir="benchmarks")
    found = Benchmarks(conf, [{"name": b.name, "params": b.params} for b in benchmarks], regexes)
    chosen = set()
    for b in benchmarks:
        if b.name not in found:
            continue
        selected = found.benchmark_selection[b.name]
        points = b.points()
        chosen.update(S.point_name(b, points[i]) for i in (selected if b.params else [0]))
    return chosen


def long_only(b):
    """The benchmarks the short selection leaves out by design: first-call memory,
    instruction counts, the search's cliffs (recorded on purpose), and the forward+backward of a numpy-interface entry paired with an
    mx.nd entry."""
    return (b.name.startswith(("bench_memory.", "bench_instructions.", "bench_cliffs."))
            or (getattr(b.cls, "operator", None) is not None
                and b.cls.operator.pairs_with is not None
                and b.method == "time_forward_backward"))


def test_every_benchmark_has_short_points_within_the_grid():
    for b in SUITE:
        short, everything = S.selected_points(b, "short"), b.points()
        assert set(short) <= set(everything), b.name
        assert bool(short) != long_only(b), b.name
        assert S.selected_points(b, "long") == everything
    paired = [b for b in SUITE if long_only(b) and b.name.startswith("bench_operators.")]
    assert len(paired) > 50 and all(b.cls.operator.call in ("np", "npx") for b in paired)
    # every catalogue entry is in the short selection: its forward, at least
    forward = set(b.name for b in SUITE if b.method == "time_forward"
                  and b.name.startswith("bench_operators.") and S.selected_points(b, "short"))
    assert forward == set("bench_operators.%s.time_forward" % op.class_name for op in OPERATORS)
    # the default run's points (not the models: their own selection), CPU flavors
    operators = [b for b in SUITE if not b.name.startswith("bench_models.")]
    assert len(names(operators, "short", ["cpu"])) < 0.6 * len(names(operators, "long", ["cpu"]))


def test_the_entries_with_a_slow_medium_call_are_short_on_small_as_recorded():
    """The catalogue's SLOW_MEDIUM_MS is what its command prints from the committed run."""
    import subprocess
    import sys
    from benchmarks import catalogue as C
    proc = subprocess.run([sys.executable, "-m", "mxbench", "selection", "slow-medium",
                           "--results", "experiments", "--machine",
                           "amd-epyc-2cpu-24gb-set-old1"], cwd=str(S_ROOT),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    assert proc.returncode == 0, proc.stderr
    printed = {}
    exec(proc.stdout, {}, printed)
    assert printed["SLOW_MEDIUM_MS"] == C.SLOW_MEDIUM_MS
    assert all(ms >= S.SLOW_MEDIUM_OVER_MS for ms in C.SLOW_MEDIUM_MS.values())
    by_class = C.by_class_name()
    for name in C.SLOW_MEDIUM_MS:
        assert by_class[name].short_case == "small", name
    assert by_class["dot"].short_case is None and "dot" not in C.SLOW_MEDIUM_MS


def test_an_operator_entry_is_short_on_one_shape_its_field_cases_and_its_first_dtype():
    by_name = dict((b.name, b) for b in SUITE)
    for op in OPERATORS:
        case = op.short_case or ("medium" if "medium" in op.cases else next(iter(op.cases)))
        assert case in op.cases, op.name
        b = by_name["bench_operators.%s.time_forward" % op.class_name]
        shapes = [case] + list(op.field)
        assert S.selected_points(b, "short", ["cpu"]) == [
            (repr(shape), repr(op.dtypes[0]), "'cpu'") for shape in shapes]
        assert S.selected_points(b, "short", ["cpu", "gpu"])[1][2] == "'gpu'"
        # the field selection: the field cases alone
        assert S.selected_points(b, "field", ["cpu"]) == [
            (repr(shape), repr(op.dtypes[0]), "'cpu'") for shape in op.field]


def test_the_short_selection_holds_every_field_case_and_the_field_selection_only_them():
    short = names(SUITE, "short", ["cpu"])
    field = names(SUITE, "field", ["cpu"])
    assert field and field <= short
    assert all("('field-" in name for name in field)
    assert [n for n in short - field if "'field-" in n] == []
    assert len(field) >= 60
    # asv runs exactly them
    assert asv_selects(S.regexes(SUITE, "field", ["cpu"]), SUITE) == field


def test_asv_runs_exactly_the_selected_points():
    for selection, devices in (("short", ["cpu"]), ("long", ["cpu"]), ("short", ["gpu"])):
        regexes = S.regexes(SUITE, selection, devices)
        assert regexes and asv_selects(regexes, SUITE) == names(SUITE, selection, devices)
    assert S.regexes(SUITE, "long", ["cpu", "gpu"]) == []  # no -b: asv runs everything


def test_gpu_only_classes_have_no_points_on_cpu_flavors():
    gpu_only = [b for b in SUITE if getattr(b.cls, "devices_only", None) == ("gpu",)]
    assert set(b.name.split(".")[0] for b in gpu_only) == {"bench_device_memory",
                                                           "bench_roofline"}
    for b in gpu_only:
        for selection in ("short", "long"):
            assert S.selected_points(b, selection, ["cpu"]) == [], b.name
            assert S.selected_points(b, selection, ["cpu", "gpu"]), b.name
    memory = next(b for b in gpu_only if b.name.startswith("bench_device_memory"))
    assert len(S.selected_points(memory, "long", ["gpu"])) == len(memory.points()) > 200


def test_a_class_declares_its_own_short_points_or_none():
    class Blocks(object):
        params = [["small", "medium"], ["float32", "float16"], ["imperative", "hybridized"]]
        param_names = ["shape", "dtype", "mode"]
        short_params = {"mode": ["imperative", "hybridized"]}

    class Rates(Blocks):
        short = False

    blocks = S.Benchmark("m.Blocks.time_x", Blocks, Blocks.param_names,
                         [[repr(v) for v in axis] for axis in Blocks.params])
    assert S.selected_points(blocks, "short") == [("'medium'", "'float32'", "'imperative'"),
                                                  ("'medium'", "'float32'", "'hybridized'")]
    rates = S.Benchmark("m.Rates.track_x", Rates, Rates.param_names, blocks.params)
    assert S.selected_points(rates, "short") == [] and len(S.selected_points(rates, "long")) == 8


def recorded(path, benchmark):
    data = json.loads(path.read_text())
    row = dict(zip(data["result_columns"], data["results"][benchmark]))
    return dict(zip(S.Benchmark(benchmark, object, [], row["params"]).points(), row["result"]))


def test_a_long_run_after_a_short_one_measures_the_rest_and_keeps_what_was_measured(asv_e2e):
    """short, short again (nothing to run), then long: the short point keeps its value and
    every other CPU point is measured; the GPU points are not run on a CPU flavor."""
    from conftest import E2E_ATTRS
    # an entry without field cases: one short point (medium), four CPU points in all
    bench = r"^bench_operators\.pick\.time_forward\("
    run = lambda *args: asv_e2e.mxbench("run", "1.9.1", "--flavor", "cpu-mkldnn", "--bench",
                                        bench, *args, "--", *E2E_ATTRS)
    path = asv_e2e.result_file("1.9.1", "cpu-mkldnn")
    short = run("--selection", "short")
    assert short.returncode == 0 and "short selection, 1.9.1: 1 point(s)" in short.stdout, \
        short.stdout[-3000:]
    first = recorded(path, "bench_operators.pick.time_forward")
    point = ("'medium'", "'int32'", "'cpu'")
    assert [p for p, v in first.items() if not math.isnan(v)] == [point]
    again = run("--selection", "short")
    assert "1.9.1: 0 point(s) to measure" in again.stdout and "$ " not in again.stdout
    full = run()  # an explicit --bench: the long selection within it
    assert full.returncode == 0 and "long selection, 1.9.1: 3 point(s)" in full.stdout
    after = recorded(path, "bench_operators.pick.time_forward")
    assert after[point] == first[point]
    for p, v in after.items():
        assert math.isnan(v) == (p[2] == "'gpu'"), (p, v)


def test_a_point_recorded_in_one_environment_is_measured_only_where_it_is_missing():
    """asv runs every point of a run in each of its commits and environments: a run must
    group only the releases and environments that need the same points, or a point missing
    in one environment is measured again (its result replaced) in another."""
    from mxbench.asvrun.release_runs import run_groups
    needs = {("1.9.0", "e1"): ["p", "q"], ("1.9.0", "e2"): ["q"],  # p recorded in e2
             ("1.9.1", "e1"): ["p", "q"], ("1.9.1", "e2"): ["p", "q"],
             ("2.0.0", "e1"): [], ("2.0.0", "e2"): []}
    groups = run_groups(["1.9.0", "1.9.1", "2.0.0"], ["e1", "e2"],
                        lambda release, env: needs[(release, env)])
    measured = [(release, env, name) for names, releases, envs in groups
                for release in releases for env in envs for name in names]
    assert sorted(measured) == sorted((release, env, name) for (release, env), names
                                      in needs.items() for name in names)
    # one run where releases need the same points everywhere, as before
    assert (["p", "q"], ["1.9.1"], ["e1", "e2"]) in groups
    assert ([], ["2.0.0"], ["e1", "e2"]) in groups


def test_the_versions_the_selection_compares_are_the_recorded_ones():
    """discover() is asv's own discovery: every benchmark's version is the one asv recorded
    (results/benchmarks.json, asv's truth), so to_measure never takes a recorded point for
    one of another version."""
    recorded = json.loads((S_ROOT / "results" / "benchmarks.json").read_text())
    both = [b for b in SUITE if b.name in recorded]
    assert len(both) > 3000
    assert [b.name for b in both if b.version != recorded[b.name]["version"]] == []
    # (the parameter values may have grown since: test_discovery.py holds those)
    assert [b.name for b in both if b.param_names != recorded[b.name]["param_names"]] == []


def test_a_suite_that_cannot_be_imported_is_one_user_error(tmp_path, monkeypatch):
    from env_matrix.matrix import MatrixError
    suite = tmp_path / "broken_suite"
    suite.mkdir()
    (suite / "__init__.py").write_text("")
    (suite / "bench_x.py").write_text("import no_such_module_here\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        S.discover("broken_suite")
    except MatrixError as exc:
        assert str(exc) == ("cannot import the benchmark suite to select its points: No module "
                            "named 'no_such_module_here'")
    else:
        raise AssertionError("discover() imported a broken suite")


def test_the_wrapper_reads_a_class_s_selection_attributes_off_its_class(tmp_path, monkeypatch):
    """asv's discovery hands over a method of an instance; the selection reads the class."""
    suite = tmp_path / "tiny_suite"
    suite.mkdir()
    (suite / "__init__.py").write_text("")
    (suite / "bench_t.py").write_text(
        "class Shapes(object):\n"
        "    params = ['small', 'medium']\n"
        "    short_params = {'param1': ['small']}\n"
        "    def time_x(self, shape):\n        pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(discovery, "CACHE_DIR", str(tmp_path / "kept"))
    [found] = S.discover("tiny_suite")
    assert (found.name, found.cls.__name__, found.param_names, found.params) == (
        "bench_t.Shapes.time_x", "Shapes", ["param1"], [["'small'", "'medium'"]])
    assert len(found.version) == 64  # asv's hash of the code: no version declared
    assert S.selected_points(found, "short") == [("'small'",)]


def described(benchmarks):
    return [(b.name, b.param_names, b.params, b.version, b.choice) for b in benchmarks]


def test_a_kept_discovery_is_asvs_discovery_and_goes_when_what_it_read_changes(
        tmp_path, monkeypatch):
    """The next command takes the discovery the last one kept (discovery.py) while the suite's
    files, the files it read, the MXBENCH_* environment are unchanged: the same benchmarks,
    versions and selection attributes, and the same classes when asked for. Any change, a
    damaged file: asv's discovery again."""
    monkeypatch.setattr(discovery, "CACHE_DIR", str(tmp_path / "kept"))
    fresh = S.discover.__wrapped__()  # nothing kept yet: asv's discovery, then kept
    assert discovery.load("benchmarks") is not None
    kept = S.discover.__wrapped__()
    assert described(kept) == described(fresh) == described(SUITE)
    assert [b.cls for b in kept] == [b.cls for b in fresh]
    assert names(kept, "short", ["cpu"]) == names(SUITE, "short", ["cpu"])
    # a suite of its own, to change
    suite = tmp_path / "tiny_suite2"
    suite.mkdir()
    (suite / "__init__.py").write_text("")
    data = tmp_path / "shapes.json"
    data.write_text('["small", "medium"]')
    (suite / "bench_t.py").write_text(
        "import json\n"
        "class Shapes(object):\n"
        "    params = json.load(open(%r))\n"
        "    def time_x(self, shape):\n        pass\n" % str(data))
    monkeypatch.syspath_prepend(str(tmp_path))
    S.discover.__wrapped__("tiny_suite2")
    assert discovery.load("tiny_suite2") is not None
    data.write_text('["small", "medium", "large"]')  # a file it read, outside the checkout
    assert discovery.load("tiny_suite2") is None
    S.discover.__wrapped__("tiny_suite2")
    (suite / "bench_u.py").write_text("")  # a file of the package
    assert discovery.load("tiny_suite2") is None
    S.discover.__wrapped__("tiny_suite2")
    monkeypatch.setenv("MXBENCH_SOMETHING", "1")
    assert discovery.load("tiny_suite2") is None
    monkeypatch.delenv("MXBENCH_SOMETHING")
    assert discovery.load("tiny_suite2") is not None
    Path(discovery.cache_path("tiny_suite2")).write_text("{not json")
    assert discovery.load("tiny_suite2") is None
    for name in [m for m in sys.modules if m.startswith("tiny_suite2")]:
        monkeypatch.delitem(sys.modules, name)  # as a new command would: imported anew
    [found] = S.discover.__wrapped__("tiny_suite2")  # and found again
    assert found.params == [["'small'", "'medium'", "'large'"]]
