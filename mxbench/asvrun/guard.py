"""Children that live and die with the command: asv, the search child, asv publish (issue 44).

A `kill -9` of mxbench used to leave asv running: reparented, it went on benchmarking in the
shared environment after the recording locks had died with mxbench. So mxbench starts such a
child through a guard, a small process (this file, run as a script) between the two that

- sees mxbench end however it ends: it holds the read end of a pipe that only mxbench can
  write to, which reaches end-of-file when mxbench dies (SIGKILL included);
- is the child subreaper (PR_SET_CHILD_SUBREAPER): asv's forkserver and benchmark processes
  put themselves into process groups of their own (asv.util.check_output calls setpgid), so
  no group signal reaches them; when asv dies they become the guard's children, not init's,
  and the guard finds every one of them under itself in /proc and kills it;
- holds the recording locks (their descriptors are passed to it): a lock lives until every
  process that may write under it has ended;
- sits in a process group of its own, so that `kill -9` of mxbench's whole group (a CI job, a
  test) leaves it alive to clean up; the child joins mxbench's group, so a Ctrl-C at the
  terminal reaches it as before, and it gets SIGKILL if the guard itself dies.

To mxbench the guard is the child (Guarded, a subprocess.Popen): its exit status is the
child's, send_signal(SIGINT) reaches the child (the guard passes it on), and kill() or
terminate() end the child and everything it started. Linux only (/proc, prctl); elsewhere the
guard only passes the child's status on.
"""
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PASS_ON = signal.SIGUSR1  # mxbench's "SIGINT to the child"
END_ALL = signal.SIGTERM  # mxbench's "end the child and all it started"
END_ALL_WAIT = 60  # seconds the guard waits for killed processes to be gone (D state)


# --- mxbench's side ----------------------------------------------------------------------------
class Guarded(subprocess.Popen):
    """subprocess.Popen(args, **kwargs) through a guard; `hold`: descriptors (lock files) the
    guard keeps open until the child and all it started have ended."""

    def __init__(self, args, hold=(), **kwargs):
        life, self._life = os.pipe()  # neither end is inherited but through pass_fds
        guard = [sys.executable, "-I", os.path.abspath(__file__), str(life),
                 str(os.getpgrp()), "--"] + list(args)
        passed = tuple(kwargs.pop("pass_fds", ())) + (life,) + tuple(hold)
        try:
            subprocess.Popen.__init__(self, guard, pass_fds=passed, **kwargs)
        except BaseException:
            os.close(self._life)
            raise
        finally:
            os.close(life)

    def send_signal(self, sig):
        mapped = {signal.SIGINT: PASS_ON, signal.SIGKILL: END_ALL}.get(sig, sig)
        subprocess.Popen.send_signal(self, mapped)

    def kill(self):
        self.send_signal(END_ALL)

    def wait(self, timeout=None):
        code = subprocess.Popen.wait(self, timeout=timeout)
        self._close_life()
        return code

    def poll(self):
        code = subprocess.Popen.poll(self)
        if code is not None:
            self._close_life()
        return code

    def _close_life(self):
        if self._life is not None:
            os.close(self._life)
            self._life = None


def run(args, timeout=None, **kwargs):
    """subprocess.run(args, timeout=...) through a guard (no output captured): the child and
    all it started end on a timeout or an exception, and with mxbench."""
    with Guarded(args, **kwargs) as proc:
        try:
            code = proc.wait(timeout=timeout)
        except BaseException as exc:
            proc.kill()
            proc.wait()
            if isinstance(exc, subprocess.TimeoutExpired):
                raise subprocess.TimeoutExpired(args, timeout)  # the child's, not the guard's
            raise
    return subprocess.CompletedProcess(args, code)


# --- the guard ---------------------------------------------------------------------------------
def _prctl(option, value):
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def descendants(root):
    """The live (not zombie) processes under `root` in /proc (a zombie's children are walked:
    a scan can see them before they are reparented)."""
    parent, dead = {}, set()
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 1:
            parent[int(name)] = int(fields[1])
            if fields[0] in (b"Z", b"X"):
                dead.add(int(name))
    found, frontier = [], [root]
    while frontier:
        frontier = [pid for pid, ppid in parent.items() if ppid in frontier]
        found += frontier
    return [pid for pid in found if pid not in dead]


