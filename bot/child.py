"""One function of this package, run in a fresh Python process that dies with this one.

The server answers searches from threads; work that holds the interpreter for seconds
(analysing a day's papers, loading and saving what the lexicon learned from them) makes
every search running meanwhile wait. In a child it runs on the other core. A plain
subprocess (exec'd, so safe from the threaded server, and leaving no multiprocessing
helper behind) runs this very copy of the package: the call goes in on stdin and its
result comes back on stdout, pickled.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from bot.errors import ChildFailed

PARENT_PID_VARIABLE = "PAPERBOT_PARENT_PID"  # the child dies with this process, even one that died first
CHILD_TIMEOUT_S = 900.0
_CHILD = "from bot.child import _run_here; _run_here()"


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent: int | None = None) -> None:
    """In a forked worker: exit as soon as the process that forked it dies, however it dies.

    Linux: the kernel sends SIGKILL on the parent's death (prctl PR_SET_PDEATHSIG).
    Elsewhere: a thread that notices the parent change. Either way, a parent that died
    before this ran is noticed at once: `parent`, the pid the child was started by, for
    a child that ran imports first (by then its parent may already be gone).
    """
    parent = os.getppid() if parent is None else parent
    armed = False
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            armed = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if not armed:

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(1)

        threading.Thread(target=watch, name="die-with-parent", daemon=True).start()
    if os.getppid() != parent:
        os._exit(1)


def run_in_child(target: str, args: tuple, *, what: str, timeout: float | None = None):
    """Return `module:function`(*args) as run in a child process; `what` names the work in errors.

    Raises ChildFailed (or OSError if no child can be started), or TimeoutError after
    `timeout` seconds (not ChildFailed: doing the same work again here would only double
    the wait). `timeout` defaults to CHILD_TIMEOUT_S.
    """
    timeout = CHILD_TIMEOUT_S if timeout is None else timeout
    root = str(Path(__file__).resolve().parent.parent)
    # The child needs no secret: Slack's tokens and signing secret stay in this process.
    env = {name: value for name, value in os.environ.items() if not name.startswith("SLACK_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    env[PARENT_PID_VARIABLE] = str(os.getpid())
    payload = pickle.dumps((target, args), protocol=pickle.HIGHEST_PROTOCOL)
    try:
        done = subprocess.run(
            # -P: the working directory (maybe another checkout's bot/) is not on the path.
            [sys.executable, "-P", "-c", _CHILD],
            input=payload,
            capture_output=True,
            env=env,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise TimeoutError(f"the child process writing {what} had not finished after {timeout:.0f} s") from exc
    if done.returncode != 0:
        last = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["(nothing on stderr)"]
        how = f"killed by signal {-done.returncode}" if done.returncode < 0 else f"exit code {done.returncode}"
        raise ChildFailed(f"{how}: {last[0][:300]}")
    try:
        return pickle.loads(done.stdout)
    except Exception as exc:  # a child that printed something else, or was cut short
        raise ChildFailed(f"its answer could not be read: {exc!r}") from exc


def _run_here() -> None:
    """The child's side of run_in_child."""
    die_with_parent(int(os.environ.get(PARENT_PID_VARIABLE) or 0) or None)
    target, args = pickle.load(sys.stdin.buffer)
    module, name = target.split(":")
    result = getattr(importlib.import_module(module), name)(*args)
    sys.stdout.buffer.write(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
