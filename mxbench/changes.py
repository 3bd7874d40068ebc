"""What changed: significant differences between two sets of asv results.

The verdict for each benchmark x parameter point is asv compare's own: a change counts
when the ratio passes --factor AND asv's statistics say the two differ (Mann-Whitney U on
recorded samples, else confidence-interval overlap). Two uses:

    python -m mxbench.changes releases [-o results/CHANGES.md] [--chart results/changes.png]
        every pair of consecutive measured releases, per flavor: the biggest slow-downs
        and speed-ups, as Markdown, and a chart of the largest changes across releases;
    python -m mxbench.changes aa --machine-a M1 --machine-b M2 --release 1.9.1 --flavor F
        an A/A check: the same release measured twice (under two machine names); how many
        points are flagged and the median |log ratio|;
    python -m mxbench.changes ab --variant-b omp-1-thread --release 1.9.1 --flavor F
        an A/B check: the same build run two ways (env_matrix/variants.json; the variants
        other than "default" are in asv.variants.conf.json). Same report as aa.
"""
import argparse
import math
import os
import statistics
import sys
from collections import namedtuple

from env_matrix.ladder import tags
from env_matrix.matrix import OK, MatrixError, load
from mxbench import asvtools
from mxbench.export import human_value, load_benchmark_info

Point = namedtuple("Point", "value stats samples unit")
Change = namedtuple("Change", "name before after ratio verdict unit")


def measured(value):
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def points(results_dir, machine, commit, env_name, info=None):
    """{'bench(params)': Point} for one machine, commit and environment."""
    from asv.commands.compare import unroll_result
    from asv.results import iter_results_for_machine_and_hash
    info = info if info is not None else load_benchmark_info(results_dir)
    out = {}
    for result in iter_results_for_machine_and_hash(results_dir, machine, commit):
        if result.env_name != env_name:
            continue
        for key in result.get_all_result_keys():
            params = result.get_result_params(key)
            unit = info.get(key, {}).get("unit")
            for name, value, stats, samples in unroll_result(
                    key, params, result.get_result_value(key, params),
                    result.get_result_stats(key, params), result.get_result_samples(key, params)):
                out[name] = Point(value, stats, samples, unit)
    return out


def compare(before, after, factor):
    """Changes for the points measured on both sides, with asv compare's verdict."""
    from asv.commands.compare import _is_result_better
    changes = []
    for name in sorted(set(before) & set(after)):
        a, b = before[name], after[name]
        if not (measured(a.value) and measured(b.value)) or a.value <= 0:
            continue
        ss_a, ss_b = (a.stats, a.samples), (b.stats, b.samples)
        if _is_result_better(b.value, a.value, ss_b, ss_a, factor):
            verdict = "faster"
        elif _is_result_better(a.value, b.value, ss_a, ss_b, factor):
            verdict = "slower"
        else:
            verdict = "same"
        changes.append(Change(name, a.value, b.value, b.value / a.value, verdict, a.unit))
    return changes


# --- consecutive releases ---------------------------------------------------------------------
def measured_releases(results_dir, machine, flavor, env_name, ladder_dir):
    """Releases with a build for the flavor and a result file, in ladder order."""
    matrix = load()
    by_tag = tags(ladder_dir)
    mdir = os.path.join(results_dir, machine)
    files = os.listdir(mdir) if os.path.isdir(mdir) else []
    have = {f.split("-", 1)[0] for f in files if f.endswith("-%s.json" % env_name)}
    return [(r, by_tag[r]) for r in matrix.releases()
            if r in by_tag and matrix.resolve(r, flavor).status == OK and by_tag[r][:8] in have]


def release_changes(results_dir, machine, ladder_dir, env_names, factor, timings_only=True):
    """{flavor: [(release_a, release_b, [Change])]} for consecutive measured releases.

    By default only timings, the report's subject; timings_only=False adds the memory and
    roofline tracks."""
    info = load_benchmark_info(results_dir)
    report = {}
    for flavor, env_name in env_names.items():
        chain = measured_releases(results_dir, machine, flavor, env_name, ladder_dir)
        loaded = [(r, points(results_dir, machine, c, env_name, info)) for r, c in chain]
        loaded = [(r, p) for r, p in loaded if any(measured(x.value) for x in p.values())]
        pairs = []
        for (ra, pa), (rb, pb) in zip(loaded, loaded[1:]):
            changes = compare(pa, pb, factor)
            if timings_only:
                changes = [c for c in changes if c.unit == "seconds"]
            pairs.append((ra, rb, changes))
        report[flavor] = pairs
    return report


