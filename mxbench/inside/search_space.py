"""The shapes a catalogue entry can take, derived from its own cases, as Hypothesis strategies;
and the neighbours of a shape. No MXNet here (the search times what this draws: search.py).

An entry's base case (its `medium` shape class, else its first) is a set of positions that
hold sizes: each input's dimensions, an index input's bound (`high`) and the size arguments
(num_filter, depth, ...). Positions that hold the same size in the base case and never differ
in another case of the same structure are one *symbol* (dot's inner dimension, a
convolution's channels in data and weight, take's rows and index bound), so every draw keeps
the relations the catalogue's cases keep; in AXES_APART's categories one input's rows and
columns are drawn apart even where its cases are square. A size of 1 (a broadcast axis), a size
some other argument also holds (the kernel in the weight's shape) and a size no case varies
(an affine transform's 6) stay as they are; the other arguments (kernel, stride, axis,
begin/end, k, ...) too, and no dimension goes below the largest of them. Sizes are drawn so
that the call's work (the product of its symbols, each to the power it has in one input)
stays within WORK_RANGE of the base case's: comparable calls, never a swap-sized one. Entries
whose validity needs more than equalities (a split that must divide, a reshape's product, an
index bound of T + 1) are not searched: why_not_searched and SearchSpace say why.
"""
import math
from collections import OrderedDict, namedtuple

from benchmarks import catalogue as C

# Arguments that are sizes of the call's inputs or outputs: they follow their symbol.
SIZE_ARGUMENTS = ("num_filter", "num_hidden", "size", "depth", "state_size", "input_dim",
                  "output_dim", "shape", "target_shape", "output_size")
# Arguments that name one axis: drawn among the input's axes for the entries listed in
# FREE_AXIS (a reduction along rows or along columns takes another kernel path).
FREE_AXIS = ("sum", "mean", "max", "min", "prod", "norm", "softmax", "log_softmax", "softmin",
             "sort", "argsort", "topk", "argmax", "argmin", "cumsum", "flip")
# The call's work may go from base/8 to 2x base (work: see WORK_RANGE's use in SearchSpace).
WORK_RANGE = (1.0 / 8, 2.0)
# A symbol may grow to this many times its base size (and at least to MIN_CEILING).
GROWTH, MIN_CEILING = 4, 64
# Categories whose operators take any sizes axis by axis: a square case of theirs (relu's
# 1024x1024) is a choice, not a constraint, so its rows and columns are drawn apart (and
# stay tied across inputs, axis by axis). Not GEMM or linear algebra, where the axes of one
# input meet another's in other places (batch_dot's K) or must be square.
AXES_APART = ("unary", "binary-elementwise", "binary-broadcast", "reduction", "sort-search",
              "nn-activation", "rearrange", "misc", "expanding", "join-split", "loss-output")
# Dtypes the search leaves out: bfloat16 needs oneDNN kernels this CPU may not have.
SKIPPED_DTYPES = ("bfloat16",)
# Sizes that kernels treat specially, offered beside uniform draws: powers of two and their
# neighbours, multiples of 8 and 16 and theirs.
SPECIAL_POWERS = range(1, 17)

NOT_SEARCHED = OrderedDict([
    ("split", "num_outputs must divide the split axis"),
    ("reshape", "the target shape must keep the element count"),
    ("reshape_like", "the second input must keep the element count"),
    ("depth_to_space", "channels must divide by block_size squared"),
    ("space_to_depth", "height and width must divide by block_size"),
    ("GroupNorm", "channels must divide by num_groups"),
    ("linalg_maketrian", "the input is a packed triangle: n(n+1)/2 elements"),
    ("col2im", "the columns must be the output size's product"),
    ("slice_like", "the second input must not exceed the first"),
    ("ctc_loss", "labels must not outnumber the time steps"),
    ("RNN", "the packed parameters' size is a polynomial of state_size"),
])
# Categories whose calls are not shape-driven kernels of one input set (creation, updates).
NOT_SEARCHED_CATEGORIES = ("random", "optimizer")

Symbol = namedtuple("Symbol", "name value positions power low high")


def base_case_name(entry):
    return "medium" if "medium" in entry.cases else next(iter(entry.cases))


def why_not_searched(entry):
    """Why an entry is not searched, or None."""
    if entry.class_name in NOT_SEARCHED or entry.name in NOT_SEARCHED:
        return NOT_SEARCHED.get(entry.class_name) or NOT_SEARCHED[entry.name]
    if entry.category in NOT_SEARCHED_CATEGORIES:
        return "a %s entry: its cost is not a function of input shapes" % entry.category
    if entry.call != "imperative" or getattr(entry, "covers", None):
        return "only mx.nd entries are searched (this one calls %s)" % entry.call
    if entry.isolate:
        return "marked isolate: a history of crashing the process"
    if not dtypes_searched(entry):
        return "no dtype the search runs (%s)" % ", ".join(entry.dtypes)
    return None


