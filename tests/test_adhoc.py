"""mxbench adhoc on the installed MXNet (the .venv's 1.9.1): structure and invariants only,
never timings (the machine is shared and noisy). Shapes and run counts are kept small."""
import csv
import io
import json
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks import harness as H, catalogue as C
from mxbench import cli
from mxbench.inside import adhoc
from mxbench.core import stats

mx = pytest.importorskip("mxnet")
ROOT = Path(__file__).resolve().parent.parent
QUICK = dict(runs=3, warmup=1)


def assert_measured(summary, runs):
    assert summary["sample_count"] == runs
    assert summary["min"] <= summary["p50"] <= summary["p90"] <= summary["p99"] <= summary["max"]
    assert summary["min"] > 0 and stats.is_ordered(summary)


def not_in_catalogue(*candidates):
    """An mx.nd operator the (growing) catalogue does not have."""
    for name in candidates:
        if name not in C.by_name() and hasattr(mx.nd, name):
            return name
    pytest.skip("every candidate operator is in the catalogue now")


# --- library API: good input ------------------------------------------------------------------
def test_benchmark_custom_shape_and_kwargs():
    row = adhoc.benchmark("softmax", inputs=[(8, 32)], dtype="float32", kwargs={"axis": -1},
                          **QUICK)
    assert row["status"] == "ok", row["message"]
    assert (row["operator"], row["case"], row["inputs"], row["dtype"], row["ctx"]) == \
        ("softmax", "custom", "8x32", "float32", "cpu")
    assert row["kwargs"] == {"axis": -1}
    for phase in adhoc.PHASES:
        assert_measured(row[phase], 3)


def test_benchmark_float16_and_forward_only():
    row = adhoc.benchmark("relu", inputs=[(4, 4)], dtype="float16", backward=False, **QUICK)
    assert row["status"] == "ok" and row["dtype"] == "float16"
    assert_measured(row["forward"], 3)
    assert row["backward"] is None and row["forward_backward"] is None


def test_benchmark_defaults_to_the_first_catalogue_case():
    op = C.by_name()["dot"]
    first = next(iter(op.cases))
    row = adhoc.benchmark("dot", **QUICK)
    assert row["status"] == "ok"
    assert row["case"] == first and row["dtype"] == op.dtypes[0]
    expected = ", ".join("x".join(map(str, t.shape)) for t in op.cases[first].inputs)
    assert row["inputs"] == expected


def test_numpy_and_ndarray_inputs_are_used_as_they_are():
    values = np.arange(12, dtype=np.float64).reshape(3, 4) - 6
    row = adhoc.benchmark("relu", inputs=[values], **QUICK)
    assert row["status"] == "ok" and row["dtype"] == "float64" and row["inputs"] == "3x4"
    nd_input = mx.nd.array(values, dtype="float32")
    row = adhoc.benchmark("elemwise_add", inputs=[nd_input, nd_input], **QUICK)
    assert row["status"] == "ok" and row["dtype"] == "float32"
    np.testing.assert_array_equal(nd_input.asnumpy(), values.astype(np.float32))


def test_shapes_keep_the_catalogue_fill_of_their_position():
    base = C.case(C.T(5, fill="index", high=7, dtype="int64"), C.T(7, 3))
    user_array = np.ones((2, 2), dtype=np.float16)
    (indices, table, extra, placeholder), arrays = adhoc.custom_inputs(
        [(2, 3), (9, 4), (2,), user_array], base)
    assert (indices.shape, indices.fill, indices.high, indices.dtype) == \
        ((2, 3), "index", 7, "int64")
    assert (table.shape, table.fill) == ((9, 4), "normal")
    assert extra.shape == (2,) and extra.fill == "normal"
    assert placeholder.shape == (2, 2) and arrays == {3: user_array}


