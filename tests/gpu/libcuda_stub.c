/* A stand-in for the NVIDIA driver's libcuda.so.1, for tests/test_gpu_libs.py on a machine
   without one: every entry point answers CUDA_ERROR_NO_DEVICE (100). It lets the dynamic
   loader finish loading libmxnet.so (all its symbols bound), so a test sees that every other
   library resolves and that MXNet then counts no GPU. The names are the cu* symbols the
   mxnet-cu11x 1.8/1.9 builds import (nm -D --undefined-only libmxnet.so) and the ones the
   CUDA runtime looks up first. */
/* With MXBENCH_STUB_CC set (e.g. 90), cuInit, cuDeviceGet and cuDeviceGetAttribute answer as
   for one device of that compute capability (the harness asks them to skip a GPU the build has
   no kernels for; tests/test_gpu_libs.py). */
#include <stdlib.h>
static int stub_cc(void) { const char *cc = getenv("MXBENCH_STUB_CC"); return cc ? atoi(cc) : 0; }
int cuInit(unsigned int flags) { (void)flags; return stub_cc() ? 0 : 100; }
int cuDeviceGet(int *device, int ordinal) {
    if (!stub_cc() || ordinal != 0) return 100;
    *device = 0;
    return 0;
}
int cuDeviceGetAttribute(int *value, int attribute, int device) {
    int cc = stub_cc();
    (void)device;
    if (!cc || (attribute != 75 && attribute != 76)) return 100;
    *value = attribute == 75 ? cc / 10 : cc % 10;
    return 0;
}
#define STUB(name) int name(void) { return 100; }
STUB(cuDriverGetVersion) STUB(cuDeviceGetCount) STUB(cuGetProcAddress)
STUB(cuDevicePrimaryCtxRetain) STUB(cuGetErrorString)
STUB(cuGraphKernelNodeGetParams) STUB(cuGraphNodeGetType) STUB(cuLaunchKernel)
STUB(cuModuleGetFunction) STUB(cuModuleLoadData) STUB(cuModuleLoadDataEx) STUB(cuModuleUnload)
