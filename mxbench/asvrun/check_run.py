"""A check's runs (`mxbench check BASE HEAD`): asv continuous of the two releases into their own
store (.asv/check-results, not results/), then a second pass over what the first flagged;
asv compare's verdict on every point measured on both. The texts are reports/check.py's."""
import os
import re
from collections import namedtuple

from env_matrix.matrix import MatrixError
from mxbench.asvrun import runner
from mxbench.core import selection as point_selection
from mxbench.core.change_rule import compare
from mxbench.core.results import Store, by_name

# code: asv continuous's exit status (of the second pass, where there was one); compared:
# the first pass's verdicts ([]: no point measured on both releases); regressed: the names
# still slower after the passes, where code is 1
Checked = namedtuple("Checked", "code compared regressed")


def check_store(project):
    """Where a check records: not results/, so that its subset runs never replace the
    recorded history of the two releases nor reach the published site (.asv is git-ignored)."""
    return Store(os.path.join(project.work_dir, "check-results"))


def forget_results(store, machine, commits, env_name):
    """A check starts clean: no points left over from an earlier check of these commits."""
    for commit in commits:
        path = store.filename(machine, commit, env_name)
        if os.path.exists(path):
            os.unlink(path)


def compared_points(store, machine, base, head, env_name, factor):
    """asv compare's verdict for every point measured on both sides."""
    before, after = (by_name(store.points(machine, c, env_name)) for c in (base, head))
    return compare(before, after, factor)


def check_regexes(project, flavor, selection, bench):
    """asv -b regexes for the points of the selection (on the flavor's device) that `bench`
    matches."""
    device = project.matrix.flavor(flavor).device
    names = [point_selection.point_name(b, p) for b in point_selection.discover()
             for p in point_selection.selected_points(b, selection, [device])]
    names = [n for n in names if re.search(bench, n)]
    return point_selection.names_regexes(names) or [point_selection.NOTHING]


def prepared(project, base_release, head_release, flavor, variant, bench, machine):
    """(environment, base commit, head commit, machine, store, asv config) of a check, its
    store cleared of these commits' points; MatrixError for a check that cannot judge."""
    if base_release == head_release:  # asv would measure once and compare it with itself
        raise MatrixError("BASE and HEAD are both %s; for an A/A comparison run the release "
                          "twice and use python -m mxbench changes aa" % base_release)
    try:
        re.compile(bench)
    except re.error as exc:
        raise MatrixError("-b %r is not a regular expression (%s)" % (bench, exc))
    env_name = project.environment(flavor, variant)
    for release in (base_release, head_release):
        project.require_build(release, flavor)  # else asv records skips only: no verdict
    project.ensure_ladder()
    base, head = (project.commit(r) for r in (base_release, head_release))
    machine = runner.ensure_machine(machine)
    store = check_store(project)
    os.makedirs(store.results_dir, exist_ok=True)
    forget_results(store, machine, (base, head), env_name)
    config = runner.config_copy(project.config, os.path.join(project.work_dir, "check.conf.json"),
                                results_dir=store.results_dir)
    return env_name, base, head, machine, store, config


def run_check(project, base_release, head_release, flavor, variant, factor, bench,
              machine=None, asv_extra=(), confirm=True, selection="long"):
    """Checked: asv continuous of the selection's points that `bench` matches; with
    `confirm`, the slower ones measured again, and only those flagged twice stay."""
    env_name, base, head, machine, store, config = prepared(
        project, base_release, head_release, flavor, variant, bench, machine)

    def continuous(regexes):
        selected = [arg for regex in regexes for arg in ("-b", regex)]
        with runner.recording(project):  # it installs into the asv environments
            return runner.run_asv(["continuous", "--factor", str(factor), "--machine",
                                   machine, "-E", env_name, "--split"] + selected
                                  + list(asv_extra) + [base, head], config=config,
                                  cwd=project.base)

    code = continuous(check_regexes(project, flavor, selection, bench))
    compared = compared_points(store, machine, base, head, env_name, factor)
    if not compared:  # asv says "No benchmarks selected" and exits 1: that is no regression
        return Checked(code, [], [])
    regressed = [c.name for c in compared if c.verdict == "slower"]
    if code == 1 and confirm and regressed:
        print("second pass: measuring again the %d flagged point(s): %s"
              % (len(regressed), ", ".join(regressed)), flush=True)
        code = continuous(point_selection.names_regexes(regressed))
        if code == 0:
            print("not confirmed: the second pass flags none of them", flush=True)
    if code != 1:
        return Checked(code, compared, [])
    return Checked(code, compared, [c.name for c in compared_points(
        store, machine, base, head, env_name, factor) if c.verdict == "slower"])
