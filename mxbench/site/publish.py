"""The site (html/), built beside it and swapped in when complete; the command line is
mxbench/commands/publish.py.

The real `asv publish` writes into <html_dir>.staging-<pid> (swap.py) from a copy of the
results (site_results: without the machine fields that move between boots, and, for the
default config, with the neutral baselines' results, so that their graphs are part of the one
site); then vendor.py serves asv's CDN libraries from the site, pages.py adds the report pages
(pages.py lists them), verdict_data.py the confirmation runs' verdicts for the regressions
page, change_data.py the changes, and overlay.py the overlay: its data scripts
(file_data.py: the site's only copy of its data, asv's JSON files dropped) and default views;
the complete site replaces html_dir. On an error or an interruption before that, html_dir
stays as it was, the staging folder is removed and asv publish is stopped.
"""
import collections
import os
import shutil
import signal
import subprocess
import sys

from mxbench.asvrun import runner
from mxbench.core.project import CPU_KINDS, DEFAULT_CONFIG, ROOT, load as load_project, read_config
from mxbench.core.results import ResultsProblem
from mxbench.site import (PublishError, change_data, overlay, pages, shown_text, swap, vendor,
                          verdict_data)

BASELINES_CONFIG = os.path.join(ROOT, "asv.baselines.conf.json")
BENCHMARKS_FILE = "benchmarks.json"


def html_dir_of(config):
    """html_dir of `config`, relative to the config file's directory (where asv is run)."""
    conf = read_config(config)
    return os.path.join(os.path.dirname(os.path.abspath(config)), conf.get("html_dir", "html"))


# --- the results asv publish reads -------------------------------------------------------------
def require_valid_results(store):
    """Every results file asv publish would read is usable: a bad one is named, and no site
    is published without it (asv would crash on it, hang on it, or leave its release out)."""
    try:
        store.require_valid()
    except ResultsProblem as exc:
        raise PublishError("results that cannot be used, so no site: %s"
                           % "; ".join(str(e) for e in exc.errors))


def baselines_store(config):
    """The neutral baselines' results (docs/baselines.md) when `config` is the default one and
    they are recorded; else None."""
    if os.path.abspath(config) != os.path.abspath(DEFAULT_CONFIG):
        return None
    if not os.path.exists(BASELINES_CONFIG):
        return None
    store = load_project(BASELINES_CONFIG).store
    return store if store.files() else None


def cpu_kinds_store(config):
    """The other CPU kinds' own records (results-cpu-kinds/ beside results/, a machine each)
    when `config` is the default one and they hold any; else None. Their graphs are their
    machine's on the one site."""
    if os.path.abspath(config) != os.path.abspath(DEFAULT_CONFIG):
        return None
    folder = os.path.join(ROOT, CPU_KINDS)
    if not os.path.isdir(folder):
        return None
    store = load_project(config, folder).store
    return store if store.files() else None


def _merge_copies(target, extra):
    """Move the result files of the Store `extra` into the Store `target` and join the two
    benchmarks.json: one results folder for one site. A machine both hold is one machine (a
    host of a kind results-cpu-kinds/ records, after `make bench` into results/): its result
    files of one commit and environment are folded point by point (the later measurement of
    a point wins, results/'s on a tie: merge_result_data), the conditions logs joined,
    target's machine.json kept."""
    from asv.benchmarks import Benchmarks
    from mxbench.core.results import (CONDITIONS_FILE, MACHINE_FILE, join_conditions_logs,
                                      merge_result_data, read_benchmarks_file,
                                      read_result_file, write_json_atomic)
    for machine in extra.machines():
        folder = target.machine_dir(machine)
        os.makedirs(folder, exist_ok=True)
        for name in sorted(os.listdir(extra.machine_dir(machine))):
            source = os.path.join(extra.machine_dir(machine), name)
            destination = os.path.join(folder, name)
            if not os.path.exists(destination):
                shutil.move(source, destination)
            elif name == CONDITIONS_FILE:
                join_conditions_logs(destination, source)
            elif name != MACHINE_FILE:
                write_json_atomic(destination, merge_result_data(
                    read_result_file(source), read_result_file(destination)), compact=True)
    joined = collections.OrderedDict()
    for store in (target, extra):
        path = os.path.join(store.results_dir, BENCHMARKS_FILE)
        if os.path.exists(path):
            joined.update(read_benchmarks_file(path))
    joined["version"] = Benchmarks.api_version
    write_json_atomic(os.path.join(target.results_dir, BENCHMARKS_FILE), joined)


# Environment parameters of the merged results that the history's results do not have: asv
# gives every graph a level per parameter of any result file ("torch-null/" in every path of
# the history, "torch" in its legends), so the site copy of the baselines drops them; the
# graph addresses of the history stay as they were before the merge.
EXTRA_ONLY_FIELDS = ("torch",)


def site_results(store, workdir, extra=None):
    """The results as asv publish reads them: a copy without the fields that move between
    boots of one machine (results.BOOT_FIELDS), so each machine is one history; with the
    Store `extra` (the baselines; or a list of Stores: the baselines and the other CPU
    kinds' records) merged in, without EXTRA_ONLY_FIELDS. Returns the copy's folder."""
    from mxbench.core.results import BOOT_FIELDS, copy_for_site
    if not os.path.isdir(store.results_dir):
        return store.results_dir  # asv publish says what is missing
    copy = copy_for_site(store, os.path.join(workdir, "results"))
    extras = extra if isinstance(extra, list) else [extra] if extra is not None else []
    for i, other in enumerate(extras):
        _merge_copies(copy, copy_for_site(other, os.path.join(workdir, "results-extra-%d" % i),
                                          BOOT_FIELDS + EXTRA_ONLY_FIELDS))
    shown_text.escape_shown_text(copy)
    return copy.results_dir


