"""mxbench.check's benchmark selection (the asv runs are in test_e2e.py)."""
import re

from mxbench.commands.check import CHECK_BENCH
from mxbench.core.selection import names_regexes


def test_the_default_selection_leaves_out_only_the_roofline_rates():
    # asv -b is re.search over "name" and "name(params)"
    assert re.search(CHECK_BENCH, "bench_operators.dot.time_forward('medium', 'float32', 'cpu')")
    assert re.search(CHECK_BENCH, "bench_memory.softmax.track_first_call_peak_rss")
    assert re.search(CHECK_BENCH, "bench_overhead.Dispatch.time_add_1_element")
    assert not re.search(CHECK_BENCH, "bench_roofline.MemoryBound.track_achieved_bandwidth")
    assert not re.search(CHECK_BENCH, "bench_roofline.MachinePeak.track_gemm_throughput")
    assert not re.search(CHECK_BENCH, "bench_models.Model_resnet50_v1.time_forward")
    assert not re.search(CHECK_BENCH, "bench_instructions.dot.track_forward('small', 'float32')")


def test_the_second_pass_selects_exactly_the_flagged_points():
    [regex] = names_regexes(["bench_operators.exp.time_forward('small', 'float16', 'cpu')",
                             "bench_overhead.Process.peakmem_mxnet_imported"])
    assert re.search(regex, "bench_operators.exp.time_forward('small', 'float16', 'cpu')")
    assert re.search(regex, "bench_overhead.Process.peakmem_mxnet_imported")
    assert not re.search(regex, "bench_operators.exp.time_forward('small', 'float32', 'cpu')")
    assert not re.search(regex, "bench_operators.exp.time_forward_backward('small', 'float16', 'cpu')")
    assert not re.search(regex, "bench_operators_exp.time_forward('small', 'float16', 'cpu')")
