"""mxbench export on real asv result files (conftest's asv_e2e: asv run --record-samples on
two ladder commits). The raw files are read back with the json module, independently of
asv's loader that the exporter uses, and every exported row is checked against them."""
import csv
import io
import itertools
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mxbench.core import stats
from mxbench.core.formatting import human_value
from mxbench.reports import export

ROOT = Path(__file__).resolve().parent.parent
RELEASES = {"1.8.0.post0", "1.9.1"}


def raw_result_files(results_dir):
    for path in sorted(Path(results_dir).glob("*/*.json")):
        if path.name not in ("machine.json", "benchmarks.json"):
            yield json.loads(path.read_text())


def raw_combinations(data):
    """(benchmark, index, columns dict) for every parameter combination in one raw file."""
    for name, values in data["results"].items():
        columns = dict(zip(data["result_columns"], values))
        count = len(list(itertools.product(*columns["params"])))
        for index in range(count):
            yield name, index, columns


def column(columns, key, index):
    values = columns.get(key)
    return None if values is None else values[index]


def run_export(*args):
    return subprocess.run([sys.executable, "-m", "mxbench", "export"] + [str(a) for a in args],
                          cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=300)


@pytest.fixture(scope="module")
def rows(asv_e2e):
    return export.collect_rows(asv_e2e.first_results, repo=asv_e2e.ladder)


@pytest.fixture(scope="module")
def rows_by_key(rows):
    grouped = {}
    for row in rows:
        grouped.setdefault((row["commit"], row["env"], row["benchmark"]), []).append(row)
    return grouped


def test_one_row_per_benchmark_param_env_commit(asv_e2e, rows):
    expected = sum(1 for data in raw_result_files(asv_e2e.first_results)
                   for _ in raw_combinations(data))
    assert expected > 0
    assert len(rows) == expected
    assert set(export.COLUMNS) <= set(rows[0])


def test_rows_match_the_raw_files(asv_e2e, rows_by_key):
    for data in raw_result_files(asv_e2e.first_results):
        for name, index, columns in raw_combinations(data):
            row = rows_by_key[(data["commit_hash"], data["env_name"], name)][index]
            value = columns["result"][index] if columns["result"] is not None else None
            samples = column(columns, "samples", index)
            if value is None:
                assert row["status"] == "failed"
            elif isinstance(value, float) and math.isnan(value):
                assert row["status"] == "skipped"
            else:
                assert row["status"] == "ok" and row["result"] == value
            if row["status"] != "ok":
                assert all(row[k] is None for k in stats.FIELDS)
                continue
            if samples:
                assert row["stats_source"] == "samples"
                assert row["sample_count"] == len(samples) == column(columns, "stats_repeat",
                                                                     index)
                assert row["number"] == column(columns, "stats_number", index)
                assert row["p50"] == pytest.approx(value, rel=1e-9)  # asv's result: the median
                # asv stores q_25/q_75 truncated to 5 significant digits.
                assert row["q25"] == pytest.approx(column(columns, "stats_q_25", index), rel=1e-4)
                assert row["q75"] == pytest.approx(column(columns, "stats_q_75", index), rel=1e-4)
                assert row["min"] == min(samples) and row["max"] == max(samples)
            else:
                assert row["stats_source"] in ("asv-summary", "value-only")


def test_recorded_samples_give_full_statistics(rows):
    sampled = [r for r in rows if r["stats_source"] == "samples"]
    assert sampled, "the e2e run records samples"
    for row in sampled:
        assert row["unit"] == "seconds"
        assert row["sample_count"] >= 1 and row["number"] >= 1
        assert row["min"] <= row["p50"] <= row["p90"] <= row["p99"] <= row["max"]
        assert row["min"] <= row["mean"] <= row["max"]
        assert row["median"] == row["p50"]
        assert row["iqr"] == pytest.approx(row["q75"] - row["q25"])
        assert stats.is_ordered(row)