# --- asv publish -------------------------------------------------------------------------------
def run_asv_publish(config, staging, results_dir, workdir, asv_extra=(), log=print):
    """The real `asv publish` (asvrun/asv_publish.py) with a copy of `config` whose html_dir is `staging` and whose
    results_dir is `results_dir`.

    asv's output (stdout and stderr) is passed on to our stdout as it comes; a failure is a
    PublishError whose message ends with asv's last line (the exception, for a crash). asv is
    stopped whatever ends this function (an error, Ctrl-C, SIGTERM).
    """
    from mxbench.asvrun import guard
    copy = runner.config_copy(config, os.path.join(workdir, os.path.basename(config)),
                                html_dir=staging, results_dir=results_dir)
    # asv's own command line, each git range query asked once (asvrun/asv_publish.py)
    cmd = [sys.executable, runner.ASV_PUBLISH, "--config", copy, "publish"] + list(asv_extra)
    log("$ %s   # %s with html_dir=%s" % (" ".join(cmd), config, staging))
    sys.stdout.flush()
    tail = collections.deque(maxlen=40)
    proc = None
    try:
        # asv resolves the config's relative paths against its working directory (the copy
        # has them resolved already; the working directory stays the original's folder).
        # Through a guard: asv publish (and the git it runs) ends with this process, a kill -9
        # included.
        proc = guard.Guarded(cmd, cwd=os.path.dirname(config), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, universal_newlines=True,
                             errors="replace")
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            tail.append(line.rstrip("\n"))
        code = proc.wait()
        if code == -signal.SIGINT:
            raise KeyboardInterrupt
        if code == -signal.SIGTERM:
            raise runner.Interrupted(signal.SIGTERM)
        if code != 0:
            last = next((t.strip() for t in reversed(tail) if t.strip()), "no output")
            raise PublishError("asv publish failed (exit %d): %s" % (code, last))
        if not os.path.exists(os.path.join(staging, "index.html")):
            raise PublishError("asv publish exited 0 but wrote no %s/index.html" % staging)
    finally:
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()


# --- the whole site ----------------------------------------------------------------------------
def make_offline(html_dir, log=print):
    """The vendored libraries and the overlay, on a published site in html_dir."""
    summary = vendor.localize_site(html_dir, log=log)
    summary["overlay"] = overlay.add_overlay(html_dir, log=log)
    return summary


def build(config, staging, asv_extra=(), store=None, log=print):
    """The complete site in `staging`: asv publish (results and the baselines merged), the
    pages, the offline steps."""
    project = load_project(config)
    store = store or project.store
    if not os.path.isdir(project.ladder_dir):
        project.ensure_ladder()  # as `mxbench setup` does: asv publish reads the ladder
        log("ladder: written (%s)" % project.ladder_dir)
    project.tags  # a stray or moved tag: refused now, not after minutes of asv publish
    require_valid_results(store)
    extra = baselines_store(config)
    extras = [s for s in (extra, cpu_kinds_store(config)) if s is not None]
    for other in extras:
        require_valid_results(other)
    workdir = swap.work_dir()
    try:
        results_dir = site_results(store, workdir, extras)
        run_asv_publish(config, staging, results_dir, workdir, asv_extra, log=log)
    finally:
        interrupted = swap.remove(workdir)
        if interrupted:
            raise interrupted
    written = [pages.write_models_page(config, staging, log=log),
               pages.write_changes_page(config, staging, log=log),
               pages.write_coverage_page(staging, log=log),
               pages.write_cliffs_page(config, staging, log=log)]
    if extra is not None:
        pages.write_baselines_page(BASELINES_CONFIG, staging, log=log)
        written.append(pages.BASELINES_PAGE)
    pages.add_nav_links(staging, pages.links_to([os.path.basename(p) for p in written]))
    verdict_data.write_verdicts(config, staging, log=log)
    change_data.write_changes(config, staging, log=log)  # reads confirmations.json


def publish(config, html_dir, asv_extra=(), vendor_only=False, log=print, state=None,
            store=None):
    """asv publish (or, with vendor_only, a copy of the site in html_dir) into a staging
    folder, made to work offline there, swapped in. Raises PublishError, OSError,
    KeyboardInterrupt, runner.Interrupted; in every such case before the swap html_dir is
    untouched and the staging folder removed."""
    state = {} if state is None else state
    html_dir = os.path.normpath(os.path.abspath(html_dir))
    staging, old = swap.side_paths(html_dir)
    for path in swap.remove_leftovers(html_dir):
        log("removed the leftover of a killed publish: %s" % path)
    try:
        swap.remove(staging)  # a folder of this name is from a dead process with our pid
        if vendor_only:
            if not os.path.exists(os.path.join(html_dir, "index.html")):
                raise PublishError("%s/index.html does not exist: run `python -m mxbench "
                                   "publish` first" % html_dir)
            log("copying %s to %s" % (html_dir, staging))
            shutil.copytree(html_dir, staging, symlinks=True)
        else:
            build(config, staging, asv_extra, store, log=log)
        make_offline(staging, log=log)
        swap.swap_in(staging, html_dir, state)
    finally:
        interrupted = swap.remove(staging)
        if state.get("swapped"):  # never before: then `old` may be the only copy of the site
            interrupted = swap.remove(old) or interrupted
        if interrupted:
            raise interrupted
    return html_dir