def test_run_category_measures_each_operator():
    expected = [op.class_name for op in C.OPERATORS
                if op.category == "reduction" and "small" in op.cases]
    rows = adhoc.run_category("reduction", cases=["small"], dtypes=["float32"], **QUICK)
    assert [r["entry"] for r in rows] == expected
    assert not rows.interrupted and rows.planned == len(expected)
    for row in rows:
        assert row["status"] in ("ok", "skipped"), row["message"]
        if row["status"] == "ok":
            assert_measured(row["forward"], 3)


def test_run_operator_covers_cases_times_dtypes():
    op = C.by_name()["relu"]
    rows = adhoc.run_operator("relu", cases=["small"], runs=2, warmup=0)
    assert [(r["case"], r["dtype"]) for r in rows] == [("small", d) for d in op.dtypes]


def test_an_operator_name_means_its_other_forms_too():
    entries = [op.class_name for op in C.OPERATORS if op.name == "LeakyReLU"]
    assert len(entries) > 1, "the catalogue has LeakyReLU forms"
    rows = adhoc.run_operator("LeakyReLU", cases=["small"], dtypes=["float32"], runs=2, warmup=0)
    assert [r["entry"] for r in rows] == entries
    assert {r["operator"] for r in rows} == {"LeakyReLU"}
    one = adhoc.benchmark(entries[1], runs=2, warmup=0)
    assert one["entry"] == entries[1] and one["form"] == C.by_class_name()[entries[1]].form
    assert one["status"] == "ok", one["message"]


def test_isolated_entries_run_in_a_child_process():
    isolated = [op for op in C.OPERATORS if op.isolate and "small" in op.cases]
    if not isolated:
        pytest.skip("no catalogue entry is marked isolate")
    op = isolated[0]
    job = adhoc.entry_jobs(op, ["small"], [op.dtypes[0]])[0]
    assert adhoc.runs_isolated(job)
    row = adhoc.run_jobs([job], **QUICK)[0]
    assert row["entry"] == op.class_name and row["status"] in ("ok", "skipped"), row["message"]
    if row["status"] == "ok":
        assert_measured(row["forward"], 3)


def test_unknown_category_suggests():
    with pytest.raises(ValueError, match="did you mean: reduction"):
        adhoc.run_category("reductoin")


# --- bad input: one clear line in the row ------------------------------------------------------
def test_unknown_operator_suggests_close_names():
    row = adhoc.benchmark("softmx", inputs=[(4, 4)], **QUICK)
    assert row["status"] == "error"
    assert "unknown operator 'softmx'" in row["message"] and "softmax" in row["message"]
    assert row["forward"] is None


def test_impossible_shape_is_reported_from_shape_inference():
    row = adhoc.benchmark("dot", inputs=[(3, 4), (5, 6)], **QUICK)
    assert row["status"] == "error"
    assert row["message"].startswith("forward: MXNetError")
    assert "\n" not in row["message"] and "[3,4]" in row["message"]


@pytest.mark.parametrize("dtype", ["float17", "complex64"])
def test_unsupported_dtype(dtype):
    row = adhoc.benchmark("relu", inputs=[(4, 4)], dtype=dtype, **QUICK)
    assert row["status"] == "error"
    assert "unsupported dtype %r" % dtype in row["message"]


def test_gpu_without_gpu():
    if mx.context.num_gpus() > 0:
        pytest.skip("this machine has a GPU")
    row = adhoc.benchmark("relu", ctx="gpu", **QUICK)
    assert row["status"] == "error" and "no GPU" in row["message"]


def test_a_field_case_runs_by_name():
    """Field cases (benchmarks/catalogue/field.py) run when named, not by default."""
    row = adhoc.benchmark("FullyConnected", case="field-17980-512", dtype="float32", **QUICK)
    assert row["status"] == "ok", row["message"]
    assert row["case"] == "field-17980-512"
    rows = adhoc.run_operator("FullyConnected", dtypes=["float32"], runs=2, warmup=0)
    assert [r["case"] for r in rows] == list(C.by_name()["FullyConnected"].cases)


def test_unknown_shape_class():
    row = adhoc.benchmark("relu", case="huge", **QUICK)
    assert row["status"] == "error" and "no shape class 'huge'" in row["message"]


