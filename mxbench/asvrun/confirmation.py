"""A confirmation's interleaved recording (`mxbench confirm`): both releases (or one release
against itself) in rounds, only the candidates' points, into a confirmation store; merged
only once asv has finished every round (a run cut short leaves nothing a verdict could be
drawn from). The rounds' arguments and the verdicts are reports/confirmations.py's."""
import os

from mxbench.asvrun import runner
from mxbench.asvrun.recording import record_points
from mxbench.core.project import ROOT


def record_rounds(project, machine, env_name, target, releases, names, asv_extra, what,
                  allow_busy=False):
    """These releases in environment `env_name`, only these points, into `target` (a
    confirmation project); asv_extra ends with the rounds' arguments."""
    runner.ensure_machine(machine)
    project.ensure_ladder()
    print("confirming %d candidate(s) of %s into %s"
          % (len(names), what, os.path.relpath(target.results_dir, ROOT)), flush=True)
    return record_points(target, machine, releases, [env_name], names, asv_extra,
                         allow_busy=allow_busy, whole_run=True)
