"""The cliff rule: when a shape is a performance cliff (docs/search.md). The search
(mxbench/inside/search.py) applies it to the shapes it measures; the cliffs report
(mxbench/reports/cliffs.py) to the recorded ones.

A cliff is a shape whose cost per input element is at least THRESHOLD times a neighbour's
(one more or less in a size, the next multiple of 8 or 16, an input's axes in another
order), in at least all but one of ROUNDS re-measurements of the two, interleaved. A
neighbour with more than MAX_ELEMENT_GROWTH times the shape's elements does not count: the
fixed cost of a call alone, spread over twice the elements, would halve its cost per element.
"""
import statistics
from collections import OrderedDict

THRESHOLD = 2.0
ROUNDS = 5
MAX_ELEMENT_GROWTH = 1.5
SEARCH_DIR = "results-search"  # beside results/, not in experiments/ (an asv results directory)


def comparable(elements, neighbour_elements):
    """Whether a neighbour's cost per element can be set against the shape's (see above)."""
    return neighbour_elements <= MAX_ELEMENT_GROWTH * elements


def ratios(rounds, elements, shape, neighbour):
    """Per round, the shape's cost per element over the neighbour's. rounds: [{name:
    seconds}], elements: {name: elements}; a round without both gives nothing."""
    out = []
    for measured in rounds:
        if measured.get(shape) and measured.get(neighbour):
            out.append((measured[shape] / elements[shape])
                       / (measured[neighbour] / elements[neighbour]))
    return out


def confirmed(round_ratios, threshold=THRESHOLD, rounds=ROUNDS):
    """The cliff rule on the ratios of interleaved rounds: at least threshold in all but one
    of them, and at least `rounds - 1` rounds measured."""
    needed = max(1, rounds - 1)
    return sum(1 for r in round_ratios if r >= threshold) >= needed


def confirm(rounds, elements, shape, neighbours, threshold=THRESHOLD):
    """{neighbour: median ratio} of the neighbours against which `shape` is a confirmed
    cliff (comparable ones only)."""
    out = OrderedDict()
    for neighbour in neighbours:
        if not comparable(elements[shape], elements[neighbour]):
            continue
        found = ratios(rounds, elements, shape, neighbour)
        if confirmed(found, threshold, ROUNDS if len(rounds) >= ROUNDS else len(rounds)):
            out[neighbour] = statistics.median(found)
    return out
