"""Every message key is written out where it is used: none missing, none unused, none assembled.

A key built at run time (`t(f"sources.error_{kind}")`) can't be found by a search for its
callers, and a key nobody uses can't be told from one in use; so paperbot writes every
key out whole, in explicit maps where one is chosen by a value. These tests read the
source of bot/ (the MESSAGES table itself excepted) to hold that.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from bot.i18n import MESSAGES

BOT = Path(__file__).resolve().parent.parent / "bot"
PREFIXES = {key.split(".", 1)[0] for key in MESSAGES}
KEYLIKE = re.compile(r"^([a-z]+)\.[a-z0-9_]+$")
NOT_KEYS = re.compile(r"\.(txt|py|json|tsv|toc|sqlite3|lock|col|pst|trm)$")  # file names like listing.txt
TAKES_A_KEY = {
    "t": 0,
    "notice": 0,
    "UserError": 0,
    "SubscribeError": 0,
    "SourceError": 0,
    "WorkspaceError": 0,
    "listing_error": 2,
}
"""Callables whose argument at that position is a message key."""


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8"))) for path in sorted(BOT.rglob("*.py"))]


def _messages_node(tree: ast.Module) -> ast.AST | None:
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(target, ast.Name) and target.id == "MESSAGES" for target in targets):
                return node
    return None


def _string_constants(tree: ast.Module, skip: ast.AST | None) -> set[str]:
    skipped = {id(node) for node in ast.walk(skip)} if skip is not None else set()
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped
    }


def used_keys() -> set[str]:
    """Every string in bot/ that reads as a message key (a known section, a dot, a name)."""
    found: set[str] = set()
    for path, tree in _modules():
        skip = _messages_node(tree) if path.name == "i18n.py" else None
        for text in _string_constants(tree, skip):
            match = KEYLIKE.match(text)
            if match and match.group(1) in PREFIXES and not NOT_KEYS.search(text):
                found.add(text)
    return found


def test_the_scan_sees_keys_used_directly_and_through_maps():
    used = used_keys()
    assert {"search.header", "digest.reason_is_archived", "lang.name_zh", "sources.error_timeout"} <= used
    assert "search.query_empty" in used  # a map in bot/i18n.py itself, outside MESSAGES


def test_no_key_is_used_that_the_table_lacks():
    assert sorted(used_keys() - set(MESSAGES)) == []


def test_no_key_is_defined_that_nothing_uses():
    used = used_keys()
    # `KEY_one` is the singular t() picks for a count of 1: it is used wherever KEY is.
    unused = [key for key in MESSAGES if key not in used and not (key.endswith("_one") and key.removesuffix("_one") in used)]
    assert unused == []


@pytest.mark.parametrize(
    ("path", "tree"), _modules(), ids=lambda value: str(value.relative_to(BOT)) if isinstance(value, Path) else ""
)
def test_no_key_is_assembled_at_run_time(path, tree):
    assembled = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else ""
        position = TAKES_A_KEY.get(name)
        if position is None or len(node.args) <= position:
            continue
        key = node.args[position]
        if isinstance(key, ast.JoinedStr | ast.BinOp) or (
            isinstance(key, ast.Call) and getattr(key.func, "attr", "") == "format"
        ):
            assembled.append(f"{path.name}:{node.lineno}: {ast.unparse(key)}")
    assert assembled == []
