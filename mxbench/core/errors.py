"""The one error a user can cause, and the exit codes every command uses.

A command raises UserError (or a subclass: results.ResultFileError, results.ResultsProblem,
site.PublishError; below mxbench the matrix's MatrixError and the catalogue data files'
CliffsFileError and CrashDataError) with a message of one line; the command line catches
this one class, prints its message() as `error: ...` and exits with its exit_code (USAGE).
It is defined with ROOT in benchmarks/__init__.py, the layer every other imports. Nothing a
user can cause ends in a traceback.
"""
from benchmarks import UserError  # noqa: F401  (the one base: mxbench's errors derive from it)

OK = 0
FAILED = 1        # the command ran and its answer is "no" (a regression, a failed point)
USAGE = 2         # bad input, unusable results, no verdict: nothing was answered
NO_BUILD = 3      # matrix resolve: the release has no build of the flavor there
INTERRUPTED = 130  # Ctrl-C (SIGINT); SIGTERM: 143
TERMINATED = 143


def one_line(exc):
    """An exception's message on one line, whatever it holds."""
    return " ".join(str(exc).split())
