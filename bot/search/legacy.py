"""Module paths that indexes written before the search room existed still name.

An index's TOC pickles its schema (the analyzers, by class path) and each segment's codec.
Indexes written before 2026-12-02 name `bot.analysis.*` and `bot.codec.*`; those modules
now live in this room. `register()` makes the old names resolve to the new modules, so
such an index opens as it is, with no rebuild; the next commit writes the new paths.
tests/test_index_layout.py opens one, kept as test data.
"""

from __future__ import annotations

import sys

from bot.search import analysis, codec

LEGACY_MODULES = {"bot.analysis": analysis, "bot.codec": codec}


def register() -> None:
    """Let pickle find the analyzers and codec of an index written before the move."""
    for name, module in LEGACY_MODULES.items():
        sys.modules.setdefault(name, module)
