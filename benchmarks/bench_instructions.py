"""Instructions one operator call executes, counted under Valgrind (callgrind): a number that
is the same on every run, beside the noisy times of bench_operators (docs/instructions.md).

bench_instructions.<Operator>.track_forward(shape, dtype), and track_forward_backward where
the short selection times forward+backward: the instructions libmxnet executes for one warmed
call of the same call bench_operators times (harness.prepare), at the entry's `small` shape
class (else its first), first dtype, CPU. `small` because of cost: under Valgrind a medium
call takes seconds to minutes (a medium dot's forward+backward 109 M instructions, ~1 min),
and the ~1,000 points of a table must stay within minutes; counts are exact, so a small
call's change in a kernel's code path shows as well as a large one's.

bench_instructions.<Layer>.track_forward('layer', dtype): the same for one inference call of
a model layer that bench_models times (its own shapes; the layers the models run at batch
1), counted in a table of their own (count_layers).

Two Valgrind processes count the whole table, one child per point (import mxnet alone is
~45 s under Valgrind's instrumentation; harness/instructions.py): setup_cache, which asv runs
once per environment and commit for every class that shares it, returns {point: count or
skip reason}; the track_ methods look their point up. Where
Valgrind is missing or cannot run the build, the points skip with the reason.

A run of a few points (`mxbench find --on-counts`) sets MXBENCH_INSTRUCTION_POINTS to a
regex of the asv point names to count (re.search, as asv's -b matches
`bench_instructions.dot.track_forward('small', 'float32')`): asv 0.6 passes its own
environment to setup_cache and to every benchmark process, so the Valgrind process counts
only those, and any other point that runs skips with that reason, never a value.
"""
import os
import re

from . import _models as M
from . import bench_operators as O
from . import harness as H
from .catalogue import OPERATORS
from .harness import instructions as I

COUNTED_SHAPE = "small"
METHODS = ("forward", "forward_backward")
# A call into MXNet always runs some of libmxnet's code: a count of 0 means callgrind named
# none of it (1.6.0's `mxnet` wheel: Valgrind cannot read its libmxnet.so's section headers,
# so the library's code is "???" in the dump). Checked here, not in harness/instructions.py,
# which the counting process imports: an edit there can move the counts (its code is part
# of the heap the counted call finds).
NO_LIBRARY_CODE = ("no instruction counted in libmxnet: Valgrind cannot name this build's "
                   "library (unreadable ELF section headers), so its calls cannot be counted")


def counted_shape(op):
    return COUNTED_SHAPE if COUNTED_SHAPE in op.cases else list(op.cases)[0]


def counted_methods(op):
    """The methods of the entry that the short selection times (bench_operators)."""
    timed = getattr(O, O.global_name(op.class_name))
    short = getattr(timed, "short_methods", None)
    return [m for m in METHODS
            if hasattr(timed, "time_" + m) and (short is None or "time_" + m in short)]


SELECTION_VARIABLE = "MXBENCH_INSTRUCTION_POINTS"


def point_name(class_name, shape, dtype, method):
    """asv's name of a point: bench_instructions.dot.track_forward('small', 'float32')."""
    return "bench_instructions.%s.track_%s(%r, %r)" % (O.global_name(class_name), method,
                                                        shape, dtype)


def selection():
    """The compiled MXBENCH_INSTRUCTION_POINTS, or None when unset (every point)."""
    text = os.environ.get(SELECTION_VARIABLE)
    return re.compile(text) if text else None


def selected(point, chosen):
    return chosen is None or chosen.search(point_name(*point)) is not None


def table_points():
    """Every point the table counts, (class name, shape, dtype, method); only those that
    MXBENCH_INSTRUCTION_POINTS selects where it is set."""
    chosen = selection()
    return [p for p in ((op.class_name, counted_shape(op), op.dtypes[0], method)
                        for op in OPERATORS for method in counted_methods(op))
            if selected(p, chosen)]


def count_all():
    return I.count_table(table_points(), timeout=count_all.timeout - 60)


# asv's limit for setup_cache: a table is ~1,000 points (docs/instructions.md for the cost)
count_all.timeout = 3 * 3600

# The models' layers (bench_models) counted: every layer a model runs at batch 1, forward
# (inference), at its own shapes. Batch 32 (training, and the LSTM language model, which has
# only that batch) is left out for cost: one of its calls is 3-15 GFLOP, minutes under
# Valgrind's instrumentation.
LAYER_BATCH = 1


def counted_layers():
    return [layer for layer in M.unique_layers(M.load_data()).values()
            if any(batch == LAYER_BATCH for _, batch, _ in layer["uses"])]


def layer_points():
    """(layer name, 'layer', dtype, 'forward') of every counted layer; only those that
    MXBENCH_INSTRUCTION_POINTS selects where it is set."""
    chosen = selection()
    return [p for p in ((layer["name"], I.LAYER_SHAPE, layer["dtype"], "forward")
                        for layer in counted_layers()) if selected(p, chosen)]


def count_layers():
    """The layers' table: its own Valgrind processes, so the operators' table is counted the
    same whether or not the layers are."""
    return I.count_table(layer_points(), timeout=count_layers.timeout - 60)


count_layers.timeout = 3600


