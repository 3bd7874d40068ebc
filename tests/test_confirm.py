"""Which changes are real (issue 23): the noise table from A/A recordings, confirmation runs
that measure both releases again with interleaved rounds, and the report that lists only
what a confirmation reproduced. Real asv and wheels (the asv_e2e fixture's environments);
the committed A/A recordings for the noise table."""
import json
import re
import subprocess
import sys

import pytest

from mxbench.core.project import load as load_project
from mxbench.core.errors import UserError
from mxbench.core.results import by_name
from mxbench.core.stats import round_ratio_interval
from mxbench.reports import confirmations
from mxbench.reports.changes import Change
from tests.conftest import ARCHIVE_MACHINE, HISTORY_MACHINE, ROOT

FLAVOR = "cpu-mkldnn"
BASE, HEAD = "1.8.0.post0", "1.9.1"
# LayerNorm forward: ~9x faster in 1.9.0 (apache/mxnet#19601), on the medium shape
LAYERNORM = r"^bench_operators\.LayerNorm\.time_forward\("
# enough samples for asv's rule to call a 9x change significant (Mann-Whitney needs more
# than 6 a side to reach p < 0.002)
FEW = ["-a", "repeat=5", "-a", "warmup_time=0.02"]


def mxbench(*args):
    return subprocess.run([sys.executable, "-m", "mxbench"] + list(args), cwd=str(ROOT),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=900)


NOISE_TABLES = sorted((ROOT / "generated-reports" / "noise").glob("*.json"))


@pytest.mark.parametrize("table", NOISE_TABLES, ids=[t.stem for t in NOISE_TABLES])
def test_each_committed_noise_table_is_what_its_command_computes(tmp_path, table):
    committed = json.loads(table.read_text())
    assert len(committed["days"]) >= 2 and len(committed["recordings"]) >= 3
    out = tmp_path / "noise.json"
    dirs = [r["machine_dir"] for r in committed["recordings"]]
    # the command the table names, writing elsewhere
    words = committed["command"].split()
    assert words[:4] == ["python", "-m", "mxbench", "noise"] and words[-2] == "-o", words
    assert words[-1] == "generated-reports/noise/%s" % table.name
    proc = mxbench(*(words[3:-1] + [str(out)]))
    assert proc.returncode == 0, proc.stdout[-3000:]
    again = json.loads(out.read_text())
    for key in ("machine", "points", "recordings", "days", "unknown_noise", "median_noise",
                "margin"):
        assert again.get(key) == committed.get(key, 1.0 if key == "margin" else None), key
    # a history's own record first: the table is the noise of that machine, and named so
    assert committed["machine"] == table.stem == dirs[0].split("/")[-1]


def test_the_history_has_its_noise_table():
    assert ROOT / "generated-reports" / "noise" / (HISTORY_MACHINE + ".json") in NOISE_TABLES


# Issue 23 asks of a table three days, on each host's history.
@pytest.mark.parametrize("machine", [HISTORY_MACHINE, ARCHIVE_MACHINE])
def test_a_historys_noise_table_spans_three_days(machine):
    table = ROOT / "generated-reports" / "noise" / (machine + ".json")
    assert table in NOISE_TABLES and len(json.loads(table.read_text())["days"]) >= 3


