"""Neutral baselines (benchmarks/baselines.py): the counterpart table is well formed, and every
mapped entry agrees with MXNet 1.9.1 on the same inputs (small shape, every dtype).

The NumPy side runs in the tool venv (numpy + mxnet 1.9.1, about 10 s). The PyTorch side
needs torch: `make test-baselines` runs this file in .venv-baselines (torch 2.13.0+cpu),
where it also checks every torch counterpart and their gradients (about 1 minute); in a
process without torch those tests skip with that reason.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

from benchmarks import counterparts as B
from benchmarks.catalogue import by_class_name


def _has_torch():
    try:
        import torch  # noqa: F401
        return True
    except ImportError:
        return False


needs_torch = pytest.mark.skipif(not _has_torch(), reason="torch is not installed here: "
                                 "`make test-baselines` runs these in .venv-baselines")


def test_table_names_catalogue_entries_and_known_translations():
    entries = by_class_name()
    assert sorted(set(B.COUNTERPARTS) - set(entries)) == []
    for name, sides in B.COUNTERPARTS.items():
        assert set(sides) <= set(B.FRAMEWORKS), name
        for spec in sides.values():
            if spec.fn.startswith("x."):
                assert spec.fn[2:] in B.TRANSLATIONS, (name, spec.fn)


def test_enough_counterparts():
    """The issue's bar: 150 entries with a PyTorch counterpart, 80 with a NumPy one."""
    assert len(B.mapped("torch")) >= 150
    assert len(B.mapped("numpy")) >= 80


def test_arguments_named_by_the_table_exist_in_the_cases():
    """A("axis") must name an argument of every case, or the counterpart would silently run
    with its own default."""
    for name, sides in B.COUNTERPARTS.items():
        op = by_class_name()[name]
        for spec in sides.values():
            for key, value in spec.kwargs.items():
                if isinstance(value, B.A) and value.default is None:
                    for shape in op.cases:
                        given = B.argument(op, shape, op.dtypes[0], value.name)
                        optional = value.name == "axes" and name == "transpose"
                        assert given is not None or optional, (name, shape, value.name)


def _disagreements(framework, backward=True):
    found = []
    for op in B.mapped(framework):
        for dtype in B.compared_dtypes(op):
            problem = B.disagreement(op, "small", dtype, framework, backward)
            if problem:
                found.append("%s %s %s: %s" % (op.class_name, dtype, framework, problem))
    return found


def test_numpy_counterparts_agree_with_mxnet():
    assert _disagreements("numpy") == []


@needs_torch
def test_torch_counterparts_agree_with_mxnet_outputs_and_gradients():
    assert _disagreements("torch") == []


def test_a_wrong_counterpart_is_caught(monkeypatch):
    """The check can fail: sin's counterpart swapped for cos disagrees."""
    op = by_class_name()["sin"]
    monkeypatch.setitem(B.COUNTERPARTS, "sin", {"numpy": B.C("numpy.cos")})
    assert "differs" in B.disagreement(op, "small", "float32", "numpy")


def test_a_transposed_layout_is_caught(monkeypatch):
    """Layouts count: depth_to_space in torch's own pixel_shuffle order (CRD, MXNet's is
    DCR) has the right shape and values, in the wrong places."""
    op = by_class_name()["depth_to_space"]
    monkeypatch.setitem(B.COUNTERPARTS, "depth_to_space", {"numpy": B.C(
        "x.reshape", shape=(1, 4, 8, 8))})
    monkeypatch.setitem(B.TRANSLATIONS, "reshape", lambda F, x, shape: F.copy(F.permute(
        x.reshape(1, 4, 2, 2, 4, 4), (0, 1, 4, 2, 5, 3)).reshape(shape)))
    assert B.disagreement(op, "small", "float32", "numpy") is not None


def test_the_gradient_rule():
    """A gradient the counterpart does not compute (None: its output is an integer tensor)
    agrees with an MXNet gradient of zeros and with nothing else; cast compares gradients
    except to int32 (MXNet passes the head gradient through, torch's integers have none)."""
    import numpy as np
    assert B.gradient_problem(np.zeros((2, 3)), None, "float32", "torch") is None
    assert B.gradient_problem(np.ones((2, 3)), None, "float32", "torch") == \
        "none in torch, MXNet's is not zero"
    assert B.gradient_problem(np.ones(3), np.ones(3), "float32", "torch") is None
    assert "differs" in B.gradient_problem(np.ones(3), np.zeros(3), "float32", "torch")
    cast = B.COUNTERPARTS["cast"]["torch"]
    assert [B.compares_gradients(cast, d) for d in ("float16", "float64", "int32")] == \
        [True, True, False]
    assert B.compares_gradients(B.COUNTERPARTS["topk"]["torch"], "float32")
    assert not B.compares_gradients(B.COUNTERPARTS["BatchNorm"]["torch"], "float32")


