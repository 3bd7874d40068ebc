"""MXNet's documented speed changes (docs/documented-changes.toml) against what we measure.

Each documented CPU change is judged for each flavor on the pair of measured releases that
brackets its release:
- an entry with field cases (the source's shapes, benchmarks/catalogue/field.py) is judged on
  those points, in the history that records them: the committed history, or a CPU kind's own
  records beside it (results-cpu-kinds/), whichever holds the most; there `confirm
  --documented` measures every such point again, interleaved, flagged or not, so a change
  that does not show has an interval saying so;
- an entry without them is judged at the catalogue's shapes of the committed history, its
  flagged points with the history's own confirmation verdicts.
A change not seen at its pair is looked for in the other pairs of the same history (a change
that shows a release earlier or later than documented).
"""
import os
import re
import statistics
import tomllib
from collections import Counter, OrderedDict, namedtuple

from packaging.version import Version
from tabulate import tabulate

from mxbench.asvrun.conditions import cpu_kind_text, recorded_cpu_kinds
from mxbench.core.project import CPU_KINDS, ROOT, load as load_project
from mxbench.core.formatting import ratio_text
from mxbench.core.results import Store, by_name
from mxbench.core.selection import FIELD_PREFIX
from mxbench.core.stats import measured_rounds, round_ratio_interval, rounds_separated
from mxbench.reports import confirmations
from mxbench.reports.release_pairs import release_changes

DOCUMENTED = os.path.join(ROOT, "docs", "documented-changes.toml")

FIELD_RUN = "python -m mxbench run %s %s --flavor %s --selection field"
NOT_RECORDED = "not recorded at the documented shape yet"
NOT_MEASURABLE = "not measurable in these wheels"
NOT_MEASURED = "not measured"
# a documented point's interleaved verdict
SEEN, OTHER_WAY, NOT_SEEN = "seen", "the other way", "not seen"

Row = namedtuple("Row", "entry flavor pair faster slower same median verdict where "
                        "confirmation elsewhere")
PointVerdict = namedtuple("PointVerdict", "name state ratio low high")
TABLE_HEADERS = ["release", "what", "flavor", "pair", "history f/s/same", "interleaved",
                 "verdict"]


def load_documented(path=DOCUMENTED):
    """The performance changes MXNet's release notes, PRs and issues document (curated)."""
    with open(path, "rb") as fh:
        return tomllib.load(fh)["change"]


def cpu_entries(documented):
    return [e for e in documented if e.get("device", "cpu") == "cpu"]


def pair_for(release, pairs):
    """The measured pair (a, b, changes) whose b is the first measured release that ships
    `release`'s changes, with a before it; None where the history does not bracket it."""
    target = Version(release)
    for ra, rb, changes in pairs:
        if Version(ra) < target <= Version(rb):
            return ra, rb, changes
    return None


def point_case(name, benchmark):
    """The shape parameter (the first) of a point of `benchmark`, unquoted:
    'b.time_forward('field-17980', 'float32', 'cpu')' -> 'field-17980'."""
    return name[len(benchmark) + 1:].split(",")[0].strip(" ')\"")


def entry_points(entry, changes, field_only):
    """The changes of the entry's benchmarks: at its field cases (field_only), else every
    point of them."""
    cases = entry.get("cases") or []
    out = []
    for c in changes:
        for b in entry["benchmarks"]:
            if c.name.startswith(b + "(") and (not field_only or point_case(c.name, b) in cases):
                out.append(c)
    return out


def history_verdict(count, expected):
    """seen / partly / not seen / not measured from the points' counts of faster, slower and
    same, for a change expected `expected`."""
    opposite = "slower" if expected == "faster" else "faster"
    n = sum(count.values())
    if not n:
        return NOT_MEASURED
    if count[expected] == 0:
        return NOT_SEEN
    if count[expected] > count[opposite] and 2 * count[expected] >= n:
        return SEEN
    return "partly"