def test_operator_outside_the_catalogue():
    name = not_in_catalogue("sum_axis", "max_axis", "min_axis", "stop_gradient", "reverse")
    row = adhoc.benchmark(name, **QUICK)
    assert row["status"] == "error" and "give its inputs" in row["message"]
    row = adhoc.benchmark(name, inputs=[(4, 4)], **QUICK)
    assert row["status"] == "ok", row["message"]


def test_catalogue_operator_missing_from_this_release_is_skipped():
    entry = C.Operator("no_such_operator_in_any_release", "unary", C.one_input())
    job = adhoc.Job(entry.class_name, entry, "small", entry.cases["small"], {}, "float32", {},
                    True, None)
    row = adhoc.measure(job, **QUICK)
    assert row["status"] == "skipped" and "not in mxnet" in row["message"]


def test_excluded_operators_are_skipped_with_their_reason():
    excluded = adhoc.excluded()
    if not excluded:
        pytest.skip("the catalogue has no EXCLUDED entries")
    name, reason = sorted(excluded.items())[0]
    if name in C.by_name():
        pytest.skip("%s is both catalogued and excluded" % name)
    row = adhoc.measure(adhoc.operator_jobs(name)[0], **QUICK)
    assert row["status"] == "skipped" and reason in row["message"]


def test_bad_rows_do_not_stop_the_others():
    jobs = (adhoc.operator_jobs("softmx", inputs=[(4, 4)])
            + adhoc.operator_jobs("dot", inputs=[(3, 4), (5, 6)])
            + adhoc.operator_jobs("relu", cases=["small"], dtypes=["float32", "float17"]))
    rows = adhoc.run_jobs(jobs, **QUICK)
    assert [r["status"] for r in rows] == ["error", "error", "ok", "error"]
    assert_measured(rows[2]["forward_backward"], 3)
    assert adhoc.exit_code(rows) == 1
    assert "3 error" in adhoc.summary_line(rows)
    assert adhoc.exit_code(rows[2:3]) == 0


def test_interrupt_keeps_finished_rows():
    jobs = adhoc.operator_jobs("relu", cases=["small"], dtypes=["float32", "float64"])

    def interrupt(row):
        raise KeyboardInterrupt  # as if Ctrl-C came right after the first row

    rows = adhoc.run_jobs(jobs, on_row=interrupt, **QUICK)
    assert rows.interrupted and len(rows) == 1 and rows.planned == 2
    assert rows[0]["status"] == "ok"
    assert adhoc.exit_code(rows) == 130
    assert "interrupted after 1 of 2" in adhoc.summary_line(rows)


def test_one_line_of_an_mxnet_error():
    with pytest.raises(mx.base.MXNetError) as info:
        mx.nd.dot(mx.nd.ones((2, 3)), mx.nd.ones((4, 5))).wait_to_read()
    line = adhoc.one_line(info.value)
    assert line.startswith("MXNetError: ") and "\n" not in line


# --- profiler ----------------------------------------------------------------------------------
PROFILE_TABLE = """
Profile Statistics:
operator
=================
Name                          Total Count        Time (ms)    Min Time (ms)    Max Time (ms)    Avg Time (ms)
----                          -----------        ---------    -------------    -------------    -------------
softmax                                10           0.7550           0.0120           0.3870           0.0755
WaitForVar                              9           0.5750           0.0020           0.2170           0.0639
_backward_softmax                       5           0.1080           0.0070           0.0720           0.0216

"""


def test_parse_operator_table():
    rows = adhoc.parse_operator_table(PROFILE_TABLE)
    assert [(r["name"], r["count"]) for r in rows] == \
        [("softmax", 10), ("WaitForVar", 9), ("_backward_softmax", 5)]
    assert rows[0]["total_ms"] == 0.755 and rows[2]["avg_ms"] == 0.0216
    phases = [adhoc.kernel_phase(r["name"], {"softmax"}) for r in rows]
    assert phases == ["forward", "other", "backward"]