def test_a_noise_table_serves_only_its_own_machine(capsys, tmp_path, monkeypatch):
    """Another kind of host's noise says nothing of this one's: a machine without a table gets
    none (changes releases says so; confirm --beyond-noise refuses), and a table filed under
    another machine's name is refused."""
    from mxbench.reports import noise as noise_module
    from mxbench.reports.changes import machine_noise
    other = "no-such-host-1cpu-1gb"
    # a machine of its own history (--of): its table; without one, the history results/ holds
    proc = mxbench("--machine", other, "confirm", "1.9.0", "1.9.1", "--of", other,
                   "--beyond-noise", "--list")
    assert proc.returncode == 2, proc.stdout[-2000:]
    assert ("machine %s has no noise table (generated-reports/noise/%s.json)" % (other, other)
            in proc.stdout) and len(proc.stdout.strip().splitlines()) == 1, proc.stdout
    assert not machine_noise(other)
    assert "no point's noise is applied" in capsys.readouterr().err
    history = machine_noise(HISTORY_MACHINE)
    assert history and history.serves(HISTORY_MACHINE) and not history.serves(other)
    # a table under the wrong name
    misplaced = tmp_path / (other + ".json")
    misplaced.write_text((ROOT / "generated-reports" / "noise" / (HISTORY_MACHINE + ".json")).read_text())
    monkeypatch.setattr(noise_module, "NOISE_DIR", str(tmp_path))
    with pytest.raises(UserError, match="is the noise of machine %s, not of %s"
                       % (HISTORY_MACHINE, other)):
        machine_noise(other)
    # nor does a table given by path judge another machine's history
    proc = mxbench("--machine", ARCHIVE_MACHINE, "confirm", "1.9.0", "1.9.1", "--noise",
                   "generated-reports/noise/%s.json" % HISTORY_MACHINE, "--list")
    assert proc.returncode == 2 and proc.stdout.strip() == (
        "error: generated-reports/noise/%s.json is the noise of machine %s, not of %s"
        % (HISTORY_MACHINE, HISTORY_MACHINE, ARCHIVE_MACHINE)), proc.stdout
    proc = mxbench("confirm", "1.9.0", "1.9.1", "--noise",
                   "generated-reports/noise/%s.json" % HISTORY_MACHINE, "--list", "--limit", "1")
    assert proc.returncode == 0, proc.stdout[-2000:]


def test_noise_needs_three_recordings_of_the_release(tmp_path):
    proc = mxbench("noise", "results-archive/" + ARCHIVE_MACHINE,
                   "experiments/amd-epyc-2cpu-24gb-aa", "--release", "1.9.1", "-o", str(tmp_path / "n.json"))
    assert proc.returncode == 2 and "at least 3" in proc.stdout, proc.stdout[-2000:]
    proc = mxbench("noise", "experiments/amd-epyc-2cpu-24gb-aa", "--release", "1.9.0")
    assert proc.returncode == 2 and "no measured timing of 1.9.0" in proc.stdout


@pytest.mark.parametrize("history,interval,separated,state", [
    (2.0, (1.9, 1.8, 2.0), True, confirmations.CONFIRMED),
    (2.0, (1.9, 1.8, 2.0), False, confirmations.INCONCLUSIVE),  # the rounds overlap
    (2.0, (1.1, 1.05, 1.15), True, confirmations.REFUTED),  # real, but under the factor
    (2.0, (1.0, 0.9, 1.3), False, confirmations.REFUTED),   # no change
    (2.0, (1.3, 0.98, 1.6), True, confirmations.INCONCLUSIVE),  # the interval reaches 1
    (1.5, (1.1, 0.9, 1.6), False, confirmations.INCONCLUSIVE),  # ... and holds the history's
    (0.5, (0.4, 0.35, 0.45), True, confirmations.CONFIRMED),
    (0.5, (1.5, 1.4, 1.6), False, confirmations.REFUTED),   # the other way
])
def test_the_verdict_rule(history, interval, separated, state):
    assert confirmations.decide(history, interval, 1.2, separated) == state


def test_rounds_separate_only_when_every_round_lies_beyond():
    from mxbench.core.stats import rounds_separated
    low, high = [[1.0, 1.1], [1.2, 1.0]], [[1.5, 1.6], [1.3, 1.4]]
    assert rounds_separated(low, high, slower=True)
    assert not rounds_separated(low, high, slower=False)
    assert rounds_separated(high, low, slower=False)
    assert not rounds_separated(low, high + [[1.05, 1.05]], slower=True)
    assert not rounds_separated([], high, slower=True)


def test_a_ratio_interval_holds_the_ratio_and_is_reproducible():
    before = [[1.0, 1.1, 0.9], [1.05, 0.95, 1.02], [1.0, 0.98, 1.01]]
    after = [[2.0, 2.1, 1.9], [2.05, 1.95, 2.02], [2.0, 1.97, 2.03]]
    ratio, low, high = round_ratio_interval(before, after)
    assert low < ratio < high and low > 1.7 and high < 2.3
    assert round_ratio_interval(before, after) == (ratio, low, high)
    assert round_ratio_interval([], after) is None
    assert round_ratio_interval(None, after) is None


