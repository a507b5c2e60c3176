"""`python -m bot store copy-to-postgres`: a SQLite store's data moves into PostgreSQL whole (issue 24).

Run as a user runs it, in a child process, against the session's real PostgreSQL.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from digest_support import QuietDirectory, RecordingPoster, ingest, listing_text

from bot.config import Settings
from bot.corpus import Corpus
from bot.library.readinglist import Library
from bot.services import build_services
from bot.store.feedback import FeedbackStore
from bot.store.installs import Installations

ROOT = Path(__file__).resolve().parents[1]


def run(args: list[str], data: Path, url: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "PAPERBOT_DATA_DIR": str(data), "PAPERBOT_SEEDS_DIR": str(data / "no-seeds")}
    env.pop("PAPERBOT_DATABASE_URL", None)
    if url:
        env["PAPERBOT_DATABASE_URL"] = url
    return subprocess.run([sys.executable, "-m", "bot", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_a_sqlite_store_is_copied_whole_and_searchable_and_an_occupied_target_is_refused(tmp_path, postgres_url):
    data = tmp_path / "data"
    corpus = Corpus.open(Settings(data_dir=data, seeds_dir=tmp_path / "no-seeds"))
    ingest(corpus, tmp_path, "a.txt", listing_text("Feed A（甲）", 0, 5, topic="Speculative Decoding"))
    paper = corpus.store.newest(1)[0]
    Library(corpus.store).save("U1", paper.id)
    FeedbackStore(corpus.store).vote("T1", "U1", paper.id, -1)
    Installations(corpus.store).save(None, "T1", {"bot_token": "xoxb-copied"}, installed_at="2026-12-01T00:00:00Z")
    subscriptions = build_services(corpus.settings, corpus, poster=RecordingPoster(), directory=QuietDirectory()).subscriptions
    sub, _ = subscriptions.save(
        team_id="", kind="channel", place_id="C1", user_id="U1", lang="zh", hour=9, minute=0, timezone="UTC"
    )
    corpus.close()

    done = run(["store", "copy-to-postgres"], data, postgres_url)
    assert done.returncode == 0, done.stderr
    assert "papers: 5 rows" in done.stdout and "unchanged" in done.stdout
    assert "secret" not in done.stdout + done.stderr  # the URL's password (tests use none) is never printed

    on_pg = Corpus.open(Settings(data_dir=tmp_path / "pg-data", seeds_dir=tmp_path / "no-seeds", database_url=postgres_url))
    try:
        count, rev = on_pg.store.state()
        assert count == 5 and Library(on_pg.store).saved_ids("U1") == {paper.id}
        assert FeedbackStore(on_pg.store).vote_of("T1", "U1", paper.id) == -1
        assert "xoxb-copied" in str(on_pg.store.read("SELECT * FROM slack_installations"))  # a room the CLI never opens
        services = build_services(on_pg.settings, on_pg, poster=RecordingPoster(), directory=QuietDirectory())
        (copied,) = services.subscriptions.all()
        assert (copied.id, copied.place_id, copied.lang) == (sub.id, "C1", "zh")
        later, _ = services.subscriptions.save(
            team_id="", kind="channel", place_id="C2", user_id="U1", lang="en", hour=9, minute=0, timezone="UTC"
        )
        assert later.id > sub.id  # the identity continues after the copied ids
        assert on_pg.search("speculative decoding").total == 5
        ingest(on_pg, tmp_path, "b.txt", listing_text("Feed B（乙）", 100, 1))  # ids continue after the copied ones
        assert on_pg.store.state()[0] == 6 and on_pg.store.state()[1] > rev
    finally:
        on_pg.close()

    again = run(["store", "copy-to-postgres"], data, postgres_url)
    assert again.returncode != 0 and "already holds data (" in again.stderr and "nothing was copied" in again.stderr
    assert "Traceback" not in again.stderr


def test_copy_needs_a_postgresql_url_and_says_so(tmp_path):
    done = run(["store", "copy-to-postgres"], tmp_path / "data")
    assert done.returncode != 0 and "set PAPERBOT_DATABASE_URL=postgresql://" in done.stderr
