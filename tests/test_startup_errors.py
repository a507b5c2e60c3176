"""A data folder paperbot can't write stops the CLI and `serve` with what to do, not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    env.update(PAPERBOT_DATA_DIR=str(data_dir), PAPERBOT_SEEDS_DIR=str(ROOT / "seeds"))
    return subprocess.run(
        [sys.executable, "-m", "bot", *args], env=env, cwd=data_dir.parent if data_dir.parent.is_dir() else ROOT,
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip


@pytest.fixture
def read_only_dir(tmp_path):
    """A folder on a read-only file system (as root, whom permission bits don't stop), else mode 555."""
    folder = tmp_path / "ro"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        yield folder, "Permission denied"
        folder.chmod(0o755)
        return
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(folder)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a read-only tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder, "Read-only file system"
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def assert_says_what_to_do(proc: subprocess.CompletedProcess, path: Path, cause: str) -> None:
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "OperationalError" not in proc.stderr
    message = proc.stderr.strip()
    assert message.startswith("paperbot: error: paperbot can't write to its data folder")
    assert str(path) in message and cause in message and "PAPERBOT_DATA_DIR" in message


@pytest.mark.parametrize("command", [["stats"], ["ingest", str(ROOT / "seeds")], ["serve"]])
def test_a_read_only_data_folder_names_the_path_the_cause_and_the_setting(read_only_dir, command):
    folder, cause = read_only_dir
    assert_says_what_to_do(run(folder, *command), folder, cause)


@pytest.mark.parametrize("command", [["search", "decoding"], ["serve"]])
def test_a_data_folder_that_cannot_be_created_says_why(tmp_path, command):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    data = blocker / "data"
    assert_says_what_to_do(run(data, *command), data, "Not a directory")
