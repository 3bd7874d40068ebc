"""What every number contains: the process baseline and the cost of one operator dispatch."""
import time

import numpy as np

from . import harness as H

LOOP_CALLS = 2000


class Process(object):
    """Peak RSS of a benchmark process that only imported mxnet: read it beside peakmem_."""
    version = H.HARNESS_VERSION

    def setup(self):
        H.require_mxnet()

    def peakmem_mxnet_imported(self):
        pass


class Dispatch(H.Timing):
    """The smallest operator call (1-element add + sync): the floor under every timing.

    time_add_1_element is asv's measurement of that call; track_add_1_element_python_loop
    times the same call in a bare Python loop (no asv machinery around it), per call, so the
    two side by side show what the harness adds (nothing, if they agree); and
    time_numpy_add_1_element is the same in numpy, the floor of Python itself.
    """
    version = H.HARNESS_VERSION
    params = [["cpu", "gpu"]]
    param_names = ["device"]

    def setup(self, device):
        H.require_mxnet()
        ctx = H.context(device)
        self.a = H.mx.nd.ones((1,), ctx=ctx)
        self.b = H.mx.nd.ones((1,), ctx=ctx)
        self.np_a = np.ones((1,), dtype=np.float32)
        self.np_b = np.ones((1,), dtype=np.float32)
        H.sync([self.a, self.b])

    def time_add_1_element(self, device):
        (self.a + self.b).wait_to_read()

    def track_add_1_element_python_loop(self, device):
        a, b = self.a, self.b
        (a + b).wait_to_read()
        start = time.perf_counter()
        for _ in range(LOOP_CALLS):
            (a + b).wait_to_read()
        return (time.perf_counter() - start) / LOOP_CALLS
    track_add_1_element_python_loop.unit = "seconds"

    def time_numpy_add_1_element(self, device):
        self.np_a + self.np_b
