"""The benchmark side: asv's benchmarks, the catalogue and the harness they share (Python 3.7+,
numpy + mxnet only). ROOT, the repository's root, is computed here and only here, and so is
UserError, the one base of every error a user can cause: the benchmark side imports nothing
outside it, and the host tools (mxbench) and env_matrix import both from here."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class UserError(Exception):
    """Something the user can fix (bad input, a missing or unreadable file, results that cannot
    be used), said in one line: `python -m mxbench` prints message() as `error: ...` and exits
    with exit_code (2). The matrix's, the catalogue data files' and mxbench's own errors derive
    from it, so the command line catches this one class."""

    exit_code = 2

    def message(self):
        return " ".join(str(self).split())
