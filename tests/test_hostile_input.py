"""Issue 44's security and traceback probes as tests: hostile strings in results that reach
the published site (opened in headless Chromium: no script runs), machine names that are
paths, and faults that must end in one line (exit 2), never a traceback.

Real files throughout: copies of the committed results and cliffs.json, the real release
ladder, real `python -m mxbench` processes, real asv publish; nothing here records.
"""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import HISTORY_MACHINE, ROOT, AsvProject
from tests.test_site import chromium  # noqa: F401 (the fixture: headless Chromium)

from mxbench.core import results as results_store
from mxbench.site import pages

# Two real result files of the history (1.0.0.post4 and 1.5.1.post0, cpu-mkldnn), as
# tests/test_publish.py uses them.
GOOD_FILES = (
    "154b7a02-virtualenv-py3.11-numpy1.23.5-requests-MXNET_FLAVORcpu-mkldnn.json",
    "44ff025d-virtualenv-py3.11-numpy1.23.5-requests-MXNET_FLAVORcpu-mkldnn.json",
)
BENCH = "bench_overhead.Dispatch.time_add_1_element"
OTHER_BENCH = "bench_operators.softmax.time_forward"
BAD_MACHINE_NAMES = ("../../evil", "a/b", "..", ".hidden", "-x", "two\nlines", "sp ace",
                     "<img src=x>")


def mxbench(*args, cwd=ROOT, env=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "mxbench"] + list(args), cwd=str(cwd),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=timeout,
                          env=dict(os.environ, **(env or {})))


def refused(proc, *words):
    """Exit 2, no traceback, one error line naming `words` (unusable results: the error
    line, then the files named one a line, as the command line prints ResultsProblem)."""
    output = proc.stdout + proc.stderr
    assert proc.returncode == 2, output[-3000:]
    assert "Traceback" not in output, output[-3000:]
    lines = proc.stderr.strip().splitlines()
    at = [i for i, line in enumerate(lines) if "error:" in line]
    assert len(at) == 1, output[-3000:]
    said = " ".join(lines[at[0]:])
    for word in words:
        assert word in said, (word, said)
    return said


def small_results(target, benchmarks=(BENCH, OTHER_BENCH)):
    """results/<history machine>/ with machine.json and GOOD_FILES, and benchmarks.json, each
    cut to `benchmarks` (a site of two graphs publishes in seconds)."""
    source = ROOT / "results"
    machine_dir = target / HISTORY_MACHINE
    machine_dir.mkdir(parents=True)
    described = json.loads((source / "benchmarks.json").read_text())
    (target / "benchmarks.json").write_text(json.dumps(dict(
        [(name, described[name]) for name in benchmarks] + [("version", 2)])))
    shutil.copy(str(source / HISTORY_MACHINE / "machine.json"), str(machine_dir))
    for name in GOOD_FILES:
        data = json.loads((source / HISTORY_MACHINE / name).read_text())
        data["results"] = dict((k, v) for k, v in data["results"].items() if k in benchmarks)
        (machine_dir / name).write_text(json.dumps(data))
    return target


