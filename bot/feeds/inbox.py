"""The inbox folder: listing files dropped there are ingested on a schedule.

    inbox/name.txt            waiting
    inbox/done/name.txt       ingested (its good records are in the store)
    inbox/rejected/name.txt   nothing could be read (not UTF-8, binary, no feed line)
    inbox/rejected/name.txt.report.txt
                              why: one `file:line: reason` line per rejected record;
                              written for partly rejected files too (the file itself
                              then goes to done/)

Only regular files are read, and only the file itself: a symbolic link (to a file outside
the inbox, say) or a named pipe, socket or device is refused unread, moved to rejected/
as it is (the link, not what it points at) with a report saying why. Files are opened
with O_NOFOLLOW and checked again once open, so a file swapped for a link after the
scan looked is refused too. A report holds the file's name, counts and `file:line:
reason` lines, never the file's own text (the feed name on its first line included:
for a file that is not a listing, that line could be anything), and is readable by its
owner and group only.

A file still being written is left alone: files modified less than SETTLE seconds ago
wait for the next scan, and names ending in .part/.tmp/.partial or starting with a dot
are never picked up, so a writer that writes `x.txt.part` (or `.x.txt`) and renames it
when done is always safe. A crash after ingesting but before moving a file only means
it is ingested again next time, which changes nothing (papers merge by id and keep the
seq they were first stored with).
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from bot.clock import Clock, system_clock
from bot.corpus import Corpus
from bot.errors import IndexBusy
from bot.ingest.listing import listing_error
from bot.models import IngestReport

logger = logging.getLogger(__name__)

SETTLE_SECONDS = 5.0
PARTIAL_SUFFIXES = (".part", ".partial", ".tmp", ".crdownload", ".swp")
REPORT_SUFFIX = ".report.txt"
REPORT_MODE = 0o640  # the owner and the group that shares the inbox; not everyone


@dataclass
class InboxResult:
    """One file the scan handled: where it went, the report file if any, the ingest report."""

    name: str
    moved_to: Path
    report: IngestReport
    report_path: Path | None = None


def waiting_files(inbox: Path, *, now: datetime, settle_seconds: float = SETTLE_SECONDS) -> list[Path]:
    """Entries directly in `inbox` that are ready: settled, not hidden, not partial downloads.

    Symbolic links and other entries that are not regular files are among them (never
    followed: `lstat`), for `scan_inbox` to refuse; folders (done/, rejected/) are not.
    """
    if not inbox.is_dir():
        return []
    ready = []
    for path in sorted(inbox.iterdir()):
        if path.name.startswith(".") or path.name.lower().endswith(PARTIAL_SUFFIXES):
            continue
        try:
            info = path.lstat()
        except OSError:
            continue  # moved away by another scanner
        if stat.S_ISDIR(info.st_mode):
            continue
        if not stat.S_ISREG(info.st_mode) or now.timestamp() - info.st_mtime >= settle_seconds:
            ready.append(path)
    return ready


class NotRegularFile(OSError):
    """An inbox entry that is a symbolic link, pipe, socket or device: never read."""

    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def read_regular_file(path: Path) -> bytes:
    """The bytes of `path` if it is a regular file itself; NotRegularFile otherwise.

    O_NOFOLLOW refuses a link at open (ELOOP); O_NONBLOCK keeps a named pipe from
    blocking the open until a writer comes; fstat on what was opened settles it.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP or path.is_symlink():
            raise NotRegularFile("inbox.refused_symlink") from None
        raise
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise NotRegularFile("inbox.refused_special")
        return file.read()


def _refusal(path: Path) -> str | None:
    """Why `path` is not read (an i18n key), from lstat alone; None for a regular file."""
    mode = path.lstat().st_mode
    if stat.S_ISLNK(mode):
        return "inbox.refused_symlink"
    return None if stat.S_ISREG(mode) else "inbox.refused_special"


