"""Instruction counts (bench_instructions, harness/instructions.py): the table's points follow
the catalogue and the short selection, asv runs one setup_cache for every class, a dump is
read as libmxnet's share, and a real callgrind process over MXNet 1.9.1 counts a few points
(one process, ~2-4 minutes: import mxnet alone is ~45 s of CPU under Valgrind)."""
import os
import shutil

import pytest

from benchmarks import bench_instructions as B
from benchmarks import bench_operators as O
from benchmarks.harness import instructions as I
from mxbench.core import selection
from tests.test_discovery import discovered


def test_the_table_has_the_short_selections_entries_and_methods():
    by_class = dict((b.name, b) for b in selection.discover() if b.name.startswith(
        "bench_operators."))
    expected = set()
    for name, benchmark in by_class.items():
        if selection.selected_points(benchmark, "short", ["cpu"]):
            _, entry, method = name.split(".")
            expected.add((benchmark.cls.operator.class_name, method[len("time_"):]))
    points = B.table_points()
    assert set((p[0], p[3]) for p in points) == expected
    assert len(points) == len(set(points))
    for class_name, shape, dtype, _ in points:
        op = getattr(O, O.global_name(class_name)).operator
        assert dtype == op.dtypes[0]
        assert shape == ("small" if "small" in op.cases else list(op.cases)[0])


def test_every_class_shares_its_tables_setup_cache_with_a_long_timeout(tmp_path):
    found = dict((name, b) for name, b in discovered("benchmarks", tmp_path).items()
                 if name.startswith("bench_instructions."))
    layers = set(p[0] for p in B.layer_points())
    assert len(found) == len(B.table_points()) + len(layers)
    keys = dict((name, b["setup_cache_key"]) for name, b in found.items())
    assert set(k for n, k in keys.items() if n.split(".")[1] not in layers) == {
        "bench_instructions:%d" % B.count_all.__code__.co_firstlineno}
    assert set(k for n, k in keys.items() if n.split(".")[1] in layers) == {
        "bench_instructions:%d" % B.count_layers.__code__.co_firstlineno}
    assert all(b["type"] == "track" and b["unit"] == "instructions" for b in found.values())
    assert B.count_all.timeout >= 3600 and B.count_layers.timeout >= 1800


def test_the_layers_table_is_every_layer_the_models_run_at_batch_1_forward():
    from benchmarks import _models as M
    layers = M.unique_layers(M.load_data())
    at_batch_1 = set(layer["name"] for layer in layers.values()
                     if any(batch == 1 for _, batch, _ in layer["uses"]))
    points = B.layer_points()
    assert set(p[0] for p in points) == at_batch_1 and len(points) == len(at_batch_1) > 100
    assert all(p[1:] == ("layer", "float32", "forward") for p in points)
    assert not any(p[0] in at_batch_1 for p in B.table_points())


DUMP = """\
events: Ir
ob=/x/libpython3.11.so
fn=_PyEval_EvalFrameDefault
0 500
cob=/x/_ctypes.so
cfn=ffi_call
calls=1 0
0 130
ob=/x/_ctypes.so
fn=ffi_call
0 10
cob=/site/mxnet/libmxnet.so
cfn=MXImperativeInvokeEx
calls=1 0
0 100
cob=/site/mxnet/libmxnet.so
cfn=MXNDArrayWaitToRead
calls=1 0
0 20
ob=/site/mxnet/libmxnet.so
fn=MXImperativeInvokeEx
0 40
cfn=MXImperativeInvokeImpl
calls=1 0
0 60
"""


def test_a_dump_counts_the_calls_into_the_library_once(tmp_path):
    dump = tmp_path / "callgrind.out.1"
    dump.write_text(DUMP)
    # 100 + 20 from outside; the library's call to itself is inside those 100
    assert I.library_instructions(str(dump), "libmxnet") == 120
    assert I.library_instructions(str(dump), "_ctypes") == 130


def test_no_valgrind_is_a_skip_with_the_reason(monkeypatch):
    monkeypatch.setattr(I, "VALGRIND", "/nonexistent/valgrind")
    table = I.count_table([("dot", "small", "float32", "forward")])
    outcome, reason = table["dot|small|float32|forward"]
    assert outcome == I.SKIP and "valgrind is not available" in reason


