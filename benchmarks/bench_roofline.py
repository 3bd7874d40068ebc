"""How close operators get to the machine's limits: achieved GB/s and GFLOP/s.

MachinePeak measures the limits on this machine with numpy (independent of the MXNet
build under test): a STREAM-like copy for memory bandwidth and a large float32 GEMM for
compute. Roofline reports, for memory-bound operators, the bytes they must move per
second, and for compute-bound ones the floating-point operations per second, so the site
shows each beside the peak. Each value is the median of several timed calls after a warm-up.
"""
import time

import numpy as np

from . import harness as H

REPEATS = 7


def median_seconds(work, repeats=REPEATS):
    work()  # warm-up: allocation, kernel selection
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


class MachinePeak(object):
    """The machine's own limits, measured with numpy (OpenBLAS) on float32."""
    version = H.HARNESS_VERSION
    unit = "GB/s"
    timeout = 300

    def setup(self):
        rng = np.random.RandomState(H.SEED)
        self.src = rng.standard_normal(2 ** 25).astype(np.float32)  # 128 MiB: far out of cache
        self.dst = np.empty_like(self.src)
        self.a = rng.standard_normal((2048, 2048)).astype(np.float32)
        self.b = rng.standard_normal((2048, 2048)).astype(np.float32)

    def track_stream_copy_bandwidth(self):
        seconds = median_seconds(lambda: np.copyto(self.dst, self.src))
        return 2 * self.src.nbytes / seconds / 1e9  # one read + one write per element

    def track_gemm_throughput(self):
        seconds = median_seconds(lambda: np.dot(self.a, self.b))
        return 2 * 2048 ** 3 / seconds / 1e9
    track_gemm_throughput.unit = "GFLOP/s"


class DevicePeak(object):
    """The GPU's own limits, for the GPU points (MachinePeak is the host's): a device-to-device
    copy of 128 MiB and a float32 GEMM, both with the MXNet build under test (numpy cannot
    reach the device). Skips where no GPU is visible."""
    version = H.HARNESS_VERSION
    devices_only = ("gpu",)  # mxbench selects no point of it for CPU flavors
    unit = "GB/s"
    timeout = 300

    def setup(self):
        H.require_mxnet()
        ctx = H.context("gpu")
        rng = H.seed_everything()
        self.src = H.mx.nd.array(rng.standard_normal(2 ** 25), ctx=ctx, dtype="float32")
        self.dst = H.mx.nd.zeros(self.src.shape, ctx=ctx, dtype="float32")
        self.a = H.mx.nd.array(rng.standard_normal((4096, 4096)), ctx=ctx, dtype="float32")
        self.b = H.mx.nd.array(rng.standard_normal((4096, 4096)), ctx=ctx, dtype="float32")
        H.sync([self.src, self.dst, self.a, self.b])

    def track_device_copy_bandwidth(self):
        seconds = median_seconds(lambda: H.sync(self.src.copyto(self.dst)))
        return 2 * self.src.size * 4 / seconds / 1e9  # one read + one write per element

    def track_device_gemm_throughput(self):
        seconds = median_seconds(lambda: H.sync(H.mx.nd.dot(self.a, self.b)))
        return 2 * 4096 ** 3 / seconds / 1e9
    track_device_gemm_throughput.unit = "GFLOP/s"


# name -> (inputs, kwargs, bytes moved per call / flops per call as f(shapes), unit)
F32 = 4
MEMORY_BOUND = {
    # out = a + b: read two, write one
    "elemwise_add": ([(4096, 4096), (4096, 4096)], {}, lambda s: 3 * s[0][0] * s[0][1] * F32),
    "broadcast_add": ([(4096, 4096), (4096, 1)], {}, lambda s: 2 * s[0][0] * s[0][1] * F32),
    "relu": ([(4096, 4096)], {}, lambda s: 2 * s[0][0] * s[0][1] * F32),
    "identity": ([(4096, 4096)], {}, lambda s: 2 * s[0][0] * s[0][1] * F32),  # a copy
}
COMPUTE_BOUND = {
    "dot": ([(1024, 1024), (1024, 1024)], {}, lambda s: 2 * 1024 ** 3),
    "batch_dot": ([(32, 256, 256), (32, 256, 256)], {}, lambda s: 2 * 32 * 256 ** 3),
    # data (N, K) x weight (M, K)^T: 2*N*K*M
    "FullyConnected": ([(256, 1024), (1024, 1024), (1024,)], {"num_hidden": 1024},
                       lambda s: 2 * 256 * 1024 * 1024),
    # 2 * N * C_out * H_out * W_out * C_in * kh * kw
    "Convolution": ([(16, 64, 56, 56), (64, 64, 3, 3), (64,)],
                    {"kernel": (3, 3), "num_filter": 64, "pad": (1, 1)},
                    lambda s: 2 * 16 * 64 * 56 * 56 * 64 * 9),
}


class _Roofline(object):
    table = None
    scale = 1e9
    params = [[], ["cpu", "gpu"]]
    param_names = ["operator", "device"]
    version = H.HARNESS_VERSION
    timeout = 300

    def setup(self, operator, device):
        H.require_mxnet()
        ctx = H.context(device)
        shapes, self.kwargs, self.amount = self.table[operator]
        self.fn = H.operator_function(operator)
        rng = H.seed_everything()
        self.args = [H.mx.nd.array(rng.standard_normal(s), ctx=ctx, dtype="float32")
                     for s in shapes]
        self.shapes = shapes
        H.sync(self.args)

    def _rate(self):
        seconds = median_seconds(lambda: H.sync(self.fn(*self.args, **self.kwargs)))
        return self.amount(self.shapes) / seconds / self.scale


class MemoryBound(_Roofline):
    """Bytes an operator must move per second (float32)."""
    table = MEMORY_BOUND
    params = [sorted(MEMORY_BOUND), ["cpu", "gpu"]]

    def track_achieved_bandwidth(self, operator, device):
        return self._rate()
    track_achieved_bandwidth.unit = "GB/s"


class ComputeBound(_Roofline):
    """Floating-point operations per second an operator achieves (float32)."""
    table = COMPUTE_BOUND
    params = [sorted(COMPUTE_BOUND), ["cpu", "gpu"]]

    def track_achieved_throughput(self, operator, device):
        return self._rate()
    track_achieved_throughput.unit = "GFLOP/s"
