"""The catalogue is well formed, covers mxnet 1.9.1, and the benchmark code stays portable.

The coverage tests use the installed MXNet (the .venv's 1.9.1): a public operator that is
neither covered (by an entry, or by an entry for another name of the same registered
operator) nor excluded with a reason fails them.
"""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

from benchmarks import harness as H
from benchmarks import bench_gluon, bench_memory, bench_operators
from benchmarks import catalogue as C
from benchmarks.harness import registry_calls as HR

MIN_COVERED = 250  # of the 255 counted public names of mxnet 1.9.1
CATALOGUE_RELEASE = "1.9.1"
BENCHMARK_FILES = sorted((ROOT / "benchmarks").rglob("*.py"))


# --- well formed -------------------------------------------------------------------------------
def test_class_names_are_unique_and_stable():
    names = [op.class_name for op in C.OPERATORS]
    assert len(names) == len(set(names)), [n for n in names if names.count(n) > 1]
    for op in C.OPERATORS:
        base = op.name.replace(".", "_")
        if op.call in C.NUMPY_CALLS:  # np_dot beside dot
            base = op.call + "_" + base.replace("__", "")
        expected = base + ("_" + op.form if op.form else "")
        assert op.class_name == expected
        assert op.class_name.isidentifier(), op.class_name
    # Each operator (per interface) has exactly one main entry; variants only beside it.
    mains = [(op.call in C.NUMPY_CALLS and op.call, op.name) for op in C.OPERATORS
             if not op.form]
    assert len(mains) == len(set(mains))
    assert set((op.call in C.NUMPY_CALLS and op.call, op.name) for op in C.OPERATORS) == set(mains)
    assert all(op.call not in C.NUMPY_CALLS for op in C.by_name().values())


def test_block_names_are_unique():
    names = [block.name for block in C.BLOCKS]
    assert len(names) == len(set(names))
    assert all(name.isidentifier() for name in names)


@pytest.mark.parametrize("op", C.OPERATORS, ids=lambda op: op.class_name)
def test_entry_is_well_formed(op):
    assert op.cases, "no cases"
    assert set(op.cases) <= set(C.SHAPE_CLASSES), list(op.cases)
    assert op.dtypes and len(op.dtypes) == len(set(op.dtypes))
    assert set(op.dtypes) <= set(C.DTYPES), op.dtypes
    assert op.category and op.call in ("imperative", "symbol") + C.NUMPY_CALLS + HR.CALL_KINDS
    assert op.prepare is None or op.prepare in H.PREPARE
    assert isinstance(op.version, int) and op.version >= 1
    assert op.later_name is None or (op.later_name != op.name and op.call == "imperative"
                                     and op.later_name not in [o.name for o in C.OPERATORS])
    for name, the_case in op.cases.items():
        assert isinstance(the_case, C.Case)
        tensors = list(the_case.inputs) + [v for v in the_case.kwargs.values()
                                           if isinstance(v, C.Tensor)]
        for i, tensor in enumerate(tensors):
            assert isinstance(tensor, C.Tensor), tensor
            # Only a positional input of an imperative call may leave its shape to mxnet.
            inferred = (tensor.shape == (C.INFERRED,) and i < len(the_case.inputs)
                        and op.call == "imperative")
            assert inferred or all(isinstance(n, int) and n > 0 for n in tensor.shape), tensor
            assert tensor.fill in C.FILLS
            assert tensor.dtype is None or tensor.dtype in C.DTYPES
            if tensor.fill == "index":
                assert tensor.high is not None, "index fill needs high"
        refs = [v for v in flatten(the_case.kwargs.values()) if isinstance(v, C.Input)]
        for ref in refs:
            if isinstance(ref.key, int):
                assert 0 <= ref.key < len(the_case.inputs), ref
            else:
                assert isinstance(the_case.kwargs.get(ref.key), C.Tensor), ref


def flatten(values):
    for value in values:
        if isinstance(value, list):
            for item in flatten(value):
                yield item
        else:
            yield value


