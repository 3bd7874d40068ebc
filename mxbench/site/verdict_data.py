"""<html_dir>/confirmations.json: the verdict of every confirmation run the project holds
(results-confirmations/BASE..HEAD), for the overlay's marks on asv's regressions page.

One entry per point a confirmation run measured at both releases, per machine and flavor:
the release pair and its ladder commits, the point as asv names it, the state (confirmed,
refuted, inconclusive, not yet confirmed), the interleaved ratio with its 95 % interval and
the history's ratio. The verdicts are mxbench.reports.confirmations.held_verdicts', as
`confirm` and generated-reports/CHANGES.md give them. In a file-data script of its own
(file_data.bundle_of), the only copy the site keeps.
"""
import os

from mxbench.core.project import load as load_project
from mxbench.core.results import write_json_atomic
from mxbench.reports import confirmations

VERDICTS_FILE = "confirmations.json"


def confirm_command(base, head, flavor):
    """The command that measures (again) the changes of one release pair."""
    return "python -m mxbench confirm %s %s --flavor %s" % (base, head, flavor)


def verdict_entry(project, held):
    """One HeldVerdict as the site's JSON."""
    verdict = held.verdict
    return {"base": held.base, "head": held.head,
            "base_commit": project.commit(held.base), "head_commit": project.commit(held.head),
            "machine": held.machine, "flavor": held.flavor, "environment": held.env_name,
            "python": project.python, "point": verdict.change.name, "state": verdict.state,
            "ratio": verdict.ratio, "low": verdict.low, "high": verdict.high,
            "interval": confirmations.interval_text(verdict),
            "history_ratio": verdict.change.ratio,
            "command": confirm_command(held.base, held.head, held.flavor)}


def verdicts_data(project, factor=confirmations.FACTOR):
    """The content of confirmations.json."""
    return {"factor": factor, "level": confirmations.LEVEL,
            "states": list(confirmations.STATES),
            "confirmations": [verdict_entry(project, held)
                              for held in confirmations.held_verdicts(project, factor)]}


def write_verdicts(config, html_dir, log=print):
    """<html_dir>/confirmations.json from the confirmation runs beside the config's results.
    Returns its path."""
    data = verdicts_data(load_project(config))
    path = os.path.join(html_dir, VERDICTS_FILE)
    write_json_atomic(path, data)
    log("confirmations: %s (%d verdicts of %d confirmation runs)"
        % (path, len(data["confirmations"]),
           len({(e["base"], e["head"]) for e in data["confirmations"]})))
    return path