def test_rounds_that_differ_as_processes_do_are_no_change():
    """One build, 4 rounds a side, each round a process that runs 1x or 2x (as the A/A run
    measured): every sample of a side differs from the other's median, yet resampling whole
    rounds finds that a side can be all 1x or all 2x: no change."""
    def rounds(speeds):
        return [[speed * (1 + 0.01 * i) for i in range(5)] for speed in speeds]
    ratio, low, high = round_ratio_interval(rounds([1, 1, 2, 1]), rounds([2, 1, 2, 2]))
    assert ratio > 1.2 and low <= 1 <= high
    change = Change("p", 1.0, 1.5, 1.5, "slower", "seconds")
    assert confirmations.judged(change, (rounds([1, 1, 2, 1]), rounds([2, 1, 2, 2])),
                                1.2).state == confirmations.INCONCLUSIVE
    ratio, low, high = round_ratio_interval(rounds([1, 1, 1, 1]), rounds([2, 2, 2, 2]))
    assert low > 1.9
    assert confirmations.judged(change, (rounds([1, 1, 1, 1]), rounds([2, 2, 2, 2])),
                                1.2).state == confirmations.CONFIRMED


def test_a_confirmation_run_confirms_a_real_change_and_the_report_lists_it(recorded_project):
    project = recorded_project
    proc = project.mxbench("run", BASE, HEAD, "--flavor", FLAVOR, "--bench", LAYERNORM,
                           "--", *FEW)
    assert proc.returncode == 0, proc.stdout[-3000:]
    listed = project.mxbench("confirm", BASE, HEAD, "--flavor", FLAVOR, "--list",
                             "--bench", "LayerNorm")
    assert listed.returncode == 0, listed.stdout[-3000:]
    assert "LayerNorm.time_forward('medium'" in listed.stdout
    assert "not yet confirmed" in listed.stdout
    assert not (project.base / "results-confirmations").exists()  # --list measures nothing
    proc = project.mxbench("confirm", BASE, HEAD, "--flavor", FLAVOR, "--bench",
                           r"LayerNorm.*medium", "--rounds", "2", "--", *FEW)
    assert proc.returncode == 0, proc.stdout[-3000:]
    line = [l for l in proc.stdout.splitlines()
            if "LayerNorm.time_forward('medium', 'float32'" in l][-1]
    # ~9x faster (0.1x on a quiet machine); its interleaved ratio's figure is the machine's,
    # its direction the release's
    ratio = re.search(r"  (\d+\.\d+)x \[", line)
    assert " confirmed " in line and ratio and float(ratio.group(1)) < 1, proc.stdout[-3000:]
    assert "0 not yet confirmed" in proc.stdout  # every candidate measured has a verdict
    # kept beside the results, as an asv results directory of its own, with its conditions
    kept = project.base / "results-confirmations" / ("%s..%s" % (BASE, HEAD))
    target = load_project(str(project.conf_path), str(kept))
    for release in (BASE, HEAD):
        assert target.store.has(project.machine, project.tags[release],
                                project.env_name(FLAVOR))
    assert target.store.conditions(project.machine)[-1]["outcome"] == "exit 0"
    # run again, it measures only what has no verdict yet: here nothing (--rerun: all again)
    runs = len(target.store.conditions(project.machine))
    again = project.mxbench("confirm", BASE, HEAD, "--flavor", FLAVOR, "--bench",
                            r"LayerNorm.*medium")
    assert again.returncode == 0 and "has a verdict" in again.stdout, again.stdout[-3000:]
    assert "--rerun measures them again" in again.stdout
    assert len(target.store.conditions(project.machine)) == runs
    # ... and so does every consecutive pair of the history, one after the other
    again = project.mxbench("confirm", "--history", "--flavor", FLAVOR, "--bench",
                            r"LayerNorm.*medium")
    assert again.returncode == 0, again.stdout[-3000:]
    assert "## %s -> %s" % (BASE, HEAD) in again.stdout and "has a verdict" in again.stdout
    assert re.search(r"the history's 1 pair\(s\) of %s, their candidates now: [1-9]\d* confirmed, "
                     r"\d+ refuted, \d+ inconclusive, 0 not yet confirmed" % FLAVOR,
                     again.stdout), again.stdout[-3000:]
    assert len(target.store.conditions(project.machine)) == runs
    report = project.mxbench("changes", "releases")
    assert report.returncode == 0, report.stdout[-3000:]
    # the pair's section: up to the next pair, or the report's closing sections
    section = report.stdout.split("### %s → %s" % (BASE, HEAD))[1].split("###")[0].split(
        "\n## ")[0]
    # float32's 7x is the change; float16's point sits at the factor (1.2x) and confirms
    # on some runs: at least the one
    assert re.search(r"\*\*[1-9]\d* confirmed\*\*", section), section[:2000]
    assert "LayerNorm.time_forward('medium', 'float32'" in section
    listed_names = [l for l in section.splitlines() if l.startswith("| `")]
    assert all("[" in l for l in listed_names), listed_names  # each with its interval

    # Another host (here: another machine name) confirms the history's changes on its own
    # kind: recorded under its own name, judged against the history's candidates, and the
    # report shows its verdict beside the history's
    other = project.mxbench("confirm", BASE, HEAD, "--machine", "other-kind-host", "--of",
                            project.machine, "--flavor", FLAVOR, "--bench",
                            r"LayerNorm.*medium', 'float32", "--rounds", "2", "--", *FEW)
    assert other.returncode == 0, other.stdout[-3000:]
    assert "the changes of machine %s's history" % project.machine in other.stdout
    # a verdict of its own (which one is the measurement's: a busy machine can refute)
    verdict = [l for l in other.stdout.splitlines()
               if "LayerNorm.time_forward('medium', 'float32'" in l][-1]
    state = re.search(r" (confirmed|refuted|inconclusive) ", verdict)
    assert state, verdict
    kept = project.base / "results-confirmations" / ("%s..%s" % (BASE, HEAD))
    assert (kept / "other-kind-host").is_dir()
    report = project.mxbench("changes", "releases")
    section = report.stdout.split("### %s → %s" % (BASE, HEAD))[1].split("###")[0].split(
        "\n## ")[0]
    row = [l for l in section.splitlines()
           if "LayerNorm.time_forward('medium', 'float32'" in l][0]
    assert row.endswith("|") and ": %s " % state.group(1) in row.split("|")[-2], row
    assert re.search(r"Of the [1-9]\d* confirmed changes above, %d were confirmed again on "
                     r"another CPU kind \(.*?\), %d are CPU-specific" % (
                         state.group(1) == "confirmed", state.group(1) != "confirmed"),
                     report.stdout), report.stdout[-3000:]

    # Another kind measures again only what the history's own runs confirmed past a ratio
    listed = project.mxbench("confirm", BASE, HEAD, "--machine", "other-kind-host", "--of",
                             project.machine, "--flavor", FLAVOR, "--list",
                             "--confirmed-at-least", "1000")
    assert listed.returncode == 0, listed.stdout[-3000:]
    assert "confirmed by the history's own runs at 1000.0x or more" in listed.stdout

    # The documented change (#19601, LayerNorm in 1.9.0) at its shape: its field case
    # recorded, then measured again interleaved whether the history flags it or not
    proc = project.mxbench("run", BASE, HEAD, "--flavor", FLAVOR, "--bench", LAYERNORM,
                           "--selection", "field", "--", *FEW)
    assert proc.returncode == 0, proc.stdout[-3000:]
    documented = ("confirm", "--documented", "--flavor", FLAVOR, "--bench", "field-19601'")
    proc = project.mxbench(*documented, "--rounds", "2", "--", *FEW)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "documented changes at their shapes" in proc.stdout
    row = [l for l in proc.stdout.splitlines() if l.startswith("1.9.0 ") and "Marian" in l]
    assert row and re.search(r"(seen and confirmed at its shape|not seen at its shape|"
                             r"inconclusive|the other way)", row[0]), proc.stdout[-3000:]
    field_point = "bench_operators.LayerNorm.time_forward('field-19601', 'float32', 'cpu')"
    target = load_project(str(project.conf_path), str(kept)).store
    for release in (BASE, HEAD):
        measured = by_name(target.points(project.machine, project.tags[release],
                                         project.env_name(FLAVOR)))
        assert len(measured[field_point].samples) == 10  # 2 rounds of 5
    again = project.mxbench(*documented)  # measured: nothing runs again
    assert again.returncode == 0 and "interleaved rounds" not in again.stdout, again.stdout

    # The same path on an A/A pair, with a planted false candidate: HEAD's recording filed a
    # second time, under another name, with BASE's timings (LayerNorm ~9x slower, so asv's
    # rule flags it). Measured again, HEAD against itself, the candidate must not be confirmed:
    # refuted, or inconclusive where the other worker's load swings between the rounds (4
    # rounds a side: a swing biases fewer of them).
    planted = project.results_dir / "planted"
    planted.mkdir()
    machine = json.loads((project.results_dir / project.machine / "machine.json").read_text())
    machine["machine"] = "planted"
    (planted / "machine.json").write_text(json.dumps(machine))
    relabelled = json.loads(project.result_file(BASE, FLAVOR).read_text())
    relabelled["commit_hash"] = project.tags[HEAD]
    relabelled["params"]["machine"] = "planted"
    (planted / project.result_file(HEAD, FLAVOR).name).write_text(json.dumps(relabelled))
    point = "LayerNorm.time_forward('medium', 'float32'"
    aa = ("confirm", HEAD, "--aa", project.machine, "planted", "--flavor", FLAVOR,
          "--bench", r"LayerNorm.*medium', 'float32")
    listed = project.mxbench(*aa, "--list")
    assert listed.returncode == 0 and point in listed.stdout, listed.stdout[-3000:]
    proc = project.mxbench(*aa, "--rounds", "4", "--", *FEW)
    assert proc.returncode == 0, proc.stdout[-3000:]
    line = [l for l in proc.stdout.splitlines() if point in l][-1]
    verdict = re.search(r"  (refuted|inconclusive)  ", line)
    assert verdict, proc.stdout[-3000:]
    assert "A/A %s, %s: 0 confirmed" % (HEAD, FLAVOR) in proc.stdout
    # kept apart from the pairs, each round's samples in order: 4 rounds a side of 5 samples
    kept = project.base / "results-confirmations" / ("aa-%s" % HEAD)
    store = load_project(str(project.conf_path), str(kept)).store
    samples = [p.samples for p in store.points(project.machine, project.tags[HEAD],
                                               project.env_name(FLAVOR))
               if p.name == "bench_operators.%s, 'cpu')" % point]
    assert [len(s) for s in samples] == [40], samples
    # again: the point has its A/A rounds, so nothing is measured (and nothing replaced)
    runs = len(store.conditions(project.machine))
    again = project.mxbench(*aa)
    assert again.returncode == 0 and "has a verdict" in again.stdout, again.stdout[-3000:]
    assert "  %s  " % verdict.group(1) in [l for l in again.stdout.splitlines()
                                          if point in l][-1]
    assert len(load_project(str(project.conf_path), str(kept)).store.conditions(
        project.machine)) == runs
    assert confirmations.held_pairs(load_project(str(project.conf_path))) == [
        (BASE, HEAD)]