class _Instructions(object):
    counted = None  # the point's first part: a catalogue entry's class name, set per class
    param_names = ["shape", "dtype"]
    unit = "instructions"
    rounds = 1
    repeat = 1
    number = 1
    timeout = 60
    # Not in the short selection (nor in mxbench run's and check's default -b): its
    # setup_cache costs a Valgrind process over the whole table. Recorded on its own:
    # python -m mxbench run ... --bench '^bench_instructions\.' (docs/instructions.md).
    short = False

    # One function object shared by every class: asv keys setup_cache by its source line,
    # so it runs once per environment for all of them.
    setup_cache = staticmethod(count_all)

    def _count(self, table, shape, dtype, method):
        point = (self.counted, shape, dtype, method)
        value = table.get(I.point_key(*point))
        if value is None and not selected(point, selection()):
            H.skip("not counted: %s=%s does not select it" % (
                SELECTION_VARIABLE, os.environ[SELECTION_VARIABLE]))
        if value is None:
            raise RuntimeError("the counted table has no such point")
        if isinstance(value, int):
            if value == 0:
                H.skip(NO_LIBRARY_CODE)
            return value
        outcome, reason = value
        if outcome == I.FAILED:
            raise RuntimeError(reason)
        H.skip(reason)

    def track_forward(self, table, shape, dtype):
        return self._count(table, shape, dtype, "forward")


def _track_forward_backward(self, table, shape, dtype):
    return self._count(table, shape, dtype, "forward_backward")


class _LayerInstructions(_Instructions):
    """A model layer's count: the layers' own table (count_layers), forward only."""
    setup_cache = staticmethod(count_layers)
    timeout = 120


def _make_class(op):
    attrs = {
        "operator": op,
        "counted": op.class_name,
        "params": [[counted_shape(op)], [op.dtypes[0]]],
        "version": "%s.%s.%s" % (H.HARNESS_VERSION, op.version, I.METHOD_VERSION),
        "__module__": __name__,
        "__doc__": "instructions of one %s call (%s)" % (op.name, op.category),
    }
    if "forward_backward" in counted_methods(op):
        attrs["track_forward_backward"] = _track_forward_backward
    return type(op.class_name, (_Instructions,), attrs)


def _make_layer_class(layer):
    return type(str(layer["name"]), (_LayerInstructions,), {
        "layer": layer,
        "counted": layer["name"],
        "params": [[I.LAYER_SHAPE], [layer["dtype"]]],
        "version": "%s.layer1.%s" % (H.HARNESS_VERSION, I.METHOD_VERSION),
        "__module__": __name__,
        "__doc__": "instructions of one inference call of the model layer %s %s on %s" % (
            layer["op"], layer["attrs"], " ".join("x".join(map(str, s)) for s in layer["shapes"])),
    })


__dir__ = H.define_classes(
    globals(), {O.global_name(op.class_name): _make_class(op) for op in OPERATORS},
    {str(layer["name"]): _make_layer_class(layer) for layer in counted_layers()})


def installed_mxnet():
    """(version, folder) of the mxnet this Python would import, read from its libinfo.py
    without importing it (an import costs seconds; every 1.x and 2.0 release sets
    __version__ there)."""
    import importlib.util
    import sys
    spec = importlib.util.find_spec("mxnet")
    if spec is None or not spec.origin:
        return "not installed", sys.executable
    folder = os.path.dirname(spec.origin)
    try:
        with open(os.path.join(folder, "libinfo.py")) as fh:
            found = re.search(r"^__version__\s*=\s*[\"']([^\"']+)", fh.read(), re.M)
    except OSError:
        found = None
    return (found.group(1) if found else "unknown version"), folder


# asv's environments (asv.conf.json's env_dir): the Python a recording counts in
ASV_ENV_DIR = os.sep + os.path.join(".asv", "env") + os.sep


def comparability():
    """One line: what a record's count must share with these to be the same count (the
    counting code's version, the build, the environment), and whether this Python is an
    asv environment. An ad-hoc count in another Python (the tool venv) differs from the
    record's by up to 0.5 % (its packages move the heap: docs/instructions.md); one of
    another build or version of the counting code by more."""
    import sys
    from . import counting_code
    where = ("an asv environment, as a recording's" if ASV_ENV_DIR in sys.prefix + os.sep
             else "NOT an asv environment (%s): its packages can move a small count by up to "
                  "0.5 %% from a record's; the python of the record's asv environment counts "
                  "as the recording did" % sys.prefix)
    return ("counting code %s (benchmarks/harness/); a record's counts are these only when "
            "counted with the same version (the history's before 2026-11-28: 'legacy') of "
            "the mxnet build above (an asv environment holds the release asv installed "
            "last); this Python is %s" % (counting_code.version(), where))


def main(argv=None):
    """python -m benchmarks.bench_instructions [REGEX]: count the points whose asv name
    REGEX selects (as MXBENCH_INSTRUCTION_POINTS does) with this Python's MXNet, and print
    each count with the seconds of its steps under Valgrind, after what makes them
    comparable with a record's (comparability())."""
    import sys
    import time
    argv = sys.argv[1:] if argv is None else argv
    if argv:
        os.environ[SELECTION_VARIABLE] = argv[0]
    try:  # the regex from argv, or MXBENCH_INSTRUCTION_POINTS when none is given
        points = table_points() + layer_points()
    except re.error as exc:
        sys.exit("bench_instructions: not a regular expression: %r (%s)" % (
            os.environ[SELECTION_VARIABLE], exc))
    if not points:  # only a selection can leave none
        sys.exit("bench_instructions: no point's name matches %r" % os.environ[SELECTION_VARIABLE])
    # the build counted is whatever this Python's environment holds now: an asv environment
    # holds the release asv installed last, not necessarily the one a record is of
    print("mxnet %s (%s)" % installed_mxnet(), flush=True)
    print(comparability(), flush=True)
    started = time.time()
    table = I.count_table(points)
    for point in points:
        key = I.point_key(*point)
        print("%s  %s  %s" % (point_name(*point), table.get(key), I.SECONDS.get(key, "")))
    print("%d points in %.0f s" % (len(points), time.time() - started))


if __name__ == "__main__":
    main()
