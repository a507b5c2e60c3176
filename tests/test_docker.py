"""The container: builds, runs as a non-root user, becomes healthy, answers /papers, stops on SIGTERM.

Needs a Docker daemon and the base image (pulled, or already present). Where either is
missing (no daemon; no network to pull `python:3.11-slim`) the test is skipped with the
reason, which pytest prints in its summary (-rs).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from slack_helpers import BOT_TOKEN, SIGNING_SECRET, SlackSender
from test_serve_process import free_port, health

ROOT = Path(__file__).resolve().parent.parent
IMAGE = "paperbot-smoke-test"


def docker(*args: str, timeout: float = 60, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout, check=check)


def base_image() -> str:
    match = re.search(r"^FROM\s+(\S+)", (ROOT / "Dockerfile").read_text(), re.MULTILINE)
    assert match, "Dockerfile has no FROM line"
    return match.group(1)


@pytest.fixture(scope="module")
def image():
    if shutil.which("docker") is None:
        pytest.skip("Docker smoke test skipped: no docker command on this machine")
    info = docker("info", "--format", "{{.ServerVersion}}", check=False, timeout=20)
    if info.returncode != 0:
        pytest.skip(f"Docker smoke test skipped: the Docker daemon is not reachable ({info.stderr.strip()[:200]})")
    base = base_image()
    if docker("image", "inspect", base, check=False).returncode != 0:
        pulled = docker("pull", base, check=False, timeout=300)
        if pulled.returncode != 0:
            pytest.skip(
                f"Docker smoke test skipped: base image {base} is not present and cannot be pulled ({pulled.stderr.strip()[:200]})"
            )
    built = docker("build", "-t", IMAGE, str(ROOT), check=False, timeout=900)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    yield IMAGE
    docker("image", "rm", "-f", IMAGE, check=False)


def test_the_container_serves_as_a_non_root_user_and_stops_on_sigterm(image, fake_slack, tmp_path):
    port = free_port()
    data = tmp_path / "data"
    data.mkdir()
    os.chmod(data, 0o777)  # the image's user (uid 10001) writes here
    name = f"paperbot-smoke-{port}"
    env = {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_BASE_URL": fake_slack.api_url,
        "PORT": str(port),
        "PAPERBOT_HOST": "127.0.0.1",
    }
    env_args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    docker("run", "-d", "--name", name, "--network", "host", "-v", f"{data}:/data", "--health-interval", "1s",
           "--health-start-period", "60s", *env_args, image)  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            state = json.loads(docker("inspect", name).stdout)[0]["State"]
            assert state["Running"], docker("logs", name, check=False).stdout
            if state.get("Health", {}).get("Status") == "healthy":
                break
            time.sleep(0.5)
        assert health(port)[0] == 200
        assert docker("exec", name, "id", "-u").stdout.strip() != "0"

        sender = SlackSender(f"http://127.0.0.1:{port}", fake_slack)
        status, answer = sender.command("推测解码")
        sender.close()
        assert status == 200 and "推测解码" in json.dumps(answer, ensure_ascii=False)
        assert (data / "paperbot.sqlite3").exists()  # the data lives in the volume

        docker("stop", "--time", "20", name, timeout=40)
        state = json.loads(docker("inspect", name).stdout)[0]["State"]
        logs = docker("logs", name, check=False)
        output = logs.stdout + logs.stderr
        assert state["ExitCode"] == 0, output
        assert "Traceback" not in output and BOT_TOKEN not in output
    finally:
        docker("rm", "-f", name, check=False)