def test_an_aa_run_splits_into_odd_and_even_rounds():
    rounds = [[r * 10 + i for i in range(confirmations.ROUND_SAMPLES)] for r in range(4)]
    a, b = confirmations.split_rounds([s for r in rounds for s in r])
    assert a == [rounds[0], rounds[2]] and b == [rounds[1], rounds[3]]
    assert confirmations.split_rounds(rounds[0] + rounds[1] + rounds[2]) is None  # 3 rounds
    assert confirmations.split_rounds(rounds[0] + rounds[1][:3]) is None  # a round cut short
    assert confirmations.split_rounds(None) is None
    assert confirmations.rounds_of(rounds[0] + rounds[1]) == rounds[:2]


@pytest.mark.parametrize("args,message", [
    (["1.9.1"], "confirm needs BASE and HEAD"),
    (["1.9.0", "1.9.1", "--aa", "x", "y"], "--aa compares one release with itself"),
    ([], "confirm needs BASE and HEAD"),
    (["1.9.0", "--history"], "--history confirms every consecutive pair of the history: "
                             "give no releases (not 1.9.0)"),
    (["1.9.0", "--documented"], "--documented confirms the documented changes' pairs"),
    (["--documented", "--history"], "--documented confirms the documented changes' pairs"),
    (["1.9.0", "1.9.1", "--confirmed-at-least", "0.5"], "--confirmed-at-least"),
])
def test_confirm_with_the_wrong_releases_says_so_in_one_line(args, message):
    proc = mxbench("confirm", *args, "--list")
    assert proc.returncode != 0 and message in proc.stdout, proc.stdout[-2000:]
    assert "Traceback" not in proc.stdout


