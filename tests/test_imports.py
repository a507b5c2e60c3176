"""Every module of paperbot imports, with no warning even under -W error and Whoosh's bytecode fresh.

The modules are discovered, not listed: a new module is covered the day it is added.
Each room (bot/search/, bot/slack/, ...) is imported in a fresh interpreter of its own.
"""

from __future__ import annotations

import os
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bot

REPO = Path(__file__).resolve().parent.parent


def all_modules() -> list[str]:
    return sorted(["bot", *(m.name for m in pkgutil.walk_packages(bot.__path__, "bot.") if m.name != "bot.__main__")])


def rooms() -> dict[str, list[str]]:
    """Modules by room: `bot.search.index` is in bot.search; the flat kernel is `bot`."""
    grouped: dict[str, list[str]] = {}
    for name in all_modules():
        parts = name.split(".")
        room = ".".join(parts[:2]) if len(parts) > 2 or (len(parts) == 2 and (REPO / "bot" / parts[1]).is_dir()) else "bot"
        grouped.setdefault(room, []).append(name)
    return grouped


@pytest.fixture(scope="module")
def fresh_whoosh(tmp_path_factory) -> dict:
    """An environment whose Whoosh has no bytecode yet (and writes none): a fresh install."""
    import whoosh

    root = tmp_path_factory.mktemp("fresh-whoosh")
    shutil.copytree(Path(whoosh.__file__).parent, root / "whoosh", ignore=shutil.ignore_patterns("__pycache__"))
    return {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}


def run_strict(code: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, timeout=120, env=env)


def test_discovery_finds_every_room_and_module():
    found = rooms()
    assert {"bot", "bot.search", "bot.store", "bot.ingest", "bot.digests", "bot.feeds", "bot.library", "bot.slack"} <= set(found)
    on_disk = {
        ".".join(p.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__") for p in (REPO / "bot").rglob("*.py")
    }
    assert set(all_modules()) == on_disk - {"bot.__main__"}


def test_the_fresh_copy_really_warns_without_our_filter(fresh_whoosh):
    proc = run_strict("import whoosh.analysis", fresh_whoosh)
    assert proc.returncode != 0 and "invalid escape sequence" in proc.stderr


@pytest.mark.parametrize("room", sorted(rooms()))
def test_every_module_imports_with_no_warning_under_w_error(room, fresh_whoosh):
    modules = rooms()[room]
    code = f"import {', '.join(modules)}, whoosh; assert whoosh.__file__.startswith({fresh_whoosh['PYTHONPATH']!r})"
    proc = run_strict(code, fresh_whoosh)
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
