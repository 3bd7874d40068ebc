"""mxbench.results on real result files: validation names bad files, merges never lose a
measured point, writes are atomic. (The runs through asv are in test_integrity.py.)"""
import copy
import itertools
import json
import math
import os
import re
import shutil

import pytest

from mxbench.asvrun import runner
from mxbench.core import results
from tests.conftest import ARCHIVE_MACHINE, HISTORY_MACHINE, ROOT

HISTORY = ROOT / "results" / HISTORY_MACHINE


def a_real_result_file():
    return sorted(p for p in HISTORY.glob("*.json") if p.name != "machine.json")[0]


@pytest.fixture
def store(tmp_path):
    """A results directory holding one real recorded file (and its machine.json)."""
    folder = tmp_path / "results" / HISTORY.name
    folder.mkdir(parents=True)
    shutil.copy(str(a_real_result_file()), str(folder))
    shutil.copy(str(HISTORY / "machine.json"), str(folder))
    shutil.copy(str(ROOT / "results" / "benchmarks.json"), str(tmp_path / "results"))
    return results.Store(tmp_path / "results")


def the_file(store):
    return store.files()[0]


def test_every_committed_result_file_is_valid():
    assert results.Store(ROOT / "results").problems() == []
    assert results.Store(ROOT / "results-archive").problems() == []
    assert results.Store(ROOT / "experiments").problems() == []
    assert results.Store(ROOT / "results-baselines").problems() == []
    assert results.Store(ROOT / "results-cpu-kinds").problems() == []
    runs = sorted((ROOT / "results-confirmations").iterdir())  # BASE..HEAD and aa-RELEASE
    assert runs
    for run in runs:
        assert results.Store(run).problems() == [], run.name


def test_every_record_of_the_quiet_history_carries_its_conditions():
    """results/: each record's timings come from one recording of the whole selection on
    a quiet machine, with the machine's reference figures before and after."""
    from mxbench.reports.changes import carries_conditions, record_conditions
    store = results.Store(HISTORY.parent)
    records = store.recordings()
    assert records
    for record in records:
        entry = record_conditions(store, record.machine, record.commit, record.env_name)
        label = os.path.basename(record.path)
        assert carries_conditions(entry), label
        assert not entry["busy"] and not entry["allowed_busy"], label
        # a later --bench run (models, memory, cliffs) measured its points then: the last
        # run of each selection is the one its points come from, and it was quiet too
        last = {}
        for e in store.conditions(record.machine, record.commit, record.env_name):
            last[re.sub(r" --rerun\b", "", e["command"])] = e
        for command, e in last.items():
            assert not e["busy"] and not e["allowed_busy"], (label, command)


@pytest.mark.parametrize("folder", ["results", "results-archive"])
def test_timings_of_an_avx512_cpu_live_under_a_machine_named_for_it(folder):
    """Two kinds of host share the model name "AMD EPYC": a recording of the whole selection
    on a CPU with AVX-512 belongs to a machine whose name says avx512, and one without to a
    machine whose name does not (instruction counts may go to either: they do not depend on
    the host)."""
    from mxbench.reports.changes import whole_selection
    store = results.Store(ROOT / folder)
    for machine in store.machines():
        for entry in results.read_conditions_log(store.conditions_path(machine)):
            if entry.get("cpu") and whole_selection(entry["command"]):
                assert (entry["cpu"]["vector"] == "avx512") == ("avx512" in machine), (
                    machine, entry["started"])


def test_results_hold_the_history_and_experiments_live_apart():
    """Plain asv commands see one machine and the default settings in results/."""
    history = results.Store(ROOT / "results")
    assert history.machines() == [HISTORY.name]
    assert not [p for p in history.files() if "MXBENCH_VARIANT" in p]
    assert results.Store(ROOT / "results-archive").machines() == [ARCHIVE_MACHINE]
    experiments = results.Store(ROOT / "experiments")
    assert len(experiments.machines()) > 1


def test_other_cpu_kinds_records_live_apart_one_kind_a_machine_and_quiet():
    """results-cpu-kinds/: each machine's records were made on one CPU kind, not the
    committed history's, each recording quiet (the same rule as results/)."""
    from mxbench.asvrun.conditions import recorded_cpu_kinds
    history_kinds = recorded_cpu_kinds(results.Store(ROOT / "results"), HISTORY_MACHINE)
    store = results.Store(ROOT / "results-cpu-kinds")
    assert store.machines()
    for machine in store.machines():
        kinds = recorded_cpu_kinds(store, machine)
        assert len(kinds) == 1 and kinds != history_kinds, (machine, kinds)
        for entry in results.read_conditions_log(store.conditions_path(machine)):
            assert not entry["busy"] and not entry["allowed_busy"], (machine, entry["started"])


