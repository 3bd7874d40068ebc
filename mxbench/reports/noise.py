"""Noise per point: how far a point moves between recordings of the same build on this machine.

The history compares releases recorded on different days, and this machine's speed moves from
day to day; asv's rule (ratio past the factor, statistics that differ) knows only the samples
of one session. So the A/A recordings of one release (the same wheel, the same settings,
several days) give each point its own noise: the widest ratio between any two of them, max /
min. A release-to-release change within that is nothing this machine can tell from noise
(`python -m mxbench changes` does not report it). Points with fewer than MIN_RECORDINGS
recordings get the UNKNOWN_QUANTILE of the known points' noise. A table may carry a margin
(`--margin M`): a point's threshold is then its noise times M. The widest ratio among a few
recordings understates the next day's (the machine's memory bandwidth, shared with the VM's
neighbours, moves by a day's shift no table of one or two days has seen); `--held-out` with
`--margin` tells which M holds pairs of days apart.

    python -m mxbench noise results-archive/amd-epyc-2cpu-24gb experiments/amd-epyc-2cpu-24gb-aa ...
        --release 1.9.1 --flavor cpu-mkldnn -o generated-reports/noise/amd-epyc-2cpu-24gb.json

A table is one machine's (one kind of host): generated-reports/noise/MACHINE.json, which the reports of
that machine's history apply and no other's.

`--held-out` asks how well such a table bounds the next day: for every pair of recordings made
on different days, the pair's flagged timings beyond their noise in the table built from the
other recordings, and the same once the pair's common shift (its median ratio: the day's
machine) is divided out.
"""
import itertools
import json
import math
import os
import sys
from collections import defaultdict

import numpy as np

from mxbench.asvrun import conditions
from mxbench.core.project import ROOT
from mxbench.core.change_rule import compare
from mxbench.core.errors import UserError
from mxbench.core.results import Store, measured

MIN_RECORDINGS = 3
# A table's recordings span at least this many days (issue 23's rule, docs/trust.md): the
# widest ratio within one or two days has not seen the day-to-day moves a table stands for.
MIN_DAYS = 3
MARGIN = 1.0  # a table without one: the threshold is the point's noise itself
UNKNOWN_QUANTILE = 90
NOISE_DIR = os.path.join(ROOT, "generated-reports", "noise")


def table_path(machine):
    """Where the committed noise table of `machine` lives."""
    return os.path.join(NOISE_DIR, machine + ".json")