def test_index_inputs_are_not_float16():
    """Indices above 2048 are not exact in float16 (and may round onto `high`)."""
    for op in C.OPERATORS:
        for the_case in op.cases.values():
            for tensor in the_case.inputs:
                if tensor.fill in ("index", "rois") and tensor.dtype is None:
                    assert "float16" not in op.dtypes, op.class_name


@pytest.mark.parametrize("block", C.BLOCKS, ids=lambda block: block.name)
def test_block_is_well_formed(block):
    assert set(block.cases) <= set(C.SHAPE_CLASSES)
    assert set(block.dtypes) <= set(C.DTYPES)
    assert block.build in bench_gluon.FACTORIES
    for shape in block.cases:
        assert isinstance(bench_gluon.block_case(block, shape), C.Case)


# --- generated classes ---------------------------------------------------------------------------
def generated(module, base):
    """{class __name__ (the name asv gives it): class} of the generated benchmark classes."""
    return dict((value.__name__, value) for value in vars(module).values()
                if isinstance(value, type) and issubclass(value, base) and value is not base)


def test_every_operator_class_is_generated_with_a_version():
    classes = generated(bench_operators, bench_operators._OperatorBenchmark)
    assert set(classes) == set(op.class_name for op in C.OPERATORS)
    for op in C.OPERATORS:
        cls = classes[op.class_name]
        # Set on the class itself, never left to asv's hash of the source.
        assert cls.__dict__["version"] == "%s.%s" % (H.HARNESS_VERSION, op.version)
        # the field cases after the entry's own: recorded points keep their names
        assert cls.params == [list(op.cases) + list(op.field), list(op.dtypes),
                              bench_operators.DEVICES]
        assert cls.param_names == ["shape", "dtype", "device"]
        assert hasattr(cls, "time_forward")
        assert hasattr(cls, "time_forward_backward") == bool(op.backward)


def test_every_operator_has_a_first_call_memory_class():
    """Every mx.nd entry; the numpy interface's entries run the same kernels (time only)."""
    classes = generated(bench_memory, bench_memory._FirstCallMemory)
    assert bench_memory.MEASURED == [op for op in C.OPERATORS if op.call not in C.NUMPY_CALLS]
    assert set(classes) == set(op.class_name for op in bench_memory.MEASURED)
    for op in bench_memory.MEASURED:
        cls = classes[op.class_name]
        assert cls.__dict__["version"] == "%s.%s.%s" % (
            H.HARNESS_VERSION, op.version, bench_memory.MEMORY_METHOD_VERSION)
        # every entry has a shape beyond `small`, the one below the method's resolution
        assert cls.params == [[s for s in op.cases if s != "small"], list(op.dtypes)]
        assert cls.params[0]


def test_every_block_class_is_generated_with_a_version():
    classes = generated(bench_gluon, bench_gluon._BlockBenchmark)
    assert set(classes) == set(block.name for block in C.BLOCKS)
    for block in C.BLOCKS:
        cls = classes[block.name]
        assert cls.__dict__["version"] == "%s.%s" % (H.HARNESS_VERSION, block.version)
        assert cls.params[0] == list(block.cases)


def test_no_module_global_configures_asv():
    """asv_runner takes repeat/number/rounds/... from the method, class, then module: no
    generated class may sit in a module global of such a name (the `repeat` operator)."""
    for module in (bench_operators, bench_gluon, bench_memory):
        clashes = [name for name in vars(module) if name in bench_operators.ASV_ATTRIBUTES]
        assert not clashes, (module.__name__, clashes)