def dtypes_searched(entry):
    return [d for d in entry.dtypes if d not in SKIPPED_DTYPES]


# --- positions: where a case holds sizes -----------------------------------------------------
def _tensor_positions(key, tensor):
    out = []
    for axis, size in enumerate(tensor.shape):
        if isinstance(size, int):
            out.append((("dim", key, axis), size))
    if tensor.fill == "index" and tensor.high is not None:
        highs = tensor.high if isinstance(tensor.high, tuple) else (tensor.high,)
        for i, size in enumerate(highs):
            out.append((("high", key, i), size))
    return out


def size_positions(entry, case):
    """[(position, size)] of a case: dimensions, index bounds and size arguments."""
    out = []
    for i, tensor in enumerate(case.inputs):
        out += _tensor_positions(i, tensor)
    kwargs = dict(entry.kwargs, **case.kwargs)
    for key in sorted(kwargs):
        value = kwargs[key]
        if isinstance(value, C.Tensor):
            out += _tensor_positions(key, value)
        elif key in SIZE_ARGUMENTS and isinstance(value, int):
            out.append((("arg", key, None), value))
        elif key in SIZE_ARGUMENTS and isinstance(value, tuple):
            out += [(("arg", key, i), v) for i, v in enumerate(value) if isinstance(v, int)]
    return out


def fixed_arguments(entry, case):
    """The integers of the arguments that are not sizes (kernel, stride, k, begin, axis...)."""
    values = []
    kwargs = dict(entry.kwargs, **case.kwargs)
    for key, value in kwargs.items():
        if key in SIZE_ARGUMENTS or isinstance(value, C.Tensor):
            continue
        items = value if isinstance(value, (tuple, list)) else (value,)
        values += [v for v in items if isinstance(v, int) and not isinstance(v, bool)]
    return values


def _same_structure(entry, a, b):
    return [p for p, _ in size_positions(entry, a)] == [p for p, _ in size_positions(entry, b)]


def symbols(entry):
    """The entry's free sizes (Symbols) and the positions that stay fixed, from its cases."""
    base = entry.cases[base_case_name(entry)]
    positions = OrderedDict(size_positions(entry, base))
    alike = [c for c in entry.cases.values() if _same_structure(entry, base, c)]
    others = [OrderedDict(size_positions(entry, c)) for c in alike if c is not base]

    def conflict(p, q):
        return any(o[p] != o[q] and o[p] != 1 and o[q] != 1 for o in others)

    groups = []  # connected components of "same base size, never in conflict"
    for p in positions:
        joined = [g for g in groups if positions[g[0]] == positions[p]
                  and any(not conflict(p, q) for q in g)]
        merged = [p] + [q for g in joined for q in g]
        groups = [g for g in groups if g not in joined] + [merged]
    if entry.category in AXES_APART:
        groups = [part for g in groups for part in _by_axis(g)]
    order = list(positions)  # s0 is the first input's first size, and so on
    groups.sort(key=lambda g: min(order.index(p) for p in g))
    floor = max([2] + [abs(v) for v in fixed_arguments(entry, base)])
    out = []
    for group in groups:
        value = positions[group[0]]
        if any(p[0] == "high" for p in group) and not any(p[0] != "high" for p in group) \
                and not _never_varied(entry, alike, group[0]):
            # an index bound that follows the sizes otherwise than by equality (T + 1)
            raise ValueError("%s is not searched: its index bound %s follows the sizes in a "
                             "way the cases do not show" % (entry.class_name, value))
        if value == 1 or _held_by_an_argument(entry, alike, group[0]) \
                or _never_varied(entry, alike, group[0]) \
                or not any(p[0] in ("dim", "arg") for p in group):
            continue
        power = max([1] + [sum(1 for p in group if p[0] == "dim" and p[1] == key)
                           for key in set(p[1] for p in group if p[0] == "dim")])
        low = min(floor, value)
        out.append(Symbol("s%d" % len(out), value, tuple(sorted(group, key=str)), power, low,
                          max(GROWTH * value, MIN_CEILING, low)))
    return out


def _held_by_an_argument(entry, cases, position):
    """Whether a size is, in every case, one that another argument holds (the kernel in a
    convolution's weight): it stays with that argument."""
    return all(dict(size_positions(entry, c))[position] in fixed_arguments(entry, c)
               for c in cases)