# --- the field history: where the documented shapes are recorded ------------------------------
class FieldHistory(object):
    """A machine's records of the field cases (the committed history's, or a CPU kind's own in
    results-cpu-kinds/), its consecutive pairs per flavor and their interleaved
    confirmations (results-confirmations/, under the machine that measured them)."""

    def __init__(self, project, machine, factor, measured_on=None):
        self.project, self.machine, self.factor = project, machine, factor
        self.measured_on = measured_on or machine  # whose interleaved runs judge
        self._pairs = {}

    def label(self):
        """'`MACHINE` (its CPU kind), in `FOLDER/`'."""
        kinds = recorded_cpu_kinds(self.project.store, self.machine)
        return "`%s` (%s), in `%s/`" % (
            self.machine, " and ".join(cpu_kind_text(k) for k in kinds) if kinds
            else "CPU not recorded",
            os.path.relpath(self.project.results_dir, ROOT))

    def pairs(self, flavor):
        if flavor not in self._pairs:
            env = self.project.environment_names().get(flavor)
            self._pairs[flavor] = release_changes(self.project, self.machine, {flavor: env},
                                                  self.factor)[flavor] if env else []
        return self._pairs[flavor]

    def interleaved_samples(self, base, head, flavor, names):
        """{name: (BASE's samples, HEAD's samples)} of the points measured interleaved at
        both releases."""
        store = confirmations.confirmation_project(self.project, base, head).store
        env = self.project.environment(flavor)
        commits = [self.project.commit(r) for r in (base, head)]
        if not all(store.has(self.measured_on, c, env) for c in commits):
            return {}
        sides = [by_name(store.points(self.measured_on, c, env)) for c in commits]
        return dict((name, (sides[0][name].samples, sides[1][name].samples)) for name in names
                    if name in sides[0] and name in sides[1])

    def point_verdicts(self, base, head, flavor, names, expect):
        """{name: PointVerdict} of the points measured interleaved at both releases."""
        out = {}
        for name, (before, after) in self.interleaved_samples(base, head, flavor,
                                                               names).items():
            verdict = point_verdict(name, before, after, expect, self.factor)
            if verdict:
                out[name] = verdict
        return out


def whole_rounds(before, after):
    """Do both sides' samples cut into at least MIN_ROUNDS whole measured rounds?"""
    sides = [confirmations.rounds_of(s) for s in (before, after)]
    return all(sides) and min(len(measured_rounds(s)) for s in sides) >= \
        confirmations.MIN_ROUNDS


def point_verdict(name, before, after, expect, factor):
    """A documented point's PointVerdict from its interleaved samples: SEEN (past the factor
    the documented way, the interval beyond 1, every round beyond every round), OTHER_WAY
    (the same, the other way), NOT_SEEN (the interval inside (1/factor, factor): no change of
    the factor's size), else inconclusive; None without whole rounds on both sides."""
    if not whole_rounds(before, after):
        return None
    sides = [confirmations.rounds_of(s) for s in (before, after)]
    interval = round_ratio_interval(sides[0], sides[1], confirmations.LEVEL)
    if interval is None:
        return None
    ratio, low, high = interval
    slower = expect == "slower"
    for way, state in ((slower, SEEN), (not slower, OTHER_WAY)):
        past = ratio >= factor and low > 1 if way else ratio <= 1 / factor and high < 1
        if past and rounds_separated(sides[0], sides[1], slower=way):
            return PointVerdict(name, state, ratio, low, high)
    if 1 / factor < low and high < factor:
        return PointVerdict(name, NOT_SEEN, ratio, low, high)
    return PointVerdict(name, confirmations.INCONCLUSIVE, ratio, low, high)


def field_history(project, factor, report, machine):
    """The FieldHistory whose consecutive pairs hold the most field-case points: `machine`'s
    of the project (the machine the report reads; `report`, {flavor: pairs} of it already
    compared, is not compared again) or a machine of results-cpu-kinds/ beside its results;
    None when none holds any."""
    committed = FieldHistory(project, machine, factor)
    committed._pairs.update(report or {})
    candidates = [committed]
    folder = os.path.join(os.path.dirname(project.results_dir), CPU_KINDS)
    if os.path.isdir(folder) and os.path.abspath(folder) != os.path.abspath(project.results_dir):
        other = load_project(project.config, folder)
        candidates += [FieldHistory(other, m, factor) for m in Store(folder).machines()]
    best, most = None, 0
    for history in candidates:
        n = sum(1 for flavor in project.environment_names()
                for _, _, changes in history.pairs(flavor) for c in changes
                if "'%s" % FIELD_PREFIX in c.name)
        if n > most:
            best, most = history, n
    return best


