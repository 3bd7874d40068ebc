"""`mxbench compare`: asv compare of two recorded releases, per flavor, on validated files."""
import os
import tempfile

from mxbench.asvrun import conditions
from mxbench.asvrun import runner
from mxbench.core.change_rule import compare
from mxbench.core.arguments import ASV_COMPARE_FACTOR, factor_argument, flavor_argument


def setup_arguments(subparsers):
    compare = subparsers.add_parser(
        "compare", help="asv compare of two recorded releases, per flavor")
    compare.add_argument("base", help="e.g. 1.8.0.post0")
    compare.add_argument("head", help="e.g. 1.9.1")
    flavor_argument(compare, many=True)
    factor_argument(compare, ASV_COMPARE_FACTOR, help="ratio asv compare marks as a change")
    compare.add_argument("--only-changed", action="store_true",
                         help="only the points asv marks as changed")
    compare.set_defaults(func=cmd_compare, takes_asv_args="compare")
    return compare


def compare_machine(project, requested, commits, env_name):
    """The machine whose results `compare` uses: the one asked for, else this machine when
    it has both releases, else the only machine that has them."""
    return runner.reading_machine(
        project.store, requested,
        lambda m: all(project.store.has(m, c, env_name) for c in commits),
        "both releases in %s" % env_name)


def cmd_compare(args):
    """Real `asv compare`, after the files it reads are validated, per flavor; asv reads the
    results mxbench validated (--results DIR: a copy of the config pointing there)."""
    with tempfile.TemporaryDirectory(prefix="mxbench-compare-") as scratch:
        config = args.project.config
        if args.project.results_dir != os.path.abspath(args.project._path("results_dir")):
            config = runner.config_copy(config, os.path.join(scratch, "asv.conf.json"),
                                          results_dir=args.project.results_dir)
        return compare_releases(args, config)


def compare_releases(args, config):
    project = args.project
    commits = [project.commit(r) for r in (args.base, args.head)]
    code = 0
    for flavor in args.flavor or project.flavors:
        env_name = project.environment(flavor)
        missing = [r for r in (args.base, args.head) if project.wheel(r, flavor).status != "ok"]
        if missing:
            print("%s: no build of %s here (%s)" % (flavor, " or ".join(missing),
                                                     project.wheel(missing[0], flavor).describe()))
            continue
        machine = compare_machine(project, args.machine, commits, env_name)
        project.store.require_valid(machine, commits)
        print("%s: results of machine %s" % (flavor, machine), flush=True)
        mixed = conditions.recordings_note(project.store, machine, [
            (r, c, env_name) for r, c in zip((args.base, args.head), commits)])
        if mixed:
            print("note: %s: not only MXNet differs here" % mixed, flush=True)
        asv_args = ["compare", "--machine", machine, "-E", env_name, "--factor", str(args.factor)]
        if args.only_changed:
            asv_args.append("--only-changed")
        rows = GpuRowFilter(project.matrix.flavor(flavor).device)
        code = max(code, runner.run_asv(asv_args + args.asv_args + commits, config=config,
                                          cwd=project.base, keep_line=rows.keep))
        if rows.left_out:
            print("(%d rows of device='gpu' points left out: %s has no GPU, they only skip)"
                  % (rows.left_out, flavor))
        print_counts(project, machine, args.base, args.head, flavor, args.factor)
        print_confirmations(project, machine, args.base, args.head, flavor)
    return code


def print_counts(project, machine, base, head, flavor, factor, shown=10):
    """The instruction counts of the two releases (docs/instructions.md): how many moved,
    whether the timings asv's rule flags moved with them, the moved ones largest first."""
    from mxbench.reports.changes import (COUNTED_BENCHMARKS, count_changes,
                                         count_line, count_pairs, count_summary,
                                         moved_count_lines, refused_count_lines)
    from mxbench.core.results import by_name
    before, after = (by_name(project.store.points(machine, project.commit(r),
                                                   project.environment(flavor),
                                                   COUNTED_BENCHMARKS)) for r in (base, head))
    moves, refused = count_pairs(before, after)
    if not moves and refused:
        print("instruction counts (docs/instructions.md), %s: %s"
              % (flavor, " ".join(refused_count_lines(refused))))
        return
    if not moves:
        print("instruction counts (docs/instructions.md), %s: not recorded for both releases (python -m mxbench run "
              "RELEASE --flavor %s --bench '^bench_instructions\\.')" % (flavor, flavor))
        return
    timings = [c for c in compare(before, after, factor) if c.unit == "seconds"]
    print("instruction counts (docs/instructions.md), %s: %s" % (flavor, count_line(moves)))
    print("\n".join(count_summary(timings, count_changes(before, after))
                    + moved_count_lines(moves, shown)))


def print_confirmations(project, machine, base, head, flavor, factor=1.2, shown=10):
    """What the confirmation runs say of the timings the history flags (docs/trust.md)."""
    from mxbench.reports.confirmations import (CONFIRMED, UNCONFIRMED, candidates, counts,
                                               counts_text, interval_text, kind_label,
                                               other_kinds, verdicts)
    flagged = candidates(project, machine, base, head, flavor, factor)
    found = verdicts(project, machine, base, head, flavor, flagged, factor)
    others = other_kinds(project, machine, base, head, flavor, flagged, factor)
    count = counts(found)
    print("confirmation runs (docs/trust.md), %s, on %s: of %d timings asv's rule flags at "
          "%.2fx, %s%s" % (flavor, kind_label(project.store, machine), len(found), factor,
                          counts_text(count),
                          " (python -m mxbench confirm %s %s --flavor %s)" % (base, head, flavor)
                          if count[UNCONFIRMED] else ""))
    for v in [v for v in found if v.state == CONFIRMED][:shown]:
        print("  confirmed %s  %s%s" % (v.change.name, interval_text(v), "".join(
            "; on %s: %s %s" % (kind, o.state, interval_text(o))
            for kind, o in others.get(v.change.name, []))))


class GpuRowFilter(object):
    """Leaves out asv compare's rows of GPU parameter points in a CPU flavor's comparison:
    every benchmark class carries a device parameter, and on a CPU build its GPU points can
    only skip (n/a). The store writes CPU files without them (results.without_gpu_skips):
    the rows left out are those of files recorded before (results-archive/, experiments/)."""

    def __init__(self, device):
        self.device = device
        self.left_out = 0

    def keep(self, line):
        if self.device != "gpu" and "'gpu')" in line:
            self.left_out += 1
            return False
        return True
