"""What every number contains: the process baseline and the cost of one operator dispatch."""
from . import _harness as H


class Process(object):
    """Peak RSS of a benchmark process that only imported mxnet: read it beside peakmem_."""
    version = H.HARNESS_VERSION

    def setup(self):
        H.require_mxnet()

    def peakmem_mxnet_imported(self):
        pass


class Dispatch(object):
    """The smallest operator call (1-element add + sync): the floor under every timing."""
    version = H.HARNESS_VERSION
    params = [["cpu", "gpu"]]
    param_names = ["device"]

    def setup(self, device):
        H.require_mxnet()
        ctx = H.context(device)
        self.a = H.mx.nd.ones((1,), ctx=ctx)
        self.b = H.mx.nd.ones((1,), ctx=ctx)
        H.sync([self.a, self.b])

    def time_add_1_element(self, device):
        (self.a + self.b).wait_to_read()
