/* python -m mxbench publish: 1 JSON file(s) of this site for file:// pages (site/overlay/overlay.js) */
mxbenchFileData({"graphs/arch-x86_64/branch-main/cpu-AMD EPYC/env-MXNET_FLAVOR-cpu-mkldnn/machine-amd-epyc-2cpu-24gb/num_cpu-2/numpy-1.23.5/python-3.11/requests/bench_instructions.np_fmin_scalar.track_forward_backward.json":[[32,[218286.0]],[33,[231373.0]]]});
