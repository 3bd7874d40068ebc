"""MXNet's crashes, told apart from the suite's failures.

asv keeps no exit status in its result files: a point that died with its process (a
segfault, an abort inside MXNet) and a point whose setup raised are both `failed` (null).
After a run, each failed point is run once more alone (up to PROBES_PER_POINT times while
it runs through), through the real asv with --show-stderr, and its exit is read: killed by a
signal, or MXNet's own fatal-signal handler ("Segmentation fault: 11", then exit 255) —
MXNet's crash, data about the release on this CPU kind; anything else (a Python error, a
timeout, a point that never failed again) stays a failure. A crash is added to
benchmarks/catalogue/known_crashes.jsonl (the harness skips it from then on, `mxbench run`
does not run it again) with what the probe saw.
"""
import os
import re
import signal
import tempfile
import time

from benchmarks.catalogue import crashes as known
from mxbench.asvrun import runner
from mxbench.core import selection as point_selection
from mxbench.core.errors import UserError

EXIT_LINE = re.compile(r"asv: benchmark failed \(exit status (-?\d+)\)")
# libmxnet's handler of SIGSEGV (and others): "Segmentation fault: <signal number>"
MXNET_HANDLER = re.compile(r"^\W*Segmentation fault: (\d+)\s*$", re.M)
EVIDENCE = re.compile(r"^\W*(Segmentation fault: \d+|terminate called.*|Fatal Python error.*"
                      r"|Illegal instruction.*|Aborted.*)\s*$", re.M)
# asv's lines when the environment could not install the commit, so ran nothing: the
# install hook's error, the discovery that needs an installed commit, the skipped environment
NOT_INSTALLED = re.compile(r"Error running .*env_matrix\.asv_hook install"
                           r"|Failed to build the project|\bSkipping \S+\s*$", re.M)
ASV_TIMEOUT = -256  # asv's exit status of a benchmark it stopped at its timeout
# Failed points probed per run: each probe is an asv run of its own (about half a minute); a
# run with more failures than this says so and leaves the rest failed (a resume probes them)
PROBE_LIMIT = 20
# A point that did not fail at all when run alone is run alone again, up to this many times:
# some of MXNet's crashes come and go (LeakyReLU rrelu's backward on family 26: one run in
# several), and a crash seen once more is the release's; a probe that fails otherwise (a
# Python error, a timeout) ends the probing: the suite's failure
PROBES_PER_POINT = 3


def classify(output):
    """{exit_status, signal, evidence} when asv's output of one point shows MXNet's crash,
    else None (no failure, a Python error, a timeout)."""
    statuses = EXIT_LINE.findall(output)
    if not statuses:
        return None
    status = int(statuses[-1])
    handler = MXNET_HANDLER.search(output)
    if status < 0 and status != ASV_TIMEOUT:
        number = -status
    elif status != 0 and handler:
        number = int(handler.group(1))
    else:
        return None
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = "signal %d" % number
    evidence = []
    for line in (m.group(1).strip() for m in EVIDENCE.finditer(output)):
        if line not in evidence:
            evidence.append(line)
    return {"exit_status": status, "signal": name, "evidence": "; ".join(evidence[:3])}


def probe(project, machine, commit, env_name, point_name, asv_extra=()):
    """asv's output of one point run alone (a throwaway results directory: the store is not
    touched), or None when asv could not run it."""
    with tempfile.TemporaryDirectory(prefix="probe-", dir=project.work_dir) as tmp:
        config = runner.config_copy(project.config, os.path.join(tmp, "asv.conf.json"),
                                    results_dir=os.path.join(tmp, "results"))
        hashfile = os.path.join(tmp, "commit.hashes")
        with open(hashfile, "w") as fh:
            fh.write(commit + "\n")
        lines = []
        args = ["run", "HASHFILE:%s" % hashfile, "--machine", machine, "-E", env_name,
                "--show-stderr"]
        for regex in point_selection.names_regexes([point_name]):
            args += ["-b", regex]
        runner.run_asv(args + list(asv_extra), config=config, cwd=project.base,
                       keep_line=lambda line: lines.append(line) and False)
        return "".join(lines)


