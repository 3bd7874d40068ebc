"""The cliff search (mxbench search): its draws are valid calls on the tool venv's MXNet,
its seed reproduces them, a planted cliff is found and confirmed, the confirmation rule on
given timings, and cliff data round-trips into asv's discovery of bench_cliffs. Real MXNet,
real asv_runner; no timing is asserted (the machine is noisy)."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import catalogue as C
from benchmarks.catalogue import cliffs as data
from mxbench.core import results
from mxbench.inside import search
from mxbench.inside import search_space as S
from mxbench.core import cliff_rule as rule
from mxbench.reports import cliffs as cliff_report

ROOT = Path(__file__).resolve().parent.parent
FAR = 10 ** 9  # a deadline that never comes (time.monotonic() seconds)


def space(name):
    return S.SearchSpace(C.by_class_name()[name])


def synthetic_seconds(space_, cliff=None):
    """A cost function: 1 ns per element, times 3 where cliff(draw) holds."""
    def seconds(draw):
        return space_.elements(draw) * 1e-9 * (3.0 if cliff and cliff(draw) else 1.0)
    return seconds


def synthetic_search(space_, seconds, seed, examples=60):
    def measure(draw):
        cost = seconds(draw) / space_.elements(draw)
        return cost, {"cost_per_element": cost}
    return search.search_draws(space_, seed, FAR, examples, measure)


# --- the search space: every draw is a valid call ----------------------------------------------
@pytest.mark.parametrize("name", search.DEFAULT_OPERATORS)
def test_draws_and_their_neighbours_are_valid_calls(name):
    """A few seeded draws of each default entry, and the first draw's neighbours, build and
    run forward on mxnet 1.9.1 (a bad argument or shape would raise)."""
    from benchmarks import harness as H
    space_ = space(name)
    ctx = H.context("cpu")
    drawn = [d for d, _ in synthetic_search(space_, synthetic_seconds(space_), 0, examples=3)]
    assert drawn
    checked = drawn + [n for _, n in space_.neighbours(drawn[0])]
    for draw in checked:
        for s in space_.symbols:
            assert s.low <= draw.sizes[s.name] <= s.high
        search.build(space_, draw, ctx)  # raises on an invalid call


def test_sizes_keep_the_relations_of_the_entry_cases():
    conv = space("Convolution")
    draw = synthetic_search(conv, synthetic_seconds(conv), 5, examples=1)[0][0]
    data_, weight, bias = conv.case(draw).inputs
    assert data_.shape[1] == weight.shape[1]  # channels in data and weight
    assert weight.shape[0] == bias.shape[0] == conv.case(draw).kwargs["num_filter"]
    assert weight.shape[2:] == (3, 3)  # the kernel stays the argument's
    take = space("take")
    case = take.case(synthetic_search(take, synthetic_seconds(take), 5, examples=1)[0][0])
    assert case.inputs[1].high == case.inputs[0].shape[0]  # indices stay within the rows


def test_entries_that_need_more_than_equalities_are_not_searched():
    assert "divide" in S.why_not_searched(C.by_class_name()["split"])
    with pytest.raises(ValueError):
        S.SearchSpace(C.by_class_name()["reshape"])


# --- reproducibility -----------------------------------------------------------------------------
def test_the_seed_reproduces_the_sequence_of_draws():
    softmax = space("softmax")
    seconds = synthetic_seconds(softmax)
    first = [d for d, _ in synthetic_search(softmax, seconds, seed=7)]
    again = [d for d, _ in synthetic_search(softmax, seconds, seed=7)]
    other = [d for d, _ in synthetic_search(softmax, seconds, seed=8)]
    assert first == again
    assert first != other


def test_a_refused_draw_is_rejected_and_the_search_goes_on():
    softmax = space("softmax")

    def measure(draw):  # an operator that refuses odd last axes
        return (None, None) if draw.sizes["s1"] % 2 else (1.0, {"cost_per_element": 1.0})
    tried = search.search_draws(softmax, 0, FAR, 20, measure)
    assert tried and all(d.sizes["s1"] % 2 == 0 for d, _ in tried)


# --- cliffs --------------------------------------------------------------------------------------
def planted(draw):
    return draw.sizes["s1"] % 64 == 1  # one past a multiple of 64 in the last axis


def find_cliffs(space_, seconds, seed=0):
    tried = synthetic_search(space_, seconds, seed, examples=150)
    timer = lambda draw: (lambda: seconds(draw))  # noqa: E731
    return search.confirm_cliffs(space_, search.candidates_of(tried), timer, FAR,
                                 rule.THRESHOLD, set())


def test_a_planted_cliff_is_found_and_confirmed():
    softmax = space("softmax")
    found, _ = find_cliffs(softmax, synthetic_seconds(softmax, planted))
    assert found
    for cliff in found:
        sizes = cliff["case"]["inputs"][0]
        assert sizes[1] % 64 == 1
        assert cliff["name"] == "cliff_%dx%d" % tuple(sizes) + (
            "_axis%d" % cliff["case"]["kwargs"]["axis"] if "kwargs" in cliff["case"] else "") + (
            "" if cliff["dtype"] == "float32" else "_" + cliff["dtype"])
        assert [n["kind"] for n in cliff["neighbours"]] and all(
            n["ratio"] == pytest.approx(3.0, rel=0.01) for n in cliff["neighbours"])


def test_no_cliff_where_the_cost_is_smooth():
    softmax = space("softmax")
    assert find_cliffs(softmax, synthetic_seconds(softmax))[0] == []


def test_the_confirmation_rule_on_given_timings():
    elements = {"shape": 1000, "near": 1001, "double": 2000}
    rounds = [{"shape": 3e-6, "near": 1e-6}] * 4 + [{"shape": 1e-6, "near": 1e-6}]
    assert list(rule.confirm(rounds, elements, "shape", ["near"])) == ["near"]
    three_of_five = [{"shape": 3e-6, "near": 1e-6}] * 3 + [{"shape": 1e-6, "near": 1e-6}] * 2
    assert rule.confirm(three_of_five, elements, "shape", ["near"]) == {}
    # twice the elements in the same time is the fixed cost of a call, not a cliff
    fixed = [{"shape": 1e-6, "double": 1e-6}] * 5
    assert rule.ratios(fixed, elements, "shape", "double")[0] == pytest.approx(2.0)
    assert rule.confirm(fixed, elements, "shape", ["double"]) == {}


# --- from search to history ----------------------------------------------------------------------
def cliff_of(space_, draw, neighbour_kind):
    kinds = dict(space_.neighbours(draw))
    elements = {"shape": space_.elements(draw), neighbour_kind: space_.elements(kinds[neighbour_kind])}
    rounds = [{"shape": 3.0, neighbour_kind: 1.0}] * rule.ROUNDS
    return search.cliff_record(space_, draw, {neighbour_kind: kinds[neighbour_kind]},
                               {neighbour_kind: 3.0}, elements, rounds, set())


DISCOVER_AND_RUN = """
import json, sys
sys.path.insert(0, sys.argv[1])
from asv_runner.discovery import list_benchmarks
with open(sys.argv[2], "w") as fp:
    list_benchmarks(sys.argv[1] + "/benchmarks", fp)