def test_machine_and_release_tags(asv_e2e, rows):
    assert {r["machine"] for r in rows} == {asv_e2e.machine}
    assert {r["tag"] for r in rows} == RELEASES
    for release in RELEASES:
        commit = subprocess.check_output(["git", "-C", str(asv_e2e.ladder), "rev-parse",
                                          release + "^{commit}"], universal_newlines=True)
        assert {r["tag"] for r in rows if r["commit"] == commit.strip()} == {release}


def test_without_a_repo_the_tag_is_empty(asv_e2e):
    assert {r["tag"] for r in export.collect_rows(asv_e2e.first_results)} == {""}


def remove_samples_copy(results_dir, target):
    """The same real results, saved by asv's own writer as if run without --record-samples."""
    from asv.results import iter_results
    shutil.copytree(str(results_dir), str(target))
    for results in iter_results(str(target)):
        for key in results.get_all_result_keys():
            results.remove_samples(key)
        results.save(str(target))
    return target


def test_asv_summary_rows_fill_only_what_asv_kept(asv_e2e, rows, tmp_path):
    target = remove_samples_copy(asv_e2e.first_results, tmp_path / "results")
    summary_rows = export.collect_rows(target, repo=asv_e2e.ladder)
    assert len(summary_rows) == len(rows)
    with_stats = [r for r in summary_rows if r["stats_source"] == "asv-summary"]
    assert with_stats
    assert not [r for r in summary_rows if r["stats_source"] == "samples"]
    for row, full in zip(summary_rows, rows):
        assert (row["benchmark"], row["params"], row["status"]) == \
            (full["benchmark"], full["params"], full["status"])
        if row["stats_source"] != "asv-summary":
            continue
        assert row["median"] == row["p50"] == row["result"] == full["result"]
        assert row["sample_count"] == full["sample_count"]
        assert row["iqr"] is not None and row["iqr"] >= 0
        for key in ("mean", "min", "max", "p90", "p99"):
            assert row[key] is None


def test_cli_json_csv_markdown_parse_back(asv_e2e, rows):
    base = [asv_e2e.first_results, "--repo", asv_e2e.ladder]
    out = run_export(*base + ["--format", "json"])
    assert out.returncode == 0, out.stderr
    assert "exported %d rows" % len(rows) in out.stderr
    parsed = json.loads(out.stdout)
    assert len(parsed) == len(rows)
    assert [r["p50"] for r in parsed] == [r["p50"] for r in rows]

    out = run_export(*base + ["--format", "csv"])
    reader = csv.DictReader(io.StringIO(out.stdout))
    table = list(reader)
    assert reader.fieldnames == list(export.COLUMNS)
    assert len(table) == len(rows)
    assert [r["tag"] for r in table] == [r["tag"] for r in rows]

    out = run_export(*base + ["--format", "markdown"])
    lines = [l for l in out.stdout.splitlines() if l.startswith("|")]
    assert len(lines) == len(rows) + 2  # header and separator
    assert lines[0].count("|") == len(export.MARKDOWN_COLUMNS) + 1


def test_cli_writes_a_file_and_filters(asv_e2e, rows, tmp_path):
    target = tmp_path / "softmax.json"
    out = run_export(asv_e2e.first_results, "--format", "json", "-o", target,
                     "--benchmark", r"softmax", "--env", "mkldnn", "--ok-only")
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""
    picked = json.loads(target.read_text())
    assert picked and len(picked) < len(rows)
    assert all("softmax" in r["benchmark"] and "mkldnn" in r["env"] and r["status"] == "ok"
               for r in picked)
    by_params = run_export(asv_e2e.first_results, "--format", "json",
                           "--benchmark", r"\(.*shape=small")
    small = json.loads(by_params.stdout)
    assert small and all("shape=small" in r["params"] for r in small)


def test_cli_missing_results_dir(tmp_path):
    out = run_export(tmp_path / "nothing-here", "--format", "csv")
    assert out.returncode == 2
    assert "no results directory" in out.stderr


def test_human_values():
    assert human_value(5.18e-05, "seconds") == "51.8us"
    assert human_value(3.2, "seconds") == "3.2s"
    assert human_value(7925760, "bytes") == "7.56MiB"
    assert human_value(None, "seconds") == ""
    assert human_value(float("nan"), "seconds") == "n/a"
