"""The layout's rules that no import linter sees: project imports sit at the top of a module.

A function-level `from bot... import` hides a dependency from whoever reads the module's
head (and, once, kept an import circle alive). The one reason to defer one is a heavy
dependency a command may never need; the line above it then says so, `# Deferred: ...`.
Imports under `if TYPE_CHECKING:` are for annotations only and never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parent.parent / "bot"
MODULES = sorted(BOT.rglob("*.py"))


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            inside.update(id(sub) for sub in ast.walk(node))
    return inside


def deferred_imports(path: Path) -> list[tuple[int, str, str]]:
    """(line, the import, the line above it) of each project import below a module's top level."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    top = {id(node) for node in tree.body}
    exempt = _type_checking_nodes(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom) or id(node) in top or id(node) in exempt:
            continue
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        if any(name == "bot" or name.startswith("bot.") for name in names) or (isinstance(node, ast.ImportFrom) and node.level):
            above = lines[node.lineno - 2].strip() if node.lineno >= 2 else ""
            found.append((node.lineno, ast.unparse(node), above))
    return found


def test_the_scan_finds_a_deferred_import():
    assert any("bot.slack" in text for _, text, _ in deferred_imports(BOT / "cli.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(BOT)))
def test_project_imports_are_at_the_top_unless_deferred_on_purpose(path):
    unexplained = [
        f"{path.name}:{line}: {text}" for line, text, above in deferred_imports(path) if not above.startswith("# Deferred:")
    ]
    assert unexplained == []
