"""The inbox folder: good files to done/, reports for rejected records, bad files to rejected/."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime

import pytest
from digest_support import listing_text, open_corpus

from bot.feeds.inbox import scan_inbox


@pytest.fixture
def corpus(tmp_path):
    corpus = open_corpus(tmp_path / "data")
    yield corpus
    corpus.close()


def drop(inbox, name, data: bytes, *, age: float = 60.0):
    inbox.mkdir(parents=True, exist_ok=True)
    path = inbox / name
    path.write_bytes(data)
    past = time.time() - age
    os.utime(path, (past, past))
    return path


def now():
    return datetime.now(UTC)


BAD_RECORD = "A Title Without Summary\n中文标题\nSomeone\n\n"


def test_a_good_file_is_ingested_and_moved_to_done(corpus, tmp_path, caplog):
    inbox = tmp_path / "inbox"
    drop(inbox, "icml.txt", listing_text("ICML", 1, 4).encode())
    caplog.set_level("INFO", logger="bot.feeds.inbox")
    (result,) = scan_inbox(corpus, inbox, clock=now)
    assert (result.report.new, result.report.rejected, result.report_path) == (4, 0, None)
    assert (inbox / "done" / "icml.txt").exists() and not (inbox / "icml.txt").exists()
    assert not list((inbox / "rejected").iterdir())
    assert corpus.store.state()[0] == 4 and corpus.search("Study Number 3").total >= 1
    assert "icml.txt [ICML]: 4 new" in caplog.text
    assert scan_inbox(corpus, inbox, clock=now) == []  # nothing left


def test_rejected_records_leave_a_report_beside_the_file(corpus, tmp_path):
    inbox = tmp_path / "inbox"
    text = listing_text("ICML", 1, 2) + BAD_RECORD + listing_text("ICML", 3, 1).split("\n", 2)[2]
    drop(inbox, "mixed.txt", text.encode())
    (result,) = scan_inbox(corpus, inbox, clock=now)
    assert (result.report.new, result.report.rejected) == (3, 1)
    assert (inbox / "done" / "mixed.txt").exists()
    report = (inbox / "rejected" / "mixed.txt.report.txt").read_text(encoding="utf-8")
    line = next(n for n, x in enumerate(text.split("\n"), start=1) if x.startswith("A Title Without"))
    assert report.splitlines()[0].startswith("mixed.txt: 3 new")  # no text of the file: not even its feed line
    assert f"mixed.txt:{line}: record has no 'AI总结' line" in report


def test_a_file_that_is_not_utf8_goes_to_rejected_with_its_report(corpus, tmp_path):
    inbox = tmp_path / "inbox"
    drop(inbox, "gbk.txt", listing_text("会议", 1, 2).encode("gb18030"))
    (result,) = scan_inbox(corpus, inbox, clock=now)
    assert result.report.new == 0 and (inbox / "rejected" / "gbk.txt").exists()
    report = (inbox / "rejected" / "gbk.txt.report.txt").read_text(encoding="utf-8")
    assert "gbk.txt: the file is not UTF-8 text (it looks like GBK/GB18030" in report
    assert corpus.store.state()[0] == 0


def test_files_still_being_written_are_left_for_the_next_scan(corpus, tmp_path):
    inbox = tmp_path / "inbox"
    drop(inbox, "fresh.txt", listing_text("ICML", 1, 1).encode(), age=0)
    drop(inbox, "big.txt.part", listing_text("ICML", 5, 1).encode())
    drop(inbox, ".hidden.txt", listing_text("ICML", 9, 1).encode())
    assert scan_inbox(corpus, inbox, clock=now) == []
    assert sorted(p.name for p in inbox.iterdir() if p.is_file()) == [".hidden.txt", "big.txt.part", "fresh.txt"]
    os.rename(inbox / "big.txt.part", inbox / "big.txt")  # the writer's atomic rename
    os.utime(inbox / "fresh.txt", (time.time() - 10, time.time() - 10))
    assert sorted(r.name for r in scan_inbox(corpus, inbox, clock=now)) == ["big.txt", "fresh.txt"]


def test_a_second_file_with_the_same_name_does_not_overwrite_the_first(corpus, tmp_path):
    inbox = tmp_path / "inbox"
    drop(inbox, "daily.txt", listing_text("ICML", 1, 1).encode())
    scan_inbox(corpus, inbox, clock=now)
    drop(inbox, "daily.txt", listing_text("ICML", 2, 1).encode())
    scan_inbox(corpus, inbox, clock=now)
    assert sorted(p.name for p in (inbox / "done").iterdir()) == ["daily.1.txt", "daily.txt"]
    assert corpus.store.state()[0] == 2


def test_serve_scans_the_inbox_on_a_real_background_scheduler(corpus, tmp_path):
    """Production wiring: start_services runs APScheduler's thread; the first scan runs at start."""
    from bot.config import Settings
    from bot.services import start_services, stop_services
    from bot.slack.app import slack_services

    inbox = tmp_path / "inbox"
    drop(inbox, "icml.txt", listing_text("ICML", 1, 3).encode())
    settings = Settings(
        data_dir=tmp_path / "data", inbox_dir=inbox, slack_bot_token="xoxb-unused", slack_api_base_url="http://127.0.0.1:9/api"
    )
    services = slack_services(settings, corpus)
    start_services(services)
    try:
        jobs = {job.id for job in services.scheduler.scheduler.get_jobs()}
        assert {"inbox-scan", "digest-sync"} <= jobs
        deadline = time.monotonic() + 10
        while not (inbox / "done" / "icml.txt").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert (inbox / "done" / "icml.txt").exists() and corpus.store.state()[0] == 3
    finally:
        stop_services(services)
    assert not services.scheduler.scheduler.running


