"""GPU flavors on a machine with only the NVIDIA driver: what libmxnet.so needs is there.

The cheap part runs always: which flavor gets which CUDA libraries, and what each says.

The opt-in part runs the real install step (env_matrix/asv_hook.py, as asv calls it) for a few
GPU builds, each in a throwaway Python 3.11 venv (3-4 GB: the wheel plus the CUDA runtime), then
checks with ldd that every library libmxnet.so needs resolves but the driver's libcuda.so.1, and,
where gcc is present, imports mxnet against a stand-in libcuda.so.1 (every call answers "no
device"): the whole library loads, num_gpus() is 0 and a CPU operator runs. Flavors without a
PyPI runtime must say they need a system CUDA. No GPU is needed. About 4 minutes a build here.

    make test-gpu-libs                                   # all of GPU_CASES
    MXBENCH_GPU_LIBS=gpu-cuda11.2@1.9.1 .venv/bin/python -m pytest -q tests/test_gpu_libs.py
    MXBENCH_WHEELHOUSE=DIR ...                           # pip also looks there (a wheel cache)
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

from env_matrix import cuda
from env_matrix import matrix as M

MATRIX = M.load()
# (flavor, release): CUDA 11.2 and 11.7 at 1.9.1, the 1.8 CUDA 11.2 build, and a CUDA 11.0
# build, whose libraries are not on PyPI.
GPU_CASES = [("gpu-cuda11.2", "1.9.1"), ("gpu-cuda11.7", "1.9.1"),
             ("gpu-cuda11.2", "1.8.0.post0"), ("gpu-cuda11.0", "1.8.0")]
SELECTED = os.environ.get("MXBENCH_GPU_LIBS", "")
WHEELHOUSE = os.environ.get("MXBENCH_WHEELHOUSE")
STUB_DRIVER = ROOT / "tests" / "gpu" / "libcuda_stub.c"


def selected_cases():
    if SELECTED == "all":
        return GPU_CASES
    return [tuple(item.split("@", 1)) for item in SELECTED.split()]


# --- always: the mapping and the messages ---------------------------------------------------
def test_cuda_11_2_and_newer_flavors_get_the_pypi_runtime_and_older_ones_need_a_system_cuda():
    gpu = [f for f in MATRIX.flavors.values() if f.device == "gpu"]
    assert gpu and all(f.cuda for f in gpu)
    with_runtime = sorted(f.cuda for f in gpu if f.runtime)
    assert with_runtime == ["11.2", "11.3", "11.4", "11.5", "11.6", "11.7"]
    runtime = MATRIX.runtimes["cuda11"]
    assert all("-cu11==" in w for w in runtime.wheels)  # pinned, CUDA 11 builds of each
    assert any(w.startswith("nvidia-cudnn-cu11==8.") for w in runtime.wheels)  # cuDNN 8
    assert "only the NVIDIA driver" in MATRIX.cuda_requirement("gpu-cuda11.2")
    assert MATRIX.cuda_requirement("gpu-cuda10.2").startswith("needs a system CUDA 10.2")
    assert MATRIX.cuda_requirement("gpu-cuda11.0").startswith("needs a system CUDA 11.0")
    assert MATRIX.cuda_requirement("cpu-mkldnn") is None


def test_every_mxnet_cuda_package_on_pypi_is_a_flavor():
    packages = {name for f in MATRIX.flavors.values() for name, _ in f.packages}
    for cu in ("75", "80", "90", "91", "92", "100", "101", "102", "110", "111", "112", "113",
               "114", "115", "116", "117"):
        assert "mxnet-cu" + cu in packages
    for cu in ("75", "80", "90", "91", "92", "100", "101", "102"):
        assert "mxnet-cu%smkl" % cu in packages


def test_missing_libraries_name_the_system_cuda_or_the_driver():
    status, reason = cuda.describe_missing("mxnet-cu102==1.9.1",
                                           ["libcudart.so.10.2", "libcuda.so.1"], "10.2", None)
    assert status == "needs system CUDA"
    assert "needs a system CUDA 10.2" in reason and "libcudart.so.10.2" in reason
    assert "libcuda.so.1" not in reason.split("not found here:")[1]
    # Only the driver missing is not a problem of the install (the import then says so).
    assert cuda.describe_missing("mxnet-cu112==1.9.1", ["libcuda.so.1"], "11.2", "R") is None
    status, reason = cuda.describe_missing("mxnet-cu112==1.9.1", ["libfoo.so.1"], "11.2", "R")
    assert status == "broken" and "libfoo.so.1" in reason
    # A non-CUDA library the wheel leaves out is named apart (mxnet-cu110 1.8.0 lacks OpenBLAS).
    status, reason = cuda.describe_missing("mxnet-cu110==1.8.0", ["libopenblas.so.0",
                                           "libcudart.so.11.0"], "11.0", None)
    assert status == "needs system CUDA"
    assert reason.index("libcudart.so.11.0") < reason.index("system's packages: libopenblas")


def test_ldd_check_on_the_cpu_build_finds_nothing_missing():
    import importlib.util
    package = os.path.dirname(importlib.util.find_spec("mxnet").origin)  # no import: slow
    assert cuda.unresolved_libraries(os.path.join(package, "libmxnet.so")) == []


def test_gpu_points_skip_on_a_cpu_build_and_detection_works_without_num_gpus():
    """The tool venv's CPU mxnet 1.9.1: the probe that stands in for num_gpus() before 1.3
    answers 0, and the GPU-only benchmarks skip with the reason."""
    from benchmarks import harness as H
    from benchmarks.bench_device_memory import FirstCall
    from benchmarks.bench_roofline import DevicePeak
    assert H.gpu_probe() == 0
    for setup in (DevicePeak().setup, lambda: FirstCall().setup(FirstCall.params[0][0])):
        with pytest.raises(NotImplementedError, match="no GPU visible"):
            setup()


def test_table_says_which_gpu_flavors_need_a_system_cuda_and_which_gpus_builds_run_on():
    out = subprocess.run([sys.executable, "-m", "mxbench", "matrix", "table", "--flavor", "gpu-cuda10.2",
                          "--flavor", "gpu-cuda11.2", "--flavor", "gpu-cuda11.0"], cwd=str(ROOT),
                         stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout
    assert "gpu-cuda10.2: needs a system CUDA 10.2" in out
    assert "gpu-cuda11.2: only the NVIDIA driver" in out
    assert "mxnet-cu112 1.9.1: sm_50 sm_60 sm_70 sm_80 sm_86; PTX none" in out
    assert "mxnet-cu110 1.8.0: sm_50 sm_60 sm_70 sm_80; PTX none" in out


# --- opt-in: the real wheels -----------------------------------------------------------------
@pytest.fixture
def gpu_case_env(tmp_path):
    venv = tmp_path / "venv"
    subprocess.check_call([sys.executable, "-m", "venv", str(venv)])
    pins = [line.split()[0] for line in (ROOT / "requirements.txt").read_text().splitlines()
            if line.startswith(("numpy==", "requests=="))]
    subprocess.check_call([str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                           "--disable-pip-version-check"] + pins)
    yield venv
    shutil.rmtree(str(venv), ignore_errors=True)  # 3-4 GB each


def run_install_step(venv, flavor, release, workdir):
    (workdir / "MXNET_RELEASE").write_text(release + "\n")
    env = dict(os.environ, MXNET_FLAVOR=flavor, PYTHONPATH=str(ROOT))  # as asv runs it
    if WHEELHOUSE:
        env["PIP_FIND_LINKS"] = " ".join(filter(None, [env.get("PIP_FIND_LINKS"), WHEELHOUSE]))
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "env_matrix.asv_hook",
                           "install"], cwd=str(workdir), env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=1800)
    print(proc.stdout)
    assert proc.returncode == 0, proc.stdout
    return json.loads((venv / "mxbench-build.json").read_text())


def stub_driver_dir(tmp_path):
    """A libcuda.so.1 that loads and answers CUDA_ERROR_NO_DEVICE, or None without gcc."""
    if shutil.which("gcc") is None:
        return None
    out = tmp_path / "stub"
    out.mkdir()
    subprocess.check_call(["gcc", "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", "-o",
                           str(out / "libcuda.so.1"), str(STUB_DRIVER)])
    return out


@pytest.mark.parametrize("flavor,release", GPU_CASES, ids=["%s@%s" % c for c in GPU_CASES])
def test_gpu_build_needs_only_the_driver_or_says_which_system_cuda(flavor, release, tmp_path,
                                                                   request):
    if (flavor, release) not in selected_cases():
        pytest.skip("opt-in: MXBENCH_GPU_LIBS=all (`make test-gpu-libs`) or a list such as "
                    "'gpu-cuda11.2@1.9.1' (downloads 0.5-1.5 GB per build)")
    venv = request.getfixturevalue("gpu_case_env")
    record = run_install_step(venv, flavor, release, tmp_path)
    # What the install step read from libmxnet.so is what flavors.toml records.
    assert record["cuda_architectures"] == \
        cuda.recorded_architectures()[record["package"]][release], record
    site = next((venv / "lib").glob("python3.*")) / "site-packages"
    libmxnet = cuda.libmxnet_path(str(site))
    missing = cuda.unresolved_libraries(libmxnet)
    driver_here = cuda.DRIVER_LIBRARY not in missing
    if MATRIX.runtime(flavor) is None:
        assert record["status"] == "needs system CUDA", record
        assert "needs a system CUDA %s" % MATRIX.flavor(flavor).cuda in record["reason"]
        assert [m for m in missing if m != cuda.DRIVER_LIBRARY], missing
        return
    assert missing in ([], [cuda.DRIVER_LIBRARY]), missing
    assert record["status"] == ("ok" if driver_here else "no driver"), record
    if not driver_here:
        assert "no NVIDIA driver on this machine" in record["reason"]
        assert "libcuda.so.1: cannot open shared object file" in record["reason"]
    stub = None if driver_here else stub_driver_dir(tmp_path)
    if stub is None and not driver_here:
        return  # no gcc: ldd's answer is the check
    env = dict(os.environ)
    if stub is not None:
        env["LD_LIBRARY_PATH"] = str(stub)
    code = ("import mxnet as mx; print(mx.__version__, mx.context.num_gpus(), "
            "mx.nd.dot(mx.nd.ones((4, 4)), mx.nd.ones((4, 4))).asnumpy()[0, 0])")
    out = subprocess.run([str(venv / "bin" / "python"), "-c", code], env=env, cwd=str(tmp_path),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, timeout=600).stdout
    version, gpus, value = out.strip().splitlines()[-1].split()
    assert M.Version(version).base_version == M.Version(release).base_version, out
    assert value == "4.0", out
    if stub is not None:
        assert gpus == "0", out


# --- which GPUs a build runs on ----------------------------------------------------------------
CUDA11_SASS = {"sass": [50, 60, 70, 80, 86], "ptx": []}  # mxnet-cu112 1.9.1 and its kin


def test_compute_capabilities_are_recorded_for_every_build_the_library_test_installs():
    recorded = cuda.recorded_architectures()
    for flavor, release in GPU_CASES:
        package = MATRIX.resolve(release, flavor, None, None).package
        assert package in recorded and release in recorded[package], (package, release)
        archs = recorded[package][release]
        assert archs["sass"] and all(isinstance(a, int) for a in archs["sass"] + archs["ptx"])
    assert recorded["mxnet-cu112"]["1.9.1"] == CUDA11_SASS
    # Ampere/Ada run it, Hopper (no sm_9x kernels, no PTX) does not.
    assert cuda.runs_on(CUDA11_SASS, 86) and cuda.runs_on(CUDA11_SASS, 89)
    assert not cuda.runs_on(CUDA11_SASS, 90) and not cuda.runs_on(CUDA11_SASS, 100)
    assert cuda.runs_on({"sass": [75], "ptx": [80]}, 90)  # PTX is compiled by the driver
    assert not cuda.runs_on({"sass": [86], "ptx": []}, 80)


def test_fatbin_reader_agrees_with_nvcc(tmp_path):
    """Compile a kernel for two architectures and a PTX with nvcc, read them back."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not installed")
    source = tmp_path / "k.cu"
    source.write_text("__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }\n"
                      "void launch(float *x) { k<<<1, 32>>>(x); }\n")
    lib = tmp_path / "libk.so"
    subprocess.check_call([nvcc, "-shared", "-Xcompiler", "-fPIC", "-o", str(lib), str(source),
                           "-gencode", "arch=compute_75,code=sm_75",
                           "-gencode", "arch=compute_80,code=sm_80",
                           "-gencode", "arch=compute_80,code=compute_80"])
    assert cuda.fatbin_architectures(str(lib)) == {"sass": [75, 80], "ptx": [80]}
    libc = next(p for p in ("/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib64/libc.so.6")
                if os.path.exists(p))
    assert cuda.fatbin_architectures(libc) == {"sass": [], "ptx": []}