def test_a_good_file_reads(store):
    data = results.read_result_file(the_file(store))
    assert data["params"]["machine"] == HISTORY.name and data["results"]
    assert store.problems() == []


def test_points_are_what_asv_reads_from_the_file(store):
    """Store.points unrolls a file as asv itself does (asv.results, asv compare's unroll)."""
    from asv.commands.compare import unroll_result
    from asv.results import Results
    path = the_file(store)
    loaded = Results.load(path)
    expected = {}
    for key in loaded.get_all_result_keys():
        params = loaded.get_result_params(key)
        for name, value, stats, samples in unroll_result(
                key, params, loaded.get_result_value(key, params),
                loaded.get_result_stats(key, params), loaded.get_result_samples(key, params)):
            expected[name] = (value, stats, samples, loaded.benchmark_version[key],
                              loaded.duration.get(key))
    points = store.points()
    assert len(points) == len(expected) > 100
    for p in points:
        assert (p.value, p.stats, p.samples, p.version, p.duration) == expected[p.name] or (
            math.isnan(p.value) and math.isnan(expected[p.name][0]))
        assert p.recording.path == path and p.recording.commit == loaded.commit_hash
    info = store.benchmark_info()
    assert all(p.unit == info[p.benchmark].get("unit") for p in points if p.benchmark in info)
    [recording] = store.recordings()
    assert recording.env_name == loaded.env_name and recording.durations == {
        k: v for k, v in loaded.duration.items() if k.startswith("<")}
    one = store.points(recording.machine, recording.commit, recording.env_name,
                       r"^bench_operators\.dot\.time_forward$")
    assert one and all(p.benchmark == "bench_operators.dot.time_forward" for p in one)
    assert store.points(recording.machine, "0" * 40, recording.env_name) == []