def test_profile_mode_reports_kernel_times():
    assert adhoc.profiler_problem() is None  # mxnet 1.9.1 has the aggregate profiler
    row = adhoc.benchmark("dot", profile=True, **QUICK)
    assert row["status"] == "ok", row["message"]
    profile = row["profile"]
    assert profile["available"]
    names = {r["name"]: r for r in profile["rows"]}
    assert names["dot"]["phase"] == "forward" and names["dot"]["count"] == 2 * 3
    assert names["_backward_dot"]["phase"] == "backward" and names["_backward_dot"]["count"] == 3
    assert profile["forward_seconds"] > 0 and profile["backward_seconds"] > 0


# --- command line ------------------------------------------------------------------------------
def run_main(capsys, *argv):
    code = cli.main(["adhoc"] + list(argv))
    out, err = capsys.readouterr()
    return code, out, err


MIXED = ("--op", "softmx", "--op", "relu", "--case", "small", "--dtype", "float32",
         "--dtype", "float17", "--runs", "2", "--warmup", "0")


def test_cli_json(capsys):
    code, out, err = run_main(capsys, *MIXED + ("--format", "json"))
    rows = json.loads(out)
    assert code == 1 and "some rows errored" in err
    assert [(r["entry"], r["dtype"], r["status"]) for r in rows] == [
        ("softmx", "", "error"), ("relu", "float32", "ok"), ("relu", "float17", "error")]
    assert rows[1]["forward"]["sample_count"] == 2


def test_cli_csv(capsys):
    code, out, _ = run_main(capsys, *MIXED + ("--format", "csv"))
    reader = csv.DictReader(io.StringIO(out))
    lines = list(reader)
    assert code == 1 and reader.fieldnames == list(adhoc.TABLE_COLUMNS)
    # One line per measured phase; one line for a row that measured nothing.
    assert [(l["entry"], l["phase"]) for l in lines] == [
        ("softmx", ""), ("relu", "forward"), ("relu", "backward"),
        ("relu", "forward_backward"), ("relu", "")]
    assert int(lines[1]["sample_count"]) == 2 and float(lines[1]["p50"]) > 0


def test_cli_markdown_and_exit_zero(capsys, tmp_path):
    target = tmp_path / "relu.md"
    code, out, err = run_main(capsys, "--op", "relu", "--case", "small", "--dtype", "float32",
                              "--runs", "2", "--warmup", "0", "-o", str(target))
    assert code == 0 and out == "" and "1 rows: 1 ok" in err
    table = [l for l in target.read_text().splitlines() if l.startswith("|")]
    assert len(table) == 3 + 2  # three phases, header, separator
    assert table[0].count("|") == len(adhoc.MARKDOWN_COLUMNS) + 1


def test_cli_usage_errors(capsys):
    with pytest.raises(SystemExit):
        cli.main(["adhoc", "--category", "reduction", "--all"])
    capsys.readouterr()
    code, _, err = run_main(capsys, "--category", "reduction", "--shape", "3,4")
    assert code == 2 and err == "error: --shape goes with --op\n"
    code, _, err = run_main(capsys, "--category", "reductoin")
    assert code == 2 and "unknown category" in err
    code, out, _ = run_main(capsys, "--list")
    assert code == 0 and "softmax" in out


def test_cli_ctrl_c_writes_what_finished(tmp_path):
    """A real SIGINT: the run stops, the (empty) result is still written, exit code 130."""
    target = tmp_path / "partial.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "mxbench", "adhoc", "--op", "relu", "--case", "small",
         "--dtype", "float32", "--runs", "100000000", "--format", "json", "-o", str(target)],
        cwd=str(ROOT), stderr=subprocess.PIPE, universal_newlines=True,
        # a shell's background job ignores SIGINT, and children inherit that: undo it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        for line in proc.stderr:
            if "running 1 rows" in line:
                break
        proc.send_signal(signal.SIGINT)
        err = proc.stderr.read()
        assert proc.wait(timeout=300) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "interrupted after 0 of 1 planned rows" in err
    assert json.loads(target.read_text()) == []