@needs_torch
def test_a_gradient_torch_does_not_compute_is_caught(monkeypatch):
    """The check can fail on gradients: cast to int32 without its exemption (MXNet's
    gradient is ones, torch has none)."""
    op = by_class_name()["cast"]
    spec = B.COUNTERPARTS["cast"]["torch"]
    monkeypatch.setitem(B.COUNTERPARTS, "cast", {"torch": spec._replace(grads=True)})
    assert B.disagreement(op, "small", "int32", "torch") == \
        "gradient 0: none in torch, MXNet's is not zero"


@needs_torch
def test_a_wrong_gradient_is_caught(monkeypatch):
    """selu's outputs agree, its gradients do not (MXNet 1.9.1's for negative inputs): the
    entry's exemption taken away, the check fails on the gradient."""
    op = by_class_name()["LeakyReLU_selu"]
    spec = B.COUNTERPARTS["LeakyReLU_selu"]["torch"]
    monkeypatch.setitem(B.COUNTERPARTS, "LeakyReLU_selu", {"torch": spec._replace(grads=True)})
    assert B.disagreement(op, "small", "float32", "torch", backward=False) is None
    assert B.disagreement(op, "small", "float32", "torch").startswith("gradient 0: differs")


@needs_torch
def test_topk_is_compared_as_indices(monkeypatch):
    """MXNet's topk returns the indices by default: torch's values in their place fail, and
    torch's forward+backward point skips (its indices carry no gradient)."""
    op = by_class_name()["topk"]
    spec = B.COUNTERPARTS["topk"]["torch"]
    monkeypatch.setitem(B.COUNTERPARTS, "topk", {"torch": spec._replace(output=0)})
    assert B.disagreement(op, "small", "float32", "torch").startswith("output 0: differs")
    monkeypatch.setitem(B.COUNTERPARTS, "topk", {"torch": spec})
    with pytest.raises(NotImplementedError, match="no forward\\+backward baseline"):
        B.BaselineCall(op, "small", "float32", "torch").forward_backward()


def test_numpy_threads_follow_mxnet():
    """The counterpart gets MXNet's OpenMP thread count (1 here: MXNet halves the cores)."""
    assert B.set_threads("numpy") == B.mxnet_omp_threads() >= 1


@needs_torch
def test_torch_threads_follow_mxnet_and_variants():
    """torch's intra-op threads = MXNet's OpenMP count; a variant's OMP_NUM_THREADS moves
    both (checked in a fresh process, where the variant applies before mxnet loads)."""
    assert B.set_threads("torch") == B.mxnet_omp_threads()
    code = ("import json; from benchmarks import counterparts as B; "
            "print(json.dumps([B.mxnet_omp_threads(), B.set_threads('torch')]))")
    env = dict(os.environ, MXBENCH_VARIANT="omp-1-thread")
    out = subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), env=env, check=True,
                         stdout=subprocess.PIPE, universal_newlines=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == [1, 1]


def test_baselines_config_is_the_history_config_plus_torch():
    """asv.baselines.conf.json runs the same ladder, Python, numpy and flavors as
    asv.conf.json (so the ratios sit beside the history), with torch added and its own
    benchmark folder, results and site: the history's environments are not touched."""
    pytest.importorskip("asv", reason="asv reads the configs: the tool venv has it")
    from mxbench.core.project import read_config
    history = read_config(str(ROOT / "asv.conf.json"))
    baselines = read_config(str(ROOT / "asv.baselines.conf.json"))
    assert baselines["matrix"]["req"].pop("torch") == "2.13.0"
    assert baselines["matrix"] == history["matrix"]
    own = {"benchmark_dir": "benchmarks_baselines", "results_dir": "results-baselines",
           "html_dir": "html-baselines"}
    for key, value in own.items():
        assert baselines.pop(key) == value and history.pop(key) != value
    assert baselines == history


