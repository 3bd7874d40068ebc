"""Noise per point: how far a point moves between recordings of the same build on this machine.

The history compares releases recorded on different days, and this machine's speed moves from
day to day; asv's rule (ratio past the factor, statistics that differ) knows only the samples
of one session. So the A/A recordings of one release (the same wheel, the same settings,
several days) give each point its own noise: the widest ratio between any two of them, max /
min. A release-to-release change within that is nothing this machine can tell from noise
(`python -m mxbench changes` does not report it). Points with fewer than MIN_RECORDINGS
recordings get the UNKNOWN_QUANTILE of the known points' noise.

    python -m mxbench noise results/amd-epyc-2cpu-24gb experiments/amd-epyc-2cpu-24gb-aa ...
        --release 1.9.1 --flavor cpu-mkldnn -o reports/noise.json
"""
import json
import os
import sys
from collections import defaultdict

import numpy as np

from mxbench.core import project as project_model
from mxbench.core.errors import UserError
from mxbench.core.results import Store, measured

MIN_RECORDINGS = 3
UNKNOWN_QUANTILE = 90
NOISE_FILE = os.path.join(project_model.ROOT, "reports", "noise.json")


def setup_arguments(subparsers):
    parser = subparsers.add_parser(
        "noise", help="each point's noise from A/A recordings of one release (max/min)",
        description=__doc__.split("\n\n")[0])
    parser.add_argument("recordings", nargs="+", metavar="RESULTS_DIR/MACHINE",
                        help="machine directories holding recordings of the same release and "
                             "settings (at least %d, on different days)" % MIN_RECORDINGS)
    parser.add_argument("--release", required=True)
    parser.add_argument("--flavor", default="cpu-mkldnn")
    parser.add_argument("-o", "--output", help="JSON file (default: stdout)")
    parser.set_defaults(func=noise_command)
    return parser


def recording_days(points):
    starts = sorted(p.started_at for p in points if p.started_at)
    if not starts:
        return None
    import datetime
    middle = starts[len(starts) // 2] / 1000.0
    return datetime.datetime.utcfromtimestamp(middle).strftime("%Y-%m-%d")


def collect(machine_dirs, commit, env_name, release):
    """({point name: {version: [value per recording]}}, [recording description]) of the
    timings in each machine directory's recording of (commit, env_name)."""
    values = defaultdict(lambda: defaultdict(list))
    recordings = []
    for path in machine_dirs:
        path = os.path.abspath(path.rstrip("/"))
        store, machine = Store(os.path.dirname(path)), os.path.basename(path)
        points = [p for p in store.points(machine, commit, env_name)
                  if p.unit == "seconds" and measured(p.value) and p.value > 0]
        if not points:
            raise UserError("%s: no measured timing of %s in environment %s"
                            % (path, release, env_name))
        recordings.append({"machine_dir": os.path.relpath(path, project_model.ROOT),
                           "day": recording_days(points), "timings": len(points)})
        for point in points:
            values[point.name][point.version].append(point.value)
    return values, recordings


def point_noise(values):
    """{name: {"recordings": n, "noise": max/min}} over the benchmark version most recorded."""
    noise = {}
    for name, by_version in values.items():
        series = max(by_version.values(), key=len)
        if len(series) >= MIN_RECORDINGS:
            noise[name] = {"recordings": len(series),
                           "noise": round(max(series) / min(series), 4)}
    return noise


def build(project, machine_dirs, release, flavor, command):
    env_name = project.environment(flavor)
    values, recordings = collect(machine_dirs, project.commit(release), env_name, release)
    if len(recordings) < MIN_RECORDINGS:
        raise UserError("%d recording(s): the noise of a point needs at least %d"
                        % (len(recordings), MIN_RECORDINGS))
    noise = point_noise(values)
    known = [v["noise"] for v in noise.values()]
    unknown = float(np.percentile(known, UNKNOWN_QUANTILE)) if known else None
    return {"release": release, "flavor": flavor, "env_name": env_name,
            "command": command, "recordings": recordings,
            "days": sorted(set(r["day"] for r in recordings if r["day"])),
            "min_recordings": MIN_RECORDINGS,
            "unknown_noise": round(unknown, 4) if unknown else None,
            "median_noise": round(float(np.median(known)), 4) if known else None,
            "points": dict(sorted(noise.items()))}


def noise_command(args):
    project = args.project
    command = "python -m mxbench noise " + " ".join(sys.argv[sys.argv.index("noise") + 1:]) \
        if "noise" in sys.argv else None
    data = build(project, args.recordings, args.release, args.flavor, command)
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    if args.output:
        with open(args.output, "w") as fh:
            fh.write(text)
        print("wrote %s: %d points with their noise from %d recordings on %d day(s); median "
              "%.2fx, unknown points %.2fx" % (args.output, len(data["points"]),
                                                len(data["recordings"]), len(data["days"]),
                                                data["median_noise"], data["unknown_noise"]))
    else:
        sys.stdout.write(text)
    return 0


class Noise(object):
    """A noise table (reports/noise.json): threshold(name) is the ratio a change of that point
    must pass besides the report's factor."""

    def __init__(self, data=None, path=None):
        self.data = data or {"points": {}, "unknown_noise": None}
        self.path = path

    @classmethod
    def load(cls, path=NOISE_FILE, required=False):
        """The committed table; none (no thresholds besides the factor) when absent, unless
        `required` (a path the user gave: UserError)."""
        if not path or not os.path.exists(path):
            if required:
                raise UserError("%s: no such noise table (python -m mxbench noise writes one)"
                                % path)
            return cls()
        try:
            with open(path) as fh:
                data = json.load(fh)
            data["points"]
        except (ValueError, KeyError, TypeError) as exc:
            raise UserError("%s: not a noise table (%s)" % (path, exc))
        return cls(data, path)

    def __bool__(self):
        return bool(self.data["points"])

    def of(self, name):
        """(noise ratio, known?) of a point; (None, False) without a table."""
        entry = self.data["points"].get(name)
        if entry:
            return entry["noise"], True
        return self.data.get("unknown_noise"), False

    def beyond(self, change, factor):
        """Does the change pass both the factor and the point's own noise?"""
        noise, _ = self.of(change.name)
        threshold = max(factor, noise or 0)
        return change.ratio >= threshold or change.ratio <= 1.0 / threshold