def confirmation_plan(project, machine, flavor, factor, bench=None, committed=None):
    """OrderedDict {(base, head): [point names]}: every documented change's field points of
    `flavor` in `machine`'s records, on the pair that brackets its release; with `committed`
    (a FieldHistory of the committed history), also the recorded points of the changes
    without field cases, on the committed history's pair (regex `bench` on the names)."""
    history = FieldHistory(project, machine, factor)
    plan = OrderedDict()
    for entry in cpu_entries(load_documented()):
        if entry.get("not_measurable") or flavor not in entry["flavors"]:
            continue
        source = history if entry.get("cases") else committed
        if source is None:
            continue
        found = pair_for(entry["release"], source.pairs(flavor))
        if found is None:
            continue
        names = [c.name for c in entry_points(entry, found[2], bool(entry.get("cases")))
                 if not bench or re.search(bench, c.name)]
        if names:
            kept = plan.setdefault((found[0], found[1]), [])
            kept += [n for n in names if n not in kept]
    return plan


def unmeasured(project, machine, base, head, flavor, names):
    """The names without interleaved rounds of both releases on `machine` yet."""
    measured = FieldHistory(project, machine, confirmations.FACTOR).interleaved_samples(
        base, head, flavor, names)
    return [n for n in names if n not in measured or not whole_rounds(*measured[n])]


def judged_rows(project, history, machine, flavor, factor, committed=None):
    """The Rows of `flavor`'s documented changes, judged in `history`'s records (the field
    cases) or `committed`'s (the others), with `machine`'s interleaved runs: what `confirm
    --documented` prints."""
    field = FieldHistory(project, history, factor, measured_on=machine)
    report = {flavor: committed.pairs(flavor)} if committed is not None else {}
    return [judge_entry(e, flavor, report, None, field) for e in cpu_entries(load_documented())
            if flavor in e["flavors"] and not e.get("not_measurable")]


# --- judging -----------------------------------------------------------------------------------
def check_documented(report, documented, judge=None, field=None):
    """A Row for every documented CPU change and flavor. `report`: the committed history's
    {flavor: [(a, b, [Change])]}; `judge(flavor, a, b, changes)`: its confirmation verdicts;
    `field`: the FieldHistory that records the field cases (None: the report's only).

    verdict: "seen" when significant changes in the documented direction outnumber the
    opposite ones and make up at least half of the points, "not seen" when none go that
    way, else "partly"; "... and confirmed" when an interleaved run confirmed one of its
    points that way; "... at its shape" when judged at the field cases; "not seen at its
    shape" when every field point measured interleaved shows no change of the factor's size;
    "not recorded at the documented shape yet" while no history has its field cases (the
    counts are then the catalogue's shapes); "not measured" where no measured pair brackets
    the release; "not measurable in these wheels" whatever its points do when the wheels
    compile the code out. GPU entries are left to a GPU machine's report."""
    rows = []
    for entry in cpu_entries(documented):
        for flavor in entry["flavors"]:
            rows.append(judge_entry(entry, flavor, report, judge, field))
    return rows


def judge_entry(entry, flavor, report, judge, field):
    cases = entry.get("cases") or []
    source, where = report.get(flavor, []), None
    found = pair_for(entry["release"], source)
    if cases and field is not None:
        at_field = pair_for(entry["release"], field.pairs(flavor))
        if at_field and entry_points(entry, at_field[2], field_only=True):
            source, found, where = field.pairs(flavor), at_field, field
    if found is None:
        return Row(entry, flavor, None, 0, 0, 0, None, NOT_MEASURED, where, None, None)
    ra, rb, changes = found
    field_points = entry_points(entry, changes, field_only=True) if cases else []
    mine = field_points or entry_points(entry, changes, field_only=False)
    count = dict((v, sum(c.verdict == v for c in mine)) for v in ("faster", "slower", "same"))
    median = statistics.median(c.ratio for c in mine) if mine else None
    verdict = history_verdict(count, entry["expect"])
    if where is not None:
        confirmation = summary(interleaved(field, ra, rb, flavor, mine, entry["expect"]))
    else:
        confirmation = summary(judged(judge, ra, rb, flavor, mine, entry["expect"]))
        if (confirmation is None or confirmation[0] != SEEN) and field is not None \
                and not cases:
            # the catalogue's points, flagged or not, measured again on the field history's
            # host (`confirm --documented`): all of them, where the history's own runs
            # measured only the flagged ones and saw none the documented way
            again = summary(interleaved(field, ra, rb, flavor, mine, entry["expect"]))
            if again is not None:
                confirmation, where = again, field
    if entry.get("not_measurable"):
        verdict = NOT_MEASURABLE
    elif cases and not field_points:
        verdict = NOT_RECORDED if mine else NOT_MEASURED
    else:
        verdict = combined(verdict, confirmation, bool(field_points))
    elsewhere = None
    if verdict.startswith(NOT_SEEN) or verdict.startswith("partly") or "other way" in verdict:
        elsewhere = seen_elsewhere(entry, source, (ra, rb), bool(field_points))
    return Row(entry, flavor, "%s → %s" % (ra, rb), count["faster"], count["slower"],
               count["same"], median, verdict, where, confirmation, elsewhere)


