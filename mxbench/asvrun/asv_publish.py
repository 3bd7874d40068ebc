"""`asv publish`, with each of git's answers about a commit range asked for once, and each
distinct series' steps detected once.

asv's regressions page asks git for the commits of every regression's range, one
`git rev-list` per regression and jump (3,003 on this history: 50 of asv publish's 85 s here,
each a fork of a large process), and most ranges are the same few pairs of neighbouring
releases. The ladder does not change while asv publishes, so the first answer for a range is
the answer: this runs asv's own command line with `Git.get_hashes_from_range` memoized.

asv's "Detecting steps" fits steps to every series of every graph, and graphs of several
machines, environments or parameters often hold the same series (21,491 of the history's
34,242): each distinct series (revision, value, weight: all that asv's detection reads) is
detected once here, and the graphs that share it share its steps (asv's pages only read them).

Nothing else is changed: the site is byte-identical to plain asv publish's
(tests/test_publish.py). Run by path with the tool venv's Python (it imports only
asv): site/publish.py does.
"""
import hashlib
import json
import sys

from asv import graph as asv_graph
from asv.__main__ import main
from asv.plugins.git import Git


def memoize_range_queries():
    asked = Git.get_hashes_from_range
    answers = {}

    def get_hashes_from_range(self, range_spec, *args, **kwargs):
        key = (self._path, range_spec, args, tuple(sorted(kwargs.items())))
        if key not in answers:
            answers[key] = asked(self, range_spec, *args, **kwargs)
        return list(answers[key])

    Git.get_hashes_from_range = get_hashes_from_range


def series_key(series):
    """The digest of one series as asv's step detection reads it: [(revision, value, weight)]
    (floats written exactly, as repr writes them)."""
    text = json.dumps(series, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class SharedSteps(object):
    """Graph.detect_steps with each distinct series detected once per publish."""

    def __init__(self):
        self.found = {}  # key: steps (or asv's pending answer), of this site's series
        self.counts = {"detected": 0, "repeated": 0}

    def install(self):
        shared = self

        def detect_steps(graph, pool=None):
            shared.detect_steps(graph, pool)
        asv_graph.Graph.detect_steps = detect_steps

    def detect_steps(self, graph, pool=None):
        # asv's Graph.detect_steps, each series looked up first
        if graph._steps is not None:
            return
        data = graph.get_data()
        if not data:
            graph._steps = [[]] * graph.n_series
            return
        if graph.scalar_series:
            items = [data]
        else:
            items = [[(v[0], v[1][j], v[2][j]) for v in data] for j in range(graph.n_series)]
        graph._steps = []
        for item in items:
            key = series_key(item)
            if key in self.found:
                self.counts["repeated"] += 1
            else:
                self.counts["detected"] += 1
                self.found[key] = (
                    asv_graph._compute_graph_steps(item, reraise=False) if pool is None
                    else pool.apply_async(asv_graph._compute_graph_steps, (item,)))
            graph._steps.append(self.found[key])

    def summary(self):
        return ("steps: %(detected)d series detected, %(repeated)d the same as another "
                "graph's" % self.counts)


def run(argv):
    """asv's main on `argv` (asv's own arguments): it exits with asv's code."""
    shared = SharedSteps()
    shared.install()
    memoize_range_queries()
    sys.argv = ["asv"] + argv
    try:
        main()  # asv's main exits, whatever happened
    except SystemExit as done:
        if done.code in (None, 0) and shared.counts["detected"]:
            print(shared.summary())
        raise


if __name__ == "__main__":
    run(sys.argv[1:])
