"""python -m mxbench: the command line (mxbench/cli.py)."""
import os
import signal
import sys


def _interrupted_while_starting(signum, frame):
    # Ctrl-C or SIGTERM during the imports below: nothing has run, so nothing to keep.
    sys.stderr.write("interrupted: while starting, before anything ran\n")
    sys.exit(130 if signum == signal.SIGINT else 143)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, _interrupted_while_starting)
    signal.signal(signal.SIGTERM, _interrupted_while_starting)
    from mxbench.cli import main
    code = main()
    # The command has finished and its exit code stands: a signal while the interpreter shuts
    # down (Python resets its own handlers to the default there) must not turn it into -2.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if code in (130, 143):
        # Under -m, Python turns any exit after a KeyboardInterrupt that passed through code
        # run by exec() of a string (namedtuple, dataclasses: CPython's run_eval_code_obj
        # flag) into a death by SIGINT, whatever the exit code: give the documented one.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)
