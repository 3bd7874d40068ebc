"""mxbench adhoc's memory guard: inputs that cannot fit are refused before anything is built.

The shapes asked for here are far beyond any machine (8 TB of float64), so a guard that let
them through would fail the assertions on the message at once (numpy refuses the allocation)
instead of filling the machine's memory.
"""
import json
import time

import pytest

from benchmarks import harness as H, catalogue as C
from mxbench import cli
from mxbench.inside import adhoc

mx = pytest.importorskip("mxnet")
QUICK = dict(runs=2, warmup=0)
HUGE = (10 ** 6, 10 ** 6)  # 10^12 elements
REFUSED = "too large for the memory available: "
MiB = 2 ** 20


def test_a_huge_shape_is_refused_at_once_and_allocates_nothing():
    rows = []

    def run():
        rows.append(adhoc.benchmark("relu", inputs=[HUGE], dtype="float64", **QUICK))

    started = time.perf_counter()
    if H.reset_peak_rss():
        grown = H.peak_rss_increase(run)
    else:  # this kernel cannot reset the peak: the row and the time are still checked
        grown = None
        run()
    seconds = time.perf_counter() - started
    row = rows[0]
    assert row["status"] == "error" and row["message"].startswith(REFUSED), row["message"]
    assert "7.28TiB of inputs" in row["message"] and "\n" not in row["message"]
    assert row["forward"] is None
    assert seconds < 2, seconds
    assert grown is None or grown < 64 * MiB, grown


def test_cli_refuses_the_row_and_exits_1(capsys):
    code = cli.main(["adhoc", "--op", "relu", "--shape", "1000000,1000000", "--dtype", "float64",
                     "--format", "json"])
    out, err = capsys.readouterr()
    row = json.loads(out)[0]
    assert code == 1 and "some rows errored" in err
    assert row["status"] == "error" and row["message"].startswith(REFUSED)


def test_a_refused_row_does_not_stop_the_others():
    jobs = (adhoc.operator_jobs("dot", inputs=[HUGE, HUGE])
            + adhoc.operator_jobs("relu", cases=["small"], dtypes=["float32"]))
    rows = adhoc.run_jobs(jobs, **QUICK)
    assert [r["status"] for r in rows] == ["error", "ok"]
    assert rows[0]["message"].startswith(REFUSED)
    assert adhoc.exit_code(rows) == 1


def test_memory_needed_counts_inputs_gradients_and_building():
    case = C.case(C.T(1000, 1000), C.T(1000, fill="index", high=10, dtype="int64"),
                  weight=C.T(500, 4), axis=1)
    inputs = 1000 * 1000 * 4 + 1000 * 8 + 500 * 4 * 4
    build_largest = 1000 * 1000 * (8 + 4)  # float64 values, then their float32 copy
    needed, counted = H.memory_needed(case, "float32")
    assert counted == inputs
    assert needed == max(2 * inputs + build_largest, (1 + H.RUN_MEMORY_MULTIPLE) * inputs)
    # A caller's array exists already: nothing to build for it.
    needed, _ = H.memory_needed(case, "float32", arrays={0: None})
    assert needed == max(2 * inputs + 500 * 4 * (8 + 4), (1 + H.RUN_MEMORY_MULTIPLE) * inputs)
    # Absurd shapes do not overflow.
    assert H.memory_needed(C.case(C.T(*HUGE)), "float64")[1] == 8 * 10 ** 12


def test_check_memory_refuses_only_what_does_not_fit():
    job = adhoc.operator_jobs("relu", inputs=[(4096, 4096)], dtypes=["float64"])[0]
    needed, inputs = H.memory_needed(job.case, "float64")
    assert inputs == 4096 * 4096 * 8
    adhoc.check_memory(job, "float64", available=needed)
    with pytest.raises(adhoc.RowProblem) as info:
        adhoc.check_memory(job, "float64", available=needed - 1)
    assert info.value.status == "error" and info.value.message.startswith(REFUSED)
    assert "128MiB of inputs" in info.value.message


def test_available_memory_is_what_the_system_reports():
    with open("/proc/meminfo") as fh:
        reported = dict(line.split(":", 1) for line in fh)
    expected = int(reported["MemAvailable"].split()[0]) * 1024
    assert 0 < H.available_memory()
    assert abs(H.available_memory() - expected) < 512 * MiB  # other processes move it