@pytest.mark.parametrize("capability,skips", [(90, True), (100, True), (86, False), (70, False)])
def test_gpu_points_skip_on_a_gpu_the_build_has_no_kernels_for(capability, skips, tmp_path):
    """The stand-in driver reports one device of the given compute capability; the harness,
    given the install record of a CUDA 11 build, skips the GPU points on Hopper and later
    with the reason, and goes on to MXNet's own GPU count elsewhere (0 on the CPU build)."""
    stub = stub_driver_dir(tmp_path)
    if stub is None:
        pytest.skip("gcc is not installed")
    record = {"status": "ok", "package": "mxnet-cu112==1.9.1", "cuda_architectures": CUDA11_SASS}
    code = ("import json, sys; from benchmarks import harness as H\n"
            "from benchmarks.harness import environment\n"
            "environment.build_status = lambda: json.loads(sys.argv[1])\n"
            "try:\n    H.context('gpu')\nexcept NotImplementedError as exc:\n    print(exc)\n")
    env = dict(os.environ, LD_LIBRARY_PATH=str(stub), MXBENCH_STUB_CC=str(capability))
    out = subprocess.run([sys.executable, "-c", code, json.dumps(record)], cwd=str(ROOT),
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, timeout=300).stdout.strip().splitlines()[-1]
    if skips:
        assert out.startswith("this GPU (compute capability %d.%d, sm_%d) cannot run "
                              "mxnet-cu112==1.9.1" % (capability // 10, capability % 10,
                                                      capability)), out
        assert "sm_50, sm_60, sm_70, sm_80, sm_86 and PTX for none" in out
    else:
        assert out == "no GPU visible to this MXNet build", out
