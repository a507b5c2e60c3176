"""manifest.yml asks for exactly the scopes and events the code uses, and the package says its license."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Slack's required bot scope for each Web API method paperbot may call (api.slack.com/methods).
SCOPE_OF_METHOD = {
    "chat.postMessage": "chat:write",
    "chat.postEphemeral": "chat:write",
    "chat.update": "chat:write",
    "conversations.info": "channels:read",  # groups:read for private channels (WIDENING)
    "conversations.open": "im:write",
    "files.info": "files:read",
    "files.upload_v2": "files:write",
    "users.info": "users:read",  # files.getUploadURLExternal + files.completeUploadExternal
    "views.publish": None,  # needs no scope
    "views.open": None,  # needs no scope: a click's trigger_id (App Home's Add interests modal)
}
# Bolt listener -> the Events API subscription and the scope it needs.
EVENT_OF_LISTENER = {
    "app_home_opened": ("app_home_opened", None),
    "message": ("message.im", "im:history"),
    "reaction_added": ("reaction_added", "reactions:read"),
    "reaction_removed": ("reaction_removed", "reactions:read"),
    "member_joined_channel": ("member_joined_channel", "channels:read"),
    "app_uninstalled": ("app_uninstalled", None),  # installs from a link (bot/slack/listeners/installs.py)
    "tokens_revoked": ("tokens_revoked", None),
}
# Scopes no method names: chat:write.public lets chat.postMessage reach public channels the
# bot hasn't joined (digests, shared cards); files:read also covers url_private downloads;
# groups:read lets conversations.info and member_joined_channel see private channels.
WIDENING = {"chat:write.public", "groups:read"}


def manifest_list(section: str) -> set[str]:
    """The `- item` entries under `section:` in manifest.yml (comments dropped)."""
    lines = (ROOT / "manifest.yml").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == f"{section}:")
    indent = len(lines[start]) - len(lines[start].lstrip())
    items = set()
    for line in lines[start + 1 :]:
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if len(line) - len(line.lstrip()) <= indent and not stripped.startswith("-"):
            break
        if stripped.startswith("- "):
            items.add(stripped[2:].split("#")[0].strip())
    return items


def code_uses() -> tuple[set[str], set[str], bool]:
    source = "\n".join(p.read_text() for p in (ROOT / "bot" / "slack").rglob("*.py"))  # the only Slack callers
    methods = {m.replace("_", ".", 1) for m in re.findall(r"client\.([a-z]+_[A-Za-z0-9_]+)\(", source)}
    listeners = set(re.findall(r"app\.event\(\"([a-z_.]+)\"", source))
    return methods, listeners, "app.command(" in source


def test_the_manifest_asks_for_exactly_what_the_code_uses():
    methods, listeners, has_commands = code_uses()
    assert methods and methods <= set(SCOPE_OF_METHOD), (
        f"a new Web API method needs its scope here: {methods - set(SCOPE_OF_METHOD)}"
    )
    assert listeners <= set(EVENT_OF_LISTENER), f"a new event needs its subscription here: {listeners - set(EVENT_OF_LISTENER)}"
    needed = {SCOPE_OF_METHOD[m] for m in methods} | {EVENT_OF_LISTENER[e][1] for e in listeners}
    needed |= {"commands"} if has_commands else set()
    needed.discard(None)
    assert manifest_list("bot") == needed | WIDENING
    assert manifest_list("bot_events") == {EVENT_OF_LISTENER[e][0] for e in listeners}


def test_the_license_is_an_spdx_expression_and_ships_with_the_package():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert "MIT License" in (ROOT / "LICENSE").read_text()
    assert metadata("paperbot")["License-Expression"] == "MIT"  # what pip installed says so too
