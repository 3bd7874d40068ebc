"""One history per kind of CPU: the machine name says the CPU kind (vendor, family, model),
the committed history keeps its name on its own kind, and no command adds one kind's
recordings to another's history without --other-cpu; reports that set recordings side by
side say when they come from two kinds or from a busy recording.

The hosts here are described by /proc/cpuinfo texts (MXBENCH_CPUINFO_FILE in its place for
the commands): the committed history's (AMD family 25 model 17), a newer AMD EPYC of the
same model name (family 26 model 2) and this session's Intel Xeon (family 6 model 167)."""
import json
import os
import subprocess
import sys

import pytest

from conftest import HISTORY_MACHINE, ROOT
from mxbench.asvrun import conditions, runner
from mxbench.core import results
from mxbench.core.errors import UserError

FLAGS = "fpu sse4_2 avx avx2 avx512f"


def cpuinfo(vendor, family, model, name, flags=FLAGS):
    one = ("processor\t: {n}\nvendor_id\t: %s\ncpu family\t: %s\nmodel\t\t: %s\n"
           "model name\t: %s\nstepping\t: 1\nflags\t\t: %s\n" % (vendor, family, model, name,
                                                                  flags))
    return "\n".join(one.format(n=n) for n in range(2))


HISTORY_CPU = cpuinfo("AuthenticAMD", 25, 17, "AMD EPYC")
NEWER_AMD = cpuinfo("AuthenticAMD", 26, 2, "AMD EPYC")
INTEL = cpuinfo("GenuineIntel", 6, 167, "Intel(R) Xeon(R) Processor")


TAIL = "-%dcpu-%dgb" % (os.cpu_count(), runner._ram_gb())  # this host's CPUs and memory


def test_the_history_keeps_its_name_on_its_cpu_kind_and_other_kinds_get_their_own():
    history = results.Store(str(ROOT / "results"))
    assert runner.machine_name(HISTORY_CPU, history) == "amd-epyc-avx512" + TAIL
    assert runner.machine_name(NEWER_AMD, history) == "amd-epyc-f26m2-avx512" + TAIL
    assert runner.machine_name(INTEL, history) == "intel-xeon-f6m167-avx512" + TAIL
    avx2 = HISTORY_CPU.replace(" avx512f", "")
    assert runner.machine_name(avx2, history) == "amd-epyc-f25m17" + TAIL
    # the history's name describes family 25 model 17 only: it is not the newer host's
    assert HISTORY_MACHINE == "amd-epyc-avx512-2cpu-24gb"


def mxbench(*args, cpu=None, env=None):
    full = dict(os.environ, **(env or {}))
    if cpu is not None:
        full[conditions.CPUINFO_ENV] = str(cpu)
    return subprocess.run([sys.executable, "-m", "mxbench"] + list(args), cwd=str(ROOT),
                          env=full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=600)


def test_setup_on_a_newer_cpu_of_the_same_model_name_names_a_machine_of_its_own(tmp_path):
    """What `make bench` runs first on such a host: its machine is not the history's, so
    the committed results/ are never its to add to (git status: unchanged)."""
    fake = tmp_path / "cpuinfo"
    fake.write_text(NEWER_AMD)
    before = subprocess.run(["git", "status", "--porcelain", "results"], cwd=str(ROOT),
                            stdout=subprocess.PIPE, universal_newlines=True).stdout
    proc = mxbench("setup", cpu=fake)
    assert proc.returncode == 0, proc.stdout
    assert "asv machine: amd-epyc-f26m2-avx512" + TAIL in proc.stdout, proc.stdout
    after = subprocess.run(["git", "status", "--porcelain", "results"], cwd=str(ROOT),
                           stdout=subprocess.PIPE, universal_newlines=True).stdout
    assert after == before


def recorded_machine(store_dir, machine, cpu_text, commits=("a" * 40,), env="env-a",
                     busy=False):
    """A machine directory whose conditions log says it was recorded on this CPU."""
    folder = store_dir / machine
    folder.mkdir(parents=True, exist_ok=True)
    identity = conditions.cpu_identity(cpu_text)
    with open(str(folder / "conditions.jsonl"), "a") as fh:
        fh.write(json.dumps({"commits": list(commits), "env_names": [env], "cpu": identity,
                             "busy": busy, "command": "python -m mxbench run"}) + "\n")
    return folder


def test_a_run_into_a_history_of_another_cpu_kind_is_refused_in_one_line(tmp_path):
    store = tmp_path / "results"
    recorded_machine(store, "history", HISTORY_CPU)
    fake = tmp_path / "cpuinfo"
    fake.write_text(NEWER_AMD)
    proc = mxbench("--results", str(store), "--machine", "history", "run", "1.9.1",
                   "--flavor", "cpu-mkldnn", "--bench",
                   r"^bench_overhead\.Dispatch\.time_add_1_element\(", cpu=fake)
    assert proc.returncode == 2, proc.stdout[-3000:]
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith("error: results/history was recorded on AuthenticAMD family 25 "
                           "model 17; this host is AuthenticAMD family 26 model 2"), last
    assert "--other-cpu" in last and "Traceback" not in proc.stdout
    assert sorted(os.listdir(str(store / "history"))) == ["conditions.jsonl"]