from benchmarks import bench_cliffs
cls = bench_cliffs.softmax
shapes = {}
for case in cls.params[0]:
    bench = cls()
    bench.setup(case)
    bench.time_forward(case)
    shapes[case] = [list(a.shape) for a in bench.call.args]
print(json.dumps(shapes))
"""


def test_cliff_data_round_trips_into_asv_discovery(tmp_path):
    softmax = space("softmax")
    draw = softmax.base_draw()._replace(sizes={"s0": 300, "s1": 1025})
    cliff = cliff_of(softmax, draw, "s1-1")
    assert cliff["name"] == "cliff_300x1025"
    copy = tmp_path / "suite"
    shutil.copytree(str(ROOT / "benchmarks"), str(copy / "benchmarks"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "env_matrix").mkdir()
    shutil.copy(str(ROOT / "env_matrix" / "variants.json"), str(copy / "env_matrix"))
    data.write_cliffs([json.loads(json.dumps(cliff))],
                      str(copy / "benchmarks" / "catalogue" / "cliffs.json"))
    out = tmp_path / "discovered.json"
    proc = subprocess.run([sys.executable, "-c", DISCOVER_AND_RUN, str(copy), str(out)],
                          cwd=str(tmp_path), env=dict(os.environ, MXBENCH_VARIANT="default",
                                                      MXBENCH_INPUT_CACHE="0"),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = dict((b["name"], b) for b in json.load(open(str(out))))
    cliff_benchmarks = [n for n in found if n.startswith("bench_cliffs.")]
    assert cliff_benchmarks == ["bench_cliffs.softmax.time_forward"]
    assert found[cliff_benchmarks[0]]["params"] == [["'cliff_300x1025'",
                                                     "'cliff_300x1025/s1-1'"]]
    assert json.loads(proc.stdout.splitlines()[-1]) == {
        "cliff_300x1025": [[300, 1025]], "cliff_300x1025/s1-1": [[300, 1024]]}
    # the operator suite itself is untouched by the cliffs
    shapes = found["bench_operators.softmax.time_forward"]["params"][0]
    assert shapes[:4] == ["'small'", "'medium'", "'tall'", "'wide'"]
    assert not [s for s in shapes if "cliff" in s]  # after its cases, only its field cases


def test_a_cliff_found_again_keeps_its_name():
    softmax = space("softmax")
    draw = softmax.base_draw()._replace(sizes={"s0": 300, "s1": 1025})
    cliff = cliff_of(softmax, draw, "s1-1")
    again = dict(cliff, name="cliff_300x1025_2")
    merged = search.merge_cliffs([cliff], "softmax", [again])
    assert [c["name"] for c in merged] == ["cliff_300x1025"]


def test_the_report_says_where_a_cliff_holds():
    softmax = space("softmax")
    cliff = cliff_of(softmax, softmax.base_draw()._replace(sizes={"s0": 300, "s1": 1025}),
                     "s1-1")
    recording = results.Recording("m", "c191", "env-mkldnn", 0, {}, {}, "")
    old = results.Recording("m", "c151", "env-mkldnn", 0, {}, {}, "")

    def point(case, value, rec):
        return results.Point("x", "bench_cliffs.softmax.time_forward", ("'%s'" % case,),
                             value, "seconds", recording=rec)
    points = [point("cliff_300x1025", 3e-3, recording), point("cliff_300x1025/s1-1", 1e-3, recording),
              point("cliff_300x1025", 1e-3, old), point("cliff_300x1025/s1-1", 1e-3, old)]
    log = {"mxnet": "1.9.1", "seed": 0, "budget_s": 60, "cliffs": [cliff],
           "tried": [{"case": "300x1025", "dtype": "float32", "seconds": 3e-3,
                      "elements": 307500, "cost_per_element": 1e-8}]}
    text = cliff_report.report({"softmax": log}, [cliff], points,
                       {"c191": "1.9.1", "c151": "1.5.1"}.get, lambda env: "cpu-mkldnn")
    row = [l for l in text.splitlines() if l.startswith("| softmax | cliff_300x1025")][0]
    assert "1.9.1 cpu-mkldnn 3.00x" in row and "1.5.1 cpu-mkldnn 1.00x (gone)" in row
    assert "| softmax | 1 of 1 | 300x1025 | float32 | 3ms | 307500 |" in text  # a costliest shape


def search_files(tmp_path, **log):
    """A search log of softmax with one cliff, and cliffs.json: (log dir, cliffs file)."""
    softmax = space("softmax")
    cliff = cliff_of(softmax, softmax.base_draw()._replace(sizes={"s0": 300, "s1": 1025}),
                     "s1-1")
    logs = tmp_path / "search"
    logs.mkdir()
    (logs / "softmax.json").write_text(json.dumps(dict(
        {"entry": "softmax", "mxnet": "1.9.1", "seed": 0, "budget_s": 60, "cliffs": [cliff],
         "tried": []}, **log)))
    data.write_cliffs([cliff], str(tmp_path / "cliffs.json"))
    return str(logs), str(tmp_path / "cliffs.json")


def test_the_site_page_lists_the_cliffs(tmp_path):
    from mxbench.site import pages
    logs, cliffs_file = search_files(tmp_path)
    path = pages.write_cliffs_page(str(ROOT / "asv.conf.json"), str(tmp_path), lambda m: None,
                                   logs, cliffs_file)
    page = Path(path).read_text()
    assert "<td>cliff_300x1025</td>" in page and "not recorded yet" in page


# --- the command ------------------------------------------------------------------------------
def mxbench(*args):
    return subprocess.run([sys.executable, "-m", "mxbench"] + list(args), cwd=str(ROOT),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=600)


def test_a_short_real_search_logs_what_it_timed_and_resumes(tmp_path):
    out, cliffs_file = tmp_path / "search", tmp_path / "cliffs.json"
    args = ["search", "relu", "--budget", "6", "--seed", "0", "--out", str(out),
            "--cliffs-file", str(cliffs_file)]
    proc = mxbench(*args)
    assert proc.returncode == 0, proc.stderr
    log = json.load(open(str(out / "relu.json")))
    assert log["tried"] and all(t["seconds"] > 0 and t["elements"] > 0 for t in log["tried"])
    assert log["seed"] == 0 and log["budget_s"] == 6 and log["mxnet"] == "1.9.1"
    # Hypothesis' database: relu's, in the one archive, not in folders
    packed = search.read_archive(str(out / search.EXAMPLES_ARCHIVE))
    assert any(name.startswith("relu/") for name in packed)
    assert sorted(p.name for p in out.iterdir()) == [search.EXAMPLES_ARCHIVE, "relu.json"]
    again = mxbench(*args)
    assert again.returncode == 0 and "searched already" in again.stderr


@pytest.mark.parametrize("args, message", [
    (["search", "softmx"], "unknown operator 'softmx'"),
    (["search", "split"], "split is not searched: num_outputs must divide"),
    (["search", "relu", "--budget", "1"], "--budget must be at least 5 seconds"),
])
def test_bad_input_is_one_line_and_exit_2(args, message):
    proc = mxbench(*args)
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("error: ") and message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_the_list_says_what_is_searched_and_why_not():
    proc = mxbench("search", "--list")
    assert proc.returncode == 0
    lines = dict(line.split(None, 1) for line in proc.stdout.splitlines())
    assert lines["softmax"] == "searched"
    assert lines["split"] == "not searched: num_outputs must divide the split axis"
    assert lines["SequenceLast"].startswith("not searched: its index bound")
    assert all(lines[name] == "searched" for name in search.DEFAULT_OPERATORS)


def test_the_cliffs_command_reports_from_the_logs_and_the_recorded_results(tmp_path):
    logs, cliffs_file = search_files(tmp_path, crashed="the search's process ended (SIGSEGV)")
    proc = mxbench("cliffs", "--search-dir", logs, "--cliffs-file", cliffs_file,
                   "-o", str(tmp_path / "CLIFFS.md"))
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "CLIFFS.md").read_text()
    assert "| softmax | 1.9.1 | 0 | 60s | 0 | 0 |" in text and "SIGSEGV" in text
    assert "| softmax | cliff_300x1025 | 300x1025 | float32 | s1-1 | 300x1024 | 3.00x |" in text


def test_the_committed_cliff_data_is_readable_and_each_cliff_builds_on_its_entry():
    with open(data.CLIFFS_FILE) as fh:
        assert sorted(json.load(fh)) == ["about", "cliffs"]
    cliffs = data.read_cliffs()
    names = [name for c in cliffs for name, _ in data.cliff_points(c)]
    assert len(names) == len(set(names))
    entries = data.cliff_entries(C.OPERATORS, cliffs)
    assert sorted(entries) == sorted(set(c["entry"] for c in cliffs))
    for op, dtypes in entries.values():
        assert list(op.cases) == list(dtypes) and all(n.startswith("cliff_") for n in op.cases)


# --- the example database: one archive -----------------------------------------------------------
def hypothesis_folder(path, saved):
    """A folder database written by Hypothesis itself: saved is [(key, value)]."""
    from hypothesis.database import DirectoryBasedExampleDatabase
    db = DirectoryBasedExampleDatabase(str(path))
    for key, value in saved:
        db.save(key, value)
    return db


def test_the_old_folders_pack_into_the_archive_unchanged_and_search_from_it(tmp_path):
    """The one-off migration keeps every file (path and bytes) of --out/examples/, and what
    Hypothesis saves while an entry is searched is packed back without touching the others."""
    from hypothesis.database import DirectoryBasedExampleDatabase
    out = tmp_path / "out"
    hypothesis_folder(out / "examples" / "relu", [(b"k1", b"v1"), (b"k1", b"v2"), (b"k2", b"v3")])
    hypothesis_folder(out / "examples" / "dot", [(b"k1", b"w1")])
    before = search.folder_files(str(out / "examples" / "relu"), "relu")
    before.update(search.folder_files(str(out / "examples" / "dot"), "dot"))
    assert len(before) > 4  # the values and Hypothesis' record of its keys
    assert search.migrate_examples(str(out)) == len(before)
    assert not (out / "examples").exists()
    archive = str(out / search.EXAMPLES_ARCHIVE)
    assert search.read_archive(archive) == before
    packed = Path(archive).read_bytes()
    assert search.migrate_examples(str(out)) == 0 and Path(archive).read_bytes() == packed

    with search.examples_database(str(out), "relu") as folder:
        db = DirectoryBasedExampleDatabase(folder)
        assert sorted(db.fetch(b"k1")) == [b"v1", b"v2"] and list(db.fetch(b"k2")) == [b"v3"]
        db.save(b"k1", b"v4")
        db.delete(b"k2", b"v3")
    after = search.read_archive(archive)
    assert {n: d for n, d in after.items() if n.startswith("dot/")} == \
        {n: d for n, d in before.items() if n.startswith("dot/")}
    with search.examples_database(str(out), "relu") as folder:
        db = DirectoryBasedExampleDatabase(folder)
        assert sorted(db.fetch(b"k1")) == [b"v1", b"v2", b"v4"] and not list(db.fetch(b"k2"))
    with search.examples_database(str(out), "softmax") as folder:  # a new entry: empty
        assert not list(DirectoryBasedExampleDatabase(folder).fetch(b"k1"))
    assert search.read_archive(archive) == after  # nothing saved: the archive as it was


def test_the_committed_example_database_is_one_archive_of_hypothesis_files():
    """results-search/ holds the logs and one archive (no folders: 16,000 files before); each
    member is <entry>/<key hash>/<value hash> as Hypothesis names them, each value's name the
    hash of its bytes, and every searched entry has its database there."""
    from hypothesis.database import _hash
    out = ROOT / rule.SEARCH_DIR
    assert not [p.name for p in out.iterdir() if p.is_dir()]
    members = search.read_archive(str(out / search.EXAMPLES_ARCHIVE))
    entries = set()
    for name, value in members.items():
        entry, key, value_name = name.split("/")
        assert len(key) == 16 and value_name == _hash(value), name
        entries.add(entry)
    assert entries == set(p.stem for p in out.glob("*.json"))