def test_asv_runner_sees_the_suites_timing_settings():
    """Through asv_runner's own discovery, the timing benchmarks (the `repeat` operator's
    class among them) have the settings of harness.Timing, and no class shadows them (asv
    runs a track_ benchmark once, in one process, whatever its class says)."""
    pytest.importorskip("asv_runner")
    from asv_runner.discovery import get_benchmark_from_name
    expected = (H.Timing.repeat, 0, H.Timing.rounds, H.Timing.warmup_time)
    assert expected == ((1, 5, 10.0), 0, 2, 0.1)  # asv's defaults: docs/measurement.md
    for name in ("bench_operators.repeat.time_forward-0", "bench_operators.exp.time_forward-0",
                 "bench_gluon.Dense.time_forward-0", "bench_overhead.Dispatch.time_add_1_element-0"):
        bench = get_benchmark_from_name(str(ROOT / "benchmarks"), name)
        assert bench.name == name.split("-")[0]
        assert (bench.repeat, bench.number, bench.rounds, bench.warmup_time) == expected, name
        if name.startswith(("bench_operators", "bench_gluon")):
            assert bench.version.startswith(H.HARNESS_VERSION + "."), name


def test_grid_size_is_bounded():
    """The default grid stays affordable: a guard against a change that multiplies it."""
    cpu_points = numpy_points = 0
    for op in C.OPERATORS:
        if op.call in C.NUMPY_CALLS:  # time only: forward, forward+backward
            numpy_points += len(op.cases) * len(op.dtypes) * (2 if op.backward else 1)
            continue
        methods = 3 if op.backward else 2  # forward, forward+backward, first-call memory
        cpu_points += len(op.cases) * len(op.dtypes) * methods
    for block in C.BLOCKS:
        cpu_points += len(block.cases) * len(block.dtypes) * len(bench_gluon.MODES) * 2
    field_points = sum(len(op.field) * len(op.dtypes) * (2 if op.backward else 1)
                       for op in C.OPERATORS)
    assert field_points <= 200, field_points  # timed only (field.py)
    # 1,914 before the registry's entries; they and the long tail's dtypes/classes add ~660,
    # nearly all of them long-tail points (see docs/catalogue.md).
    assert cpu_points <= 2700, cpu_points
    assert numpy_points <= 900, numpy_points  # the numpy interface (np_interface.py)


# --- portability ---------------------------------------------------------------------------------
@pytest.mark.parametrize("path", BENCHMARK_FILES,
                         ids=lambda p: str(p.relative_to(ROOT / "benchmarks")))
def test_benchmarks_parse_as_python_37(path):
    """Benchmark environments may run Python 3.7: no walrus, no positional-only parameters."""
    ast.parse(path.read_text(), filename=str(path), feature_version=(3, 7))