def copy_of_the_checkout(target):
    """The parts of this checkout a command needs (the code, the benchmarks, the config)."""
    target.mkdir(parents=True)
    for name in ("benchmarks", "mxbench", "env_matrix", "benchmarks_baselines"):
        shutil.copytree(str(ROOT / name), str(target / name),
                        ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(str(ROOT / "asv.conf.json"), str(target))
    return target


def edit_json(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


# --- machine names ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", BAD_MACHINE_NAMES)
@pytest.mark.parametrize("where", ("before", "after"))
def test_a_machine_name_that_is_not_a_name_is_refused_before_anything_is_written(
        tmp_path, name, where):
    """`--machine ../../evil run` wrote ../../evil/conditions.jsonl beside results/ and a key
    of ~/.asv-machine.json, then ended in a FileExistsError traceback."""
    home, results = tmp_path / "home", tmp_path / "a" / "b" / "results"
    home.mkdir()
    results.parent.mkdir(parents=True)
    command = ["run", "1.9.1", "--bench", "^%s\\(" % BENCH.replace(".", "\\.")]
    option = ["--machine=" + name]  # `=`: argparse takes "-x" as the value then
    args = ["--results", str(results)] + (option + command if where == "before"
                                          else command + option)
    proc = mxbench(*args, env={"HOME": str(home)}, timeout=120)
    refused(proc, "machine name", repr(name))
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    assert written == ["a", "a/b", "home"], written


@pytest.mark.parametrize("command", (["setup"], ["changes", "releases"], ["cost"],
                                     ["changes", "aa", "--release", "1.9.1", "--machine-a"]))
def test_every_command_that_takes_a_machine_name_refuses_a_path(tmp_path, command):
    # --machine-a may be RESULTS_DIR/NAME (read only): its NAME must be a name
    args = (command + ["results/.."] if command[-1].startswith("--machine")
            else ["--machine", "x/../../evil"] + command)
    proc = mxbench(*args, env={"HOME": str(tmp_path)}, timeout=120)
    refused(proc, "machine name")
    assert list(tmp_path.iterdir()) == []


def test_a_results_path_with_a_machine_name_is_still_taken(tmp_path):
    """changes aa --machine-a RESULTS_DIR/NAME: the last part is the name."""
    from mxbench.core.arguments import machine_or_path
    assert machine_or_path(str(tmp_path / "amd-epyc-2cpu-24gb-aa")) == str(
        tmp_path / "amd-epyc-2cpu-24gb-aa")


def test_merge_refuses_results_whose_names_are_not_names(tmp_path):
    """Results from CI: a benchmarks.json naming a benchmark `x<img ...>` would win in the
    merge and reach the site; a machine folder `a b` would become one of results/."""
    incoming = small_results(tmp_path / "incoming")
    edit_json(incoming / "benchmarks.json", lambda d: d.update(
        {"bench_x.Y<img src=x onerror=alert(1)>.time_z": dict(d[BENCH])}))
    target = tmp_path / "project" / "results"
    proc = mxbench("--results", str(target), "merge", str(incoming))
    refused(proc, "benchmarks.json", "is not a benchmark name")
    assert not target.exists() or not any(target.rglob("*.json"))

    incoming = small_results(tmp_path / "incoming2")
    (incoming / HISTORY_MACHINE).rename(incoming / "a b")
    proc = mxbench("--results", str(target), "merge", str(incoming))
    refused(proc, "'a b'", "machine name")
    assert not target.exists() or not any(target.rglob("*.json"))


# --- what follows `--` --------------------------------------------------------------------------
@pytest.mark.parametrize("command,asv_command,asv_args,complaint", (
    (["find", "1.8.0..1.9.1", BENCH], "run", ["--bogus-option"],
     "unrecognized arguments: --bogus-option"),
    (["run", "1.9.1"], "run", ["-a"], "expected one argument"),
    (["confirm", "1.9.0", "1.9.1"], "run", ["1.9.1^!"], "unrecognized arguments: 1.9.1^!"),
    (["check", "1.9.0", "1.9.1"], "continuous", ["--factor", "x"], "invalid float value"),
    (["compare", "1.9.0", "1.9.1"], "compare", ["--sort", "size"], "invalid choice: 'size'"),
    (["publish"], "publish", ["--bogus-option"], "unrecognized arguments")))
def test_asv_arguments_asv_refuses_are_one_line_before_anything_runs(
        tmp_path, command, asv_command, asv_args, complaint):
    """asv's own parser judges them first: a probe of `find` with an argument asv run refuses
    ran the install, then ended in "no verdict: ... no measured point" (asv's complaint
    above it in its usage text), and `run` printed its summary after asv's usage text."""
    results = tmp_path / "results"
    proc = mxbench("--results", str(results), *command, "--", *asv_args, timeout=120)
    refused(proc, "asv %s refuses the arguments after --: " % asv_command, complaint)
    assert "usage:" not in proc.stdout + proc.stderr and not results.exists()


# --- regular expressions and output files -------------------------------------------------------
@pytest.mark.parametrize("args", (["confirm", "1.9.0", "1.9.1", "--list", "--bench", "["],
                                  ["check", "1.9.0", "1.9.1", "--bench", "("],
                                  ["export", "results", "--benchmark", "["],
                                  ["export", "results", "--env", "*"]))
def test_a_bad_regex_is_one_line(args):
    refused(mxbench(*args, timeout=120), "not a regular expression")


@pytest.mark.parametrize("command", (["export", "RESULTS", "--format", "json"],
                                     ["--results", "RESULTS", "changes", "releases"],
                                     ["baselines"]))  # reads results-baselines/
def test_a_report_into_a_missing_folder_is_one_line(tmp_path, command):
    results = small_results(tmp_path / "results")
    target = tmp_path / "missing" / "dir" / "out.json"
    args = [str(results) if a == "RESULTS" else a for a in command]
    proc = mxbench(*args + ["-o", str(target)], env={"HOME": str(tmp_path)})
    refused(proc, str(target), "No such file or directory")


# --- cliffs.json --------------------------------------------------------------------------------
def broken_cliffs(path, how):
    text = (ROOT / "benchmarks" / "catalogue" / "cliffs.json").read_text()
    if how == "truncated":
        path.write_text(text[:len(text) // 2])
    else:
        data = json.loads(text)
        del data["cliffs"][0]["neighbours"]
        path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("how", ("truncated", "no neighbours"))
def test_a_broken_cliffs_file_is_one_line_for_the_report(tmp_path, how):
    path = broken_cliffs(tmp_path / "cliffs.json", how)
    proc = mxbench("cliffs", "--cliffs-file", str(path), timeout=120)
    refused(proc, str(path), "cannot be read" if how == "truncated" else "no neighbours")


@pytest.mark.parametrize("how", ("truncated", "no neighbours"))
def test_a_broken_cliffs_file_stops_a_run_in_one_line_before_asv(tmp_path, how):
    """Every run imports the benchmarks to select its points (bench_cliffs reads
    cliffs.json), even one of bench_overhead only: a copy of the checkout with the file
    broken."""
    checkout = copy_of_the_checkout(tmp_path / "checkout")
    path = broken_cliffs(checkout / "benchmarks" / "catalogue" / "cliffs.json", how)
    proc = mxbench("--results", str(tmp_path / "results"), "run", "1.9.1", "--bench",
                   "^%s\\(" % BENCH.replace(".", "\\."), cwd=checkout,
                   env={"HOME": str(tmp_path)}, timeout=300)
    refused(proc, str(path))
    assert "$ " not in proc.stdout, proc.stdout  # asv never started
    assert not (tmp_path / "results").exists()


# --- a checkout path with a space ---------------------------------------------------------------
def test_a_config_copy_from_a_folder_with_a_space_runs_the_install_step_there(tmp_path):
    """asv splits each install command with shlex, then fills in {conf_dir}: the copy mxbench
    gives asv must keep a folder with a space (or braces) one word (was: asv ran
    `ace/p` as the command, OSError)."""
    from asv.util import interpolate_command
    from mxbench.asvrun import runner
    folder = tmp_path / "sp ace" / "{p}"
    folder.mkdir(parents=True)
    shutil.copy(str(ROOT / "asv.conf.json"), str(folder))
    copy = runner.config_copy(str(folder / "asv.conf.json"), str(tmp_path / "copy.json"))
    conf = json.loads(Path(copy).read_text())
    for key, verb in (("install_command", "install"), ("uninstall_command", "uninstall")):
        command, env, codes, cwd = interpolate_command(conf[key][0], {"conf_dir": "elsewhere"})
        assert command == ["python", "-m", "env_matrix.asv_hook", verb], command
        assert env == {"ASV_PYTHONPATH": str(folder)}, env


def test_a_checkout_in_a_folder_with_a_space_records(tmp_path):
    """The whole path: asv's environment, the install step and the recording, all under
    `sp ace/` (was: OSError: Could not find 'ace/co', and no result)."""
    from tests.conftest import E2E_MACHINE
    checkout = copy_of_the_checkout(tmp_path / "sp ace" / "co")
    results = tmp_path / "sp ace" / "results"
    proc = mxbench("--results", str(results), "--machine", E2E_MACHINE, "run", "1.9.1",
                   "--flavor", "cpu-mkldnn", "--bench", "^%s\\(" % BENCH.replace(".", "\\."),
                   "--", "-a", "rounds=1", "-a", "repeat=1", "-a", "warmup_time=0.01",
                   cwd=checkout, timeout=900)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Traceback" not in output, output[-3000:]
    assert "1 measured, 0 failed" in proc.stdout, output[-3000:]
    assert len(list((results / E2E_MACHINE).glob("*-virtualenv-*.json"))) == 1


# --- publish ------------------------------------------------------------------------------------
def test_publish_refuses_a_stray_ladder_tag_before_asv_publish(tmp_path):
    project = AsvProject(tmp_path)
    small_results(project.results_dir)
    subprocess.run(["git", "tag", "9.9.9", "HEAD"], cwd=str(project.ladder), check=True)
    proc = mxbench("--config", str(project.conf_path), "publish", timeout=300)
    refused(proc, "release ladder", "9.9.9")
    assert "publish   #" not in proc.stdout, proc.stdout[-3000:]  # asv publish never ran
    assert not project.html_dir.exists()


def test_publish_refuses_a_hostile_parameter_name_before_asv_publish(tmp_path):
    project = AsvProject(tmp_path)
    small_results(project.results_dir)
    edit_json(project.results_dir / "benchmarks.json",
              lambda d: d[BENCH].update(param_names=["<img src=x onerror=alert(1)>"]))
    proc = mxbench("--config", str(project.conf_path), "publish", timeout=300)
    refused(proc, "benchmarks.json", "is not a parameter name")
    assert "publish   #" not in proc.stdout, proc.stdout[-3000:]


@pytest.mark.parametrize("url,live", (
    ("javascript:alert(1)", False), ("JavaScript:alert(1)", False),
    ("data:text/html,<script>alert(1)</script>", False), ("vbscript:msgbox", False),
    ("http://example.org/a", True), ("https://example.org/a", True), ("#cliffs", True),
    ("models.html", True), ("../docs/trust.md", True), ("?x=1", True)))
def test_markdown_links_on_generated_pages_are_http_or_relative(url, live):
    rendered = pages.render_markdown("see [the x](%s) here" % url)
    assert ("<a href=" in rendered) == live, rendered
    if not live:
        assert "href" not in rendered and "the x" in rendered, rendered


# --- the published site in Chromium -------------------------------------------------------------
def payload(field, script=False):
    """Markup that, run as HTML, sets window.__xss_<field>."""
    if script:
        return "<script>window.__xss_%s = 1</script>" % field
    return '<img src=x onerror="window.__xss_%s = 1">' % field


HOSTILE_CPU = "AMD EPYC" + payload("cpu")
HOSTILE_PARAM = "'%s'" % payload("param")
SHOW_EVERY_TOOLTIP = """(function(){var n = 0; $('*').each(function(){var e = $(this);
  if (e.data('bs.tooltip')) {e.tooltip('show'); n++}
  if (e.data('bs.popover')) {e.popover('show'); n++}}); return n})()"""
HOVER_A_POINT = """(function(){var plot = $('#main-graph').data('plot'); if (!plot) return false;
  var found = null; plot.getData().forEach(function(s){s.data.forEach(function(p){
    if (!found && p && p[1] !== null && !isNaN(p[1])) found = p})});
  if (!found) return false;
  var at = plot.pointOffset({x: found[0], y: found[1]}), o = $('#main-graph').offset();
  $('#main-graph').trigger('plothover', [{}, {datapoint: found, pageX: at.left + o.left,
                                              pageY: at.top + o.top}]);
  return true})()"""
SCRIPT_RAN = "Object.keys(window).filter(function(k){return k.indexOf('__xss_') === 0})"
SHOWN = "$('.tooltip-inner, .popover-content').map(function(){return $(this).text()}).get()"


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    """`python -m mxbench publish` of two real result files and their benchmarks.json, given
    the strings a hostile CI artifact would carry: markup in machine.json's fields (and
    the result files' copies of them), in a benchmark's code, pretty_name, unit and a
    parameter value, and a javascript: link in generated-reports/CHANGES.md."""
    from mxbench.site import SITE_DIR, vendor
    if not shutil.which("npm") and not vendor.installed_matches_lock(SITE_DIR):
        pytest.skip("npm is not installed: `mxbench publish` needs it")
    project = AsvProject(tmp_path_factory.mktemp("hostile"))
    results = small_results(project.results_dir)
    machine_dir = results / HISTORY_MACHINE
    edit_json(machine_dir / "machine.json", lambda d: d.update(
        cpu=HOSTILE_CPU, os="Linux" + payload("os", script=True), arch=payload("arch")))

    def hostile_result(data):
        data.update(results_store.with_gpu_skips(data))  # the row's 'gpu' point back, a slot
        data["params"].update(cpu=HOSTILE_CPU, num_cpu="2" + payload("num_cpu"))
        data["results"][BENCH][1] = [["'cpu'", HOSTILE_PARAM]]
    for name in GOOD_FILES:
        edit_json(machine_dir / name, hostile_result)
    edit_json(results / "benchmarks.json", lambda d: d[BENCH].update(
        code="def time_add_1_element(self, device):" + payload("code"),
        pretty_name="Dispatch" + payload("pretty_name"), unit="s" + payload("unit"),
        params=[["'cpu'", HOSTILE_PARAM]]))
    (project.base / "generated-reports").mkdir()
    (project.base / "generated-reports" / "CHANGES.md").write_text(
        "# Changes\n\nSee [the x](javascript:window.__xss_link=1) and [y](#top).\n")
    proc = mxbench("--config", str(project.conf_path), "publish", timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    return project


def test_a_site_published_from_hostile_strings_runs_no_script(chromium, hostile_site):
    from tests.test_site import file_url, wait_for_plot
    html, page = hostile_site.html_dir, chromium

    def shown_without_running(what):
        assert page.evaluate(SHOW_EVERY_TOOLTIP) > 0, what
        time.sleep(1.0)  # an <img>'s error event comes after its load fails
        assert page.evaluate(SCRIPT_RAN) == [], what
        return " ".join(page.evaluate(SHOWN))

    page.goto(file_url(html))
    page.wait_for("$('.benchmark-container canvas').length >= 1", "the grid, drawn")
    time.sleep(1.0)  # an <img>'s error event comes after its load fails
    assert page.evaluate(SCRIPT_RAN) == [], "the grid (pretty_name)"
    assert "Dispatch<img" in page.evaluate("$('.benchmark-text').text()")  # shown as text

    page.goto(file_url(html, BENCH))
    wait_for_plot(page, "the graph of " + BENCH)
    shown = shown_without_running("the graph page's tooltips (machine)")
    assert "cpu: " + HOSTILE_CPU in shown and "os: Linux<script>" in shown, shown
    code = page.wait_for("$('#mxbench-code pre').text()", "the code panel")
    assert payload("code") in code and page.evaluate(SCRIPT_RAN) == [], code  # as text
    assert page.evaluate(HOVER_A_POINT), "no point to hover"
    time.sleep(1.0)
    assert page.evaluate(SCRIPT_RAN) == [], "a point's tooltip (unit)"
    assert "s<img" in " ".join(page.evaluate(SHOWN))
    buttons = page.evaluate("$('a.btn').map(function(){return $(this).text()}).get()")
    assert payload("param") in buttons, buttons  # the parameter's value, as text

    page.goto(file_url(html, "summarylist"))
    page.wait_for("$('#summarylist-body table:visible tbody tr').length > 0", "the list")
    shown_without_running("the benchmark list's tooltips (machine)")

    page.goto((html / "changes.html").as_uri())
    links = page.evaluate("Array.prototype.map.call(document.links, function(a){"
                          "return a.protocol})")
    assert links and set(links) <= {"http:", "https:", "file:"}, links
    assert "javascript:window.__xss_link=1" in page.evaluate("document.body.innerText")


@pytest.mark.parametrize("results", ("results", "results-baselines"))
def test_honest_text_reaches_the_site_byte_for_byte(tmp_path, results):
    """The escaping changes nothing in the recorded machine.json and benchmarks.json files:
    honest text has no &, < or >."""
    from mxbench.core.results import Store
    from mxbench.site import shown_text
    copy = tmp_path / "results"
    shutil.copytree(str(ROOT / results), str(copy),
                    ignore=lambda folder, names: [n for n in names if n.endswith(".json") and
                                                  n not in ("machine.json", "benchmarks.json")])
    before = dict((p, p.read_bytes()) for p in copy.rglob("*.json"))
    assert len(before) >= 2, before.keys()
    assert shown_text.escape_shown_text(Store(str(copy))) == 0
    assert dict((p, p.read_bytes()) for p in copy.rglob("*.json")) == before