def interleaved(field, ra, rb, flavor, points, expect):
    """[PointVerdict] of the points that `field`'s host measured again, interleaved."""
    return list(field.point_verdicts(ra, rb, flavor, [c.name for c in points],
                                     expect).values())


def judged(judge, ra, rb, flavor, points, expect):
    """[PointVerdict] of the history's own confirmations of the flagged points."""
    if judge is None:
        return []
    got = []
    for v in judge(flavor, ra, rb, [c for c in points if c.verdict != "same"]):
        if v.state == confirmations.CONFIRMED:
            way = "slower" if v.ratio > 1 else "faster"
            got.append(PointVerdict(v.change.name, SEEN if way == expect else OTHER_WAY,
                                    v.ratio, v.low, v.high))
        elif v.state != confirmations.UNCONFIRMED:
            got.append(PointVerdict(v.change.name, v.state, v.ratio, v.low, v.high))
    return got


def summary(got):
    """(state, the most telling PointVerdict, n measured, n seen) of a change's measured
    points: seen before the other way before not seen before refuted or inconclusive; None
    when none was measured."""
    if not got:
        return None
    states = Counter(p.state for p in got)
    for state in (SEEN, OTHER_WAY, NOT_SEEN, confirmations.REFUTED,
                  confirmations.INCONCLUSIVE):
        if states[state]:
            best = max((p for p in got if p.state == state),
                       key=lambda p: abs(p.ratio - 1) if state != NOT_SEEN else -p.high)
            return state, best, len(got), states[SEEN]
    return None


def combined(history, confirmation, at_field):
    """The row's verdict from the history's and the interleaved run's."""
    shape = " at its shape" if at_field else ""
    if confirmation is None:
        return history + shape + (" (not yet confirmed)" if history in (SEEN, "partly") else "")
    state = confirmation[0]
    if state == SEEN:
        return "seen and confirmed" + shape
    if state == OTHER_WAY:
        return "the other way, confirmed" + shape
    if state == NOT_SEEN:
        return NOT_SEEN + shape
    return history + shape + " (%s)" % state


def seen_elsewhere(entry, pairs, documented_pair, field_only):
    """'a → b (ratio)' of the pairs, other than the documented one, where the entry's points
    change the documented way by asv's rule (the largest first), or None."""
    found = []
    for ra, rb, changes in pairs:
        if (ra, rb) == documented_pair:
            continue
        moved = [c for c in entry_points(entry, changes, field_only)
                 if c.verdict == entry["expect"]]
        if moved:
            best = max(moved, key=lambda c: abs(c.ratio - 1))
            found.append((abs(best.ratio - 1), "%s → %s (%sx)" % (ra, rb, ratio_text(best.ratio))))
    return ", ".join(t for _, t in sorted(found, reverse=True)[:3]) or None


# --- the report --------------------------------------------------------------------------------
def confirmation_cell(row):
    if not row.confirmation:
        return "—"
    state, best, n, seen = row.confirmation
    return "`%s` %sx [%s, %s] %s (%d of %d points seen%s)" % (
        best.name, ratio_text(best.ratio), ratio_text(best.low), ratio_text(best.high), state,
        seen, n, ", on %s" % row.where.machine if row.where is not None else "")