def test_changes_between_releases_never_lists_an_unconfirmed_change(tmp_path):
    """The committed history with no confirmation runs: every pair says how many candidates
    wait for one, and lists none of them."""
    from mxbench.reports.changes import markdown_report

    def judge(flavor, ra, rb, changes):
        return [confirmations.Verdict(c, confirmations.UNCONFIRMED, None, None, None)
                for c in changes]
    change = Change("bench_operators.dot.time_forward('medium', 'float32', 'cpu')", 1.0, 2.0,
                    2.0, "slower", "seconds")
    text = markdown_report({FLAVOR: [("1.9.0", "1.9.1", [change])]}, "m", 1.2, 10,
                           judge=judge)
    assert "**0 confirmed**, 0 refuted, 0 inconclusive, 1 not yet confirmed" in text
    assert "`python -m mxbench confirm 1.9.0 1.9.1 --flavor cpu-mkldnn`" in text
    # a report of another results directory names it in the command that confirms
    text = markdown_report({FLAVOR: [("1.9.0", "1.9.1", [change])]}, "m", 1.2, 10,
                           results_dir="results-archive", judge=judge)
    assert "`python -m mxbench --results results-archive confirm 1.9.0 1.9.1 --flavor " \
        "cpu-mkldnn`" in text
    assert "| `" not in text


