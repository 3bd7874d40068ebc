"""The staging folder beside html_dir and the swap that replaces html_dir only by a complete site.

asv publish empties its html_dir first and may crash half-way, so a site is built in
<html_dir>.staging-<pid> and swapped in with two renames (html_dir -> <html_dir>.old-<pid>,
staging -> html_dir), with SIGINT/SIGTERM held meanwhile. A publish killed outright (SIGKILL)
leaves its folders behind: the next publish removes those whose process is gone
(remove_leftovers), and puts a site renamed aside back where html_dir is missing.
"""
import glob
import os
import re
import shutil
import signal
import tempfile
import threading

from mxbench.asvrun.runner import Interrupted
from mxbench.site import PublishError

INTERRUPTS = (KeyboardInterrupt, Interrupted)  # Ctrl-C; SIGTERM (mxbench.cli raises Interrupted)
WORK_PREFIX = "mxbench-publish-"  # + "<pid>-": the temporary folder of one publish


def side_paths(html_dir, pid=None):
    """(staging, old): this process's folders beside html_dir, in the same parent folder, so
    that the swap is two renames on one filesystem."""
    html_dir = os.path.normpath(os.path.abspath(html_dir))
    pid = os.getpid() if pid is None else pid
    return ("%s.staging-%d" % (html_dir, pid), "%s.old-%d" % (html_dir, pid))


def remove(path):
    """Delete a file or folder tree; a Ctrl-C or SIGTERM meanwhile does not stop it (the
    interruption is returned then, else None)."""
    interrupted = None
    while os.path.lexists(path):
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.remove(path)
        except INTERRUPTS as exc:
            interrupted = exc
    return interrupted


class _SignalsHeld(object):
    """Hold SIGINT/SIGTERM for a few renames, so that html_dir is never left renamed aside."""
    SIGNALS = {signal.SIGINT, signal.SIGTERM}

    def __enter__(self):
        self.previous = None
        if (hasattr(signal, "pthread_sigmask")
                and threading.current_thread() is threading.main_thread()):
            self.previous = signal.pthread_sigmask(signal.SIG_BLOCK, self.SIGNALS)
        return self

    def __exit__(self, *exc):
        if self.previous is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.previous)  # held signals land now
        return False


def swap_in(staging, html_dir, state=None):
    """Replace html_dir by the complete site in `staging`: rename html_dir aside, rename
    staging to html_dir, delete the old site. If the second rename fails the old site is
    renamed back. state["swapped"] becomes True once html_dir is the new site."""
    state = {} if state is None else state
    old = side_paths(html_dir)[1]
    with _SignalsHeld():
        if os.path.lexists(old):
            raise PublishError("%s exists (left by an earlier publish?): move it away first" % old)
        had_old = os.path.lexists(html_dir)
        if had_old:
            os.rename(html_dir, old)
        try:
            os.rename(staging, html_dir)
        except BaseException:
            if had_old:
                os.rename(old, html_dir)
            raise
        state["swapped"] = True
    if had_old:
        remove(old)


def _pid_alive(pid):
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def work_dir():
    """A new temporary folder of this process (its pid in the name, for remove_leftovers)."""
    return tempfile.mkdtemp(prefix="%s%d-" % (WORK_PREFIX, os.getpid()))


def remove_leftovers(html_dir, temp_dir=None):
    """Folders of publishes that were killed: <html_dir>.staging-<pid>, <html_dir>.old-<pid> and
    <tmp>/mxbench-publish-<pid>-* whose process is no longer running are removed. Where
    html_dir is missing and a dead publish's old site is there (killed between the swap's two
    renames), that site is put back instead. Returns the paths removed or restored."""
    html_dir = os.path.normpath(os.path.abspath(html_dir))
    found = []
    pattern = re.compile(r"^%s\.(staging|old)-(\d+)$" % re.escape(os.path.basename(html_dir)))
    parent = os.path.dirname(html_dir)
    for name in sorted(os.listdir(parent)) if os.path.isdir(parent) else ():
        match = pattern.match(name)
        if not match or _pid_alive(int(match.group(2))):
            continue
        path = os.path.join(parent, name)
        if match.group(1) == "old" and not os.path.lexists(html_dir):
            os.rename(path, html_dir)
        else:
            remove(path)
        found.append(path)
    temp_dir = temp_dir or tempfile.gettempdir()
    for path in sorted(glob.glob(os.path.join(temp_dir, WORK_PREFIX + "*"))):
        match = re.match(r"^(\d+)-", os.path.basename(path)[len(WORK_PREFIX):])
        if match and not _pid_alive(int(match.group(1))):
            remove(path)
            found.append(path)
    return found
