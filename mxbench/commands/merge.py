"""`mxbench merge`: fold other machines' results directories (CI artifacts) into results/."""
from mxbench.asvrun import runner as asvtools
from mxbench.core import results


def setup_arguments(subparsers):
    merge = subparsers.add_parser("merge", help="merge results directories of other machines (CI)")
    merge.add_argument("dirs", nargs="+", metavar="DIR",
                       help="a results directory: DIR/<machine>/*.json (+ benchmarks.json)")
    merge.set_defaults(func=cmd_merge)
    return merge


def cmd_merge(args):
    store = args.project.store
    with asvtools.recording(args.project):  # not while a run merges into the same results
        for source in args.dirs:
            merged, notes = results.merge_results_dir(store, source)
            for machine, count in sorted(merged.items()):
                print("%s: %s: %d result file(s) merged into %s"
                      % (source, machine, count, store.results_dir))
            for note in notes:
                print("note: %s" % note)
    return 0