def test_bench_module_has_a_class_per_mapped_entry_and_skips_what_is_missing():
    """bench_baselines: one class per entry with a counterpart, frameworks as a parameter
    (mxnet first); a framework not installed here is a skip with the reason, the others run."""
    from benchmarks_baselines import bench_baselines as bench
    classes = dict((c.operator.class_name, c) for c in vars(bench).values()
                   if isinstance(c, type) and getattr(c, "operator", None) is not None)
    assert sorted(classes) == sorted(n for n in by_class_name() if B.COUNTERPARTS.get(n))
    dot = classes["dot"]
    assert dot.params[-1] == ["mxnet", "torch", "numpy"]
    assert hasattr(dot, "time_forward_backward")
    assert classes["cbrt"].params[-1] == ["mxnet", "numpy"]
    for framework in ("mxnet", "numpy"):
        benchmark = dot()
        benchmark.setup("small", "float32", framework)
        benchmark.time_forward("small", "float32", framework)
    if not _has_torch():
        with pytest.raises(NotImplementedError, match="torch is not installed"):
            dot().setup("small", "float32", "torch")


def _report(*args):
    return subprocess.run([sys.executable, "-m", "mxbench", "baselines"] + list(args),
                          cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)


def test_report_on_the_recorded_baselines():
    """The committed results-baselines/: the ratios are MXNet's time over the counterpart's
    for the same point, and the summary counts add up."""
    import csv
    pytest.importorskip("asv", reason="the results store reads asv's files")
    proc = _report("--format", "csv")
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(proc.stdout.splitlines()))
    assert len(rows) >= 300
    assert {r["release"] for r in rows} >= {"1.9.1"}
    with_torch = [r for r in rows if r["mxnet_over_torch"]]
    assert len({r["operator"] for r in with_torch}) >= 150
    for r in with_torch:
        assert float(r["mxnet_over_torch"]) == pytest.approx(
            float(r["mxnet_s"]) / float(r["torch_s"]))
    text = _report().stdout
    assert "torch 2.13.0" in text and "numpy 1.23.5" in text
    assert "MXNet slowest against torch" in text and "MXNet fastest against torch" in text


def test_the_versions_recordings_carry_are_the_pins_the_check_runs_with():
    """CHECKED_AGAINST is what make test-baselines installs: requirements.txt's mxnet and
    numpy, the Makefile's torch, and the torch of the baselines' asv matrix."""
    import re
    pins = dict(re.findall(r"^(mxnet|numpy)==(\S+)", (ROOT / "requirements.txt").read_text(),
                           re.M))
    pins["torch"] = re.search(r"^TORCH_VERSION := (\S+)$", (ROOT / "Makefile").read_text(),
                              re.M).group(1)
    assert B.CHECKED_AGAINST == pins
    assert '"torch": "%s"' % pins["torch"] in (ROOT / "asv.baselines.conf.json").read_text()


@needs_torch
def test_the_agreement_check_runs_with_the_versions_recordings_carry():
    """What a baseline recording says its counterparts were checked equal with is what this
    file's agreement test ran with (make test-baselines' venv, in CI)."""
    import mxnet
    import numpy
    import torch
    running = {"mxnet": mxnet.__version__, "torch": torch.__version__.split("+")[0],
               "numpy": numpy.__version__}
    assert running == B.CHECKED_AGAINST


