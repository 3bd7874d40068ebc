"""`mxbench drop-gpu-skips`: rewrite a results directory's files as the store now writes them,
without a CPU environment's all-skipped device='gpu' points (a one-off migration of files
recorded before that rule; mxbench.core.results.without_gpu_skips)."""
import os

from mxbench.asvrun import runner
from mxbench.core import errors
from mxbench.core import results


def setup_arguments(subparsers):
    command = subparsers.add_parser(
        "drop-gpu-skips", help="rewrite results/ without CPU environments' all-skipped gpu "
                               "points (once, for files recorded before the store did)")
    command.set_defaults(func=cmd_drop_gpu_skips)
    return command


def cmd_drop_gpu_skips(args):
    store = args.project.store
    with runner.recording(args.project):  # not while a run merges into the same results
        total = len(store.files())
        rewritten = results.drop_gpu_skips(store)
    for path, dropped in rewritten:
        print("%s: %d gpu point(s) dropped"
              % (os.path.relpath(path, store.results_dir), dropped))
    print("%s: %d of %d result file(s) rewritten, %d gpu point(s) of CPU environments dropped "
          "(every one skipped); measured and failed points unchanged"
          % (store.results_dir, len(rewritten), total,
             sum(d for _, d in rewritten)))
    return errors.OK
