"""`python -m bot serve` in Socket Mode: connects with the app token, answers envelopes, stops on SIGTERM.

The real process and slack_sdk's builtin Socket Mode client; Slack is tests/fake_slack.py
(apps.connections.open, auth.test) and tests/fake_socket_mode.py (the WebSocket).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from fake_socket_mode import FakeSocketMode, slash_command_envelope
from slack_helpers import BOT_TOKEN, all_text

ROOT = Path(__file__).resolve().parent.parent
APP_TOKEN = "xapp-1-A0001-test-app-token-0123456789"


def stop(proc: subprocess.Popen) -> str:
    """SIGTERM, as a platform stops a process; its output (kill after 10 s, and fail)."""
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.communicate(timeout=10)[0]
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"paperbot did not stop on SIGTERM:\n{proc.communicate()[0]}")


@pytest.fixture
def socket_mode(fake_slack):
    fake = FakeSocketMode().start()
    fake_slack.socket_url = fake.url
    yield fake
    fake.stop()


def test_socket_mode_connects_answers_commands_and_stops_cleanly(tmp_path, fake_slack, socket_mode):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    env.update(
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_APP_TOKEN=APP_TOKEN,
        SLACK_API_BASE_URL=fake_slack.api_url,
        PAPERBOT_DATA_DIR=str(tmp_path / "data"),
        PAPERBOT_SEEDS_DIR=str(ROOT / "seeds"),
        PAPERBOT_ARXIV="off",  # never the real arXiv from a test
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "serve"], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        # The corpus is seeded before connecting, so the first start takes a few seconds.
        socket_mode.wait_connected(timeout=30)
        (opened,) = fake_slack.calls_to("apps.connections.open")
        assert opened.headers["Authorization"] == f"Bearer {APP_TOKEN}"
        assert socket_mode.handshakes == ["GET /link/?ticket=fake-ticket HTTP/1.1"]

        socket_mode.push(slash_command_envelope("e1", "推测解码", fake_slack.response_url("e1")))
        ack = socket_mode.wait_for_ack("e1")
        assert ack["payload"]["response_type"] == "ephemeral"
        assert "MineDraft: 批量并行推测解码框架" in json.dumps(ack["payload"], ensure_ascii=False)

        socket_mode.push(slash_command_envelope("e2", "help", fake_slack.response_url("e2"), user_id="U200"))
        help_ack = socket_mode.wait_for_ack("e2")
        assert "finds papers in English and Chinese" in all_text(help_ack["payload"]["blocks"])

        assert fake_slack.calls_to("response") == []  # both answers rode in the acks
    except BaseException as exc:
        exc.add_note(f"paperbot's output:\n{stop(proc)}")
        raise
    output = stop(proc)
    assert proc.returncode == 0, output
    socket_mode.wait_closed()
    assert socket_mode.pings >= 1  # the client pings right after the handshake; the fake pongs
    assert "connecting to Slack in Socket Mode" in output
    assert "Traceback" not in output
    assert BOT_TOKEN not in output and APP_TOKEN not in output
