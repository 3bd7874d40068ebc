"""`mxbench merge`: fold other machines' results directories (CI artifacts) into results/."""
import sys

from mxbench.asvrun import conditions, runner
from mxbench.core import errors, results
from mxbench.core.errors import UserError


def setup_arguments(subparsers):
    merge = subparsers.add_parser("merge", help="merge results directories of other machines (CI)")
    merge.add_argument("dirs", nargs="+", metavar="DIR",
                       help="a results directory: DIR/<machine>/*.json (+ benchmarks.json)")
    merge.set_defaults(func=cmd_merge)
    return merge


def require_same_cpu_kinds(store, source):
    """A machine's recordings from another CPU kind than its history's are not merged into
    it without --other-cpu (then with a warning): one name, one kind of CPU."""
    incoming = results.Store(source)
    for machine in incoming.machines():
        theirs = conditions.recorded_cpu_kinds(incoming, machine)
        ours = conditions.recorded_cpu_kinds(store, machine)
        if not theirs or not ours or theirs == ours:
            continue
        text = ("%s/%s was recorded on %s; %s/%s on %s" % (
            source, machine, " and ".join(map(conditions.cpu_kind_text, theirs)),
            store.results_dir, machine, " and ".join(map(conditions.cpu_kind_text, ours))))
        if not conditions.allow_other_cpu_from_env():
            raise UserError("%s: not merged (another CPU kind's timings in one history); "
                            "merge it under its own machine name, or add --other-cpu" % text)
        print("warning: %s: merged (--other-cpu)" % text, file=sys.stderr, flush=True)


def cmd_merge(args):
    store = args.project.store
    # not while a run merges into the same results; a merge installs nothing, so a run in
    # another checkout sharing the asv environments does not stop it
    with runner.recording(args.project, environments=False):
        for source in args.dirs:
            require_same_cpu_kinds(store, source)
        for source in args.dirs:
            merged, notes = results.merge_results_dir(store, source)
            for machine, count in sorted(merged.items()):
                print("%s: %s: %d result file(s) merged into %s"
                      % (source, machine, count, store.results_dir))
            for note in notes:
                print("note: %s" % note)
    return errors.OK
