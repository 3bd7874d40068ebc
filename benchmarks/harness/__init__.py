"""What every benchmark shares, one module per job:

  environment     the A/B variant, the guarded mxnet import, build status, devices, skips
  inputs          seeded inputs, the input cache, the memory a case needs
  calls           an operator call with its inputs built (mx.nd, symbol, mx.np / mx.npx)
  registry_calls  the registry entries' calls (expressions, oneDNN subgraphs, sparse inputs)
  prepare         a catalogue entry's call at one parameter point, built and warmed up
  generated       classes generated from the catalogue, bound so that asv reads them cheaply
  timing          timing loops, memory and kernel-time measurement, asv's timing settings

Benchmark modules use it as `from . import harness as H`: the names below are the package's
interface. Runs inside benchmark environments (Python 3.7+, any MXNet 1.0-2.0): nothing here
touches an mxnet attribute at import time.
"""
import numpy as np  # noqa: F401  (H.np)

from .calls import (PREPARE, NUMPY_SINCE, OperatorCall, SymbolCall, _parameters,  # noqa: F401
                    build_numpy_call, check_arguments, documented_arguments, numpy_function,
                    register_custom_op)
from .environment import (BFLOAT16, BUILD_MARKER, HARNESS_VERSION, IMPORT_PID,  # noqa: F401
                          NO_BUILD_ACTION, SEED, VARIANT, VARIANTS_FILE, _IMPORT_ERROR,
                          _first_line, apply_variant, autograd, build_status, check_release,
                          context, crashing_methods, gpu_architecture_problem,
                          gpu_compute_capability,
                          gpu_probe, heads, mx, numpy_semantics, one_line, operator_function,
                          operator_name, release_tuple, require_mxnet, set_malloc_option, skip,
                          SkippingCall, skip_known_crash, skip_method, sync)
from .generated import define_classes  # noqa: F401
from .inputs import (INPUT_CACHE_FORMAT, RUN_MEMORY_MULTIPLE, _values, build_call,  # noqa: F401
                     build_inputs, build_tensor, cached_draws, drawn, given_array,
                     infer_shapes, input_cache_dir, itemsize, memory_needed, numpy_interface,
                     seed_everything, to_bfloat16)
from .prepare import _CALLS, build_operator_call, prepare_call, prepare_cold_call  # noqa: F401
from .timing import (Timing, available_memory, first_call_device_bytes,  # noqa: F401
                     first_call_peak_rss, kernel_phase, parse_operator_table, peak_rss_increase,
                     profile_kernels, profiler_problem, reset_peak_rss, timed_calls)
