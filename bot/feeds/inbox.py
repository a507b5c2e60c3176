"""The inbox folder: listing files dropped there are ingested on a schedule.

    inbox/name.txt            waiting
    inbox/done/name.txt       ingested (its good records are in the store)
    inbox/rejected/name.txt   nothing could be read (not UTF-8, binary, no feed line)
    inbox/rejected/name.txt.report.txt
                              why: one `file:line: reason` line per rejected record;
                              written for partly rejected files too (the file itself
                              then goes to done/)

A file still being written is left alone: files modified less than SETTLE seconds ago
wait for the next scan, and names ending in .part/.tmp/.partial or starting with a dot
are never picked up, so a writer that writes `x.txt.part` (or `.x.txt`) and renames it
when done is always safe. A crash after ingesting but before moving a file only means
it is ingested again next time, which changes nothing (papers merge by id and keep the
seq they were first stored with).
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from bot.clock import Clock, system_clock
from bot.corpus import Corpus
from bot.errors import IndexBusy
from bot.models import IngestReport

logger = logging.getLogger(__name__)

SETTLE_SECONDS = 5.0
PARTIAL_SUFFIXES = (".part", ".partial", ".tmp", ".crdownload", ".swp")
REPORT_SUFFIX = ".report.txt"


@dataclass
class InboxResult:
    """One file the scan handled: where it went, the report file if any, the ingest report."""

    name: str
    moved_to: Path
    report: IngestReport
    report_path: Path | None = None


def waiting_files(inbox: Path, *, now: datetime, settle_seconds: float = SETTLE_SECONDS) -> list[Path]:
    """Files directly in `inbox` that are ready: settled, not hidden, not partial downloads."""
    if not inbox.is_dir():
        return []
    ready = []
    for path in sorted(inbox.iterdir()):
        if not path.is_file() or path.name.startswith(".") or path.name.lower().endswith(PARTIAL_SUFFIXES):
            continue
        try:
            age = now.timestamp() - path.stat().st_mtime
        except OSError:
            continue  # moved away by another scanner
        if age >= settle_seconds:
            ready.append(path)
    return ready


def format_report(report: IngestReport, name: str) -> str:
    """The report written beside a rejected file: a summary line, then file:line: reason."""
    feed = f" [{report.feed}]" if report.feed else ""
    lines = [
        f"{name}{feed}: {report.new} new, {report.updated} updated, {report.unchanged} unchanged, {report.rejected} rejected"
    ]
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
    reports = corpus.ingest_paths(files)
    results = []
    for path, report in zip(files, reports, strict=True):
        whole = is_whole_file_rejected(report)
        try:
            moved_to = _move(path, rejected if whole else done)
        except FileNotFoundError:
            continue  # another instance filed it first
        report_path = None
        if report.errors:
            report_path = rejected / (moved_to.name + REPORT_SUFFIX)
            report_path.write_text(format_report(report, path.name), encoding="utf-8")
        results.append(InboxResult(name=path.name, moved_to=moved_to, report=report, report_path=report_path))
        logger.info(
            "inbox: %s%s: %d new, %d updated, %d unchanged, %d rejected -> %s",
            path.name, f" [{report.feed}]" if report.feed else "", report.new, report.updated,
            report.unchanged, report.rejected, moved_to.parent.name,
        )  # fmt: skip
    if on_ingested and results:
        on_ingested(results)
    return results


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
