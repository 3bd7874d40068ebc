/* python -m mxbench publish: 1 JSON file(s) of this site for file:// pages (site/overlay/overlay.js) */
mxbenchFileData({"graphs/arch-x86_64/branch-main/cpu-Intel(R) Xeon(R) Processor/env-MXNET_FLAVOR-cpu-mkldnn/machine-intel-xeon-f6m167-avx512-2cpu-24gb/num_cpu-2/numpy-1.23.5/python-3.11/requests/bench_operators.LeakyReLU_rrelu.time_forward_backward.json":[]});
