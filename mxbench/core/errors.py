"""The one error a user can cause, and the exit codes every command uses.

A command raises UserError (or a subclass: results.ResultFileError, results.ResultsProblem,
site.PublishError) with a message of one line; the command line prints it as `error: ...`
and exits with its exit_code (USAGE). The layers below mxbench raise their own (the matrix's
MatrixError, the catalogue's data file errors): cli.USER_ERRORS names them all. Nothing a
user can cause ends in a traceback.
"""
OK = 0
FAILED = 1        # the command ran and its answer is "no" (a regression, a failed point)
USAGE = 2         # bad input, unusable results, no verdict: nothing was answered
NO_BUILD = 3      # matrix resolve: the release has no build of the flavor there
INTERRUPTED = 130  # Ctrl-C (SIGINT); SIGTERM: 143
TERMINATED = 143


class UserError(Exception):
    """Something the user can fix: bad input, a missing file, results that cannot be used."""

    exit_code = USAGE


def one_line(exc):
    """An exception's message on one line, whatever it holds."""
    return " ".join(str(exc).split())
