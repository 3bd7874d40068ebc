"""asv's own discovery of the suites finds every benchmark the recorded history has, unchanged.

results/benchmarks.json (and results-baselines/benchmarks.json) hold every benchmark's name,
parameters and version as asv discovered them when the results were recorded. A change to
the catalogue, the harness or the module layout must leave all three as they are, or the
history stops matching (asv calls results of another version "not comparable").
Discovery runs in a fresh interpreter of the tool venv, through asv_runner as asv runs it.
"""
import json
import os
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
SUITES = [("benchmarks", "results"), ("benchmarks_baselines", "results-baselines")]
COMPARED = ("params", "param_names", "version", "type")

DISCOVER = """
import sys
from asv_runner.discovery import list_benchmarks
with open(sys.argv[2], "w") as fp:
    list_benchmarks(sys.argv[1], fp)
"""


def discovered(benchmark_dir, tmp_path):
    out = tmp_path / "discovered.json"
    env = dict(os.environ, MXBENCH_VARIANT="default")
    proc = subprocess.run([sys.executable, "-c", DISCOVER, str(ROOT / benchmark_dir), str(out)],
                          cwd=str(tmp_path), env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:]
    with open(str(out)) as fh:
        return dict((b["name"], b) for b in json.load(fh))


def recorded(results_dir):
    with open(str(ROOT / results_dir / "benchmarks.json")) as fh:
        data = json.load(fh)
    data.pop("version")
    return data


def differences(found, kept, keys):
    return [(name, key, kept[name].get(key), found[name].get(key))
            for name in sorted(set(kept) & set(found)) for key in keys
            if kept[name].get(key) != found[name].get(key)]


def test_operator_suite_keeps_every_recorded_benchmark_as_it_was(tmp_path):
    """Every recorded benchmark is found with its version and every recorded parameter value
    in its place; what is new is a benchmark the history has not recorded yet (a new entry
    or method), or values after the recorded ones (the field cases, appended to their
    entries' shapes): the next recording writes them, results/ is never edited for them."""
    found, kept = discovered("benchmarks", tmp_path), recorded("results")
    assert sorted(set(kept) - set(found)) == []
    assert differences(found, kept, ("param_names", "version", "type")) == []
    grown = []
    for name in kept:
        for old, new in zip(kept[name]["params"], found[name]["params"]):
            assert new[:len(old)] == old, name
            grown += [name] if len(new) > len(old) else []
    for name in grown:  # only the shape axis of bench_operators grows: the field cases
        assert name.startswith("bench_operators."), name
        assert kept[name]["params"][1:] == found[name]["params"][1:], name


def test_baselines_suite_keeps_every_recorded_point(tmp_path):
    """The baselines were recorded before the catalogue's long tail (float16, `large`, more
    backward passes) reached their entries: the suite has grown since. Every recorded
    benchmark is still there with its version, and every recorded parameter value with it;
    what is new is only a grown grid or a backward benchmark beside a recorded forward one."""
    found, kept = discovered("benchmarks_baselines", tmp_path), recorded("results-baselines")
    assert sorted(set(kept) - set(found)) == []
    assert differences(found, kept, ("param_names", "version", "type")) == []
    for name in kept:
        for old, new in zip(kept[name]["params"], found[name]["params"]):
            assert new[:len(old)] == old, name
    for name in sorted(set(found) - set(kept)):
        assert name.endswith(".time_forward_backward"), name
        assert name.replace("_backward", "") in kept, name


SOURCES_CHECK = """
import inspect, json, sys
sys.path.insert(0, sys.argv[1])
from asv_runner.discovery import disc_benchmarks
from benchmarks import bench_operators

def read():
    return {b.name: (b.code, b.version, b.version_alts)
            for b in disc_benchmarks(sys.argv[1] + "/benchmarks")}

shared = read()
from asv_runner.benchmarks import _base
kept = _base.code_fingerprint
codes = set(code for code, _, _ in shared.values())
fingerprints = all(kept(code) == kept.__wrapped__(code) for code in codes)
stripped = 0
for module in [m for name, m in sys.modules.items() if name.startswith("benchmarks.")]:
    for cls in [v for v in vars(module).values() if inspect.isclass(v)]:
        for base in cls.__mro__:
            for value in vars(base).values():
                function = getattr(value, "__func__", value)
                if inspect.isfunction(function) and "pretty_source" in vars(function):
                    del function.pretty_source
                    stripped += 1
print(json.dumps({"same": read() == shared, "benchmarks": len(shared), "stripped": stripped,
                  "dir": dir(bench_operators), "dot": bench_operators.dot.__name__,
                  "codes": len(codes), "fingerprints": fingerprints,
                  "hashed": kept.cache_info().misses}))
"""


def test_generated_classes_are_read_by_asv_as_their_own_source(tmp_path):
    """harness.generated gives the generated classes' setups their source once, keeps the
    classes out of their module's dir() and keeps asv_runner's fingerprint of each code, for
    asv's speed: asv still finds every benchmark, and reads the same code and versions as from
    the functions' own source, and the same fingerprints as asv_runner's own function."""
    proc = subprocess.run([sys.executable, "-c", SOURCES_CHECK, str(ROOT)], cwd=str(tmp_path),
                          env=dict(os.environ, MXBENCH_VARIANT="default"),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:]
    check = json.loads(proc.stdout.splitlines()[-1])
    assert check["same"] and check["stripped"] > 0 and check["benchmarks"] > 3000, check
    assert check["dot"] == "dot" and "dot" not in check["dir"], check["dir"][:20]
    # asv_runner's code_fingerprint kept per code: asv's own hash of each, each hashed once
    assert check["fingerprints"] and check["hashed"] == check["codes"] < 100, check
    assert "global_name" in check["dir"] and "_make_class" in check["dir"]


ASV_DISCOVERY = """
import atexit, json, runpy, sys
import asv.runner
atexit.register(lambda: print(json.dumps({"mxnet loaded": "mxnet" in sys.modules})))
sys.argv = [asv.runner.BENCHMARK_RUN_SCRIPT, "discover", sys.argv[1], sys.argv[2]]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def test_asvs_discovery_process_lists_the_suite_without_loading_mxnet(tmp_path):
    """asv's discovery process (asv/benchmark.py discover, as `asv run` starts it) leaves
    MXNet unloaded (benchmarks.harness.environment: 1.5-2 s of each discovery) and lists the
    same benchmarks, byte for byte, as asv_runner does in a process that loaded MXNet 1.9.1
    (the tool venv's: see requirements.txt)."""
    out = tmp_path / "asv-discovery.json"
    env = dict(os.environ, MXBENCH_VARIANT="default")
    proc = subprocess.run([sys.executable, "-c", ASV_DISCOVERY, str(ROOT / "benchmarks"),
                           str(out)], cwd=str(tmp_path), env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert json.loads(proc.stdout.splitlines()[-1]) == {"mxnet loaded": False}, proc.stdout
    loaded = subprocess.run([sys.executable, "-c", "import mxnet; print(mxnet.__version__)"],
                            stdout=subprocess.PIPE, universal_newlines=True, timeout=600)
    assert loaded.returncode == 0 and loaded.stdout.strip(), "the tool venv has no MXNet"
    with open(str(out)) as fh:
        listed = json.load(fh)
    assert listed == list(discovered("benchmarks", tmp_path).values())