def test_a_baselines_recording_carries_the_versions_it_was_checked_against(tmp_path):
    """The staging merge of a baselines run (asv writes no such field) adds checked_against
    to the recorded file; a later merge keeps it; asv still reads the file; the report says
    it, and 'not recorded' for a file recorded before it was written."""
    pytest.importorskip("asv", reason="the results store reads asv's files")
    import shutil
    from asv.results import Results
    from mxbench.asvrun import runner
    from mxbench.core.project import load as load_project
    from mxbench.core import results
    recorded_dir = ROOT / "results-baselines"
    source = results.Store(recorded_dir).files()[0]
    machine = os.path.basename(os.path.dirname(source))
    target = tmp_path / "results-baselines"
    (target / machine).mkdir(parents=True)
    shutil.copy(str(recorded_dir / "benchmarks.json"), str(target))
    shutil.copy(str(recorded_dir / machine / "machine.json"), str(target / machine))
    project = load_project(str(ROOT / "asv.baselines.conf.json"), str(target))
    assert load_project().result_stamp() is None  # the history's files: asv's alone
    staging = runner.Staging(project, machine)
    staging.prepare([results.read_result_file(source)["commit_hash"]])
    staged = os.path.join(staging.results_dir, machine, os.path.basename(source))
    data = results.read_result_file(source)
    data.pop(results.CHECKED_AGAINST, None)  # what asv writes: no such field
    results.write_json_atomic(staged, data, compact=True)
    staging.merge(final=True)
    (written,) = results.Store(target).files()
    assert results.read_result_file(written)[results.CHECKED_AGAINST] == B.CHECKED_AGAINST
    assert results.merge_result_file(staged, written)  # a later run's file, merged plainly
    staging.close()
    assert results.read_result_file(written)[results.CHECKED_AGAINST] == B.CHECKED_AGAINST
    assert Results.load(written).get_all_result_keys()
    (recording,) = results.Store(target).recordings()
    assert recording.checked_against == B.CHECKED_AGAINST
    proc = _report("--results", str(target), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert [v["checked_against"] for v in json.loads(proc.stdout)["versions"]] == \
        [B.CHECKED_AGAINST]
    from mxbench.reports import baselines
    text = baselines.render_text(*baselines.collect(project.config, results_dir=str(target)))
    assert "mxnet 1.9.1, numpy 1.23.5, torch 2.13.0" in text
    before = {("cpu-mkldnn", "1.9.1"): {"torch": "2.13.0", "checked_against": None}}
    assert baselines.checked_text(before, "cpu-mkldnn", "1.9.1") == "not recorded"


def test_a_malformed_checked_against_is_named(tmp_path):
    pytest.importorskip("asv", reason="the results store reads asv's files")
    from mxbench.core import results
    source = results.Store(ROOT / "results-baselines").files()[0]
    data = results.read_result_file(source)
    data[results.CHECKED_AGAINST] = {"torch": 2.13}
    with pytest.raises(results.ResultFileError, match="checked_against must map frameworks"):
        results.validate_result_data(source, data)


def test_report_without_results_says_so(tmp_path):
    pytest.importorskip("asv", reason="the results store reads asv's files")
    proc = _report("--results", str(tmp_path))
    assert proc.returncode == 2
    assert "no baseline results" in proc.stderr


def test_site_gets_the_baselines_section(tmp_path):
    """`mxbench publish` with the history's config: the baselines' results in the one results
    copy asv publish reads (their graphs in the one site, no second copy of asv's assets), the
    report page with a link to each point's graph, its CSV, and a link in the navigation bar."""
    pytest.importorskip("asv", reason="asv publishes the site")
    from mxbench.core.project import DEFAULT_CONFIG, load as load_project
    from mxbench.core.results import Store
    from mxbench.site import pages, publish
    extra = publish.baselines_store(DEFAULT_CONFIG)
    assert extra is not None
    history = load_project(DEFAULT_CONFIG).store
    copy = Store(publish.site_results(history, str(tmp_path / "work"), extra))
    names = set(copy.benchmark_info())
    assert any(n.startswith("bench_baselines.") for n in names)
    assert any(n.startswith("bench_operators.") for n in names)
    assert len(copy.files()) == len(history.files()) + len(extra.files())
    staging = tmp_path / "site"
    staging.mkdir()
    (staging / "index.html").write_text(
        '<ul><li id="nav-li-regressions"><a href="#/regressions">Regressions</a></li></ul>'
        '<div id="mxbench-baselines-link" style="position:fixed"><a href="baselines.html">'
        'MXNet vs PyTorch and NumPy</a></div></div>\n</body>')
    assert pages.write_baselines_page(publish.BASELINES_CONFIG, str(staging), log=lambda *a: None)
    page = (staging / "baselines.html").read_text()
    assert "MXNet/torch" in page and 'href="index.html#bench_baselines.' in page
    assert "baselines/index.html" not in page
    assert (staging / "baselines.csv").read_text().startswith("operator,timing,shape")
    links = [(pages.BASELINES_PAGE, "MXNet vs PyTorch and NumPy")]
    assert pages.add_nav_links(str(staging), links)
    assert pages.add_nav_links(str(staging), links)  # again: the same page
    index = (staging / "index.html").read_text()
    assert index.count(pages.nav_links(links)) == 1 and "position:fixed" not in index
    # Another config (the variants', the GPU one) has no baselines section.
    assert publish.baselines_store(str(ROOT / "asv.variants.conf.json")) is None
