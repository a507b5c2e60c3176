"""`python -m bot serve` as a deployed process: binds first, seeds itself, answers, stops on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from slack_helpers import BOT_TOKEN, SIGNING_SECRET, SlackSender

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def health(port: int) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_serve_binds_seeds_answers_and_stops_cleanly(tmp_path, fake_slack):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    env.update(
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SIGNING_SECRET,
        SLACK_API_BASE_URL=fake_slack.api_url,
        PORT=str(port),
        PAPERBOT_HOST="127.0.0.1",
        PAPERBOT_DATA_DIR=str(tmp_path / "data"),
        PAPERBOT_SEEDS_DIR=str(ROOT / "seeds"),
        # No network: arXiv enrichment fails in the background (and backs off) while the bot
        # starts, answers and stops as ever. Never the real arXiv from a test.
        PAPERBOT_ARXIV_API_URL="http://127.0.0.1:9/api/query",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "serve"], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        deadline = time.monotonic() + 60
        status = None
        while time.monotonic() < deadline:
            assert proc.poll() is None, proc.stdout.read()
            try:
                status, body = health(port)
            except (ConnectionError, urllib.error.URLError):
                time.sleep(0.05)
                continue
            if status == 200:
                break
            assert status == 503 and body["ok"] is False
            time.sleep(0.05)
        assert status == 200, "never became healthy"

        sender = SlackSender(f"http://127.0.0.1:{port}", fake_slack)
        code, answer = sender.command("推测解码")
        sender.close()
        assert code == 200
        assert "MineDraft: 批量并行推测解码框架" in json.dumps(answer, ensure_ascii=False)
        assert (tmp_path / "data" / "inbox").is_dir()  # the scheduler's inbox scan is set up
    finally:
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, output
    assert "first start: ingested 97 papers" in output
    assert "Traceback" not in output
    assert BOT_TOKEN not in output and SIGNING_SECRET not in output
