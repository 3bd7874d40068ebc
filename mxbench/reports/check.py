"""`mxbench check`'s texts: the verdict line, and for each regressed point whether its entry's
instruction count moved between the releases (docs/instructions.md)."""
import os

from env_matrix.matrix import MatrixError
from mxbench.core.project import DEFAULT_CONFIG, ROOT, load as load_project
from mxbench.reports.changes import count_note, recorded_counts


def count_notes(project, releases, flavor, regressed):
    """[line]: for each regressed point, whether its entry's instruction count moved between
    the releases, read from the recorded history: results/ (or --results DIR), any machine,
    the flavor's default environment (counts ignore the variant)."""
    if not regressed:
        return []
    history = load_project(DEFAULT_CONFIG, project.results_override)
    try:
        env_name = history.environment(flavor)
    except MatrixError:
        return ["instruction counts: none for %s (counted on the CPU flavors only)" % flavor]
    counts = [recorded_counts(history.store, history.commit(r), env_name) for r in releases]
    return (["instruction counts of the regressed points (the recorded history, %s):"
             % os.path.relpath(history.results_dir, ROOT)]
            + ["  " + count_note(name, counts, releases, flavor) for name in regressed])


def no_verdict_text(pair, flavor, variant, bench, selection, code):
    return ("check %s -> %s, %s, %s: NO VERDICT: no benchmark point was measured on both "
            "releases (-b %s in the %s selection selects nothing, or every point failed or "
            "skipped) (exit %d)" % (pair[0], pair[1], flavor, variant, bench, selection, code))


def verdict_text(pair, flavor, variant, factor, compared, confirm, code):
    """The check's last line: its verdict and exit code (asv continuous's)."""
    verdict = {0: "no significant slow-down beyond %.2fx (%d points compared)"
                  % (factor, len(compared)),
               1: "REGRESSION: significantly slower beyond %.2fx%s"
                  % (factor, " in both passes" if confirm else ""),
               2: "a benchmark FAILED (see above)"}.get(code, "asv exited with %d" % code)
    return "check %s -> %s, %s, %s: %s (exit %d)" % (pair[0], pair[1], flavor, variant, verdict,
                                                    code)