class Guard(object):
    def __init__(self, group):
        self.group = group
        self.pid = os.getpid()
        self.child = None
        self.ending = threading.RLock()  # a signal's end_all may come amid another

    def start(self, cmd):
        child = os.fork()
        if child == 0:
            self._exec(cmd)
        self.child = child

    def _exec(self, cmd):
        try:
            _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != self.pid:  # the guard died already
                os._exit(1)
            try:
                os.setpgid(0, self.group)  # mxbench's group: a Ctrl-C at its terminal
            except OSError:
                pass
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, PASS_ON, signal.SIGPIPE,
                        signal.SIGXFSZ):
                signal.signal(sig, signal.SIG_DFL)  # Python ignores SIGPIPE; exec keeps that
            os.closerange(3, 65536)  # the life pipe and the locks stay with the guard
            os.execvp(cmd[0], cmd)
        except BaseException as exc:
            try:
                os.write(2, ("mxbench guard: cannot start %s: %s\n" % (cmd[0], exc)).encode())
            finally:
                os._exit(127)

    def end_all(self):
        """SIGKILL every process under the guard until the guard has no child left: as the
        subreaper it inherits every orphaned descendant, so no child means no descendant
        (a scan of /proc alone can miss a process being reparented; a process may fork
        between two scans, but not once killed)."""
        with self.ending:
            if self.child:
                try:  # without /proc (not Linux), at least the child
                    os.kill(self.child, signal.SIGKILL)
                except OSError:
                    pass
            deadline = time.time() + END_ALL_WAIT
            while time.time() < deadline:
                for pid in descendants(self.pid):
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                if self.reap():
                    return
                time.sleep(0.005)

    def reap(self):
        """Reap the children that have ended; True when the guard has none left."""
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return True
            if pid == 0:
                return False
            if pid == self.child:
                self.child = None  # its pid may be reused from now on: never signalled again

    def watch(self, life):
        """mxbench is gone when its end of the pipe closes: everything ends."""
        while True:
            try:
                if not os.read(life, 1):
                    break
            except InterruptedError:
                continue
            except OSError:
                break
        self.end_all()
        os._exit(128 + signal.SIGKILL)

    def wait(self):
        """The child's wait status; orphans reparented here are reaped meanwhile."""
        while True:
            try:
                pid, status = os.waitpid(-1, 0)
            except ChildProcessError:
                return 0
            if pid == self.child:
                self.child = None
                return status


def exit_like(status):
    """End the guard as the child ended: its exit code, or death by its signal."""
    if os.WIFSIGNALED(status):
        die_by(os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def die_by(sig):
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the child's crash, not ours
        signal.signal(sig, signal.SIG_DFL)
    except (ImportError, ValueError, OSError):
        pass  # SIGKILL has no handler to reset
    os.kill(os.getpid(), sig)
    os._exit(128 + sig)


def main(argv):
    life, group, cmd = int(argv[0]), int(argv[1]), argv[3:]
    guard = Guard(group)

    def end(signum, frame):
        guard.end_all()
        # mxbench's kill(): the guard's status is that of a killed child, as Popen's is
        die_by(signal.SIGKILL if signum == END_ALL else signum)

    def pass_on(signum, frame):
        if guard.child:
            try:
                os.kill(guard.child, signal.SIGINT)
            except OSError:
                pass

    # first: a signal from mxbench must never find the default action (SIGUSR1's kills)
    signal.signal(PASS_ON, pass_on)
    signal.signal(signal.SIGINT, lambda signum, frame: None)  # the child gets its own
    for sig in (END_ALL, signal.SIGHUP):
        signal.signal(sig, end)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    try:
        os.setpgid(0, 0)  # out of mxbench's group: a kill of that group leaves the guard
    except OSError:
        pass
    guard.start(cmd)
    threading.Thread(target=guard.watch, args=(life,), daemon=True).start()
    status = guard.wait()
    guard.end_all()  # what the child left behind ends with it
    exit_like(status)


if __name__ == "__main__":
    main(sys.argv[1:])
