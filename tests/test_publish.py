"""`python -m mxbench publish` builds the site beside html_dir and swaps it in only when it is
complete: a results file that crashes asv publish, or a Ctrl-C, leaves the published site as
it was, byte for byte, and no staging folder behind.

Real asv publish over a small project: the release ladder (generated), results/benchmarks.json
and two real result files of results/<the history machine> with its machine.json.
"""
import functools
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import HISTORY_MACHINE, ROOT, AsvProject

from mxbench.asvrun import runner
from mxbench.site import SITE_DIR, file_data, overlay, swap, vendor

MACHINE = HISTORY_MACHINE
GOOD_FILES = (
    "154b7a02-virtualenv-py3.11-numpy1.23.5-requests-MXNET_FLAVORcpu-mkldnn.json",   # 1.0.0.post4
    "44ff025d-virtualenv-py3.11-numpy1.23.5-requests-MXNET_FLAVORcpu-mkldnn.json",   # 1.5.1.post0
)
# A third real file, given wrong types ("results": a list) by the test that needs it.
BAD_SOURCE = "91f5740e-virtualenv-py3.11-numpy1.23.5-requests-MXNET_FLAVORcpu-mkldnn.json"


def missing(what):
    """A missing tool fails in CI and skips on a developer machine (as in test_site)."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(what, pytrace=False)
    pytest.skip(what)


def run_publish(*args, config):
    return subprocess.run([sys.executable, "-m", "mxbench", "--config", str(config), "publish"]
                          + list(args), cwd=str(ROOT), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=600)


def snapshot(path):
    """The folder's own inode and, for everything under it, its kind and content (sha256 of
    each file, mode and mtime too): equal snapshots = the same folder, byte for byte."""
    path = str(path)
    tree = {}
    for dirpath, dirnames, filenames in os.walk(path):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            st = os.lstat(full)
            rel = os.path.relpath(full, path)
            if os.path.islink(full):
                tree[rel] = ("link", os.readlink(full))
            elif os.path.isdir(full):
                tree[rel] = ("dir", st.st_mode)
            else:
                with open(full, "rb") as fh:
                    digest = hashlib.sha256(fh.read()).hexdigest()
                tree[rel] = ("file", digest, st.st_size, st.st_mode, st.st_mtime_ns)
    return os.stat(path).st_ino, tree


def leftovers(html_dir):
    """Staging/old folders of any publish beside html_dir."""
    parent, name = os.path.split(str(html_dir))
    return sorted(n for n in os.listdir(parent)
                  if n.startswith(name + ".staging-") or n.startswith(name + ".old-"))


def one_line(stderr):
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A temporary asv project with two real result files, published once (the good site)."""
    if not shutil.which("npm") and not vendor.installed_matches_lock(SITE_DIR):
        missing("npm is not installed: `mxbench publish` needs it for the site's JavaScript "
                "(Debian: apt-get install -y npm)")
    project = AsvProject(tmp_path_factory.mktemp("publish"))
    source = ROOT / "results"
    machine_dir = project.results_dir / MACHINE
    machine_dir.mkdir(parents=True)
    shutil.copy(str(source / "benchmarks.json"), str(project.results_dir))
    for name in ("machine.json",) + GOOD_FILES:
        shutil.copy(str(source / MACHINE / name), str(machine_dir))
    proc = run_publish(config=project.conf_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert (project.html_dir / "index.html").is_file()
    assert (project.html_dir / "vendor" / "manifest.json").is_file()
    index = file_data.read_site_json(str(project.html_dir), "index.json")
    assert {"1.0.0.post4", "1.5.1.post0"} <= set(index["tags"])
    assert leftovers(project.html_dir) == []
    return project


@pytest.fixture
def bad_results_file(project):
    """A real results file whose "results" is a list: asv publish crashes on it after it has
    emptied its html_dir (AttributeError: 'list' object has no attribute 'items')."""
    source = ROOT / "results" / MACHINE / BAD_SOURCE
    data = json.loads(source.read_text())
    data["results"] = [1, 2]
    bad = project.results_dir / MACHINE / BAD_SOURCE
    bad.write_text(json.dumps(data))
    yield bad
    bad.unlink()


def test_a_bad_results_file_leaves_the_published_site_as_it_was(project, bad_results_file,
                                                                   tmp_path):
    # Why the staging matters: plain asv publish empties its html_dir and then crashes.
    scratch = tmp_path / "plain-asv-html"
    shutil.copytree(str(project.html_dir), str(scratch))
    plain = project.run("publish", "--html-dir", str(scratch))
    assert plain.returncode != 0, plain.stdout[-3000:]
    assert "AttributeError" in plain.stdout, plain.stdout[-3000:]
    assert not (scratch / "index.json").exists() and not (scratch / "graphs").exists()

    before = snapshot(project.html_dir)
    proc = run_publish(config=project.conf_path)
    assert proc.returncode == 2, proc.stdout[-3000:] + proc.stderr
    line = one_line(proc.stderr)
    assert line.startswith("error: "), line
    assert "left as it was" in line, line
    assert str(bad_results_file) in line and "results that cannot be used" in line, line
    assert snapshot(project.html_dir) == before
    assert leftovers(project.html_dir) == []


def _group_alive(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("to_group, signum, code", [
    (True, signal.SIGINT, 130),    # Ctrl-C in a terminal: the whole process group
    (False, signal.SIGTERM, 143),  # a CI timeout: publish alone
    (False, signal.SIGINT, 130)])
def test_a_signal_during_asv_publish_leaves_the_site_and_stops_asv(project, to_group, signum,
                                                                  code):
    """Ctrl-C or SIGTERM once asv publishes into the staging folder: one line, the site as it
    was, nothing left behind, and asv publish ended even where only publish got the signal."""
    before = snapshot(project.html_dir)
    proc = subprocess.Popen([sys.executable, "-m", "mxbench", "--config",
                             str(project.conf_path), "publish"], cwd=str(ROOT),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            universal_newlines=True, start_new_session=True)
    try:
        staging = swap.side_paths(str(project.html_dir), pid=proc.pid)[0]
        deadline = time.time() + 120
        while not os.path.exists(os.path.join(staging, "index.html")):
            assert proc.poll() is None, "publish ended before it could be signalled"
            assert time.time() < deadline, "no staging folder %s within 120 s" % staging
            time.sleep(0.02)
        (os.killpg if to_group else os.kill)(proc.pid, signum)
        out, err = proc.communicate(timeout=120)
        time.sleep(0.5)
        assert not _group_alive(proc.pid), "asv publish still runs after publish exited"
    finally:
        if _group_alive(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.communicate()
    assert proc.returncode == code, out[-3000:] + err
    line = one_line(err)
    assert line.startswith("interrupted: ") and "left as it was" in line, line
    assert snapshot(project.html_dir) == before
    assert leftovers(project.html_dir) == []


def _dead_pid():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_leftovers_of_a_killed_publish_are_removed_by_the_next(project, tmp_path):
    """Staging/old folders beside html_dir and temporary folders of publishes whose process is
    gone (killed by SIGKILL) are removed by the next publish; a live process's are kept."""
    site = tmp_path / "html"
    shutil.copytree(str(project.html_dir), str(site))
    config = runner.config_copy(str(project.conf_path), str(tmp_path / "asv.conf.json"),
                                  html_dir=str(site))
    temp = tmp_path / "tmp"
    dead, alive = _dead_pid(), os.getpid()
    stale = [tmp_path / ("html.staging-%d" % dead), tmp_path / ("html.old-%d" % dead),
             temp / ("mxbench-publish-%d-abc" % dead)]
    kept = [tmp_path / ("html.staging-%d" % alive), temp / ("mxbench-publish-%d-xyz" % alive),
            temp / "mxbench-publish-noid"]
    for folder in stale + kept:
        (folder / "graphs").mkdir(parents=True)
    env = dict(os.environ, TMPDIR=str(temp))
    proc = subprocess.run([sys.executable, "-m", "mxbench", "--config", config, "publish",
                           "--vendor-only"], cwd=str(ROOT), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert [p for p in stale if p.exists()] == []
    assert [p for p in kept if not p.exists()] == []
    assert "leftover of a killed publish" in proc.stdout

    # Killed between the swap's two renames: html_dir missing, the old site aside: put back.
    shutil.rmtree(str(kept[0]))
    os.rename(str(site), str(tmp_path / ("html.old-%d" % dead)))
    assert swap.remove_leftovers(str(site), str(temp)) == [str(tmp_path / ("html.old-%d" % dead))]
    assert (site / "index.html").is_file()


def test_a_non_finite_value_is_named_and_never_reaches_asv_publish(project):
    """One +Infinity timing made asv publish hang (its step detection): such a file is named
    as a bad file, exit 2, before asv publish runs; the site stays as it was."""
    from mxbench.core import results
    source = ROOT / "results" / MACHINE / BAD_SOURCE
    data = json.loads(source.read_text())
    name = next(n for n, row in sorted(data["results"].items())
                if isinstance(row[0], list) and row[0] and isinstance(row[0][0], float))
    data["results"][name][0][0] = float("inf")
    try:
        results.validate_result_data(str(source), data)
        pytest.fail("core/results.py accepts a +Infinity timing (issue 25: values validated as "
                    "measurements); publish relies on it to name the file")
    except results.ResultFileError:
        pass
    before = snapshot(project.html_dir)
    bad = project.results_dir / MACHINE / BAD_SOURCE
    bad.write_text(json.dumps(data))  # Python writes Infinity, as a crashed tool could
    try:
        proc = run_publish(config=project.conf_path)
    finally:
        bad.unlink()
    assert proc.returncode == 2, proc.stdout[-3000:] + proc.stderr
    line = one_line(proc.stderr)
    assert str(bad) in line and "left as it was" in line, line
    assert "$ " not in proc.stdout  # asv publish never ran
    assert snapshot(project.html_dir) == before
    assert leftovers(project.html_dir) == []


def test_html_dir_given_to_asv_publish_is_the_target(project, tmp_path):
    """`-- --html-dir DIR` (asv publish's own option) publishes DIR, staged beside it."""
    before = snapshot(project.html_dir)
    target = tmp_path / "other-html"
    proc = run_publish("--", "--html-dir", str(target), config=project.conf_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert (target / "mxbench" / "file-data" / "index.js").is_file()
    assert (target / "vendor" / "manifest.json").is_file()
    assert snapshot(project.html_dir) == before
    assert leftovers(target) == []


def test_vendor_only_localizes_a_copy_and_swaps_it_in(project, tmp_path):
    site = tmp_path / "html"
    shutil.copytree(str(project.html_dir), str(site))
    shutil.rmtree(str(site / "vendor"))
    config = runner.config_copy(str(project.conf_path), str(tmp_path / "asv.conf.json"),
                                  html_dir=str(site))
    pages = {rel: info for rel, info in snapshot(site)[1].items() if info[0] == "file"}
    proc = run_publish("--vendor-only", config=config)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert (site / "vendor" / "manifest.json").is_file()
    after = snapshot(site)[1]
    for rel, info in pages.items():  # the site's own files: copied as they were
        assert after[rel][:3] == info[:3], rel
    assert leftovers(site) == []

    # Nothing to localize: one line, nothing created.
    shutil.rmtree(str(site))
    proc = run_publish("--vendor-only", config=config)
    assert proc.returncode == 2
    assert one_line(proc.stderr).startswith("error: "), proc.stderr
    assert not site.exists() and leftovers(site) == []


def test_swap_in_replaces_the_site_and_deletes_the_old_one(tmp_path):
    html, staging = tmp_path / "html", tmp_path / "html.staging-1"
    html.mkdir()
    (html / "index.html").write_text("old")
    staging.mkdir()
    (staging / "index.html").write_text("new")
    state = {}
    swap.swap_in(str(staging), str(html), state)
    assert state == {"swapped": True}
    assert (html / "index.html").read_text() == "new"
    assert sorted(os.listdir(str(tmp_path))) == ["html"]


def test_swap_in_puts_the_old_site_back_when_the_new_one_cannot_move_in(tmp_path):
    html = tmp_path / "html"
    (html / "graphs").mkdir(parents=True)
    (html / "index.html").write_text("old")
    before = snapshot(html)
    state = {}
    with pytest.raises(FileNotFoundError):
        swap.swap_in(str(tmp_path / "html.staging-missing"), str(html), state)
    assert state == {}
    assert snapshot(html) == before
    assert sorted(os.listdir(str(tmp_path))) == ["html"]


# --- the overlay: the data scripts and default views --------------------------------------------
def test_the_site_keeps_its_data_only_as_scripts(project):
    """No JSON copy of the data is left (the overlay answers every request from
    mxbench/file-data/*.js), each script holds what file_data.bundle_of puts there, and the
    overlay's tags are in index.html once."""
    html = project.html_dir
    left = [p.relative_to(html).as_posix() for p in html.rglob("*.json")]
    assert left == ["vendor/manifest.json"], left
    assert not (html / "graphs").exists()
    data_dir = html / "mxbench" / "file-data"
    index = file_data.read_site_json(str(html), "index.json")
    positions = file_data.benchmark_positions(index)
    found = set()
    for script in sorted(data_dir.rglob("*.js")):
        bundle = script.relative_to(data_dir).as_posix()[:-len(".js")]
        for path in file_data.read_script(str(script)):
            assert file_data.bundle_of(path, positions) == bundle, (path, bundle)
            assert path not in found, path
            found.add(path)
    assert {"info.json", "index.json", "confirmations.json", "changes.json"} <= found
    assert {file_data.BENCHMARK_ENTRY + name for name in index["benchmarks"]} <= found
    assert [p for p in found if p.startswith("graphs/summary/")]
    assert [p for p in found if p.endswith("/summary.json") and "/summary/" not in p]
    page = (html / "index.html").read_text()
    for tag in ('href="mxbench/overlay.css"', 'src="mxbench/defaults.js"',
                'src="mxbench/overlay.js"'):
        assert page.count(tag) == 1, tag
    assert page.index('src="mxbench/overlay.js"') > page.index("vendor/jquery/dist/jquery.min.js")
    assert overlay.inject_overlay(page) == page  # localizing again adds nothing


def test_the_scripts_give_back_every_json_file_asv_wrote(project, tmp_path):
    """asv publish's own output made into scripts (the overlay step of `mxbench publish`, and
    --vendor-only on a site that still has its JSON): each file read back from its script is
    the file asv wrote (index.json: what the pages read of each benchmark; the code in the
    benchmark's graph script), and the JSON is gone."""
    scratch = tmp_path / "asv-html"
    plain = project.run("publish", "--html-dir", str(scratch))
    assert plain.returncode == 0, plain.stdout[-3000:]
    written = {p.relative_to(scratch).as_posix(): json.loads(p.read_text())
               for p in scratch.rglob("*.json")}
    assert len([p for p in written if p.startswith("graphs/")]) > 100
    (scratch / "changes.json").write_text(json.dumps(
        {"fields": ["point", "machine", "params", "before"],
         "changes": [["a.b(1)", "box", {"x": "1"}, 1.5], ["a.b(2)", "box", {"x": "1"}, None],
                     ["a.c", "box", {"x": "2"}, 2.0]]}))
    written["changes.json"] = json.loads((scratch / "changes.json").read_text())
    stats = overlay.add_overlay(str(scratch), log=print)
    assert stats["dropped"] == len(written) and not list(scratch.rglob("*.json"))
    for path, data in written.items():
        back = file_data.read_site_json(str(scratch), path)
        if path == "regressions.json":
            assert back is None  # no page reads it
        elif path == "index.json":
            for name, bench in data["benchmarks"].items():
                assert back["benchmarks"][name] == {k: bench[k] for k in bench if k in (
                    ("name",) + file_data.BENCHMARK_FIELDS)}, name
                assert file_data.benchmark_entry(str(scratch), name)["code"] == bench["code"]
            assert list(back["benchmarks"]) == list(data["benchmarks"])
            assert {k: v for k, v in back.items() if k != "benchmarks"} == \
                {k: v for k, v in data.items() if k != "benchmarks"}
        else:
            assert back == data, path
    # a site without its JSON keeps its scripts: --vendor-only leaves them as they are
    before = {p: p.read_bytes() for p in (scratch / "mxbench" / "file-data").rglob("*.js")}
    assert overlay.add_overlay(str(scratch), log=print) == {"seconds": pytest.approx(0, abs=5)}
    assert {p: p.read_bytes() for p in (scratch / "mxbench" / "file-data").rglob("*.js")} == \
        before


def test_published_default_views(project):
    """The default views in the graph scripts of the small project (one machine, CPU
    results): a view for every benchmark with a measured point, device='gpu' left out where
    the benchmark has it."""
    html = str(project.html_dir)
    index = file_data.read_site_json(html, "index.json")
    defaults = {name: file_data.benchmark_entry(html, name)["view"]
                for name in index["benchmarks"]}
    defaults = {name: view for name, view in defaults.items() if view is not None}
    assert defaults
    with_device = 0
    for name, view in defaults.items():
        assert view["machine"] == [MACHINE], view
        bench = index["benchmarks"][name]
        assert [k for k in view if k.startswith("p-")] == ["p-" + n for n in bench["param_names"]]
        if "device" in bench["param_names"]:
            with_device += 1
            assert view["p-device"] == ["'cpu'"], (name, view)
    assert with_device > 10


def _view_index(files):
    """An index.json with the graph files {(machine, python, variant): data}."""
    graph_params = [{"machine": m, "python": py, "env-MXBENCH_VARIANT": v, "branch": "main"}
                    for m, py, v in files]
    return {"params": {"machine": ["box-a", "box-b"], "python": ["3.11", "3.7"],
                       "env-MXBENCH_VARIANT": [None, "low-noise"], "branch": ["main"]},
            "graph_param_list": graph_params}


def test_default_view_rules():
    shapes, dtypes, devices = ["'small'", "'medium'", "'tall'", "'wide'"], ["'f32'", "'f64'"], \
        ["'cpu'", "'gpu'"]
    bench = {"params": [shapes, dtypes, devices], "param_names": ["shape", "dtype", "device"]}

    def values(measured):  # one revision's list over shape x dtype x device (device fastest)
        return [1.0 if measured(s, d, dev) else None
                for s in shapes for d in dtypes for dev in devices]
    cpu = values(lambda s, d, dev: dev == "'cpu'")
    files = {
        ("box-a", "3.11", None): [[r, cpu] for r in range(1, 6)],        # the history
        ("box-a", "3.7", None): [[1, values(lambda *a: False)], [2, None]],  # nothing measured
        ("box-a", "3.11", "low-noise"): [[5, cpu]],                       # one A/B run
        ("box-b", "3.11", None): [[5, cpu], [6, cpu]],                    # another machine
    }
    index = _view_index(files)

    def data(graph_params):
        return files.get((graph_params["machine"], graph_params["python"],
                          graph_params["env-MXBENCH_VARIANT"]))
    view = overlay.default_view(bench, index, data)
    assert view == {"machine": ["box-a"], "env-MXBENCH_VARIANT": [None], "python": ["3.11"],
                    "p-shape": shapes, "p-dtype": dtypes, "p-device": ["'cpu'"]}
    assert list(view) == ["machine", "env-MXBENCH_VARIANT", "python", "p-shape", "p-dtype",
                          "p-device"]
    # More series than max_series: the last values of the longest parameter go first.
    view = overlay.default_view(bench, index, data, max_series=4)
    assert (view["p-shape"], view["p-dtype"]) == (shapes[:2], dtypes)
    view = overlay.default_view(bench, index, data, max_series=1)
    assert (view["p-shape"], view["p-dtype"], view["p-device"]) == \
        (shapes[:1], dtypes[:1], ["'cpu'"])
    # A GPU point with a value keeps device='gpu'; NaN is no value.
    files[("box-a", "3.11", None)][0][1] = values(lambda s, d, dev: s == "'small'")
    assert overlay.default_view(bench, index, data)["p-device"] == devices
    files[("box-a", "3.11", None)][0][1] = [float("nan")] * len(cpu)
    assert overlay.default_view(bench, index, data)["p-device"] == ["'cpu'"]
    # The machine with the most points wins (ties: the first listed); nothing measured: None.
    files[("box-b", "3.11", None)] = [[r, cpu] for r in range(1, 9)]
    assert overlay.default_view(bench, index, data)["machine"] == ["box-b"]
    plain = {"params": [], "param_names": []}
    tie = {("box-a", "3.11", None): [[1, 2.0]], ("box-b", "3.11", None): [[1, 3.0]]}
    assert overlay.default_view(plain, _view_index(tie), lambda gp: tie.get(
        (gp["machine"], gp["python"], gp["env-MXBENCH_VARIANT"]))) == \
        {"machine": ["box-a"], "env-MXBENCH_VARIANT": [None]}
    assert overlay.default_view(bench, index, lambda gp: None) is None
    assert overlay.default_view(bench, index, lambda gp: [[1, None]]) is None


def test_default_view_opens_on_a_log_scale_where_the_drawn_values_span_a_decade():
    """Decided per graph from the values the default view draws: a series ten times below
    another (small under medium), or a line that fell tenfold, gets asv's log scale; a NaN
    (skip) or a failure (None) is no value."""
    shapes, devices = ["'small'", "'medium'"], ["'cpu'", "'gpu'"]
    bench = {"params": [shapes, devices], "param_names": ["shape", "device"]}
    files = {}
    index = _view_index({("box-a", "3.11", None): None})

    def view(*revisions):  # each: [small cpu, small gpu, medium cpu, medium gpu]
        files["data"] = [[r, list(values)] for r, values in enumerate(revisions, 1)]
        return overlay.default_view(bench, index, lambda gp: files["data"])
    close = view([2e-5, None, 1.9e-4, None], [2.1e-5, None, 1.8e-4, None])
    assert "y-axis-scale" not in close and close["p-shape"] == shapes
    apart = view([2e-5, None, 2e-4, None], [2.1e-5, None, 1.8e-4, None])
    assert apart["y-axis-scale"] == ["log"] and list(apart)[-1] == "y-axis-scale"
    # a skip (NaN) and failures are not drawn: linear
    assert "y-axis-scale" not in view([2e-5, float("nan"), 1.9e-4, None],
                                      [2.1e-5, None, 1.8e-4, None])
    only_small = view([2e-5, None, None, None], [2e-6, None, None, None])
    assert only_small["p-shape"] == shapes[:1] and only_small["y-axis-scale"] == ["log"]


def test_file_data_bundle_names():
    positions = {"bench_a.f": 0, "bench_z.g": file_data.SUMMARY_CHUNK * 2 + 1}
    bundle_of = functools.partial(file_data.bundle_of, positions=positions)
    assert bundle_of("info.json") == "index"
    assert bundle_of("index.json") == "index"
    assert bundle_of("regressions.json") is None
    assert bundle_of("confirmations.json") == "confirmations"
    assert bundle_of("changes.json") == "changes"
    assert bundle_of("graphs/summary/bench_a.f.json") == "summaries/0"
    assert bundle_of("graphs/summary/bench_z.g.json") == "summaries/2"
    assert bundle_of("graphs/arch-x/machine-m/bench_a.f.json") == "graphs/bench_a.f"
    assert bundle_of(file_data.BENCHMARK_ENTRY + "bench_a.f") == "graphs/bench_a.f"
    assert bundle_of("graphs/arch-x/machine-m/summary.json") == "graphs/arch-x/machine-m/summary"
    with pytest.raises(ValueError):
        bundle_of("regressions.xml")


def test_packed_tables_unpack_to_the_same_rows():
    """The list view's tables and changes.json: the repeated text of a column once."""
    index = {"benchmarks": {"a.b": {"params": [["1", "2"], ["'x'", "'y'"]]}, "a.c": {}}}
    rows = [{"name": "a.b", "idx": n % 4, "pretty_name": "a.b(%s, %s)" % (
        "12"[n % 4 // 2], "'x'" if n % 2 == 0 else "'y'"), "last_value": n / 3.0,
        "change_rev": [None, n] if n % 2 else None} for n in range(40)]
    rows += [{"name": "a.c", "idx": None, "pretty_name": pretty, "last_value": 1.0,
              "change_rev": None} for pretty in ("a.c", "not asv's")]
    path = "graphs/arch-x/machine-m/summary.json"
    packed = file_data.pack(path, rows, index)
    assert packed["tables"].get("name") == ["a.b", "a.c"]
    columns = file_data.unpack_columns(packed["mxbench_fields"], packed["rows"],
                                       packed["tables"])
    assert [row[2] for row in columns] == [None] * 41 + ["not asv's"]  # asv's derivable
    assert file_data.unpack(path, packed, index) == rows
    assert len(file_data.js_value(packed)) < len(file_data.js_value(rows)) / 2
    changes = {"fields": ["point", "params", "state", "before"],
               "changes": [["a.b(%d)" % (n % 3), {"machine": "m"}, None, n * 0.5]
                           for n in range(30)]}
    packed = file_data.pack("changes.json", changes, None)
    assert set(packed["tables"]) == {"point", "params", "state"}
    assert file_data.unpack("changes.json", packed) == changes


def test_the_release_changes_and_coverage_reports_are_html_pages(tmp_path):
    """generated-reports/CHANGES.md and `mxbench coverage --format markdown` as pages of the site: every
    table row of the report is a row of the page, nothing is left as Markdown, each benchmark
    named links to the graph page of a benchmark the results hold, and the chart is beside it."""
    import re
    from mxbench.core.results import Store
    from mxbench.site import pages
    path = pages.write_changes_page(str(ROOT / "asv.conf.json"), str(tmp_path), log=print)
    text = open(path, encoding="utf-8").read()
    report = (ROOT / pages.CHANGES_REPORT).read_text(encoding="utf-8")
    rows = [line for line in report.splitlines()
            if line.startswith("|") and not re.match(r"^\|[-|: ]+\|$", line)]
    assert text.count("<tr>") == len(rows) > 100
    assert "<pre>" not in text and "**" not in text and "`" not in text and "\n|" not in text
    assert "<h1>What changed between MXNet releases</h1>" in text
    assert '<h2 id="cpu-mkldnn">cpu-mkldnn</h2>' in text and '<a href="#cpu-mkldnn">' in text
    assert '<img src="changes.png"' in text and (tmp_path / "changes.png").is_file()
    linked = set(re.findall(r'href="index\.html#([^"]+)"', text)) - {""}
    changes = {link for link in linked if link.startswith("change?")}
    linked -= {"summarylist", "regressions", "about"}  # the bar's links to asv's pages
    known = set(Store(str(ROOT / "results")).benchmark_info())
    assert linked - changes and linked - changes <= known, sorted(linked - changes - known)[:5]
    # a release pair's rows link to their change page too (the flavor and pair of the headings)
    assert any(link.startswith("change?point=bench_operators.BatchNorm.time_forward")
               and "&amp;base=1.5.1.post0&amp;flavor=cpu-mkldnn&amp;head=1.6.0" in link
               for link in changes), sorted(changes)[:3]

    path = pages.write_coverage_page(str(tmp_path), log=print)
    text = open(path, encoding="utf-8").read()
    assert "<h1>Operator coverage</h1>" in text and "<ul>\n<li>covered " in text
    assert "<td><code>Convolution</code></td><td>covered</td>" in text and "`" not in text


def test_render_markdown_reads_what_the_reports_print():
    from mxbench.site.pages import render_markdown
    out = render_markdown("# T\n\nA **b** `c<d>` [e](https://x.org/?a=1&b=2)\n\n- one\n- two\n\n"
                          "| a | 1 |\n|---|---:|\n| `x` | 2.5ms |\n")
    assert out == (
        "<h2>T</h2>\n<p>A <strong>b</strong> <code>c&lt;d&gt;</code> "
        "<a href=\"https://x.org/?a=1&amp;b=2\">e</a></p>\n<ul>\n<li>one</li>\n<li>two</li>\n"
        "</ul>\n<table>\n<tr><th>a</th><th>1</th></tr>\n"
        "<tr><td><code>x</code></td><td class=\"num\">2.5ms</td></tr>\n</table>")


def test_asv_publish_with_memoized_range_queries_writes_asvs_site(project, tmp_path):
    """asvrun/asv_publish.py (asv publish, each git range query asked once, each distinct
    series' steps detected once) writes what plain asv publish writes: every file
    byte-identical but the build time (info.json) and the order of the regressions (asv's
    worker pool hands them back in any order: regressions.json and its feed)."""
    sites, outputs = {}, {}
    for name, command in (("plain", [runner.asv_executable()]),
                          ("memoized", [sys.executable, runner.ASV_PUBLISH])):
        sites[name] = tmp_path / name
        proc = subprocess.run(command + ["--config", str(project.conf_path), "publish",
                                         "--html-dir", str(sites[name])],
                              cwd=str(project.base), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)
        assert proc.returncode == 0, proc.stdout[-3000:]
        outputs[name] = proc.stdout
    shared = re.search(r"steps: (\d+) series detected, (\d+) the same as another graph's",
                       outputs["memoized"])
    assert shared and int(shared.group(1)) > 10 and int(shared.group(2)) > 0, outputs
    files = [sorted(str(p.relative_to(site)) for p in site.rglob("*") if p.is_file())
             for site in sites.values()]
    assert files[0] == files[1] and len(files[0]) > 10
    regressions = json.loads((sites["plain"] / "regressions.json").read_text())["regressions"]
    assert regressions, "no regression: the range queries and the steps were not exercised"
    for rel in files[0]:
        plain, memoized = ((site / rel).read_bytes() for site in sites.values())
        if rel == "info.json":
            plain, memoized = (dict(json.loads(b), timestamp=0) for b in (plain, memoized))
        elif rel == "regressions.json":
            plain, memoized = (sorted(map(json.dumps, json.loads(b)["regressions"]))
                               for b in (plain, memoized))
        elif rel == "regressions.xml":  # the same entries, in that order
            plain, memoized = (sorted(b.splitlines()) for b in (plain, memoized))
        assert plain == memoized, rel