def recording_days(points):
    starts = sorted(p.started_at for p in points if p.started_at)
    if not starts:
        return None
    import datetime
    middle = starts[len(starts) // 2] / 1000.0
    return datetime.datetime.utcfromtimestamp(middle).strftime("%Y-%m-%d")


def read_recordings(machine_dirs, commit, env_name, release):
    """[(recording description, [measured timing Point])] of each machine directory's
    recording of (commit, env_name); UserError where two are one recording (a directory
    given twice, or a copy: the same points started at the same times), whose ratios of 1
    would pass for no noise, or where they were made on two CPU kinds."""
    read, seen, kinds = [], {}, set()
    for given in machine_dirs:
        path = os.path.abspath(given.rstrip("/"))
        store, machine = Store(os.path.dirname(path)), os.path.basename(path)
        points = [p for p in store.points(machine, commit, env_name)
                  if p.unit == "seconds" and measured(p.value) and p.value > 0]
        if not points:
            raise UserError("%s: no measured timing of %s in environment %s"
                            % (path, release, env_name))
        kinds.update(conditions.recorded_cpu_kinds(store, machine, commit, env_name))
        identity = [os.path.realpath(path)]
        if any(p.started_at for p in points):
            identity.append(frozenset((p.name, p.started_at) for p in points))
        for key in identity:
            if key in seen:
                raise UserError("%s and %s are one recording: a point's noise needs distinct "
                                "recordings" % (seen[key], given))
            seen[key] = given
        read.append(({"machine_dir": os.path.relpath(path, ROOT),
                      "day": recording_days(points), "timings": len(points)}, points))
    require_one_cpu_kind(kinds)
    return read


def require_one_cpu_kind(kinds):
    """Noise is a CPU kind's: recordings of two kinds would read the kinds' difference as
    noise (UserError, unless --other-cpu)."""
    if len(kinds) > 1:
        text = "the recordings were made on %s" % " and ".join(
            conditions.cpu_kind_text(k) for k in sorted(kinds))
        if not conditions.allow_other_cpu_from_env():
            raise UserError("%s: a noise table is one CPU kind's (add --other-cpu to mix "
                            "them knowingly)" % text)
        print("warning: %s (--other-cpu)" % text, file=sys.stderr, flush=True)


def values_of(read, scales=None):
    """{point name: {version: [value per recording]}}; each recording's values divided by
    its scale when given."""
    values = defaultdict(lambda: defaultdict(list))
    for index, (_, points) in enumerate(read):
        scale = scales[index] if scales else 1.0
        for point in points:
            values[point.name][point.version].append(point.value / scale)
    return values


def collect(machine_dirs, commit, env_name, release):
    """({point name: {version: [value per recording]}}, [recording description]) of the
    timings in each machine directory's recording of (commit, env_name)."""
    read = read_recordings(machine_dirs, commit, env_name, release)
    return values_of(read), [description for description, _ in read]


def point_noise(values):
    """{name: {"recordings": n, "noise": max/min}} over the benchmark version most recorded."""
    noise = {}
    for name, by_version in values.items():
        series = max(by_version.values(), key=len)
        if len(series) >= MIN_RECORDINGS:
            noise[name] = {"recordings": len(series),
                           "noise": round(max(series) / min(series), 4)}
    return noise


def unknown_noise(noise):
    known = [v["noise"] for v in noise.values()]
    return float(np.percentile(known, UNKNOWN_QUANTILE)) if known else None


def table_machine(machine_dirs, machine=None):
    """The machine a table serves: --machine, else the first recording's machine directory
    (the history's own record first: results/MACHINE)."""
    return machine or os.path.basename(os.path.abspath(machine_dirs[0].rstrip("/")))


def build(project, machine_dirs, release, flavor, command, machine=None, margin=MARGIN):
    env_name = project.environment(flavor)
    values, recordings = collect(machine_dirs, project.commit(release), env_name, release)
    if len(recordings) < MIN_RECORDINGS:
        raise UserError("%d recording(s): the noise of a point needs at least %d"
                        % (len(recordings), MIN_RECORDINGS))
    days = sorted(set(r["day"] for r in recordings if r["day"]))
    if len(days) < MIN_DAYS:
        raise UserError("%d recording(s) on %d day(s) (%s): a noise table needs recordings of "
                        "at least %d different days (docs/trust.md)"
                        % (len(recordings), len(days), ", ".join(days) or "no dates",
                           MIN_DAYS))
    noise = point_noise(values)
    known = [v["noise"] for v in noise.values()]
    unknown = unknown_noise(noise)
    return {"machine": table_machine(machine_dirs, machine), "release": release,
            "flavor": flavor, "env_name": env_name, "command": command, "recordings": recordings,
            "days": days,
            "min_recordings": MIN_RECORDINGS, "margin": margin,
            "unknown_noise": round(unknown, 4) if unknown else None,
            "median_noise": round(float(np.median(known)), 4) if known else None,
            "points": dict(sorted(noise.items()))}


def median_ratio(after, before):
    """The median ratio after/before over the points both have: one figure for how much
    slower the whole recording ran (the day's machine, if the build is the same)."""
    common = set(after) & set(before)
    if not common:
        return 1.0
    return float(np.median([after[n].value / before[n].value for n in common]))


def held_out(project, machine_dirs, release, flavor, factor, margin=MARGIN):
    """[row] for every pair of recordings made on different days: the pair compared by asv's
    rule (core.change_rule.compare), and its flagged timings judged against the noise table of the
    other recordings: as recorded, and with the day's machine divided out (the pair's ratios
    by the pair's median ratio; the table's recordings each by its median ratio to the
    first). `margin`: each table's, as a table built with it has."""
    read = read_recordings(machine_dirs, project.commit(release),
                           project.environment(flavor), release)
    if len(read) < MIN_RECORDINGS + 2:
        raise UserError("%d recording(s): holding a pair out needs at least %d (a table of %d "
                        "besides the pair)" % (len(read), MIN_RECORDINGS + 2, MIN_RECORDINGS))
    by_point = [{p.name: p for p in points} for _, points in read]
    scales = [median_ratio(points, by_point[0]) for points in by_point]
    rows = []
    for i, j in itertools.combinations(range(len(read)), 2):
        day_a, day_b = read[i][0]["day"], read[j][0]["day"]
        if day_a is None or day_a == day_b:
            continue
        rest = [k for k in range(len(read)) if k not in (i, j)]
        changes = compare(by_point[i], by_point[j], factor)
        flagged = [c for c in changes if c.verdict != "same"]
        shift = median_ratio(by_point[j], by_point[i])
        counts = []
        for table_scales, pair_shift in ((None, 1.0), (scales, shift)):
            table = point_noise(values_of([read[k] for k in rest],
                                          [table_scales[k] for k in rest]
                                          if table_scales else None))
            judge = Noise({"points": table, "unknown_noise": unknown_noise(table),
                           "margin": margin})
            counts.append(sum(judge.beyond(c._replace(ratio=c.ratio / pair_shift), factor)
                              for c in flagged))
        rows.append({"a": read[i][0]["machine_dir"], "b": read[j][0]["machine_dir"],
                     "day_a": day_a, "day_b": day_b, "timings": len(changes),
                     "flagged": len(flagged), "beyond": counts[0], "shift": shift,
                     "beyond_shifted": counts[1]})
    if not rows:
        raise UserError("no two of the recordings were made on different days")
    return rows


def held_out_text(rows, margin=MARGIN):
    def share(n, row):
        return 100.0 * n / max(row["timings"], 1)
    lines = []
    for row in rows:
        lines.append("%s (%s) vs %s (%s): %d timings, %d flagged, beyond their noise %d "
                     "(%.2f%%); the pair's shift %.2fx divided out: %d (%.2f%%)" % (
                         os.path.basename(row["a"]), row["day_a"], os.path.basename(row["b"]),
                         row["day_b"], row["timings"], row["flagged"], row["beyond"],
                         share(row["beyond"], row), row["shift"], row["beyond_shifted"],
                         share(row["beyond_shifted"], row)))
    beyond = "beyond their noise" + (" x %g" % margin if margin != MARGIN else "")
    for key, what in (("beyond", beyond),
                      ("beyond_shifted", "with the shift divided out")):
        shares = [share(row[key], row) for row in rows]
        lines.append("%d pairs of different days, %s: %.2f-%.2f%% of timings (median %.2f%%), "
                     "%d pair(s) under 1%%" % (len(rows), what, min(shares), max(shares),
                                               float(np.median(shares)),
                                               sum(s < 1.0 for s in shares)))
    return "\n".join(lines)


def written_text(data, path, margin=MARGIN):
    """The line the noise command says of a table it wrote."""
    return ("wrote %s: machine %s, %d points with their noise from %d recordings on %d "
            "day(s); median %.2fx, unknown points %.2fx%s" % (
                path, data["machine"], len(data["points"]), len(data["recordings"]),
                len(data["days"]), data["median_noise"], data["unknown_noise"],
                "; thresholds: noise x %g" % margin if margin != MARGIN else ""))


def is_ratio(value):
    """A noise or a margin: a number of 1 or more (max / min), finite."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value >= 1)


def table_problem(data):
    """What makes `data` no noise table, or None. Every value a threshold is made of is a
    finite ratio of 1 or more: a NaN compares false with every ratio and a negative one is
    below the factor, and either would pass every change as beyond its noise."""
    if not isinstance(data, dict) or not isinstance(data.get("points"), dict):
        return "no \"points\" object"
    for name, entry in data["points"].items():
        if not isinstance(entry, dict) or not is_ratio(entry.get("noise")):
            return "the noise of %s is %s, not a finite ratio of 1 or more" % (
                name, json.dumps(entry.get("noise") if isinstance(entry, dict) else entry))
    for key in ("unknown_noise", "margin"):
        if data.get(key) is not None and not is_ratio(data[key]):
            return "its %s is %s, not a finite ratio of 1 or more" % (key, json.dumps(data[key]))
    if data.get("machine") is not None and not isinstance(data["machine"], str):
        return "its machine is %s, not a name" % json.dumps(data["machine"])
    return None


class Noise(object):
    """A noise table (generated-reports/noise/MACHINE.json): threshold(name) is the ratio a change of
    that point must pass besides the report's factor."""

    def __init__(self, data=None, path=None):
        self.data = data or {"points": {}, "unknown_noise": None}
        self.path = path

    @classmethod
    def load(cls, path, required=False):
        """The table in `path`; none (no thresholds besides the factor) when absent, unless
        `required` (a path the user gave: UserError)."""
        if not os.path.exists(path):
            if required:
                raise UserError("%s: no such noise table (python -m mxbench noise writes one)"
                                % path)
            return cls(path=path)
        try:
            with open(path) as fh:
                data = json.load(fh)
        except ValueError as exc:
            raise UserError("%s: not a noise table (%s)" % (path, exc))
        problem = table_problem(data)
        if problem:
            raise UserError("%s: not a noise table (%s)" % (path, problem))
        return cls(data, path)

    @classmethod
    def of_machine(cls, machine):
        """The committed table of `machine` (generated-reports/noise/MACHINE.json), or none: another
        machine's recordings (another kind of host) say nothing of this one's. A file there
        that names another machine is a misplaced table (UserError)."""
        noise = cls.load(table_path(machine))
        if not noise.serves(machine):
            raise UserError(noise.not_serving_text(machine))
        return noise

    def __bool__(self):
        return bool(self.data["points"])

    @property
    def machine(self):
        """The machine whose recordings the table holds (None in a table that names none)."""
        return self.data.get("machine")

    def serves(self, machine):
        """Whether the table is the noise of `machine`: another machine's recordings (another
        kind of host) say nothing of this one's."""
        return self.machine is None or self.machine == machine

    def where(self):
        """The table's file, relative to the checkout (where it was looked for, when absent)."""
        return os.path.relpath(self.path, ROOT) if self.path else "no table"

    def missing_text(self, machine):
        """What a command says when `machine` has no table (this one was looked for)."""
        return "machine %s has no noise table (%s)" % (machine, self.where())

    def not_serving_text(self, machine):
        """What a command says when the table is another machine's."""
        return "%s is the noise of machine %s, not of %s" % (self.where(), self.machine,
                                                             machine)

    @classmethod
    def chosen(cls, machine, path=None, beyond_noise=False, own_machine=False):
        """The table in `path` (--noise FILE); with `beyond_noise` alone, the committed table
        of the machine whose history is read (another host's noise says nothing of it); else
        None. `own_machine`: a FILE must be that machine's too (an A/A pair's sides carry
        names of their own, so an A/A confirmation takes any, as `changes aa --noise` does)."""
        if path:
            noise = cls.load(path, required=True)
            if own_machine and not noise.serves(machine):
                raise UserError(noise.not_serving_text(machine))
            return noise
        if not beyond_noise:
            return None
        noise = cls.of_machine(machine)
        if not noise:
            raise UserError("--beyond-noise: %s; build it with python -m mxbench noise, or "
                            "give one with --noise FILE" % noise.missing_text(machine))
        return noise

    @property
    def margin(self):
        """A point's threshold is its noise times this (1 in a table without one)."""
        return self.data.get("margin", MARGIN)

    def of(self, name):
        """(noise ratio, known?) of a point; (None, False) without a table."""
        entry = self.data["points"].get(name)
        if entry:
            return entry["noise"], True
        return self.data.get("unknown_noise"), False

    def beyond(self, change, factor):
        """Does the change pass both the factor and the point's own noise (times the table's
        margin)?"""
        noise, _ = self.of(change.name)
        threshold = max(factor, (noise or 0) * self.margin)
        return change.ratio >= threshold or change.ratio <= 1.0 / threshold
