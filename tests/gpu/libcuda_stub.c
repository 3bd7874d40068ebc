/* A stand-in for the NVIDIA driver's libcuda.so.1, for tests/test_gpu_libs.py on a machine
   without one: every entry point answers CUDA_ERROR_NO_DEVICE (100). It lets the dynamic
   loader finish loading libmxnet.so (all its symbols bound), so a test sees that every other
   library resolves and that MXNet then counts no GPU. The names are the cu* symbols the
   mxnet-cu11x 1.8/1.9 builds import (nm -D --undefined-only libmxnet.so) and the ones the
   CUDA runtime looks up first. */
#define STUB(name) int name(void) { return 100; }
STUB(cuInit) STUB(cuDriverGetVersion) STUB(cuDeviceGetCount) STUB(cuGetProcAddress)
STUB(cuDeviceGet) STUB(cuDevicePrimaryCtxRetain) STUB(cuGetErrorString)
STUB(cuGraphKernelNodeGetParams) STUB(cuGraphNodeGetType) STUB(cuLaunchKernel)
STUB(cuModuleGetFunction) STUB(cuModuleLoadData) STUB(cuModuleLoadDataEx) STUB(cuModuleUnload)