# --- one model: the harness builds, times and words errors for adhoc ----------------------------
def test_adhoc_uses_the_harness_error_line():
    assert adhoc.one_line is H.one_line
    # Releases before 1.4 name no "MXNetError:" line: the first line that is not traceback.
    old_style = mx.base.MXNetError("[10:00:00] src/operator/tensor/dot-inl.h:1231: Check failed: "
                                   "L[!Ta].Size() == R[Tb].Size() (3 vs. 4)\n\nStack trace "
                                   "returned 10 entries:\n[bt] (0) libmxnet.so(+0x1234)")
    assert H.one_line(old_style) == ("MXNetError: [10:00:00] src/operator/tensor/dot-inl.h:1231: "
                                     "Check failed: L[!Ta].Size() == R[Tb].Size() (3 vs. 4)")
    assert H.one_line(ValueError("unknown fill 'x'")) == "ValueError: unknown fill 'x'"
    assert H.one_line(KeyError()) == "KeyError"


def test_backward_alone_differentiates_the_recorded_forward():
    """dot(a, b) with head gradient ones: d/da = ones @ b.T; the same as forward_backward."""
    call = H.build_operator_call(C.by_name()["dot"], "small", "float32", mx.cpu())
    a, b = call.args
    expected = np.ones((a.shape[0], b.shape[1]), dtype=np.float32).dot(b.asnumpy().T)
    assert call.takes_gradients
    call.record_forward()
    call.backward()
    np.testing.assert_allclose(a.grad.asnumpy(), expected, rtol=1e-5)
    a.grad[:] = 0
    call.forward_backward()
    np.testing.assert_allclose(a.grad.asnumpy(), expected, rtol=1e-5)


def test_backward_alone_of_a_bound_symbol():
    op = next(op for op in C.OPERATORS if op.call == "symbol")
    call = H.build_operator_call(op, next(iter(op.cases)), "float32", mx.cpu())
    assert call.takes_gradients
    samples = H.timed_calls(call.backward, 2, 1, before=call.record_forward)
    assert len(samples) == 2 and min(samples) > 0
    grads = [g.asnumpy() for g in call.exe.grad_arrays if g is not None]
    assert grads and all(np.isfinite(g).all() for g in grads)


def test_time_calls_runs_before_ahead_of_every_call_and_keeps_the_timed_ones():
    log = []

    def record():
        log.append("before")

    def work():
        log.append("work")
        mx.nd.ones((2, 2)).wait_to_read()

    samples = H.timed_calls(work, runs=3, warmup=2, before=record)
    assert len(samples) == 3 and min(samples) > 0
    assert log == ["before", "work"] * 5
    assert len(H.timed_calls(work, runs=4, warmup=0)) == 4


def test_the_call_builder_takes_adhoc_arrays_and_arguments():
    op = C.by_name()["softmax"]
    values = np.arange(12, dtype=np.float32).reshape(3, 4)
    case = op.cases["small"]._replace(inputs=(C.T(3, 4),))
    call = H.build_operator_call(op, "custom", "float32", mx.cpu(), case=case,
                                 overrides={"axis": 0}, arrays={0: values})
    assert call.kwargs["axis"] == 0 and call.grads == [call.args[0]]
    np.testing.assert_array_equal(call.args[0].asnumpy(), values)
    np.testing.assert_allclose(call.forward().asnumpy().sum(axis=0), np.ones(4), rtol=1e-6)
    # The caller's arguments go to MXNet unchecked: a wrong one is MXNet's error to report...
    call = H.build_operator_call(op, "small", "float32", mx.cpu(),
                                 overrides={"no_such_argument": 1})
    with pytest.raises(mx.base.MXNetError):
        call.forward()
    # ...while the entry's are checked, as for asv: an argument the release lacks is a skip.
    entry = C.Operator("relu", "unary", C.one_input(), kwargs={"no_such_argument": 1})
    with pytest.raises(NotImplementedError, match="has no argument no_such_argument"):
        H.build_operator_call(entry, "small", "float32", mx.cpu())
