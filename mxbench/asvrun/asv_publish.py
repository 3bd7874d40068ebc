"""`asv publish`, with each of git's answers about a commit range asked for once.

asv's regressions page asks git for the commits of every regression's range, one
`git rev-list` per regression and jump (3,003 on this history: 50 of asv publish's 85 s here,
each a fork of a large process), and most ranges are the same few pairs of neighbouring
releases. The ladder does not change while asv publishes, so the first answer for a range is
the answer: this runs asv's own command line with `Git.get_hashes_from_range` memoized and
nothing else changed (the site is byte-identical: tests/test_publish.py).

Run by path with the tool venv's Python (it imports only asv): site/publish.py does.
"""
import sys

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


if __name__ == "__main__":
    memoize_range_queries()
    sys.argv[0] = "asv"
    sys.exit(main())