def test_the_report_counts_the_confirmed_changes_within_the_tables_margin():
    """A table's margin widens every point's threshold; the report says how many confirmed
    changes it would no longer flag, and how large they are."""
    from mxbench.reports.changes import markdown_report
    from mxbench.reports.noise import Noise

    def judge(flavor, ra, rb, changes):
        return [confirmations.Verdict(c, confirmations.CONFIRMED, c.ratio, c.ratio * 0.9,
                                      c.ratio * 1.1) for c in changes]
    names = ["bench_operators.%s.time_forward('medium', 'float32', 'cpu')" % op
             for op in ("dot", "exp", "log")]
    changes = [Change(names[0], 1.0, 2.0, 2.0, "slower", "seconds"),
               Change(names[1], 1.0, 1.3, 1.3, "slower", "seconds"),
               Change(names[2], 1.0, 0.7, 0.7, "faster", "seconds")]
    points = dict((n, {"recordings": 3, "noise": 1.1}) for n in names)
    for margin, text in ((1.0, "3 of them lie beyond their point's noise (t.json), the "
                               "candidates `confirm --beyond-noise` measures; the other 0 lie"),
                         (1.5, "1 of them lie beyond their point's noise (t.json, each point's "
                               "noise times 1.5), the candidates `confirm --beyond-noise` "
                               "measures; the other 2 (1.30-1.43x in the history, median "
                               "1.36x) lie within it.")):
        noise = Noise({"points": points, "unknown_noise": 1.1, "margin": margin}, "t.json")
        noise.where = lambda: "t.json"
        report = markdown_report({FLAVOR: [("1.9.0", "1.9.1", changes)]}, "m", 1.2, 10,
                                 judge=judge, noise=noise)
        assert "Over every pair above, 3 confirmed changes; " + text in report, report
        # the confirmed changes are listed whatever the margin
        assert all("`%s`" % n in report for n in names)
    # the candidates waiting for a run: how many of them the table lets through
    unjudged = markdown_report({FLAVOR: [("1.9.0", "1.9.1", changes)]}, "m", 1.2, 10,
                               judge=lambda flavor, ra, rb, cs: [
                                   confirmations.Verdict(c, confirmations.UNCONFIRMED, None,
                                                         None, None) for c in cs],
                               noise=noise)
    assert "`--list` names them); 1 of them beyond their noise, which `--beyond-noise` " \
        "takes." in unjudged, unjudged


HELD_OUT = ["experiments/amd-epyc-2cpu-24gb-" + name
            for name in ("aa", "aa2", "set-old1", "short3-a", "short3-old1")]


