"""`asv publish`, with each of git's answers about a commit range asked for once, and each
series' steps detected once.

asv's regressions page asks git for the commits of every regression's range, one
`git rev-list` per regression and jump (3,003 on this history: 50 of asv publish's 85 s here,
each a fork of a large process), and most ranges are the same few pairs of neighbouring
releases. The ladder does not change while asv publishes, so the first answer for a range is
the answer: this runs asv's own command line with `Git.get_hashes_from_range` memoized.

asv's "Detecting steps" fits steps to every series of every graph (about 40 % of a publish of
the history's 17,000 graphs), anew at each publish, though a series that gained no point has
the same steps as before. With `--kept-steps FILE` first, a series whose points (revision,
value, weight: all that asv's detection reads) were seen before takes the steps kept for them
in FILE; the others are detected by asv as always (once each: graphs of several machines or
environments often hold the same series), and FILE is rewritten with this site's series once
asv publish succeeds. The file names the asv version that detected them (another
version's are not used).

Nothing else is changed: the site is byte-identical to plain asv publish's, with or without
kept steps (tests/test_publish.py). Run by path with the tool venv's Python (it imports only
asv): site/publish.py does.
"""
import hashlib
import json
import os
import sys

import asv
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


def read_kept_steps(path):
    """{series key: steps} from `path`, {} when there is none, it cannot be read, or another
    asv version wrote it."""
    try:
        with open(path, encoding="utf-8") as fh:
            kept = json.load(fh)
    except (OSError, ValueError):
        return {}
    if not isinstance(kept, dict) or kept.get("asv") != asv.__version__:
        return {}
    steps = kept.get("steps")
    return steps if isinstance(steps, dict) else {}


class KeptSteps(object):
    """Graph.detect_steps answered from the kept steps of each series seen before, and once
    per distinct series in a publish (graphs of several machines or environments often hold
    the same series)."""

    def __init__(self, path):
        self.path, self.kept = path, read_kept_steps(path)
        self.found = {}  # key: steps (or asv's pending answer), of this site's series
        self.counts = {"kept": 0, "detected": 0, "repeated": 0}

    def install(self):
        keeper = self

        def detect_steps(graph, pool=None):
            keeper.detect_steps(graph, pool)
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
            elif key in self.kept:
                self.counts["kept"] += 1
                self.found[key] = [tuple(step) for step in self.kept[key]]
            else:
                self.counts["detected"] += 1
                self.found[key] = (
                    asv_graph._compute_graph_steps(item, reraise=False) if pool is None
                    else pool.apply_async(asv_graph._compute_graph_steps, (item,)))
            graph._steps.append(self.found[key])  # asv's pages only read them

    def save(self):
        steps = {}
        for key, found in self.found.items():
            if not isinstance(found, list):  # asv's answer, waited for by asv publish
                if not found.ready():
                    continue
                found = found.get()
            steps[key] = found
        tmp = "%s.tmp-%d" % (self.path, os.getpid())
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump({"asv": asv.__version__, "steps": steps}, fh, separators=(",", ":"))
        os.replace(tmp, self.path)
        print("steps: %(kept)d series kept, %(detected)d detected, %(repeated)d the same as "
              "another graph's" % self.counts + " (%s)" % self.path)


def run(argv):
    """asv's main on `argv` ([--kept-steps FILE] then asv's own arguments): it exits with
    asv's code; the steps are kept when that is 0."""
    keeper = None
    if argv[:1] == ["--kept-steps"]:
        keeper, argv = KeptSteps(os.path.abspath(argv[1])), argv[2:]  # asv changes folder
        keeper.install()
    memoize_range_queries()
    sys.argv = ["asv"] + argv
    try:
        main()  # asv's main exits, whatever happened
    except SystemExit as done:
        if keeper is not None and done.code in (None, 0):
            keeper.save()
        raise


if __name__ == "__main__":
    run(sys.argv[1:])
