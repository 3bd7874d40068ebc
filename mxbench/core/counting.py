"""Which version of the counting code counted a recorded instruction count
(benchmarks/counting_code.py), so that the reports compare only counts of one version.

Each recording through mxbench writes the version into its conditions entry
(`counting_code`, conditions.Watch); a count's version is that of the entry whose recording
ran when the count started (its `started_at` within the entry's start and end, same commit
and environment). asv's own result files have no place for it, and the benchmarks' names,
parameters and asv versions stay as the history has them.

Counts started before HASHED_SINCE, when no version was written, are one known version,
LEGACY: the history's tables were counted with one version of the harness each (its
operators with the one before 2026-11-27's edit, its layers with the one after:
docs/instructions.md), so the history compares with itself as before. A count started later
without a version (plain `asv run`, a run killed before its entry was written, a merge
without its log) is UNKNOWN, comparable with nothing.
"""
import calendar
import os
import time

from mxbench.core.results import CONDITIONS_FILE, read_conditions_log

LEGACY = "legacy"
UNKNOWN = "unknown"
FIELD = "counting_code"
# No count in results/, results-archive/, results-confirmations/ or experiments/ started after
# 2026-11-27 19:25 UTC; versions are written from this commit on.
HASHED_SINCE = calendar.timegm((2026, 11, 28, 14, 0, 0)) * 1000  # ms, as asv's started_at

_LOGS = {}  # conditions.jsonl path -> (mtime, entries)


def current():
    """The version of the counting code in this checkout."""
    from benchmarks import counting_code
    return counting_code.version()


def _entries(machine_dir):
    path = os.path.join(machine_dir, CONDITIONS_FILE)
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError:
        return []
    if _LOGS.get(path, (None,))[0] != stamp:  # each entry with its window, parsed once
        _LOGS[path] = (stamp, [(entry, _window(entry)) for entry in read_conditions_log(path)])
    return _LOGS[path][1]


def _window(entry):
    """(start, end) of a conditions entry's recording in seconds, or None."""
    try:
        return tuple(calendar.timegm(time.strptime(entry[k], "%Y-%m-%dT%H:%M:%SZ"))
                     for k in ("started", "ended"))
    except (KeyError, TypeError, ValueError):
        return None


def version_of(point):
    """The counting code's version of a recorded count (a results.Point of
    bench_instructions): its recording's, LEGACY or UNKNOWN."""
    recording = point.recording
    started = point.started_at
    if started is None or started < HASHED_SINCE:
        return LEGACY  # no entry of before then names a version
    for entry, window in _entries(os.path.dirname(recording.path)):
        if window is None or not window[0] <= started / 1000.0 < window[1] + 1:
            continue
        if recording.env_name in entry["env_names"] and any(
                isinstance(c, str) and recording.commit.startswith(c[:8])
                for c in entry["commits"]):
            if isinstance(entry.get(FIELD), str):
                return entry[FIELD]
            break
    return UNKNOWN


def comparable(a, b):
    """Whether two counts (Points) were counted with one version of the counting code."""
    version = version_of(a)
    return version != UNKNOWN and version == version_of(b)


def versions_text(a, b):
    """Why two counts are not compared: 'counted with two versions of the counting code
    (legacy and 3f2a9c0d1e2b)', or of unknown version where neither is known."""
    versions = version_of(a), version_of(b)
    if versions == (UNKNOWN, UNKNOWN):
        return "counted with counting code of unknown version"
    return "counted with two versions of the counting code (%s and %s)" % versions
