"""Who holds the index's write lock, and what to do when they are gone.

Whoosh's write lock is an flock() on a file in the index folder. The kernel drops it
when every process holding that open file exits, so a crashed writer frees it by
itself, unless it forked workers that inherited the file and outlived it: then the
lock is held for good by processes nobody waits for. Two defences, both here:

- workers die with the process that forked them (`die_with_parent`) and close their
  copy of the lock file, so they never hold it;
- the writer leaves a holder record beside the lock (`HolderRecord`: its pid and its
  workers' pids) and removes it when it is done. A record whose writer is no longer
  running means the last writer was killed: the next writer says so in the log, and
  if workers of that dead writer still hold the lock (left by a paperbot without the
  first defence) they are stopped, after checking in /proc that they hold that very
  file, so a recycled pid is never touched.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import time
from pathlib import Path

logger = logging.getLogger(__name__)


def is_running(pid: int) -> bool:
    """True if a process with this pid exists (it may be another user's)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def holds_file(pid: int, path: Path) -> bool | None:
    """True if process `pid` has `path` open (Linux /proc); None where that can't be told."""
    fd_dir = Path(f"/proc/{pid}/fd")
    if not Path("/proc/self/fd").is_dir():
        return None
    target = os.path.realpath(path)
    try:
        for fd in fd_dir.iterdir():
            try:
                if os.readlink(fd) == target:
                    return True
            except OSError:
                continue
    except OSError:
        return False
    return False


class HolderRecord:
    """`<index>/writer.pid`: the pid of the process holding the write lock and of its workers.

    Whoosh only deletes files named like its own segments and TOCs, so it leaves this alone.
    """

    NAME = "writer.pid"

    def __init__(self, folder: Path, lock_file: Path):
        self.path = Path(folder) / self.NAME
        self.lock_file = Path(lock_file)
        self.workers: list[int] = []

    def read(self) -> dict | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return {"pid": int(data["pid"]), "workers": [int(w) for w in data.get("workers", [])]}
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def take(self) -> None:
        """Called with the lock just acquired: log a holder that died with it, then record us."""
        left = self.read()
        if left and left["pid"] != os.getpid() and not is_running(left["pid"]):
            logger.warning(
                "the index's write lock at %s was last held by process %d, which stopped without releasing it "
                "(killed mid-write?); the lock is free again and its record is cleared",
                self.lock_file, left["pid"],
            )  # fmt: skip
        self.workers = []
        self._write()

    def add_worker(self, pid: int | None) -> None:
        if pid:
            self.workers.append(pid)
            self._write()

    def release(self) -> None:
        """Remove our record: only ours, since the commit that freed the lock may already
        have let another process's writer take it and write its own."""
        left = self.read()
        if left is not None and left["pid"] != os.getpid():
            return
        with contextlib.suppress(OSError):
            self.path.unlink()

    def reclaim(self, wait: float = 5.0) -> bool:
        """The lock is busy: if its holder is gone and only its workers hold it, stop them.

        Returns True when the lock should now be free (try again), False when a live
        writer, or a process we cannot identify, holds it.
        """
        left = self.read()
        if not left or is_running(left["pid"]):
            return False
        alive = [w for w in left["workers"] if is_running(w)]
        known = [w for w in alive if holds_file(w, self.lock_file)]
        if not known:
            if alive and holds_file(alive[0], self.lock_file) is None:
                logger.warning(
                    "the index's write lock at %s may be held by processes %s, left by writer %d which is gone; "
                    "stop them to free it", self.lock_file, ", ".join(map(str, alive)), left["pid"],
                )  # fmt: skip
            return False
        logger.warning(
            "the index's write lock at %s was held by worker processes %s of writer %d, which is gone; stopping them",
            self.lock_file, ", ".join(map(str, known)), left["pid"],
        )  # fmt: skip
        for pid in known:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + wait
        while any(holds_file(pid, self.lock_file) for pid in known) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.release()
        return True

    def _write(self) -> None:
        data = json.dumps({"pid": os.getpid(), "workers": self.workers})
        tmp = self.path.with_name(f".{self.NAME}.{os.getpid()}")
        try:
            tmp.write_text(data, encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:  # a record is a courtesy: never fail a write over it
            logger.debug("could not write %s: %s", self.path, exc)
