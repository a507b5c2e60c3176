"""Importing paperbot raises no warning, even under -W error with Whoosh's bytecode fresh."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

MODULES = [
    "bot", "bot.cli", "bot.config", "bot.models", "bot.ingest.listing", "bot.store.database", "bot.i18n", "bot.logs",
    "bot.search.analysis", "bot.search.index", "bot.search.query", "bot.search.schema", "bot.search.readers", "bot.search.writers", "bot.search.snippets", "bot.search.spelling", "bot.corpus", "bot.digests.service", "bot.digests.scheduler", "bot.feeds.inbox",
    "bot.digests.subscriptions", "bot.console", "bot.slack.app", "bot.slack.server", "bot.slack.commands",
    "bot.slack.actions", "bot.slack.home", "bot.slack.blocks", "bot.slack.digest", "bot.slack.subscribe",
    "bot.slack.uploads", "bot.feeds.fetch", "bot.feeds.arxiv", "bot.feeds.sources",
]  # fmt: skip


@pytest.fixture(scope="module")
def fresh_whoosh(tmp_path_factory) -> dict:
    """An environment whose Whoosh has no bytecode yet (and writes none): a fresh install."""
    import whoosh

    root = tmp_path_factory.mktemp("fresh-whoosh")
    shutil.copytree(Path(whoosh.__file__).parent, root / "whoosh", ignore=shutil.ignore_patterns("__pycache__"))
    return {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}


def run_strict(code: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, timeout=60, env=env)


def test_the_fresh_copy_really_warns_without_our_filter(fresh_whoosh):
    proc = run_strict("import whoosh.analysis", fresh_whoosh)
    assert proc.returncode != 0 and "invalid escape sequence" in proc.stderr


@pytest.mark.parametrize("module", MODULES)
def test_import_raises_no_warning_under_w_error(module, fresh_whoosh):
    proc = run_strict(f"import {module}, whoosh; assert whoosh.__file__.startswith({fresh_whoosh['PYTHONPATH']!r})", fresh_whoosh)
    assert proc.returncode == 0, proc.stderr


def test_the_filter_spares_our_own_code(fresh_whoosh):
    code = "import bot\ncompile(r\"x = '\\d'\", 'bot/mine.py', 'exec')\n"
    proc = run_strict(code, fresh_whoosh)
    assert proc.returncode != 0 and "invalid escape sequence" in proc.stderr


def test_importing_the_package_loads_no_heavy_dependency():
    code = "import sys, bot, bot.models, bot.config, bot.ingest.listing; print(sorted(m for m in ('whoosh', 'slack_bolt', 'rjieba', 'apscheduler') if m in sys.modules))"
    proc = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
