"""The operator catalogue: one declarative entry per MXNet operator, assembled once.

Every consumer reads it: the asv benchmark classes (bench_operators generates one class per
entry), the coverage report and ad-hoc runs. An entry says which operator, which shape
classes (each a Case: input tensors + operator arguments), which dtypes, and whether a
backward pass applies; an operator that cannot be benchmarked is in EXCLUDED with the reason.

  entries.py       Tensor, Case, the markers and Operator, and the shared case builders
  nd.py            the mx.nd entries and EXCLUDED
  registry.py      the rest of MXNet's operator registry and REGISTRY_EXCLUDED
  np_interface.py  the numpy interface (mx.np / mx.npx) entries
  long_tail.py     the extra dtypes, `large` class and backward passes of mx.nd entries
  tuning.py        measured tuning kept as data (slow_medium.json)
  field.py         the field cases: documented changes' and real work's shapes
  blocks.py        the Gluon blocks (bench_gluon)

OPERATORS is assembled here, once, from those parts; no entry changes afterwards.
Shape classes, fills and the rules of the grid: docs/catalogue.md.
Runs inside benchmark environments: Python 3.7 syntax, no mxnet.
"""
from collections import OrderedDict

from .blocks import BLOCKS, Block  # noqa: F401
from .entries import (CTX, DTYPE, DTYPES, FILLS, FLOAT32, FLOAT32_64, FLOATS,  # noqa: F401
                      INDEX_TYPES, INFERRED, NUMPY_CALLS, SHAPE_CLASSES, Case, Input, Operator,
                      T, Tensor, case, elementwise, one_input)
from .field import with_field
from .long_tail import widened
from .nd import EXCLUDED, ND_OPERATORS  # noqa: F401
from .np_interface import NUMPY_EXCLUDED, NUMPY_OPERATORS  # noqa: F401
from .registry import REGISTRY_EXCLUDED, REGISTRY_OPERATORS, RegistryOperator  # noqa: F401
from .tuning import read_slow_medium, with_short_case

# {class name: ms} of the entries short on `small` (tuning.py)
SLOW_MEDIUM_MS = read_slow_medium()


def assemble(nd, registry, numpy_interface, slow_medium):
    """Every entry, in order: the mx.nd entries with their long tail, the registry's, the
    numpy interface's; each short on `small` where its medium call is slow; each with its
    field cases."""
    entries = [widened(op) for op in nd] + list(registry) + list(numpy_interface)
    return [with_field(with_short_case(op, slow_medium)) for op in entries]


OPERATORS = assemble(ND_OPERATORS, REGISTRY_OPERATORS, NUMPY_OPERATORS, SLOW_MEDIUM_MS)


def by_name():
    """Main mx.nd entries by operator name (other forms and the numpy interface's entries are in
    by_class_name())."""
    return OrderedDict((op.name, op) for op in OPERATORS
                       if not op.form and op.call not in NUMPY_CALLS)


def by_class_name():
    return OrderedDict((op.class_name, op) for op in OPERATORS)