def test_a_count_of_zero_is_a_skip_with_the_reason():
    """0 instructions in libmxnet means callgrind named none of its code (1.6.0's mxnet
    wheel): no count, a skip that says why, never a 0 in the record."""
    from asv_runner.benchmarks.mark import SkipNotImplemented
    relu = B.relu()
    assert relu.track_forward({"relu|small|float32|forward": 28108}, "small", "float32") == 28108
    with pytest.raises(SkipNotImplemented, match="cannot name this build's library"):
        relu.track_forward({"relu|small|float32|forward": 0}, "small", "float32")


@pytest.mark.skipif(shutil.which("valgrind") is None,
                    reason="valgrind is not installed (.ci/run installs Debian's)")
def test_callgrind_counts_points_whatever_was_counted_before():
    points = [("dot", "small", "float32", "forward"),
              ("dot", "small", "float32", "forward_backward"),
              ("relu", "small", "float32", "forward"),
              ("exp", "small", "float32", "forward_backward"),
              ("np_fmax", "small", "float32", "forward"),  # 2.0's: a skip
              ("no_such_entry", "small", "float32", "forward"),
              # a model layer (ResNet-50's last ReLU), through bench_models' LayerCall
              ("Activation_1x512x7x7_70e66170", "layer", "float32", "forward")]
    table = I.count_table(points, timeout=1200)
    forward = table["dot|small|float32|forward"]
    assert isinstance(forward, int) and 10000 < forward < 10 ** 7, table
    assert table["dot|small|float32|forward_backward"] > 2 * forward
    assert table["np_fmax|small|float32|forward"][0] == I.SKIP
    assert table["no_such_entry|small|float32|forward"][0] == I.FAILED
    relu_layer = table["Activation_1x512x7x7_70e66170|layer|float32|forward"]
    assert isinstance(relu_layer, int) and 1000 < relu_layer < 10 ** 7, table
    # counted in one process one after another, the same points came out up to 0.8 % apart
    # in another order; each in its own child, they repeat exactly
    assert I.count_table(points[::-1], timeout=1200) == table


def test_timing_changes_say_whether_the_count_moved():
    from mxbench.core.results import Point
    from mxbench.reports import changes

    def points(values):
        return dict((name, Point(name, name.split("(")[0], (), value, unit))
                    for name, (value, unit) in values.items())
    timing = "bench_operators.dot.time_forward('medium', 'float32', 'cpu')"
    layer = "bench_models.Activation_1x512x7x7_70e66170.time_forward('cpu')"
    layer_count = ("bench_instructions.Activation_1x512x7x7_70e66170.track_forward('layer', "
                   "'float32')")
    other = "bench_operators.relu.time_forward('medium', 'float32', 'cpu')"
    uncounted = "bench_operators.exp.time_forward('medium', 'float32', 'cpu')"
    before = points({timing: (1e-3, "seconds"), other: (1e-3, "seconds"),
                     uncounted: (1e-3, "seconds"), layer: (1e-4, "seconds"),
                     layer_count: (5e4, "instructions"),
                     "bench_instructions.dot.track_forward('small', 'float32')": (1e5, "instructions"),
                     "bench_instructions.relu.track_forward('small', 'float32')": (2e4, "instructions")})
    after = points({timing: (2e-3, "seconds"), other: (2e-3, "seconds"),
                    uncounted: (2e-3, "seconds"), layer: (3e-4, "seconds"),
                    layer_count: (1e5, "instructions"),
                    "bench_instructions.dot.track_forward('small', 'float32')": (1.2e5, "instructions"),
                    "bench_instructions.relu.track_forward('small', 'float32')": (20010, "instructions")})
    counts = changes.count_changes(before, after)
    assert sorted(counts) == sorted([timing, other, layer])
    assert changes.count_text(counts[layer]) == "2.00 (moved)"
    assert changes.count_benchmark("bench_models.Activation_1x512x7x7_70e66170.time_forward") \
        == "bench_instructions.Activation_1x512x7x7_70e66170.track_forward"
    assert changes.count_benchmark("bench_models.Model_resnet50_v1.time_forward") is None
    assert changes.count_text(counts[timing]) == "1.20 (moved)"
    assert changes.count_text(counts[other]) == "1.00 (same)"  # 0.05 %: within the spread
    timed = changes.compare(before, after, 1.2)
    table = "\n".join(changes.top_tables(timed, "a", "b", 10, counts))
    assert "| instructions |" in table and "1.20 (moved)" in table
    summary = changes.count_summary(timed, counts)[0]
    assert "for 3 of the significant" in summary and "moved too for 2 " in summary  # + layer