def _by_axis(group):
    """A group of dimensions only in which one input has two of its axes, split by axis: the
    rows of all inputs, their columns... (a group with one axis per input stays: prelu's
    channels in the data and in gamma)."""
    inputs = [p[1] for p in group]
    if any(p[0] != "dim" for p in group) or len(set(inputs)) == len(inputs):
        return [group]
    axes = OrderedDict()
    for p in group:
        axes.setdefault(p[2], []).append(p)
    return list(axes.values())


def _never_varied(entry, cases, position):
    """Whether no other case gives the size another value: a size the catalogue never varies
    may be fixed by the operator (an affine transform's 6, a box's 5, a grid's 2)."""
    return len(set(dict(size_positions(entry, c))[position] for c in cases)) == 1


# --- the space --------------------------------------------------------------------------------
Draw = namedtuple("Draw", "sizes dtype axis")  # sizes: {symbol name: size}


class SearchSpace(object):
    """The shapes an entry can take: draws (a Hypothesis strategy), the catalogue Case of a
    draw, its elements and its neighbours."""

    def __init__(self, entry):
        problem = why_not_searched(entry)
        if problem:
            raise ValueError("%s is not searched: %s" % (entry.class_name, problem))
        self.entry = entry
        self.base_name = base_case_name(entry)
        self.base = entry.cases[self.base_name]
        self.symbols = symbols(entry)
        if not self.symbols:
            raise ValueError("%s is not searched: no size of its %s case can change"
                             % (entry.class_name, self.base_name))
        self.base_sizes = dict((s.name, s.value) for s in self.symbols)
        self.base_work = self.work(self.base_sizes)
        self.dtypes = dtypes_searched(entry)
        self.axis_key, self.axes = self._axis_choice()

    def _axis_choice(self):
        kwargs = dict(self.entry.kwargs, **self.base.kwargs)
        if self.entry.name not in FREE_AXIS or not isinstance(kwargs.get("axis"), int):
            return None, ()
        rank = len(self.base.inputs[0].shape)
        return "axis", tuple(range(rank)) if rank > 1 else ()

    def work(self, sizes):
        return float(sum(s.power * math.log(sizes[s.name]) for s in self.symbols))

    def strategy(self):
        """A Hypothesis strategy of Draws: sizes in each symbol's range, the log-work within
        WORK_RANGE of the base case's, drawn one symbol at a time in a drawn order."""
        from hypothesis import strategies as st

        low_work = self.base_work + math.log(WORK_RANGE[0])
        high_work = self.base_work + math.log(WORK_RANGE[1])
        symbols = self.symbols

        @st.composite
        def draws(draw):
            order = draw(st.permutations(range(len(symbols))))
            sizes, done = {}, 0.0
            for n, index in enumerate(order):
                s = symbols[index]
                rest = [symbols[i] for i in order[n + 1:]]
                least = done + sum(r.power * math.log(r.low) for r in rest)
                most = done + sum(r.power * math.log(r.high) for r in rest)
                low = max(s.low, int(math.ceil(math.exp((low_work - most) / s.power) - 1e-9)))
                high = min(s.high, int(math.floor(math.exp((high_work - least) / s.power)
                                                  + 1e-9)))
                low = min(low, high)
                sizes[s.name] = draw(sizes_between(low, high))
                done += s.power * math.log(sizes[s.name])
            dtype = draw(st.sampled_from(self.dtypes))
            axis = draw(st.sampled_from(self.axes)) if self.axes else None
            return Draw(sizes, dtype, axis)

        return draws()

    def base_draw(self):
        return Draw(dict(self.base_sizes), self.dtypes[0], None)

    def case(self, draw):
        """The catalogue Case of a draw (the base case with the draw's sizes)."""
        values = {}
        for s in self.symbols:
            for position in s.positions:
                values[position] = draw.sizes[s.name]

        def tensor(key, t):
            shape = tuple(values.get(("dim", key, a), n) for a, n in enumerate(t.shape))
            high = t.high
            if t.fill == "index" and t.high is not None:
                highs = t.high if isinstance(t.high, tuple) else (t.high,)
                highs = tuple(values.get(("high", key, i), h) for i, h in enumerate(highs))
                high = highs if isinstance(t.high, tuple) else highs[0]
            return t._replace(shape=shape, high=high)

        inputs = tuple(tensor(i, t) for i, t in enumerate(self.base.inputs))
        kwargs = {}
        for key, value in self.base.kwargs.items():
            if isinstance(value, C.Tensor):
                value = tensor(key, value)
            elif key in SIZE_ARGUMENTS and isinstance(value, int):
                value = values.get(("arg", key, None), value)
            elif key in SIZE_ARGUMENTS and isinstance(value, tuple):
                value = tuple(values.get(("arg", key, i), v) for i, v in enumerate(value))
            kwargs[key] = value
        if draw.axis is not None:
            kwargs[self.axis_key] = draw.axis
        return self.base._replace(inputs=inputs, kwargs=kwargs)

    def elements(self, draw):
        """Elements of the call's tensor inputs: what cost per element divides by."""
        case = self.case(draw)
        tensors = list(case.inputs) + [v for v in case.kwargs.values()
                                       if isinstance(v, C.Tensor)]
        return sum(int(_product(t.shape)) for t in tensors if C.INFERRED not in t.shape)

    def neighbours(self, draw):
        """[(kind, Draw)]: one more or less in a size, the next multiple of 8 and of 16, two
        sizes of one input swapped (its axes in another order); each within its range."""
        out, seen = [], set([draw_key(draw)])

        def add(kind, sizes):
            candidate = draw._replace(sizes=sizes)
            if draw_key(candidate) not in seen and all(
                    s.low <= sizes[s.name] <= s.high for s in self.symbols):
                seen.add(draw_key(candidate))
                out.append((kind, candidate))

        for s in self.symbols:
            size = draw.sizes[s.name]
            for step in (1, -1):
                add("%s%+d" % (s.name, step), dict(draw.sizes, **{s.name: size + step}))
            for multiple in (8, 16):
                up = (size // multiple + 1) * multiple
                add("%s^%d" % (s.name, multiple), dict(draw.sizes, **{s.name: up}))
        for a, b in self._swappable():
            sizes = dict(draw.sizes, **{a.name: draw.sizes[b.name], b.name: draw.sizes[a.name]})
            add("%s<>%s" % (a.name, b.name), sizes)
        return out

    def _swappable(self):
        """Pairs of symbols that are two dimensions of one input, with the same power."""
        pairs = []
        for i, a in enumerate(self.symbols):
            for b in self.symbols[i + 1:]:
                keys_a = set(p[1] for p in a.positions if p[0] == "dim")
                keys_b = set(p[1] for p in b.positions if p[0] == "dim")
                if keys_a & keys_b and a.power == b.power:
                    pairs.append((a, b))
        return pairs

    def describe(self, draw):
        """'1023x1024, 1023x1' and the arguments that differ from the base case."""
        case = self.case(draw)
        text = ", ".join("x".join(str(n) for n in t.shape) for t in case.inputs)
        changed = ["%s=%s" % (k, v) for k, v in sorted(case.kwargs.items())
                   if not isinstance(v, C.Tensor) and self.base.kwargs.get(k) != v]
        return text + (" (%s)" % ", ".join(changed) if changed else "")

    def record(self, draw):
        """The case of a draw as cliffs.json keeps it (benchmarks.catalogue.cliffs)."""
        case = self.case(draw)
        record = OrderedDict([("base", self.base_name),
                              ("inputs", [list(t.shape) for t in case.inputs])])
        highs = OrderedDict()
        for key, t in list(enumerate(case.inputs)) + sorted(
                (k, v) for k, v in case.kwargs.items() if isinstance(v, C.Tensor)):
            if t.fill == "index" and t.high is not None:
                highs[str(key)] = list(t.high) if isinstance(t.high, tuple) else t.high
        if highs:
            record["highs"] = highs
        keyword = OrderedDict((k, list(v.shape)) for k, v in sorted(case.kwargs.items())
                              if isinstance(v, C.Tensor))
        if keyword:
            record["keyword_inputs"] = keyword
        changed = OrderedDict((k, list(v) if isinstance(v, tuple) else v)
                              for k, v in sorted(case.kwargs.items())
                              if not isinstance(v, C.Tensor) and self.base.kwargs.get(k) != v)
        if changed:
            record["kwargs"] = changed
        return record


def draw_key(draw):
    return (tuple(sorted(draw.sizes.items())), draw.dtype, draw.axis)


def _product(shape):
    out = 1
    for n in shape:
        out *= n
    return out


def special_sizes(low, high):
    """Sizes in [low, high] that kernels treat specially: 2^k, 2^k +- 1, multiples of 8 and
    16 near them."""
    values = set()
    for k in SPECIAL_POWERS:
        for v in (2 ** k - 1, 2 ** k, 2 ** k + 1, 3 * 2 ** (k - 1)):
            values.add(v)
    return sorted(v for v in values if low <= v <= high)


def sizes_between(low, high):
    from hypothesis import strategies as st
    special = special_sizes(low, high)
    uniform = st.integers(low, high)
    return st.one_of(uniform, st.sampled_from(special)) if special else uniform