def test_another_cpu_kind_is_allowed_when_asked_with_a_warning(tmp_path, monkeypatch, capsys):
    store = results.Store(str(tmp_path))
    recorded_machine(tmp_path, "history", HISTORY_CPU)
    fake = tmp_path / "cpuinfo"
    fake.write_text(NEWER_AMD)
    monkeypatch.setenv(conditions.CPUINFO_ENV, str(fake))
    with pytest.raises(UserError, match="a history of another CPU kind"):
        runner.require_same_cpu_kind(store, "history")
    monkeypatch.setenv(conditions.OTHER_CPU_ENV, "1")
    runner.require_same_cpu_kind(store, "history")
    assert "adds this CPU's timings to that history (--other-cpu)" in capsys.readouterr().err
    # this host's own kind: nothing to say
    fake.write_text(HISTORY_CPU)
    runner.require_same_cpu_kind(store, "history")
    assert capsys.readouterr().err == ""


def test_merge_refuses_another_cpu_kinds_recordings_under_the_same_name(tmp_path):
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    recorded_machine(ours, "runner-x64", HISTORY_CPU)
    recorded_machine(theirs, "runner-x64", NEWER_AMD)
    proc = mxbench("--results", str(ours), "merge", str(theirs))
    assert proc.returncode == 2, proc.stdout
    assert "not merged (another CPU kind's timings in one history)" in proc.stdout
    assert len(results.read_conditions_log(str(ours / "runner-x64" / "conditions.jsonl"))) == 1
    proc = mxbench("--results", str(ours), "--other-cpu", "merge", str(theirs))
    assert proc.returncode == 0, proc.stdout
    assert "merged (--other-cpu)" in proc.stdout


def test_a_comparison_of_two_cpu_kinds_or_a_busy_recording_says_so(tmp_path):
    """Every recording of a side counts: one re-recorded point (--bench) on another CPU
    changed that side's timings as much as a whole record."""
    a, b = "a" * 40, "b" * 40
    recorded_machine(tmp_path, "m", HISTORY_CPU, commits=(a, b))
    store = results.Store(str(tmp_path))
    sides = [("1.9.0", a, "env-a"), ("1.9.1", b, "env-a")]
    assert conditions.recordings_note(store, "m", sides) == ""
    recorded_machine(tmp_path, "m", NEWER_AMD, commits=(b,), busy=True)
    note = conditions.recordings_note(store, "m", sides)
    assert note == ("recorded on two kinds of CPU: 1.9.0 on AuthenticAMD family 25 model 17 "
                    "against 1.9.1 on AuthenticAMD family 25 model 17 and AuthenticAMD family "
                    "26 model 2; recorded on a busy machine: 1.9.1")


def test_noise_refuses_recordings_of_two_cpu_kinds(monkeypatch):
    from mxbench.reports import noise
    kinds = {("AuthenticAMD", "25", "17"), ("AuthenticAMD", "26", "2")}
    with pytest.raises(UserError, match="a noise table is one CPU kind's"):
        noise.require_one_cpu_kind(kinds)
    noise.require_one_cpu_kind({("AuthenticAMD", "25", "17")})


def test_the_site_shows_a_kinds_committed_and_local_records_as_one_machine(tmp_path):
    """On a host of a kind results-cpu-kinds/ records, `make bench` writes results/<that
    machine>/, and the site (the README's next command, `mxbench publish`) merges both
    folders: one machine, each point its later measurement, both conditions logs. (It
    refused, "the same result file in both results folders", and published nothing.)"""
    from mxbench.site import publish
    kinds = results.Store(str(ROOT / "results-cpu-kinds"))
    machine = "intel-xeon-f6m167-avx512-2cpu-24gb"
    committed = kinds.files(machine)
    shared = os.path.basename(committed[0])
    local = tmp_path / "results"
    (local / machine).mkdir(parents=True)
    (local / "benchmarks.json").write_bytes((ROOT / "results-cpu-kinds" / "benchmarks.json")
                                            .read_bytes())
    info = results.read_machine_file(os.path.join(kinds.machine_dir(machine), "machine.json"))
    info["os"] = "Linux (this host's boot)"
    results.write_json_atomic(str(local / machine / "machine.json"), info)
    # this host's recording of one commit and environment the committed records hold too:
    # one point measured a day after the committed one, one a day before
    data = results.read_result_file(committed[0])
    column = {c: i for i, c in enumerate(data["result_columns"])}
    first = {n: next((i for i, v in enumerate(row[column["result"]]) if results.measured(v)), None)
             for n, row in data["results"].items()}
    names = sorted(n for n, i in first.items() if i is not None)[:2]
    committed_value = {n: data["results"][n][column["result"]][first[n]] for n in names}
    for name, days in zip(names, (1, -1)):
        row = data["results"][name]
        row[column["started_at"]] += days * 86400000
        row[column["result"]][first[name]] *= 2
    results.write_json_atomic(str(local / machine / shared), data, compact=True)
    ours = dict(results.read_conditions_log(kinds.conditions_path(machine))[-1], note="local")
    results.write_conditions_log(str(local / machine / "conditions.jsonl"), [ours])

    copy = results.Store(publish.site_results(results.Store(str(local)), str(tmp_path / "w"),
                                              [kinds]))
    assert sorted(map(os.path.basename, copy.files(machine))) == sorted(
        map(os.path.basename, committed))
    merged = results.read_result_file(os.path.join(copy.machine_dir(machine), shared))["results"]
    assert merged[names[0]][column["result"]][first[names[0]]] == 2 * committed_value[names[0]]
    assert merged[names[1]][column["result"]][first[names[1]]] == committed_value[names[1]]
    logged = results.read_conditions_log(copy.conditions_path(machine))
    assert logged[0] == ours and logged[1:] == results.read_conditions_log(
        kinds.conditions_path(machine))
    assert results.read_machine_file(os.path.join(copy.machine_dir(machine), "machine.json"))[
        "os"] == info["os"]
