"""Importing paperbot raises no warning of our own making, and does nothing heavy."""

from __future__ import annotations

import subprocess
import sys

import pytest

MODULES = [
    "bot", "bot.cli", "bot.config", "bot.models", "bot.listing", "bot.store", "bot.i18n", "bot.logs",
    "bot.analysis", "bot.index", "bot.query", "bot.corpus", "bot.digest", "bot.scheduler", "bot.inbox",
    "bot.subscriptions", "bot.console", "bot.slack.app", "bot.slack.server", "bot.slack.commands",
    "bot.slack.actions", "bot.slack.home", "bot.slack.blocks", "bot.slack.digest", "bot.slack.subscribe",
    "bot.slack.uploads", "bot.fetch", "bot.arxiv", "bot.sources",
]  # fmt: skip

# Whoosh 2.7.4 has invalid escape sequences that warn when its bytecode is compiled
# fresh: not ours, so third-party packages are imported with warnings off first.
THIRD_PARTY = "whoosh.index, whoosh.fields, whoosh.query, whoosh.analysis, whoosh.highlight, slack_bolt, slack_sdk, apscheduler, rjieba, dotenv, feedparser"


@pytest.mark.parametrize("module", MODULES)
def test_import_raises_no_warning_of_ours(module):
    code = (
        "import warnings\n"
        "with warnings.catch_warnings():\n"
        "    warnings.simplefilter('ignore')\n"
        f"    import {THIRD_PARTY}\n"
        "warnings.simplefilter('error')\n"
        f"import {module}\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_importing_the_package_loads_no_heavy_dependency():
    code = "import sys, bot, bot.models, bot.config, bot.listing; print(sorted(m for m in ('whoosh', 'slack_bolt', 'rjieba', 'apscheduler') if m in sys.modules))"
    proc = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