def test_benchmarks_import_without_mxnet():
    """No mxnet attribute is touched at import time: the suite imports with no mxnet at all."""
    code = ("import sys; sys.modules['mxnet'] = None\n"
            "import benchmarks.bench_operators, benchmarks.bench_gluon, benchmarks.bench_memory\n"
            "from benchmarks import harness as H; assert H.mx is None\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=str(ROOT), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
    assert proc.returncode == 0, proc.stdout


# --- coverage on the installed release ------------------------------------------------------
@pytest.fixture(scope="module")
def report():
    mx = pytest.importorskip("mxnet")
    if mx.__version__ != CATALOGUE_RELEASE:
        pytest.skip("coverage is checked against mxnet %s (installed: %s)"
                    % (CATALOGUE_RELEASE, mx.__version__))
    from mxbench.inside.registry import Registry
    from mxbench.reports.coverage import coverage
    return coverage(Registry(mx))


def test_every_public_operator_is_covered_or_excluded(report):
    missing = [name for name, row in report["names"].items() if row["status"] == "missing"]
    assert not missing, ("public mxnet operators neither in the catalogue nor in EXCLUDED "
                         "(add an entry, or a reason): %s" % missing)
    assert report["counts"]["distinct_missing"] == 0


def test_coverage_reaches_the_target(report):
    counts = report["counts"]
    assert counts["covered"] >= MIN_COVERED, counts
    assert counts["covered"] + counts["excluded"] + counts["missing"] == counts["public_names"]


def test_catalogue_names_are_registered(report):
    assert report["catalogue"]["not_in_this_release"] == []
    assert report["catalogue"]["excluded_not_registered"] == []


def test_exclusions_have_reasons_and_no_entry():
    for name, reason in C.EXCLUDED.items():
        assert reason and reason.strip(), name
        assert name not in set(op.name for op in C.OPERATORS), name


# Gradient kernels registered under a name other than _backward_<name or an alias>.
GRADIENT_KERNELS = dict(
    [("random_pdf_" + d, "_backward_pdf_" + d) for d in (
        "uniform", "normal", "exponential", "gamma", "poisson", "negative_binomial",
        "generalized_negative_binomial", "dirichlet")]
    + [("LinearRegressionOutput", "_backward_linear_reg_out"),
       ("LogisticRegressionOutput", "_backward_logistic_reg_out"),
       ("MAERegressionOutput", "_backward_mae_reg_out")])
# Gradients MXNet composes from forward operators, with no _backward_ kernel of their own.
GRADIENT_FROM_OPERATORS = {
    "exp": "the output times the head gradient (_mul)",
    "batch_dot": "two batch_dot calls, one per input",
    # catalogue_registry.BACKWARD and registry entries
    "add_n": "the head gradient, once per input",
    "sort": "a scatter of the head gradient by the sort's indices",
    "transpose": "a transpose of the head gradient",
    "depth_to_space": "space_to_depth of the head gradient",
    "space_to_depth": "depth_to_space of the head gradient",
    "reshape_like": "a reshape of the head gradient", "flatten": "a reshape",
    "expand_dims": "a reshape", "broadcast_axis": "a sum (_broadcast_backward)",
    "broadcast_to": "a sum (_broadcast_backward)", "broadcast_like": "a sum",
    "rnn_param_concat": "a split of the head gradient",
    "contrib.div_sqrt_dim": "a scalar multiplication",
    "contrib.round_ste": "straight-through: the head gradient",
    "contrib.sign_ste": "straight-through: the head gradient",
}


def test_backward_only_where_mxnet_has_a_gradient(report):
    """Backward entries: a `_backward_` kernel for the operator (under its name or an alias's),
    or a gradient MXNet composes from other operators (listed above, with how). That the
    gradient runs, and is finite, is the smoke test's part."""
    import mxnet as mx
    from mxbench.inside.registry import op_handles
    from mxbench.reports.coverage import entry_registry_names
    registered = mx.operator.get_all_registered_operators()
    handles = op_handles(mx, registered)
    names_of = {}
    for name, handle in handles.items():
        names_of.setdefault(handle, []).append(name)
    without = []
    for op in C.OPERATORS:
        if not op.backward or op.call in C.NUMPY_CALLS:  # np: the smoke test runs backward
            continue
        entry_names = entry_registry_names(op, handles)
        if not entry_names:  # a catalogue_registry entry for another release (since/until)
            continue
        group = names_of[handles[entry_names[0]]]
        candidates = ["_backward_" + n.lstrip("_") for n in group]
        candidates += [n + "_backward" for n in group]  # _split_v2_backward
        candidates += ["_contrib_backward_" + n[len("_contrib_"):] for n in group
                       if n.startswith("_contrib_")]
        candidates += [p + n[len("_contrib_"):] for n in group if n.startswith("_contrib_")
                       for p in ("_backward_", "_backward__contrib_")]
        candidates.append(GRADIENT_KERNELS.get(op.name, ""))
        if not any(c in handles for c in candidates) and op.name not in GRADIENT_FROM_OPERATORS:
            without.append(op.class_name)
    assert not without, "backward=True without a gradient kernel: %s" % without


def test_release_dependent_entries_build_1_9_1s_call(report):
    """The entries written for MXNet 2.0's changes build, on 1.9.1, the call they built before
    (their asv version is unchanged): sample_multinomial keeps its name (no sample_categorical
    here), GroupNorm's inferred gamma/beta are per group, Gluon inputs are mx.nd arrays."""
    by_class = dict((op.class_name, op) for op in C.OPERATORS)
    multinomial = by_class["sample_multinomial"]
    assert H.operator_name(multinomial) == "sample_multinomial"
    assert by_class["sample_multinomial"].later_name == "sample_categorical"
    group_norm = by_class["GroupNorm"]
    for shape in group_norm.cases:
        call = H.build_operator_call(group_norm, shape, "float32", H.mx.cpu())
        assert [a.shape for a in call.args[1:]] == [(4,), (4,)]
        assert call.args[1].asnumpy().tolist() == [1.0] * 4  # gamma: ones, as before
    assert not H.numpy_interface()
    arrays, _ = H.build_inputs(C.case(C.T(2, 3)), "float32", H.mx.cpu(), H.numpy_interface())
    assert type(arrays[0]) is H.mx.nd.NDArray


def test_an_expression_names_what_a_release_lacks():
    """An expression entry over names a release does not have (nd.split_v2 before 1.4,
    nd.random.*_like before 1.3) is a skip naming them, not an AttributeError in the call."""
    pytest.importorskip("mxnet")
    assert HR.missing_names("nd.split_v2(a, 4, axis=1)") == []
    assert HR.missing_names("(a.__setitem__(slice(None), 0.5), a)[1] + 2.0") == []
    assert HR.missing_names("nd.no_such_op(nd.random.no_such_like(a), nd.zeros((2, 2)))") == [
        "nd.no_such_op", "nd.random.no_such_like"]
    assert HR.missing_names("nd._internal._no_such_op(a, b)") == ["nd._internal._no_such_op"]
    expressions = [op for op in C.OPERATORS if getattr(op, "expression", None)]
    assert len(expressions) > 40
    mine = [op for op in expressions if not op.since or op.since <= CATALOGUE_RELEASE]
    assert [(op.class_name, HR.missing_names(op.expression)) for op in mine
            if HR.missing_names(op.expression)] == []  # all there in the catalogue's release
    assert HR.missing_names(next(op for op in expressions if op.since == "2.0").expression)
    entry = next(op for op in expressions if op.class_name == "split_v2")
    lacking = entry.replace(expression="nd.split_v3(a, 4, axis=1)")
    with pytest.raises(NotImplementedError, match=r"mxnet 1\.9\.1 has no nd\.split_v3"):
        H.build_operator_call(lacking, "medium", "float32", H.mx.cpu())


def test_coverage_command_formats():
    pytest.importorskip("mxnet")
    for fmt in ("text", "markdown", "json"):
        proc = subprocess.run([sys.executable, "-m", "mxbench", "coverage", "--format", fmt],
                              cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=120)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "covered" in proc.stdout


def test_coverage_reports_a_dropped_entry_as_missing(report):
    """The checker itself: an operator whose entry disappears shows up as missing."""
    import types
    import mxnet as mx
    from mxbench.inside.registry import Registry
    from mxbench.reports.coverage import coverage
    fake = types.SimpleNamespace(OPERATORS=[op for op in C.OPERATORS if op.name != "abs"],
                                 EXCLUDED=C.EXCLUDED)
    dropped = coverage(Registry(mx), catalogue=fake)
    assert dropped["names"]["abs"]["status"] == "missing"
    assert dropped["counts"]["missing"] == 1
    assert dropped["counts"]["covered"] == report["counts"]["covered"] - 1


def test_shared_modules_hold_nothing_asv_would_take_for_a_benchmark():
    """asv runs every module-level time_/track_/mem_/peakmem_/timeraw_ function of every
    module under benchmarks/: a helper named like one is recorded as a failed benchmark in
    every run (a shared timing helper once was)."""
    import importlib
    import inspect
    import re
    import pkgutil
    import benchmarks
    shared = [m.name for m in pkgutil.walk_packages(benchmarks.__path__, "benchmarks.")
              if not m.name.split(".")[-1].startswith("bench_")]
    assert {"benchmarks.harness.timing", "benchmarks.catalogue.entries"} <= set(shared)
    for name in shared:
        module = importlib.import_module(name)
        taken = [attr for attr, value in vars(module).items()
                 if re.match(r"(time|timeraw|mem|peakmem|track)_", attr)
                 and (inspect.isfunction(value) or inspect.isclass(value))]
        assert taken == [], (name, taken)


# --- the numpy interface (catalogue_np.py) on the installed release ------------------------
MIN_NUMPY_COVERED = 200  # of the 230 _np*/_npi*/_npx* operators of mxnet 1.9.1


@pytest.fixture(scope="module")
def numpy_report(report):
    import mxnet as mx
    from mxbench.inside.registry import Registry
    from mxbench.reports.coverage import numpy_coverage
    return numpy_coverage(Registry(mx))


def test_numpy_interface_covers_the_registry(numpy_report):
    """What the mx.np/mx.npx entries run (read from the profiler) covers the numpy
    interface's registered operators; the rest are excluded with a reason."""
    counts = numpy_report["counts"]
    assert counts["numpy_operators"] == 230, counts
    assert counts["covered"] >= MIN_NUMPY_COVERED, counts
    missing = [k for k, row in numpy_report["operators"].items() if row["status"] == "missing"]
    assert not missing, missing
    # Every entry runs here but MXNet 2.0's own functions, which skip with the reason.
    later = sorted(op.class_name for op in C.OPERATORS if getattr(op, "since", None) == "2.0"
                   and op.call in C.NUMPY_CALLS)
    assert len(later) > 40
    assert sorted(numpy_report["not_run"]) == later
    assert all("arrived in mxnet 2.0" in why for why in numpy_report["not_run"].values())
    rows = numpy_report["operators"]
    assert rows["_np_dot"]["classes"] == ["np_dot"]  # np.dot runs _np_dot, not mx.nd's dot
    assert "np_ediff1d" in rows["_npi_backward_ediff1d"]["classes"]  # its backward kernel


def test_numpy_coverage_reports_a_dropped_entry_as_missing(numpy_report):
    import types
    import mxnet as mx
    from mxbench.inside.registry import Registry
    from mxbench.reports.coverage import numpy_coverage
    # A catalogue of two entries (cheap to profile): what they run is covered, no more.
    two = [op for op in C.OPERATORS if op.class_name in ("np_linalg_svd", "npx_relu")]
    small = numpy_coverage(Registry(mx), catalogue=types.SimpleNamespace(OPERATORS=two))
    covered = [k for k, row in small["operators"].items() if row["status"] == "covered"]
    assert covered == ["_npi_svd", "_npx_relu"], covered
    # Operators the whole catalogue covers here but excludes where it cannot (2.0's unused
    # _npi_normal_n) count as excluded in the small report, not as missing.
    assert small["counts"]["excluded"] >= numpy_report["counts"]["excluded"]
    assert small["counts"]["missing"] == numpy_report["counts"]["numpy_operators"] - 2 - \
        small["counts"]["excluded"]
    assert small["counts"]["missing"] > 200


# --- the whole registry (issue 13) ---------------------------------------------------------------
@pytest.fixture(scope="module")
def registry_report(report, numpy_report):
    import mxnet as mx
    from mxbench.inside.registry import Registry
    from mxbench.reports.coverage import registry_coverage
    return registry_coverage(Registry(mx), numpy_report=numpy_report)


def test_every_registered_operator_is_covered_or_excluded(registry_report):
    """Every distinct forward operator of 1.9.1 has an entry or an exclusion with its reason,
    and at least 80 % have an entry."""
    missing = [(name, row["family"]) for name, row in registry_report["operators"].items()
               if row["status"] == "missing"]
    assert not missing, missing
    total = registry_report["total"]
    assert total["operators"] == 611 and total["covered"] >= 0.8 * total["operators"], total
    families = registry_report["families"]
    assert families["public"]["missing"] == 0
    for fam in ("numpy", "contrib", "quantized", "subgraph", "image", "sparse",
                "scalar/internal"):
        assert families[fam]["covered"] > 0, fam
    assert registry_report["total"]["operators"] == sum(
        c["operators"] for c in families.values())


def test_registry_checker_reports_a_dropped_entry_as_missing(registry_report, numpy_report):
    import types
    import mxnet as mx
    from mxbench.inside.registry import Registry
    from mxbench.reports.coverage import registry_coverage
    fake = types.SimpleNamespace(
        OPERATORS=[op for op in C.OPERATORS if op.class_name != "scalar_add"],
        EXCLUDED=C.EXCLUDED, REGISTRY_EXCLUDED=C.REGISTRY_EXCLUDED)
    dropped = registry_coverage(Registry(mx), catalogue=fake, numpy_report=numpy_report)
    assert dropped["operators"]["_PlusScalar"]["status"] == "missing"
    assert dropped["operators"]["_PlusScalar"]["family"] == "scalar/internal"
    assert dropped["total"]["covered"] == registry_report["total"]["covered"] - 1


# --- assembled once ----------------------------------------------------------------------------
def test_entries_do_not_change_after_construction():
    op = C.by_class_name()["dot"]
    with pytest.raises(AttributeError):
        op.dtypes = ("float16",)
    changed = op.replace(dtypes=("float16",))
    assert changed.dtypes == ("float16",) and op.dtypes == ("float32", "float64")
    assert changed.class_name == op.class_name and changed is not op


def test_the_catalogue_is_assembled_from_its_declarations_and_its_data():
    from benchmarks.catalogue import long_tail, nd, tuning
    declared = dict((op.class_name, op) for op in nd.ND_OPERATORS)
    assert declared["transpose"].backward is False  # nd.py declares it; the long tail adds it
    assert C.by_class_name()["transpose"].backward is True
    assert "large" in C.by_class_name()["identity"].cases
    assert "large" not in declared["identity"].cases
    assert tuning.read_slow_medium() == C.SLOW_MEDIUM_MS
    first = C.assemble(nd.ND_OPERATORS, [], [], {})[0]
    assert first.dtypes == long_tail.widened(nd.ND_OPERATORS[0]).dtypes == ("float32", "bfloat16")


def test_the_slow_medium_table_round_trips_through_its_file(tmp_path):
    from benchmarks.catalogue import tuning
    path = str(tmp_path / "slow_medium.json")
    tuning.write_slow_medium({"dot": 51.7, "sort": 117}, "a command", 50, path)
    assert tuning.read_slow_medium(path) == {"dot": 51, "sort": 117}


def test_field_cases_are_declared_on_their_entries_and_timed_only_by_bench_operators():
    """Field cases (field.py) belong to existing entries, are named field-..., never reuse an
    entry's own case name, are built like its cases, and stay out of the memory and
    instruction-count classes (their grids keep their recorded parameters)."""
    from benchmarks.catalogue import field
    by_class = C.by_class_name()
    assert set(field.FIELD) <= set(by_class)
    for name, cases in field.FIELD.items():
        op = by_class[name]
        assert list(op.field) == [c for c, _ in cases]
        for case_name, case in cases:
            assert case_name.startswith("field-") and case_name not in op.cases, case_name
            assert isinstance(case, C.Case) and case.inputs, case_name
        assert getattr(bench_operators, name).operator.cases == op.all_cases
    assert not any(op.field for op in C.OPERATORS if op.class_name not in field.FIELD)
    from mxbench.core.selection import discover
    elsewhere = [b.name for b in discover() if not b.name.startswith("bench_operators.")
                 and any("field-" in v for axis in b.params for v in axis)]
    assert elsewhere == []
    # the core NN operators have batch-1 and batch-8 inference cases
    for name in ("FullyConnected", "BatchNorm", "LayerNorm", "log_softmax", "Embedding"):
        assert {"field-bs1", "field-bs8"} <= set(by_class[name].field), name
    for name in ("softmax", "transpose", "batch_dot"):
        assert {"field-bert-bs1", "field-bert-bs8"} <= set(by_class[name].field), name
    assert {"field-resnet50-stem-bs1", "field-resnet50-stem-bs8"} <= set(
        by_class["Convolution"].field)
