"""Model-derived benchmarks: the committed layer data is what the models' graphs give, on
1.9.1 (the tool venv) and on 1.4.1 (a release before 1.5, in a cached venv: Python 3.11,
numpy 1.23.5, the wheel with --no-deps, as the ladder installs it), and the asv classes
generated from it are stable.

    .venv/bin/python -m pytest -q tests/test_models.py     # ~40 s (+20 s to make the venv once)
"""
import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import HISTORY_MACHINE, ROOT

from benchmarks import _models as M
from benchmarks import bench_models

OLD_RELEASE = "1.4.1"
OLD_VENV = ROOT / ".venv-models-mx141"


def committed():
    return M.load_data()


def layer_counts(layers, normalize=False):
    """{(op, attrs, shapes, dtype): count}; normalize drops LATER_DEFAULTS attributes."""
    out = {}
    for layer in layers:
        attrs = M.without_later_defaults(layer["op"], layer["attrs"]) if normalize \
            else layer["attrs"]
        key = json.dumps([layer["op"], attrs, layer["shapes"], layer["dtype"]], sort_keys=True)
        out[key] = out.get(key, 0) + layer["count"]
    return out


def test_committed_data_is_what_1_9_1_extracts():
    data = committed()
    assert data["mxnet"] == M.H.mx.__version__ == "1.9.1"
    fresh = M.extract_all()
    assert sorted(fresh) == sorted(data["models"])
    for model, batches in data["models"].items():
        for batch, entry in batches.items():
            layers = fresh[model][batch]
            assert layer_counts(layers) == layer_counts(entry["layers"]), (model, batch)
            assert entry["total"] == sum(l["count"] for l in layers)
            assert entry["unique"] == len(layers)


def test_counts_are_the_models():
    """Spot checks against the architectures: ResNet-50 has 53 convolutions (49 + 4
    projection shortcuts) and one classifier; BERT-base 12 x 6 FullyConnected."""
    models = committed()["models"]

    def count(model, op):
        return sum(l["count"] for l in models[model]["32"]["layers"] if l["op"] == op)
    assert count("resnet50_v1", "Convolution") == 53
    assert count("resnet50_v1", "FullyConnected") == 1
    assert count("bert_base_encoder", "FullyConnected") == 72
    assert count("bert_base_encoder", "LayerNorm") == 24
    assert count("lstm_lm", "RNN") == 1
    first_conv = [l for l in models["resnet50_v1"]["1"]["layers"] if l["op"] == "Convolution"][0]
    assert first_conv["shapes"][0] == [1, 3, 224, 224]  # the 3-channel stem at batch 1


def old_python():
    """The cached venv with mxnet 1.4.1 (made on first use, about 20 s)."""
    python = OLD_VENV / "bin" / "python"
    marker = OLD_VENV / ".installed"
    if not marker.exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(OLD_VENV)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run(pip + ["numpy==1.23.5", "requests"], check=True)
        subprocess.run(pip + ["--no-deps", "--only-binary=:all:", "mxnet==%s" % OLD_RELEASE],
                       check=True)
        marker.touch()
    return str(python)


