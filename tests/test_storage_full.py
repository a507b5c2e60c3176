"""Failures someone hears about: a full disk and a bad upload, over real HTTP with the fake Slack.

The full disk is real: the data folder sits on a small tmpfs that the test fills up, so
SQLite itself answers "database or disk is full" (root only: mounting needs it).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from digest_support import listing_text
from fake_slack import FilesFakeSlack
from slack_helpers import all_text
from trust_support import Bot, file_share

ADMIN, ADMIN_ZH = "U_FULL_ADMIN", "U_FULL_ADMIN_ZH"


@pytest.fixture(scope="module")
def fake():
    fake = FilesFakeSlack().start()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def small_disk(tmp_path_factory):
    folder = tmp_path_factory.mktemp("small-disk")
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a small tmpfs")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(folder)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], check=True)


def fill(folder: Path) -> Path:
    """Write a file until the file system refuses another byte."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as out:
        for chunk in (1 << 20, 1 << 12, 1):
            try:
                while True:
                    out.write(b"\0" * chunk)
            except OSError:
                continue
    return filler


@pytest.fixture(scope="module")
def full(small_disk, fake):
    """paperbot on a disk with no space left; its admins and their languages set before."""
    bot = Bot(small_disk / "data", fake, admins={ADMIN, ADMIN_ZH})
    bot.corpus.set_user_lang(ADMIN_ZH, "zh", "T0001")  # the workspace the requests below come from
    bot.corpus.store.read("PRAGMA wal_checkpoint(TRUNCATE)")  # every later write must grow the WAL
    filler = fill(small_disk)
    yield bot
    filler.unlink()
    bot.stop()


def admin_dms(fake) -> list:
    return [c for c in fake.calls_to("chat.postMessage") if c.args["channel"] in (f"D{ADMIN}", f"D{ADMIN_ZH}")]


def test_a_full_disk_is_named_and_the_admins_are_told_once(full, fake):
    fake.reset()
    status, body = full.sender.command("lang zh", user_id="U_FULL_1")
    assert status == 200
    assert "storage is full" in body["text"] and "An admin has been told" in body["text"]
    fake.wait_for("chat.postMessage", 2)
    told = {c.args["channel"]: c.args["text"] for c in admin_dms(fake)}
    assert set(told) == {f"D{ADMIN}", f"D{ADMIN_ZH}"}
    assert "paperbot's storage is full" in told[f"D{ADMIN}"] and "PAPERBOT_DATA_DIR" in told[f"D{ADMIN}"]
    assert "存储空间已满" in told[f"D{ADMIN_ZH}"]  # each admin in their own language
    assert str(full.settings.data_dir.absolute()) in told[f"D{ADMIN}"]

    _, body = full.sender.command("订阅", user_id="U_FULL_2", channel_id="C_FULL")
    assert "存储空间已满" in body["text"] and "已通知管理员" in body["text"]
    _, body = full.sender.command("subscribe daily 08:00", user_id="U_FULL_3", channel_id="C_FULL_2")
    assert "storage is full" in body["text"]
    time.sleep(0.3)
    assert len(admin_dms(fake)) == 2  # told once, not per request
    assert full.corpus.get_user_lang("U_FULL_1") is None  # and nothing half-written


def test_save_on_a_full_disk_says_the_storage_is_full(full, fake):
    fake.reset()
    paper = full.corpus.newest(1)[0]
    status, _ = full.sender.click("paper_save", json.dumps({"id": paper.id, "l": "en", "m": "search", "q": "x"}),
                                  user_id="U_FULL_SAVE", response_url=fake.response_url("save"))  # fmt: skip
    assert status == 200
    (answer,) = fake.wait_for("response")
    assert "storage is full" in answer.args["text"]
    assert full.services.library.saved_ids("U_FULL_SAVE") == set()


def test_the_home_language_picker_on_a_full_disk_says_so_in_a_dm(full, fake):
    fake.reset()
    status, _ = full.sender.click("home_lang", {"value": "zh", "text": {"type": "plain_text", "text": "中文"}},
                                  user_id="U_FULL_HOME", container="home")  # fmt: skip
    assert status == 200
    (published,) = fake.wait_for("views.publish")
    note = next(c for c in fake.wait_for("chat.postMessage") if c.args["channel"] == "DU_FULL_HOME")
    assert "抱歉，无法保存：服务器存储空间已满" in note.args["text"]
    assert "Show papers in" in json.dumps(published.args["view"])  # Home stays in the language actually saved
    assert full.corpus.get_user_lang("U_FULL_HOME") is None


def test_an_admins_upload_on_a_full_disk_says_so_and_that_nothing_was_lost(full, fake):
    fake.reset()
    before = full.corpus.store.state()
    url = fake.file_url("full.txt", listing_text("Full Disk（满）", 9500, 3).encode())
    full.sender.event(file_share(ADMIN_ZH, "full.txt", url))
    reply = next(c for c in fake.wait_for("chat.postMessage") if c.args["channel"] == f"D{ADMIN_ZH}")
    assert "无法添加 `full.txt`：服务器存储空间已满" in reply.args["text"]
    assert "没有任何数据丢失" in reply.args["text"]
    assert full.corpus.store.state() == before


@pytest.fixture(scope="module")
def roomy(tmp_path_factory, fake):
    bot = Bot(tmp_path_factory.mktemp("roomy") / "data", fake, admins={ADMIN})
    yield bot
    bot.stop()


@pytest.mark.parametrize(
    "url, expected",
    [
        ("http://[::1/files/x.txt", "I couldn't download `odd.txt` from Slack (Slack gave me no download link I can use)"),
        ("https://files.slack.com:99999/files/x.txt", "I couldn't download `odd.txt` from Slack"),
    ],
)
def test_an_upload_with_an_unexpected_url_is_answered_and_loses_nothing(roomy, fake, url, expected):
    fake.reset()
    before = roomy.corpus.store.state()
    roomy.sender.event(file_share(ADMIN, "odd.txt", url))
    (reply,) = fake.wait_for("chat.postMessage")
    assert expected in reply.args["text"]
    assert "Nothing was lost: every paper already in the library is still there." in reply.args["text"]
    assert "Traceback" not in all_text(reply.args.get("blocks") or []) and roomy.corpus.store.state() == before