@pytest.mark.parametrize("damage, problem", [
    (lambda text: "", "is empty"),
    (lambda text: text[:len(text) // 2], "is not valid JSON"),
    (lambda text: text.replace('"results": {', '"results": [1, 2], "x": {', 1),
     "field results missing or not a dict"),
    (lambda text: text.replace('"version": 2', '"version": 1'), "result format version 1"),
])
def test_a_bad_file_is_named_with_what_is_wrong(store, damage, problem):
    path = the_file(store)
    with open(path) as fh:
        text = fh.read()
    with open(path, "w") as fh:
        fh.write(damage(text))
    errors = store.problems()
    assert len(errors) == 1 and errors[0].path == path and problem in str(errors[0])
    assert "\n" not in str(errors[0])
    with pytest.raises(results.ResultsProblem):
        store.require_valid()


def test_a_row_with_the_wrong_number_of_points_is_named(store):
    path = the_file(store)
    data = results.read_result_file(path)
    name = sorted(data["results"])[0]
    data["results"][name][0] = data["results"][name][0][:-1]
    with open(path, "w") as fh:
        json.dump(data, fh)
    (error,) = store.problems()
    assert "benchmark %s: result must be null or" % name in str(error)


def test_wrong_types_inside_a_row_are_named(store):
    path = the_file(store)
    data = results.read_result_file(path)
    name = sorted(data["results"])[0]
    data["results"][name][0] = ["fast"] * len(data["results"][name][0])
    with open(path, "w") as fh:
        json.dump(data, fh)
    (error,) = store.problems()
    assert name in str(error) and "result must be" in str(error)


def test_a_file_under_the_wrong_machine_is_named(store, tmp_path):
    other = tmp_path / "results" / "other-machine"
    other.mkdir()
    shutil.move(the_file(store), str(other))
    (error,) = store.problems()
    assert "stored under 'other-machine'" in str(error)


def first_measured(data):
    """(benchmark, point index) of a measured point of a file."""
    for name, row in sorted(data["results"].items()):
        for i, value in enumerate(row[0] or []):
            if results.measured(value):
                return name, i
    raise AssertionError("no measured point")


def test_a_failure_or_skip_never_replaces_a_measured_point(store):
    recorded = the_file(store)
    old = results.read_result_file(recorded)
    name, i = first_measured(old)
    samples_col = old["result_columns"].index("samples")
    for replacement in (None, float("nan")):
        new = copy.deepcopy(old)
        new["results"][name][0][i] = replacement
        if len(new["results"][name]) > samples_col and new["results"][name][samples_col]:
            new["results"][name][samples_col][i] = None
        merged = results.merge_result_data(old, new)
        row = dict(zip(merged["result_columns"], merged["results"][name]))
        assert row["result"][i] == old["results"][name][0][i]
        if len(old["results"][name]) > samples_col:
            assert row["samples"][i] == old["results"][name][samples_col][i]


def test_a_zero_count_is_no_value(store):
    """An instruction count of 0 is no count (callgrind named none of libmxnet's code): a
    file holding one is refused like any bad value (bench_instructions records a skip)."""
    old = results.read_result_file(the_file(store))
    name, i = first_measured(old)
    zero = copy.deepcopy(old)
    zero["results"] = {"bench_instructions.relu.track_forward": copy.deepcopy(
        old["results"][name])}
    zero["results"]["bench_instructions.relu.track_forward"][0][i] = 0
    with pytest.raises(results.ResultFileError, match="0 is not an instruction count"):
        results.validate_result_data(the_file(store), zero)


def test_a_new_measurement_replaces_the_old_one(store):
    old = results.read_result_file(the_file(store))
    name, i = first_measured(old)
    new = copy.deepcopy(old)
    new["results"][name][0][i] = 123.0
    merged = results.merge_result_data(old, new)
    assert merged["results"][name][0][i] == 123.0


def test_a_store_reads_a_rewritten_file_again(store):
    """Readers keep a file's contents until it changes (a report reads each recording many
    times); a file written again, or a new benchmarks.json beside it, is read again."""
    data = results.read_result_file(the_file(store))
    name, i = first_measured(data)

    def value():
        return [p.value for p in store.points(benchmarks="^%s$" % re.escape(name))][i]
    assert value() == data["results"][name][0][i]
    data["results"][name][0][i] = 123.0
    results.write_json_atomic(the_file(store), data, compact=True)
    assert value() == 123.0
    # a file valid under one benchmarks.json and not under the next is validated again:
    # 0 is a memory figure, not a timing
    bench = os.path.join(str(store.results_dir), "benchmarks.json")
    known = json.load(open(bench))
    assert known[name]["unit"] == "seconds"
    results.write_json_atomic(bench, dict(known, **{name: dict(known[name], unit="bytes")}))
    data["results"][name][0][i] = 0.0
    results.write_json_atomic(the_file(store), data, compact=True)
    assert value() == 0.0
    results.write_json_atomic(bench, known)
    with pytest.raises(results.ResultFileError, match="is not a timing"):
        value()


def test_a_new_benchmark_version_supersedes_the_record(store):
    old = results.read_result_file(the_file(store))
    name, i = first_measured(old)
    version = old["result_columns"].index("version")
    new = copy.deepcopy(old)
    new["results"][name][version] = "another-version"
    new["results"][name][0] = [None] * len(new["results"][name][0])
    merged = results.merge_result_data(old, new)
    assert merged["results"][name][0] == [None] * len(old["results"][name][0])


def test_a_grid_that_grew_keeps_the_points_recorded_before(store):
    """An entry gains a dtype (its params grow, its version stays): a run that measures
    only the new points keeps every point recorded before, matched by parameter values."""
    old = results.read_result_file(the_file(store))
    columns = old["result_columns"]
    name = next(n for n, row in sorted(old["results"].items())
                if len(row[columns.index("params")]) >= 2
                and any(results.measured(v) for v in row[0]))
    old_row = dict(zip(columns, old["results"][name]))
    params = old_row["params"]
    grown = [list(axis) for axis in params]
    grown[1] = ["'added'"] + grown[1]  # a new value first: every old point moves in the row
    new = copy.deepcopy(old)
    new_points = list(itertools.product(*grown))
    new_row = dict((c, None) for c in columns)
    new_row.update(params=grown, version=old_row["version"],
                   result=[1.5 if "'added'" in p else None for p in new_points])
    new["results"][name] = [new_row[c] for c in columns]
    merged = results.merge_result_data(old, new)
    row = dict(zip(merged["result_columns"], merged["results"][name]))
    assert row["params"] == grown
    by_point = dict(zip(new_points, row["result"]))
    for point, value in zip(itertools.product(*params), old_row["result"]):
        if results.measured(value):
            assert by_point[point] == value, point
    assert all(by_point[p] == 1.5 for p in new_points if "'added'" in p)
    if old_row.get("stats_q_25"):
        kept = dict(zip(new_points, row["stats_q_25"]))
        assert all(kept[p] == q for p, q, v in zip(itertools.product(*params),
                   old_row["stats_q_25"], old_row["result"]) if results.measured(v))


def test_benchmarks_only_the_record_has_are_kept(store):
    old = results.read_result_file(the_file(store))
    new = copy.deepcopy(old)
    dropped = sorted(new["results"])[0]
    del new["results"][dropped]
    assert results.merge_result_data(old, new)["results"][dropped] == old["results"][dropped]


def test_merging_an_incomplete_staged_file_changes_nothing(store, tmp_path):
    recorded = the_file(store)
    before = open(recorded, "rb").read()
    staged = tmp_path / "staged.json"
    staged.write_text(before.decode()[:1000])
    assert results.merge_result_file(str(staged), recorded) is False
    assert open(recorded, "rb").read() == before


def test_the_merged_file_is_what_asv_reads(store, tmp_path):
    from asv.results import Results
    recorded = the_file(store)
    staged_dir = tmp_path / "staged" / HISTORY.name
    staged_dir.mkdir(parents=True)
    staged = staged_dir / os.path.basename(recorded)
    shutil.copy(recorded, str(staged))
    assert results.merge_result_file(str(staged), recorded)
    loaded = Results.load(recorded)
    original = Results.load(str(staged))
    assert loaded.get_all_result_keys() == original.get_all_result_keys()
    key = sorted(original.get_all_result_keys())[0]
    params = original.get_result_params(key)
    assert loaded.get_result_value(key, params) == original.get_result_value(key, params) or \
        all(math.isnan(a) and math.isnan(b) for a, b in zip(
            loaded.get_result_value(key, params), original.get_result_value(key, params)))


def test_atomic_writes_leave_no_temporary_behind(tmp_path):
    target = tmp_path / "m" / "f.json"
    results.write_json_atomic(str(target), {"a": 1}, compact=True)
    assert json.loads(target.read_text()) == {"a": 1}
    assert os.listdir(str(tmp_path / "m")) == ["f.json"]


def test_a_machine_name_of_other_hardware_is_refused(store):
    info = dict(store.machine_info(HISTORY.name))
    here = runner.this_host()
    assert runner.same_hardware(dict(here), here)
    info["cpu"] = here["cpu"] + " (another one)"
    path = os.path.join(store.machine_dir(HISTORY.name), results.MACHINE_FILE)
    with open(path, "w") as fh:
        json.dump(info, fh)
    before = open(path).read()
    with pytest.raises(runner.MatrixError, match="describes another host"):
        runner.require_machine_is_this_host(store, HISTORY.name)
    assert open(path).read() == before


def test_another_machine_name_keeps_plain_asv_working(tmp_path, monkeypatch):
    """asv without --machine looks the host name up in ~/.asv-machine.json; a second name
    recorded there (tests, --machine) used to leave it with no answer."""
    from asv.machine import Machine
    monkeypatch.setenv("HOME", str(tmp_path))
    runner.ensure_machine()
    runner.ensure_machine("some-other-name")
    loaded = Machine.load(_path=str(tmp_path / ".asv-machine.json"))
    assert loaded.machine == runner.machine_name()


def test_asv_keyboard_interrupt_traceback_is_left_out_and_other_errors_pass():
    """asv 0.6 prints a traceback when Ctrl-C lands outside its benchmark loop; mxbench says
    'interrupted' in one line instead. Any other traceback of asv is passed on whole."""
    import io
    text = ("warning: x\nTraceback (most recent call last):\n  File \"asv\", line 8\n"
            "    sys.exit(main())\n\nKeyboardInterrupt\n· Interrupted.\n"
            "Traceback (most recent call last):\n  File \"asv\", line 9\nValueError: bad\n"
            "Exception ignored in: <module 'threading' from 'threading.py'>\n"
            "Traceback (most recent call last):\n  File \"threading.py\", line 1590\n"
            "    lock.acquire()\nKeyboardInterrupt: \n")
    out = io.StringIO()
    runner.relay_stderr(io.StringIO(text), out)
    assert out.getvalue() == ("warning: x\n· Interrupted.\nTraceback (most recent call last):\n"
                              "  File \"asv\", line 9\nValueError: bad\n")


def test_the_site_copy_draws_one_history_per_machine(store, tmp_path):
    """Results of one machine recorded on different boots (another kernel build, a few MB of
    RAM less) are one line on the site: asv publish reads a copy without those params, and
    the recorded files keep them."""
    path = the_file(store)
    data = results.read_result_file(path)
    other = copy.deepcopy(data)
    other["params"].update(os="Linux 0.0.0-another-boot", ram="1")
    other["commit_hash"] = "f" * 40
    results.write_json_atomic(store.filename(data["params"]["machine"], other["commit_hash"],
                                             other["env_name"]), other, compact=True)
    with open(os.path.join(store.results_dir, ".half-written.json.tmp1"), "w") as fh:
        fh.write("{")
    recorded = {p: open(p).read() for p in store.files()}

    site = results.copy_for_site(store, str(tmp_path / "site-results"))
    assert len(site.files()) == 2 and site.problems() == []
    for p in site.files():
        params = results.read_result_file(p)["params"]
        assert not set(results.BOOT_FIELDS) & set(params), params
        assert params["machine"] == data["params"]["machine"] and params["python"]
    assert sorted(os.listdir(site.results_dir)) == sorted(["benchmarks.json", HISTORY.name])
    assert site.machine_info(HISTORY.name) == store.machine_info(HISTORY.name)
    assert {p: open(p).read() for p in store.files()} == recorded
    assert data["params"]["os"] in recorded[path]