def format_report(report: IngestReport, name: str) -> str:
    """The report written beside a rejected file: a summary line, then file:line: reason.

    No text from the file: not even its feed line (see the module's docstring).
    """
    lines = [f"{name}: {report.new} new, {report.updated} updated, {report.unchanged} unchanged, {report.rejected} rejected"]
    for error in report.errors:
        where = f"{name}:{error.line}" if error.line else name
        lines.append(f"{where}: {error.reason}")
    return "\n".join(lines) + "\n"


def is_whole_file_rejected(report: IngestReport) -> bool:
    """Nothing in the file could be read (no feed): it goes to rejected/, not done/."""
    return not report.feed


def scan_inbox(
    corpus: Corpus,
    inbox: Path,
    *,
    clock: Clock = system_clock,
    settle_seconds: float = SETTLE_SECONDS,
    on_ingested: Callable[[list[InboxResult]], None] | None = None,
) -> list[InboxResult]:
    """Ingest every ready file in `inbox` (one transaction each), then file it away."""
    files = waiting_files(inbox, now=clock(), settle_seconds=settle_seconds)
    if not files:
        return []
    done, rejected = inbox / "done", inbox / "rejected"
    done.mkdir(parents=True, exist_ok=True)
    rejected.mkdir(parents=True, exist_ok=True)
    results = []
    for path in files:
        try:
            report = _ingest(corpus, path)
        except FileNotFoundError:
            continue  # another instance filed it first
        whole = is_whole_file_rejected(report)
        try:
            moved_to = _move(path, rejected if whole else done)
        except FileNotFoundError:
            continue
        report_path = None
        if report.errors:
            report_path = rejected / (moved_to.name + REPORT_SUFFIX)
            write_report(report_path, format_report(report, path.name))
        results.append(InboxResult(name=path.name, moved_to=moved_to, report=report, report_path=report_path))
        logger.info(
            "inbox: %s%s: %d new, %d updated, %d unchanged, %d rejected -> %s",
            path.name, f" [{report.feed}]" if report.feed else "", report.new, report.updated,
            report.unchanged, report.rejected, moved_to.parent.name,
        )  # fmt: skip
    if on_ingested and results:
        on_ingested(results)
    return results


def _ingest(corpus: Corpus, path: Path) -> IngestReport:
    """Read `path` if it is a regular file and ingest it; a refusal is a report of its own."""
    key = _refusal(path)
    if key is None:
        try:
            return corpus.ingest_bytes(str(path), read_regular_file(path))
        except NotRegularFile as refused:  # swapped for a link or a pipe since lstat
            key = refused.key
        except FileNotFoundError:
            raise
        except OSError as exc:
            error = listing_error(str(path), 0, "listing.file_unreadable", detail=exc.strerror or str(exc))
            return IngestReport(path=str(path), errors=[error])
    logger.warning("inbox: %s is not a regular file; refused unread", path.name)
    return IngestReport(path=str(path), errors=[listing_error(str(path), 0, key)])


def write_report(path: Path, text: str) -> None:
    """Write a report readable by its owner and group only, never through a link planted there."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, REPORT_MODE)
    except OSError as exc:
        logger.warning("inbox: cannot write the report %s: %s", path, exc)
        return
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        os.fchmod(file.fileno(), REPORT_MODE)  # a report already there keeps no wider mode
        file.write(text)


def _move(path: Path, folder: Path) -> Path:
    """Move `path` into `folder`, never over an existing file (name.1.txt, name.2.txt, ...)."""
    target = folder / path.name
    counter = 1
    while target.exists():
        target = folder / f"{path.stem}.{counter}{path.suffix}"
        counter += 1
    try:
        os.replace(path, target)  # atomic on one filesystem
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        shutil.move(str(path), str(target))
    return target


def scan_inbox_and_check_index(corpus: Corpus, inbox: Path, *, clock: Clock = system_clock) -> list[InboxResult]:
    """Scan the inbox, then bring the index in step with the store if it fell behind.

    The periodic scan doubles as the index's health check: an index left behind while
    another process held its lock, or damaged on disk, is caught up or rebuilt here.
    """
    results = scan_inbox(corpus, inbox, clock=clock)
    try:
        corpus.ensure_index()
    except IndexBusy as exc:
        logger.warning("%s; trying again at the next scan", exc)
    return results