def markdown_report(report, machine, factor, top):
    lines = ["# What changed between MXNet releases", "",
             "Generated by `python -m mxbench.changes releases` from the results in `results/` "
             "(machine `%s`). A change is listed when its ratio passes %.2fx and asv's "
             "statistics call the two sides different (asv compare's rule); ratio = new / old "
             "(for times, > 1 is slower). Releases without a build for a flavor are skipped; "
             "each pair is consecutive among the measured ones." % (machine, factor), ""]
    for flavor, pairs in report.items():
        lines += ["## %s" % flavor, ""]
        if not pairs:
            lines += ["No two measured releases yet.", ""]
        for ra, rb, changes in pairs:
            significant = [c for c in changes if c.verdict != "same"]
            lines += ["### %s → %s" % (ra, rb), "",
                      "%d points compared, %d changed significantly (%d slower, %d faster)."
                      % (len(changes), len(significant),
                         sum(c.verdict == "slower" for c in significant),
                         sum(c.verdict == "faster" for c in significant)), ""]
            for title, verdict, order in (("Slower", "slower", True), ("Faster", "faster", False)):
                rows = sorted((c for c in significant if c.verdict == verdict),
                              key=lambda c: c.ratio, reverse=order)[:top]
                if not rows:
                    continue
                lines += ["**%s** (largest first)" % title, "",
                          "| benchmark (parameters) | %s | %s | ratio |" % (ra, rb),
                          "|---|---:|---:|---:|"]
                for c in rows:
                    lines.append("| `%s` | %s | %s | %.2f |" % (
                        c.name, human_value(c.before, c.unit), human_value(c.after, c.unit),
                        c.ratio))
                lines.append("")
    return "\n".join(lines) + "\n"


# --- documented changes -----------------------------------------------------------------------
DOCUMENTED = os.path.join(asvtools.ROOT, "docs", "documented-changes.toml")


def load_documented(path=DOCUMENTED):
    """The performance changes MXNet's release notes, PRs and issues document (curated)."""
    import tomllib
    with open(path, "rb") as fh:
        return tomllib.load(fh)["change"]


def pair_for(release, pairs):
    """The measured pair (a, b, changes) whose b is the first measured release that ships
    `release`'s changes, with a before it; None where the history does not bracket it."""
    from packaging.version import Version
    target = Version(release)
    for ra, rb, changes in pairs:
        if Version(ra) < target <= Version(rb):
            return ra, rb, changes
    return None


def check_documented(report, documented):
    """For every documented change and flavor: what our history shows for its benchmarks.

    Returns rows (entry, flavor, pair label, faster, slower, same, median ratio, verdict);
    verdict is "seen" when significant changes in the documented direction outnumber the
    opposite ones and make up at least half of the points, "not seen" when none go that
    way, else "partly"; "not measured" when no measured pair brackets the release."""
    rows = []
    for entry in documented:
        for flavor in entry["flavors"]:
            found = pair_for(entry["release"], report.get(flavor, []))
            if found is None:
                rows.append((entry, flavor, None, 0, 0, 0, None, "not measured"))
                continue
            ra, rb, changes = found
            mine = [c for c in changes
                    if any(c.name.startswith(b + "(") for b in entry["benchmarks"])]
            count = dict((v, sum(c.verdict == v for c in mine)) for v in ("faster", "slower", "same"))
            expected = entry["expect"]
            opposite = "slower" if expected == "faster" else "faster"
            if not mine:
                verdict = "not measured"
            elif count[expected] == 0:
                verdict = "not seen"
            elif count[expected] > count[opposite] and 2 * count[expected] >= len(mine):
                verdict = "seen"
            else:
                verdict = "partly"
            median = statistics.median(c.ratio for c in mine) if mine else None
            rows.append((entry, flavor, "%s → %s" % (ra, rb), count["faster"], count["slower"],
                         count["same"], median, verdict))
    return rows


