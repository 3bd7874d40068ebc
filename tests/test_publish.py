"""`python -m mxbench.publish` builds the site beside html_dir and swaps it in only when it is
complete: a results file that crashes asv publish, or a Ctrl-C, leaves the published site as
it was, byte for byte, and no staging folder behind.

Real asv publish over a small project: the release ladder (generated), results/benchmarks.json
and two real result files of results/amd-epyc-2cpu-24gb with its machine.json.
"""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT, AsvProject

from mxbench import asvtools, publish

MACHINE = "amd-epyc-2cpu-24gb"
GOOD_FILES = (
    "154b7a02-virtualenv-py3.11-numpy1.23.5-requests-MXNET_FLAVORcpu-mkldnn.json",   # 1.0.0.post4
    "44ff025d-virtualenv-py3.11-numpy1.23.5-requests-MXNET_FLAVORcpu-mkldnn.json",   # 1.5.1.post0
)
# A third real file, given wrong types ("results": a list) by the test that needs it.
BAD_SOURCE = "91f5740e-virtualenv-py3.11-numpy1.23.5-requests-MXNET_FLAVORcpu-mkldnn.json"


def missing(what):
    """A missing tool fails in CI and skips on a developer machine (as in test_site)."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(what, pytrace=False)
    pytest.skip(what)


def run_publish(*args, config):
    return subprocess.run([sys.executable, "-m", "mxbench.publish", "--config", str(config)]
                          + list(args), cwd=str(ROOT), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=600)


def snapshot(path):
    """The folder's own inode and, for everything under it, its kind and content (sha256 of
    each file, mode and mtime too): equal snapshots = the same folder, byte for byte."""
    path = str(path)
    tree = {}
    for dirpath, dirnames, filenames in os.walk(path):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            st = os.lstat(full)
            rel = os.path.relpath(full, path)
            if os.path.islink(full):
                tree[rel] = ("link", os.readlink(full))
            elif os.path.isdir(full):
                tree[rel] = ("dir", st.st_mode)
            else:
                with open(full, "rb") as fh:
                    digest = hashlib.sha256(fh.read()).hexdigest()
                tree[rel] = ("file", digest, st.st_size, st.st_mode, st.st_mtime_ns)
    return os.stat(path).st_ino, tree


def leftovers(html_dir):
    """Staging/old folders of any publish beside html_dir."""
    parent, name = os.path.split(str(html_dir))
    return sorted(n for n in os.listdir(parent)
                  if n.startswith(name + ".staging-") or n.startswith(name + ".old-"))


def one_line(stderr):
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A temporary asv project with two real result files, published once (the good site)."""
    if not shutil.which("npm") and not publish._installed_matches_lock(publish.SITE_DIR):
        missing("npm is not installed: mxbench.publish needs it for the site's JavaScript "
                "(Debian: apt-get install -y npm)")
    project = AsvProject(tmp_path_factory.mktemp("publish"))
    source = ROOT / "results"
    machine_dir = project.results_dir / MACHINE
    machine_dir.mkdir(parents=True)
    shutil.copy(str(source / "benchmarks.json"), str(project.results_dir))
    for name in ("machine.json",) + GOOD_FILES:
        shutil.copy(str(source / MACHINE / name), str(machine_dir))
    proc = run_publish(config=project.conf_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert (project.html_dir / "index.html").is_file()
    assert (project.html_dir / "vendor" / "manifest.json").is_file()
    index = json.loads((project.html_dir / "index.json").read_text())
    assert {"1.0.0.post4", "1.5.1.post0"} <= set(index["tags"])
    assert leftovers(project.html_dir) == []
    return project


@pytest.fixture
def bad_results_file(project):
    """A real results file whose "results" is a list: asv publish crashes on it after it has
    emptied its html_dir (AttributeError: 'list' object has no attribute 'items')."""
    source = ROOT / "results" / MACHINE / BAD_SOURCE
    data = json.loads(source.read_text())
    data["results"] = [1, 2]
    bad = project.results_dir / MACHINE / BAD_SOURCE
    bad.write_text(json.dumps(data))
    yield bad
    bad.unlink()


def test_a_bad_results_file_leaves_the_published_site_as_it_was(project, bad_results_file,
                                                                   tmp_path):
    # Why the staging matters: plain asv publish empties its html_dir and then crashes.
    scratch = tmp_path / "plain-asv-html"
    shutil.copytree(str(project.html_dir), str(scratch))
    plain = project.run("publish", "--html-dir", str(scratch))
    assert plain.returncode != 0, plain.stdout[-3000:]
    assert "AttributeError" in plain.stdout, plain.stdout[-3000:]
    assert not (scratch / "index.json").exists() and not (scratch / "graphs").exists()

    before = snapshot(project.html_dir)
    proc = run_publish(config=project.conf_path)
    assert proc.returncode != 0, proc.stdout[-3000:]
    line = one_line(proc.stderr)
    assert line.startswith("mxbench.publish: error: "), line
    assert "left as it was" in line, line
    assert str(bad_results_file) in line and "results that cannot be used" in line, line
    assert snapshot(project.html_dir) == before
    assert leftovers(project.html_dir) == []


def test_ctrl_c_during_asv_publish_leaves_the_site_and_exits_130(project):
    before = snapshot(project.html_dir)
    proc = subprocess.Popen([sys.executable, "-m", "mxbench.publish", "--config",
                             str(project.conf_path)], cwd=str(ROOT), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, universal_newlines=True,
                            start_new_session=True)
    try:
        # Once asv has created the staging folder it is publishing into it: Ctrl-C then, to
        # the whole process group as a terminal sends it (asv gets it too).
        staging = publish.side_paths(str(project.html_dir), pid=proc.pid)[0]
        deadline = time.time() + 120
        while not os.path.exists(os.path.join(staging, "index.html")):
            assert proc.poll() is None, "publish ended before it could be interrupted"
            assert time.time() < deadline, "no staging folder %s within 120 s" % staging
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130, out[-3000:] + err
    line = one_line(err)
    assert line.startswith("mxbench.publish: interrupted: ") and "left as it was" in line, line
    assert snapshot(project.html_dir) == before
    assert leftovers(project.html_dir) == []


def test_html_dir_given_to_asv_publish_is_the_target(project, tmp_path):
    """`-- --html-dir DIR` (asv publish's own option) publishes DIR, staged beside it."""
    before = snapshot(project.html_dir)
    target = tmp_path / "other-html"
    proc = run_publish("--", "--html-dir", str(target), config=project.conf_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert (target / "index.json").is_file() and (target / "vendor" / "manifest.json").is_file()
    assert snapshot(project.html_dir) == before
    assert leftovers(target) == []


def test_vendor_only_localizes_a_copy_and_swaps_it_in(project, tmp_path):
    site = tmp_path / "html"
    shutil.copytree(str(project.html_dir), str(site))
    shutil.rmtree(str(site / "vendor"))
    config = asvtools.config_copy(str(project.conf_path), str(tmp_path / "asv.conf.json"),
                                  html_dir=str(site))
    pages = {rel: info for rel, info in snapshot(site)[1].items() if info[0] == "file"}
    proc = run_publish("--vendor-only", config=config)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    assert (site / "vendor" / "manifest.json").is_file()
    after = snapshot(site)[1]
    for rel, info in pages.items():  # the site's own files: copied as they were
        assert after[rel][:3] == info[:3], rel
    assert leftovers(site) == []

    # Nothing to localize: one line, nothing created.
    shutil.rmtree(str(site))
    proc = run_publish("--vendor-only", config=config)
    assert proc.returncode != 0
    assert one_line(proc.stderr).startswith("mxbench.publish: error: "), proc.stderr
    assert not site.exists() and leftovers(site) == []


def test_swap_in_replaces_the_site_and_deletes_the_old_one(tmp_path):
    html, staging = tmp_path / "html", tmp_path / "html.staging-1"
    html.mkdir()
    (html / "index.html").write_text("old")
    staging.mkdir()
    (staging / "index.html").write_text("new")
    state = {}
    publish.swap_in(str(staging), str(html), state)
    assert state == {"swapped": True}
    assert (html / "index.html").read_text() == "new"
    assert sorted(os.listdir(str(tmp_path))) == ["html"]


def test_swap_in_puts_the_old_site_back_when_the_new_one_cannot_move_in(tmp_path):
    html = tmp_path / "html"
    (html / "graphs").mkdir(parents=True)
    (html / "index.html").write_text("old")
    before = snapshot(html)
    state = {}
    with pytest.raises(FileNotFoundError):
        publish.swap_in(str(tmp_path / "html.staging-missing"), str(html), state)
    assert state == {}
    assert snapshot(html) == before
    assert sorted(os.listdir(str(tmp_path))) == ["html"]