class NotInstalled(Exception):
    """The probe's environment could not install the release: no point of it can run."""


def probe_until_seen(project, machine, commit, env_name, point_name, asv_extra=()):
    """classify() of the first probe that shows MXNet's crash, or None: a probe that failed
    otherwise, or PROBES_PER_POINT probes in which the point never failed. NotInstalled when
    asv could not install the release (nothing ran: the failure is the install's)."""
    for attempt in range(PROBES_PER_POINT):
        if attempt:
            print("  it ran through: probing it again (%d of %d)" % (attempt + 1,
                                                                    PROBES_PER_POINT),
                  flush=True)
        output = probe(project, machine, commit, env_name, point_name, asv_extra) or ""
        if NOT_INSTALLED.search(output):
            raise NotInstalled(env_name)
        seen = classify(output)
        if seen is not None or EXIT_LINE.search(output):
            return seen
    return None


def failed_points(store, machine, commit, env_name, names):
    """The points among `names` that the store holds as failed (null) for this file."""
    wanted = set(names)
    return [p.name for p in store.points(machine, commit, env_name)
            if p.name in wanted and p.value is None]


def crash_row(point_name, release, flavor, machine, seen):
    """The known_crashes.jsonl row of a crash a probe saw."""
    module, entry, method = point_name.split("(")[0].split(".")
    params = point_name[point_name.index("(") + 1:-1] if "(" in point_name else ""
    case = None
    if module in known.CATALOGUE_MODULES:
        first = params.split(",")[0].strip().strip("'\"")
        case = first or None
    return {"module": None if module in known.CATALOGUE_MODULES else module,
            "entry": entry, "case": case, "method": method, "since": release,
            "until": release, "cpu": known.cpu_kind() or None,
            "what": "%s (exit status %d): %s" % (seen["signal"], seen["exit_status"],
                                                 seen["evidence"] or "no message"),
            "source": "observed by mxbench run on machine %s, %s (%s), and again alone"
                      % (machine, time.strftime("%Y-%m-%d", time.gmtime()), flavor),
            "point": point_name, "flavor": flavor, "exit_status": seen["exit_status"]}


def sort_out_failures(project, machine, release, flavor, env_name, names, asv_extra=()):
    """Probe the failed points among `names` of one (release, environment) and record MXNet's
    crashes; returns (crashed point names, still failed point names)."""
    commit = project.commit(release)
    failed = failed_points(project.store, machine, commit, env_name, names)
    crashed, still_failed = [], []
    for number, name in enumerate(failed):
        if number >= PROBE_LIMIT:
            still_failed.append(name)
            continue
        print("probing a failed point alone: %s (%s, %s)" % (name, release, flavor), flush=True)
        try:
            seen = probe_until_seen(project, machine, commit, env_name, name, asv_extra)
        except NotInstalled:
            print("  %s could not be installed in %s: its failed points stay failed, not "
                  "probed (a resume installs and runs them)" % (release, env_name), flush=True)
            still_failed += failed[number:]
            return crashed, still_failed
        if seen is None:
            still_failed.append(name)
            continue
        row = crash_row(name, release, flavor, machine, seen)
        try:
            known.append_row(row)
        except (known.CrashDataError, OSError) as exc:
            raise UserError("MXNet %s crashed on %s, which cannot be added to %s: %s"
                            % (release, name, known.crashes_file_label(), exc))
        print("  MXNet %s crashed here: %s (%s)" % (release, row["what"],
                                                   known.crashes_file_label()), flush=True)
        crashed.append(name)
    if len(failed) > PROBE_LIMIT:
        print("%d more failed point(s) not probed: a resume probes them" % (
            len(failed) - PROBE_LIMIT), flush=True)
    return crashed, still_failed