SECRET = "db_password=hunter2-very-secret"


def test_a_symlink_to_a_file_outside_the_inbox_is_refused_unread(corpus, tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    secret = tmp_path / "secret.txt"  # a listing-shaped secret: followed, it would be stored and searchable
    secret.write_text(SECRET + "\n\n" + listing_text("x", 1, 2).split("\n", 2)[2], encoding="utf-8")
    (inbox / "innocent.txt").symlink_to(secret)
    (result,) = scan_inbox(corpus, inbox, clock=now, settle_seconds=0)
    assert corpus.store.state()[0] == 0 and result.report.rejected == 1
    moved = inbox / "rejected" / "innocent.txt"
    assert moved.is_symlink() and secret.read_text(encoding="utf-8").startswith(SECRET)  # the link moved, the target untouched
    report = result.report_path.read_text(encoding="utf-8")
    assert "innocent.txt: refused unread: it is a symbolic link" in report and "hunter2" not in report


def test_a_named_pipe_is_refused_without_blocking_the_scan(corpus, tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    os.mkfifo(inbox / "pipe.txt")
    drop(inbox, "good.txt", listing_text("ICML", 1, 2).encode())
    results = {r.name: r for r in scan_inbox(corpus, inbox, clock=now, settle_seconds=0)}
    assert results["good.txt"].report.new == 2
    assert "pipe.txt: refused unread: it is not a regular file" in results["pipe.txt"].report_path.read_text(encoding="utf-8")


def test_a_file_swapped_for_a_link_after_the_scan_looked_is_not_read(tmp_path):
    from bot.feeds.inbox import NotRegularFile, read_regular_file

    (tmp_path / "secret.txt").write_text(SECRET, encoding="utf-8")
    (tmp_path / "late.txt").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(NotRegularFile):
        read_regular_file(tmp_path / "late.txt")


def test_reports_hold_no_file_text_and_are_not_world_readable(corpus, tmp_path):
    inbox = tmp_path / "inbox"
    drop(inbox, "notes.txt", (SECRET + "\n\nsome line\nanother line\n").encode())
    (tmp_path / "elsewhere.txt").write_text("keep me", encoding="utf-8")
    (inbox / "rejected").mkdir(parents=True)
    (inbox / "rejected" / "notes.txt.report.txt").symlink_to(tmp_path / "elsewhere.txt")  # planted
    (result,) = scan_inbox(corpus, inbox, clock=now)
    assert (tmp_path / "elsewhere.txt").read_text(encoding="utf-8") == "keep me"
    drop(inbox, "notes.txt", (SECRET + "\n\nsome line\nanother line\n").encode())
    (result,) = scan_inbox(corpus, inbox, clock=now)
    report = result.report_path.read_text(encoding="utf-8")
    assert result.report.rejected == 1 and "hunter2" not in report and "notes.1.txt" in str(result.report_path)
    assert oct(result.report_path.stat().st_mode & 0o777) == "0o640"