OLD_SCRIPT = """
import json
from benchmarks import _models as M
out = {"mxnet": M.H.mx.__version__, "models": M.extract_all()}
# Every layer ResNet-50 runs at batch 1, built from the committed (1.9.1) description.
built = []
for layer in M.load_data()["models"]["resnet50_v1"]["1"]["layers"]:
    call = M.LayerCall(layer, M.H.mx.cpu())
    call.forward()
    built.append(layer["key"])
out["built"] = built
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def old_extraction():
    proc = subprocess.run([old_python(), "-c", OLD_SCRIPT], capture_output=True, text=True,
                          timeout=600, cwd=str(ROOT))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_1_4_1_extracts_the_same_layers_up_to_later_defaults(old_extraction):
    """1.4.1's graphs have the same layers and counts; the only differences are attributes
    that later releases added with their old behaviour as the value (LATER_DEFAULTS)."""
    assert old_extraction["mxnet"] == OLD_RELEASE
    data = committed()["models"]
    for model, batches in data.items():
        for batch, entry in batches.items():
            old = old_extraction["models"][model][batch]
            if model == "bert_base_encoder":  # GELU arrived in LeakyReLU after 1.4
                assert "no act_type gelu" in old["skip"]
                continue
            assert layer_counts(old, normalize=True) == \
                layer_counts(entry["layers"], normalize=True), (model, batch)
            # ... and unnormalized they differ: Pooling's layout, Dropout's cudnn_off
            assert layer_counts(old) != layer_counts(entry["layers"]), (model, batch)


def test_1_4_1_runs_the_1_9_1_layers(old_extraction):
    resnet = committed()["models"]["resnet50_v1"]["1"]["layers"]
    assert old_extraction["built"] == [l["key"] for l in resnet]


def test_asv_classes_one_per_unique_layer_with_stable_names():
    data = committed()
    keys = set()
    for batches in data["models"].values():
        for entry in batches.values():
            keys.update(l["key"] for l in entry["layers"])
    # the module's namespace, as asv reads it (its dir() leaves the generated classes out)
    layer_classes = [c for c in vars(bench_models).values()
                     if isinstance(c, type) and getattr(c, "layer", None)]
    assert sorted(c.layer["key"] for c in layer_classes) == sorted(keys)
    for cls in layer_classes:
        layer = cls.layer
        assert cls.__name__.endswith("_" + layer["key"])
        assert layer["key"] == M.layer_key(layer["op"], layer["attrs"], layer["shapes"],
                                           layer["dtype"])
        assert cls.version == bench_models.VERSION
        # forward+backward exactly where a training batch runs the layer
        assert hasattr(cls, "time_forward_backward") == any(
            b in M.MODEL_BY_NAME[m].training for m, b, _ in layer["uses"])
    # A layer repeated in a model is one benchmark with its count (these four models share
    # no layer with each other: their shapes differ).
    assert max(c for _, _, c in layer_classes[0].layer["uses"]) >= 1
    assert any(u[2] > 1 for c in layer_classes for u in c.layer["uses"])
    for spec in M.MODELS:
        assert getattr(bench_models, "Model_" + spec.name).params[0] == spec.batches


def test_bench_models_imports_on_python_3_7_without_mxnet_calls():
    """The module's classes come from the data file only (no mxnet at import time)."""
    source = (ROOT / "benchmarks" / "bench_models.py").read_text()
    ast.parse(source, feature_version=(3, 7))
    ast.parse((ROOT / "benchmarks" / "_models.py").read_text(), feature_version=(3, 7))
    assert "H.mx" not in source.split("_PREPARED = {}")[1]


def test_report_on_the_recorded_1_9_1_results(capsys):
    """The committed history has the model benchmarks of 1.9.1 (cpu-mkldnn): every model and
    batch has its prediction from the layers and its measured time."""
    from mxbench.reports import models as report
    from mxbench.core.project import load as load_project
    project = load_project(str(ROOT / "asv.conf.json"))
    machine = HISTORY_MACHINE
    assert "1.9.1" in report.recorded_releases(project, machine, "cpu-mkldnn")
    head = report.load_release(project, machine, "1.9.1", "cpu-mkldnn")
    data = committed()
    for phase in ("forward", "forward_backward"):
        rows, shares = report.model_rows(data, head, phase)
        for model, batch, total, unique, predicted, imperative, hybridized, fused, missing in rows:
            assert missing == 0 and predicted > 0, (model, batch, phase)
            assert hybridized > 0 and imperative > 0, (model, batch, phase)
    from mxbench import cli
    assert cli.main(["models", "report", "--release", "1.9.1", "--machine", machine]) == 0
    out = capsys.readouterr().out
    assert "resnet50_v1" in out and "pred/hybr" in out


def test_site_page_shows_the_newest_recorded_release_against_the_one_before(tmp_path):
    from mxbench.reports import models as report
    from mxbench.core.project import load as load_project
    from mxbench.site.pages import write_models_page
    page = Path(write_models_page(str(ROOT / "asv.conf.json"), str(tmp_path), log=lambda m: None))
    text = page.read_text()
    project = load_project(str(ROOT / "asv.conf.json"))
    recorded = report.recorded_releases(project, HISTORY_MACHINE, "cpu-mkldnn")
    assert "1.9.1" in recorded and len(recorded) >= 2, recorded
    newest, before = recorded[-1], recorded[-2]  # the committed history's last two
    assert "Models on MXNet %s, cpu-mkldnn" % newest in text and "resnet50_v1" in text
    assert "%s -&gt; %s: which layers account for the change" % (before, newest) in text
    # HTML, not Markdown in a monospace block: headings and tables; the links land on graphs.
    assert "<pre>" not in text and "<table>" in text and "<th>pred/hybr</th>" in text
    assert "| model" not in text
    assert re.search(r"<h2( id=\"[^\"]+\")?>Models on MXNet %s" % re.escape(newest), text)  # anchored
    assert 'href="index.html#bench_models.Model_resnet50_v1.time_forward"' in text