@pytest.mark.parametrize("argv, variable, message", [
    (["("], None, "not a regular expression: '('"),
    (["no_such_entry_zzz"], None, "no point's name matches 'no_such_entry_zzz'"),
    ([], "[", "not a regular expression: '['"),
    ([], "no_such_entry_zzz", "no point's name matches 'no_such_entry_zzz'"),
])
def test_counting_a_bad_selection_is_one_line_and_exit_1(argv, variable, message):
    import os
    import subprocess
    import sys
    env = dict(os.environ)
    env.pop(B.SELECTION_VARIABLE, None)
    if variable is not None:
        env[B.SELECTION_VARIABLE] = variable
    proc = subprocess.run([sys.executable, "-m", "benchmarks.bench_instructions"] + argv,
                          cwd=I.ROOT, env=env, capture_output=True, text=True)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bench_instructions: " + message), lines


@pytest.mark.parametrize("recording", ["amd-epyc-2cpu-24gb-counts2"])
def test_a_later_recording_repeats_the_historys_counts(recording):
    """1.9.1 cpu-mkldnn counted again: counts2 in another session, on a fresh boot of an
    AVX-512 host (the history's counts came from an AVX2 one: Valgrind shows the build the
    same CPU on both), 11 hours later: within 0.1 %, nearly all identical. Read through
    `changes aa`, the path any two recordings of one release take; -v names each count that
    differs."""
    import re
    import subprocess
    import sys
    from tests.conftest import ARCHIVE_MACHINE, ROOT
    proc = subprocess.run([sys.executable, "-m", "mxbench", "changes", "aa", "--machine-a",
                           "results-archive/" + ARCHIVE_MACHINE, "--machine-b", recording,
                           "--release", "1.9.1", "-v"], cwd=str(ROOT), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
    assert proc.returncode == 0, proc.stdout
    found = re.search(r"instruction counts: (\d+) of (\d+) identical, the largest difference "
                      r"([0-9.]+)%", proc.stdout)
    assert found, proc.stdout
    identical, total, largest = int(found.group(1)), int(found.group(2)), float(found.group(3))
    assert total >= 900 and identical >= 0.99 * total and largest <= 0.1, proc.stdout
    differs = [line for line in proc.stdout.splitlines() if "  count differs: " in line]
    assert len(differs) == total - identical, proc.stdout


def test_on_another_date_the_same_harness_counts_the_layers_exactly():
    """1.9.1's layers counted on 2026-11-26 (layers2) and on 2026-11-27 (counts3) with the
    same harness: identical (the operators' counts of counts3 differ from the history's
    through an edit of the harness in between: docs/instructions.md)."""
    import re
    import subprocess
    import sys
    from tests.conftest import ROOT
    proc = subprocess.run([sys.executable, "-m", "mxbench", "changes", "aa", "--machine-a",
                           "amd-epyc-2cpu-24gb-layers2", "--machine-b",
                           "amd-epyc-2cpu-24gb-counts3", "--release", "1.9.1"], cwd=str(ROOT),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=300)
    assert proc.returncode == 0, proc.stdout
    found = re.search(r"instruction counts: (\d+) of (\d+) identical", proc.stdout)
    assert found and found.group(1) == found.group(2) == "134", proc.stdout


def test_no_instruction_count_in_the_history_is_zero():
    """A 0 is no count (callgrind named none of libmxnet's code: 1.6.0's mxnet wheel); the
    history held 826 of them until a re-run turned them into skips with the reason."""
    from mxbench.core.project import load as load_project
    from mxbench.core.results import measured
    project = load_project()
    counts = [p for p in project.history_store.points(None, None, None,
                                                      r"^bench_instructions\.")
              if p.unit == "instructions" and measured(p.value)]
    assert len(counts) > 10000
    zeros = sorted(set((os.path.basename(p.recording.path), p.name) for p in counts
                       if p.value == 0))
    assert not zeros, zeros[:5]
