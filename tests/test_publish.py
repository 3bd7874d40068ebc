"""`python -m mxbench publish` builds the site beside html_dir and swaps it in only when it is
complete: a results file that crashes asv publish, or a Ctrl-C, leaves the published site as
it was, byte for byte, and no staging folder behind.

Real asv publish over a small project: the release ladder (generated), results/benchmarks.json
and two real result files of results/<the history machine> with its machine.json.
"""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import HISTORY_MACHINE, ROOT, AsvProject

from mxbench.asvrun import runner
from mxbench.site import SITE_DIR, overlay, swap, vendor

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
    index = json.loads((project.html_dir / "index.json").read_text())
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
    assert (target / "index.json").is_file() and (target / "vendor" / "manifest.json").is_file()
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


# --- the overlay: file:// data and default views ----------------------------------------------
def read_script_json(path, start):
    """The JSON argument of a generated script: what follows `start` up to the final ");"
    (or ";")."""
    text = path.read_text()
    body = text[text.index(start) + len(start):].rstrip()
    return json.loads(body[:-2] if body.endswith(");") else body[:-1])


def test_file_data_holds_every_json_file_of_the_site(project):
    """Every JSON file asv's pages fetch is in exactly one mxbench/file-data/*.js, the one
    file_data_bundle names (overlay.js looks there), with the same content."""
    html = project.html_dir
    data_dir = html / "mxbench" / "file-data"
    found = {}
    for script in sorted(data_dir.rglob("*.js")):
        bundle = script.relative_to(data_dir).as_posix()[:-len(".js")]
        for path, data in read_script_json(script, "mxbenchFileData(").items():
            assert overlay.file_data_bundle(path) == bundle, (path, bundle)
            assert path not in found, path
            found[path] = data
    expected = {p.relative_to(html).as_posix(): p for p in html.rglob("*.json")
                if p.relative_to(html).parts[0] not in ("vendor", "mxbench")}
    assert {"info.json", "index.json", "regressions.json", "confirmations.json",
            "changes.json"} <= set(expected)
    assert set(found) == set(expected)
    for path, full in expected.items():
        assert found[path] == json.loads(full.read_text()), path

    page = (html / "index.html").read_text()
    for tag in ('href="mxbench/overlay.css"', 'src="mxbench/defaults.js"',
                'src="mxbench/overlay.js"'):
        assert page.count(tag) == 1, tag
    assert page.index('src="mxbench/overlay.js"') > page.index("vendor/jquery/dist/jquery.min.js")
    assert overlay.inject_overlay(page) == page  # localizing again adds nothing


def test_published_default_views(project):
    """mxbench/defaults.js of the small project (one machine, CPU results): a view for every
    benchmark with a measured point, device='gpu' left out where the benchmark has it."""
    html = project.html_dir
    defaults = read_script_json(html / "mxbench" / "defaults.js", "window.MXBENCH_DEFAULTS = ")
    index = json.loads((html / "index.json").read_text())
    assert defaults and set(defaults) <= set(index["benchmarks"])
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
    assert overlay.file_data_bundle("info.json") == "index"
    assert overlay.file_data_bundle("index.json") == "index"
    assert overlay.file_data_bundle("regressions.json") == "regressions"
    assert overlay.file_data_bundle("confirmations.json") == "changes"
    assert overlay.file_data_bundle("changes.json") == "changes"
    assert overlay.file_data_bundle("graphs/summary/bench_a.f.json") == "summaries"
    assert overlay.file_data_bundle("graphs/arch-x/machine-m/bench_a.f.json") == "graphs/bench_a.f"
    assert overlay.file_data_bundle("graphs/arch-x/machine-m/summary.json") == \
        "graphs/arch-x/machine-m/summary"
    with pytest.raises(ValueError):
        overlay.file_data_bundle("regressions.xml")


def test_the_release_changes_and_coverage_reports_are_html_pages(tmp_path):
    """reports/CHANGES.md and `mxbench coverage --format markdown` as pages of the site: every
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
    assert "<h1>What changed between MXNet releases</h1>" in text and "<h2>cpu-mkldnn</h2>" in text
    assert '<img src="changes.png"' in text and (tmp_path / "changes.png").is_file()
    linked = set(re.findall(r'href="index\.html#([^"]+)"', text)) - {""}
    changes = {link for link in linked if link.startswith("change?")}
    linked -= {"summarylist", "regressions"}  # the bar's links to asv's own pages
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