def documented_markdown(rows):
    lines = ["## Documented changes: what this history shows", "",
             "Performance changes that MXNet's release notes, pull requests or issues document "
             "(`docs/documented-changes.toml`), against the measured pair of releases that "
             "brackets each. Counts are parameter points of the named benchmarks; ratio = "
             "median new / old time.", "",
             "| release | what (source) | flavor | measured pair | faster / slower / same "
             "| median ratio | verdict |", "|---|---|---|---|---|---:|---|"]
    for entry, flavor, pair, faster, slower, same, median, verdict in rows:
        lines.append("| %s | %s ([source](%s)) | %s | %s | %s | %s | **%s** |" % (
            entry["release"], entry["what"], entry["source"], flavor, pair or "—",
            "%d / %d / %d" % (faster, slower, same) if pair else "—",
            "%.2f" % median if median is not None else "—", verdict))
    return "\n".join(lines) + "\n"


def short_name(name):
    """'bench_operators.dot.time_forward('medium', 'float32', 'cpu')' -> 'dot.time_forward(medium, float32, cpu)'."""
    return name.replace("bench_operators.", "").replace("bench_", "").replace("'", "")


def chart(report, path, top):
    """A horizontal bar chart of the largest significant changes (log2 of the ratio)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = []
    for flavor, pairs in report.items():
        for ra, rb, changes in pairs:
            for c in changes:
                # timings only: a ratio of memory that went to 0 has no log
                if c.verdict != "same" and c.unit == "seconds" and c.ratio > 0:
                    rows.append(("%s→%s %s  %s" % (ra, rb, flavor, short_name(c.name)),
                                 math.log2(c.ratio)))
    rows = sorted(rows, key=lambda r: abs(r[1]), reverse=True)[:top]
    rows.reverse()
    fig, ax = plt.subplots(figsize=(11, 0.32 * max(len(rows), 3) + 1.2))
    if rows:
        ax.barh([r[0] for r in rows], [r[1] for r in rows],
                color=["#c0392b" if r[1] > 0 else "#27ae60" for r in rows])
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("log2(new time / old time): right = slower (red), left = faster (green)")
    ax.set_title("Largest significant changes between consecutive MXNet releases", fontsize=10)
    ax.tick_params(axis="y", labelsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --- A/A and A/B ------------------------------------------------------------------------------
def variant_environment(flavor, variant, config):
    """The environment of (flavor, variant): from `config` if it has the variant, else from
    asv.variants.conf.json (which holds every variant but "default")."""
    try:
        return asvtools.environment_for_flavor(flavor, config, variant)
    except MatrixError:
        if variant == "default" or config == asvtools.VARIANTS_CONFIG:
            raise
        return asvtools.environment_for_flavor(flavor, asvtools.VARIANTS_CONFIG, variant)


def aa_summary(changes):
    logs = [abs(math.log(c.ratio)) for c in changes if c.ratio > 0]
    return {"points": len(changes),
            "flagged": sum(c.verdict != "same" for c in changes),
            "median_abs_log_ratio": statistics.median(logs) if logs else float("nan"),
            "p90_abs_log_ratio": (sorted(logs)[int(0.9 * (len(logs) - 1))] if logs
                                  else float("nan"))}


def by_kind(changes):
    """Group points by what they measure: timings of small (dispatch-bound) shapes, other
    timings, the peak-RSS tracks and the other tracks; their noise differs a lot."""
    groups = {}
    for c in changes:
        method = c.name.split("(")[0].rsplit(".", 1)[-1]
        if method.startswith("time_"):
            kind = "time, small shape" if "'small'" in c.name else "time, other shapes"
        elif "peak_rss" in method:
            kind = "track, peak RSS"
        else:
            kind = "track, other"
        groups.setdefault(kind, []).append(c)
    return groups


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m mxbench.changes", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=asvtools.DEFAULT_CONFIG)
    parser.add_argument("--factor", type=float, default=1.2)
    sub = parser.add_subparsers(dest="command", required=True)
    rel = sub.add_parser("releases")
    rel.add_argument("--machine", default=None)
    rel.add_argument("--top", type=int, default=10)
    rel.add_argument("-o", "--output", help="Markdown file (default: stdout)")
    rel.add_argument("--chart", help="PNG of the largest changes")
    rel.add_argument("--all-kinds", action="store_true",
                     help="also the track_ benchmarks (peak RSS, GB/s), not only timings")
    for name, what in (("aa", "the same release measured twice, under two machine names"),
                       ("ab", "the same release run two ways (A/B variants)")):
        side = sub.add_parser(name, help=what)
        side.add_argument("--machine-a", help="default: this machine's name")
        side.add_argument("--machine-b", help="default: this machine's name")
        side.add_argument("--variant-a", default="default", help="env_matrix/variants.json")
        side.add_argument("--variant-b", default="default")
        side.add_argument("--release", required=True)
        side.add_argument("--flavor", default="cpu-mkldnn")
        side.add_argument("-v", "--verbose", action="store_true", help="list every flagged point")
    args = parser.parse_args(argv)

    ladder_dir, results_dir = asvtools.project_dirs(args.config)
    if args.command == "releases":
        env_names = asvtools.environment_names(args.config)
        machine = args.machine or asvtools.machine_name()
        report = release_changes(results_dir, machine, ladder_dir, env_names, args.factor,
                                 timings_only=not args.all_kinds)
        text = markdown_report(report, machine, args.factor, args.top)
        if os.path.exists(DOCUMENTED):
            text += "\n" + documented_markdown(check_documented(report, load_documented()))
        if args.output:
            with open(args.output, "w") as fh:
                fh.write(text)
            print("wrote %s" % args.output)
        else:
            sys.stdout.write(text)
        if args.chart:
            chart(report, args.chart, 2 * args.top)
            print("wrote %s" % args.chart)
        return 0
    this_machine = asvtools.machine_name()
    machine_a, machine_b = args.machine_a or this_machine, args.machine_b or this_machine
    try:
        commit = asvtools.release_commit(args.release, args.config)
        env_a = variant_environment(args.flavor, args.variant_a, args.config)
        env_b = variant_environment(args.flavor, args.variant_b, args.config)
    except MatrixError as exc:
        print("error: %s" % exc, file=sys.stderr)
        return 2
    if (machine_a, env_a) == (machine_b, env_b):
        print("error: both sides are %s / %s; give two machines or two variants"
              % (machine_a, env_a), file=sys.stderr)
        return 2
    before = points(results_dir, machine_a, commit, env_a)
    after = points(results_dir, machine_b, commit, env_b)
    for machine, variant, found in ((machine_a, args.variant_a, before),
                                    (machine_b, args.variant_b, after)):
        if not found:
            print("error: no results for %s %s, variant %s, on machine %s"
                  % (args.release, args.flavor, variant, machine), file=sys.stderr)
            return 2
    changes = compare(before, after, args.factor)
    summary = aa_summary(changes)
    label = lambda machine, variant: machine + ("" if variant == "default" else "/" + variant)
    print("%s %s %s, %s vs %s at factor %.2f: %d points, %d flagged, median |log ratio| "
          "%.2f%%, 90th percentile %.2f%%" % (
              {"aa": "A/A", "ab": "A/B"}[args.command], args.release,
              args.flavor, label(machine_a, args.variant_a), label(machine_b, args.variant_b),
              args.factor,
              summary["points"], summary["flagged"], 100 * summary["median_abs_log_ratio"],
              100 * summary["p90_abs_log_ratio"]))
    for group, members in sorted(by_kind(changes).items()):
        part = aa_summary(members)
        print("  %-28s %5d points, %4d flagged, median |log ratio| %.2f%%, p90 %.2f%%" % (
            group, part["points"], part["flagged"], 100 * part["median_abs_log_ratio"],
            100 * part["p90_abs_log_ratio"]))
    if args.verbose:
        for c in changes:
            if c.verdict != "same":
                print("  flagged: %s  %.3g -> %.3g (%.2fx)" % (c.name, c.before, c.after, c.ratio))
    return 0


if __name__ == "__main__":
    sys.exit(main())