def test_held_out_judges_every_pair_of_days_by_the_table_of_the_others(tmp_path):
    proc = mxbench("noise", *HELD_OUT, "--release", "1.9.1", "--held-out")
    assert proc.returncode == 0, proc.stdout[-3000:]
    lines = proc.stdout.strip().splitlines()
    pairs = [line for line in lines if " vs " in line]
    # 5 recordings on 3 days (aa/aa2 on the 21st, short3-a/short3-old1 on the 25th): 10
    # pairs, 2 of them of one day
    assert len(pairs) == 8, proc.stdout
    assert lines[-2].startswith("8 pairs of different days, beyond their noise: ")
    assert not any(line.startswith("amd-epyc-2cpu-24gb-aa (") and "-aa2 (" in line
                   for line in pairs)
    # one pair through the history's own path: the table without the pair, then changes aa
    # (a pair whose other three span three days: a table needs them)
    line = next(p for p in pairs if p.startswith("amd-epyc-2cpu-24gb-aa2 (")
                and "-short3-a (" in p)
    timings, beyond = re.search(r": (\d+) timings, \d+ flagged, beyond their noise (\d+) ",
                                line).groups()
    table = tmp_path / "noise.json"
    proc = mxbench("noise", *[d for d in HELD_OUT if not d.endswith(("aa2", "short3-a"))],
                   "--release", "1.9.1", "-o", str(table))
    assert proc.returncode == 0, proc.stdout[-2000:]
    proc = mxbench("changes", "aa", "--machine-a", "amd-epyc-2cpu-24gb-aa2",
                   "--machine-b", "amd-epyc-2cpu-24gb-short3-a", "--release", "1.9.1",
                   "--noise", str(table))
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert "beyond each point's noise (%s): %s of %s timings" % (table, beyond, timings) \
        in proc.stdout, (line, proc.stdout)


def test_a_tables_margin_widens_every_threshold_where_the_table_is_applied(tmp_path):
    """--margin M: each point's threshold is its noise times M, in --held-out's tables and in
    a table built with it, which every report that applies the table then uses."""
    def beyond_counts(stdout):
        return dict(re.findall(r"^(\S+ \(\S+\) vs \S+ \(\S+\)): \d+ timings, \d+ flagged, "
                               r"beyond their noise (\d+) ", stdout, re.M))
    plain = mxbench("noise", *HELD_OUT, "--release", "1.9.1", "--held-out")
    wide = mxbench("noise", *HELD_OUT, "--release", "1.9.1", "--held-out", "--margin", "1.5")
    assert plain.returncode == 0 and wide.returncode == 0, wide.stdout[-3000:]
    before, after = beyond_counts(plain.stdout), beyond_counts(wide.stdout)
    assert len(before) == 8 and before.keys() == after.keys(), wide.stdout
    assert all(int(after[k]) <= int(before[k]) for k in before)
    assert sum(map(int, after.values())) < sum(map(int, before.values()))
    assert "8 pairs of different days, beyond their noise x 1.5: " in wide.stdout
    # built into a table, the margin is the table's: changes aa --noise applies it
    rest = [d for d in HELD_OUT if not d.endswith(("aa2", "short3-a"))]
    table = tmp_path / "noise.json"
    proc = mxbench("noise", *rest, "--release", "1.9.1", "--margin", "1.5", "-o", str(table))
    assert proc.returncode == 0 and "thresholds: noise x 1.5" in proc.stdout, proc.stdout
    assert json.loads(table.read_text())["margin"] == 1.5
    pair = next(k for k in after if k.startswith("amd-epyc-2cpu-24gb-aa2 (")
                and "-short3-a (" in k)
    proc = mxbench("changes", "aa", "--machine-a", "amd-epyc-2cpu-24gb-aa2",
                   "--machine-b", "amd-epyc-2cpu-24gb-short3-a", "--release", "1.9.1",
                   "--noise", str(table))
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert "beyond each point's noise (%s): %s of " % (table, after[pair]) in proc.stdout
    proc = mxbench("noise", *rest, "--release", "1.9.1", "--margin", "0.5")
    assert proc.returncode == 2 and "must be a ratio of 1 or more" in proc.stdout, proc.stdout


def test_held_out_needs_five_recordings_and_writes_no_table(tmp_path):
    proc = mxbench("noise", *HELD_OUT[:4], "--release", "1.9.1", "--held-out")
    assert proc.returncode == 2 and "needs at least 5" in proc.stdout, proc.stdout[-2000:]
    proc = mxbench("noise", *HELD_OUT, "--release", "1.9.1", "--held-out", "-o",
                   str(tmp_path / "n.json"))
    assert proc.returncode == 2 and "drop -o" in proc.stdout, proc.stdout[-2000:]
    assert not (tmp_path / "n.json").exists()
