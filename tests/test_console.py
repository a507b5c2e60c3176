"""The offline console: `python -m bot serve` without Slack tokens, driven through stdin."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.console import answer_line, console_services, run_console

REPO = Path(__file__).resolve().parent.parent


def test_serve_without_tokens_runs_the_console_over_stdin(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    env.update(
        {"PAPERBOT_DATA_DIR": str(tmp_path / "data"), "PAPERBOT_SEEDS_DIR": str(REPO / "seeds"), "PYTHONIOENCODING": "utf-8"}
    )
    done = subprocess.run(
        [sys.executable, "-m", "bot", "serve"],
        input="/papers KV缓存\n/papers help\n",
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=REPO,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "SLACK_BOT_TOKEN" in out and "manifest.yml" in out and ".env" in out  # how to connect
    assert "ParisKV" in out and "KV缓存" in out  # Chinese query: Chinese first (the title matched: no quote)
    assert "[分享] [详情] [相似论文]" in out
    assert "/papers speculative decoding" in out  # help
    assert "Traceback" not in out + done.stderr


@pytest.fixture
def console(seed_corpus):
    def run(lines: str, user_id: str = "UCONSOLE_T") -> str:
        out = io.StringIO()
        assert run_console(seed_corpus, stdin=io.StringIO(lines), stdout=out, user_id=user_id) == 0
        return out.getvalue()

    return run


def test_console_prints_what_slack_would_show(console):
    out = console("/papers speculative decoding\n")
    assert "[only you can see this]" in out
    assert "papers for “speculative decoding”" in out
    assert "[Share] [Details] [More like this]" in out


def test_console_share_previews_what_would_be_posted(console):
    out = console("/papers share ParisKV\n")
    assert "[only you can see this]" in out and "Post this paper in" in out
    assert "@UCONSOLE_T shared this paper" in out and "[Post] [Cancel]" in out


def test_console_quit_and_hints(console):
    out = console("hello\n\n/paperslang\nquit\n/papers help\n")
    assert out.count("Start a line with /papers") == 2
    assert "/papers speculative decoding" not in out  # nothing runs after quit


def test_console_lang_is_remembered(console):
    out = console("/papers lang zh\n/papers speculative decoding\n", user_id="UCONSOLE_LANG")
    assert "共找到" in out


def test_answer_line_quit_words(seed_corpus):
    services = console_services(seed_corpus, io.StringIO())
    assert answer_line(services, "quit") is None
    assert answer_line(services, "EXIT") is None
    assert answer_line(services, "   ") == ""


def test_console_imports_no_slack_library():
    code = "import sys, bot.console; print(any(m.split('.')[0] in ('slack_sdk', 'slack_bolt') for m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=30)
    assert done.stdout.strip() == "False", done.stderr


def test_console_subscribes_previews_and_posts_digests_in_a_simulated_channel(tmp_path):
    from digest_support import ingest, listing_text, open_corpus

    corpus = open_corpus(tmp_path / "data")
    try:
        ingest(corpus, tmp_path, "old.txt", listing_text("ICML", 1, 3))
        out = io.StringIO()
        lines = "/papers subscribe weekly mon 9am tz:asia/shanghai top:3\npost digest\n"
        run_console(corpus, stdin=io.StringIO(lines), stdout=out, user_id="UCON")
        text = out.getvalue()
        assert (
            "[posted in the simulated channel #papers]\n📚 @UCON set up a weekly paper digest for this channel: every Monday at 09:00 (Asia/Shanghai)"
            in text
        )
        assert "Subscribed #papers to a weekly paper digest every Monday at *09:00* (Asia/Shanghai)" in text
        assert "that was the 3 newest papers" in text  # nothing new yet: the newest, shown as the digest would
        ingest(corpus, tmp_path, "new.txt", listing_text("ICML", 100, 12))
        out = io.StringIO()
        run_console(
            corpus,
            stdin=io.StringIO("/papers digest\npost digest\npost digest\n/papers unsubscribe\n"),
            stdout=out,
            user_id="UCON",
        )
        text = out.getvalue()
        assert "[only you can see this]\n👀 Preview of the next weekly paper digest · Mon " in text  # the next Monday
        assert "📚 Weekly paper digest · Mon " in text
        # posting uses nothing up
        assert text.count("*12* new papers · 3 highlights here (main-track papers first), 9 more in the thread 🧵") == 2
        assert "[posted in the simulated channel #papers] [in the thread of that message]" in text
        assert "@UCON stopped this channel's weekly paper digest" in text
    finally:
        corpus.close()