def table_row(row):
    """The row as `confirm --documented` prints it."""
    cell = "—"
    if row.confirmation:
        state, best, n, seen = row.confirmation
        cell = "%sx [%s, %s] %s, %d/%d seen" % (ratio_text(best.ratio), ratio_text(best.low),
                                                ratio_text(best.high), state, seen, n)
    return [row.entry["release"], row.entry["what"][:50], row.flavor, row.pair or "—",
            "%d/%d/%d" % (row.faster, row.slower, row.same) if row.pair else "—", cell,
            row.verdict]


def table_text(rows):
    """The rows' table as `confirm --documented` prints it."""
    return tabulate([table_row(r) for r in rows], headers=TABLE_HEADERS)


def documented_markdown(rows, documented=None, field=None):
    lines = ["## Documented changes: what this history shows", "",
             "Performance changes that MXNet's release notes, pull requests or issues document "
             "(`docs/documented-changes.toml`), against the measured pair of releases that "
             "brackets each. Counts are parameter points of the named benchmarks (asv's rule "
             "between the two records: faster / slower / same), at the source's shapes (the "
             "field cases) where the entry has them and they are recorded, else at the "
             "catalogue's; ratio = median new / old time. *Interleaved*: both releases "
             "measured again in one session, rounds interleaved: every point of the change, "
             "flagged or not, on the host that records the field cases (`python -m mxbench "
             "--results %s confirm --documented --flavor F`, its machine named), else the "
             "history's own confirmation of its flagged points (`confirm A B`); the most "
             "telling point's ratio and 95 %% interval. *Seen and confirmed*: past 1.2x the "
             "documented way, the interval beyond 1, every round beyond every round; *not "
             "seen*: the interval inside (1/1.2, 1.2)." % CPU_KINDS, ""]
    if field is not None:
        lines += ["The field cases are recorded on machine %s, and measured again there "
                  "(where it is another CPU kind than the committed history's, ratios compare, "
                  "not times)." % field.label(), ""]
    lines += ["| release | what (source) | flavor | measured pair | faster / slower / same "
              "| median ratio | interleaved | verdict |", "|---|---|---|---|---|---:|---|---|"]
    for row in rows:
        entry = row.entry
        note = ""
        if row.verdict == NOT_MEASURABLE:
            note = ": %s" % entry["not_measurable"]
        elif row.verdict == NOT_RECORDED:
            ra, rb = row.pair.split(" → ")
            at_catalogue = history_verdict(
                {"faster": row.faster, "slower": row.slower, "same": row.same}, entry["expect"])
            note = " (%s); at the catalogue's shapes: %s; to record them: `%s`" % (
                ", ".join(entry["cases"]), at_catalogue, FIELD_RUN % (ra, rb, row.flavor))
        elif row.verdict == NOT_MEASURED:
            note = (": no point of its benchmarks measured at both releases (one side skips: "
                    "`asv run -e` shows why)" if row.pair else
                    ": no measured pair of releases brackets it")
        if row.elsewhere:
            note += "; the documented way elsewhere: %s" % row.elsewhere
        lines.append("| %s | %s ([source](%s)) | %s | %s | %s | %s | %s | **%s**%s |" % (
            entry["release"], entry["what"], entry["source"], row.flavor, row.pair or "—",
            "%d / %d / %d" % (row.faster, row.slower, row.same) if row.pair else "—",
            ratio_text(row.median) or "—", confirmation_cell(row), row.verdict, note))
    if documented is not None:
        lines += ["", summary_line(rows, documented)]
    return "\n".join(lines) + "\n"


def summary_line(rows, documented):
    cpu = cpu_entries(documented)
    gpu = len(documented) - len(cpu)
    verdicts = Counter(r.verdict for r in rows)
    entries = OrderedDict()
    for r in rows:  # an entry is seen and confirmed when one of its flavors is
        entries.setdefault(id(r.entry), []).append(r.verdict)
    measurable = [v for v in entries.values() if NOT_MEASURABLE not in v]
    confirmed = sum(any(x.startswith("seen and confirmed") for x in v) for v in measurable)
    return ("%d documented CPU changes (%d of them not measurable in these wheels): %d of the "
            "%d measurable seen and confirmed in at least one flavor. %d rows by flavor: %s. "
            "%d GPU changes are kept for a GPU machine." % (
                len(cpu), len(cpu) - len(measurable), confirmed, len(measurable), len(rows),
                ", ".join("%d %s" % (n, v) for v, n in verdicts.most_common()), gpu))
