"""Block Kit as plain dicts: the building blocks, Slack's limits, and a check against them.

Blocks are plain dicts, so tests compare dicts and the offline console prints them
(render/plain.py). Every builder keeps within `LIMITS`, truncating with an ellipsis;
`check_blocks` and `check_view` list what would break them, before anything is sent.
Nothing here imports slack_sdk or talks to Slack.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.slack.values import ButtonValue, encode_value

# Block Kit's limits (https://api.slack.com/reference/block-kit/blocks).
LIMITS = {
    "message_blocks": 50,
    "home_blocks": 100,
    "section_text": 3000,
    "section_fields": 10,
    "field_text": 2000,
    "header_text": 150,
    "context_elements": 10,
    "context_text": 3000,
    "actions_elements": 25,
    "button_text": 75,
    "button_value": 2000,
    "action_id": 255,
    "block_id": 255,
    "url": 3000,
    "option_text": 75,
    "option_value": 150,
    "select_options": 100,
    "overflow_options": 5,
    "message_text": 3000,  # our own cap on the notification fallback text
    "private_metadata": 3000,
}


ELLIPSIS = "…"


ZWSP = "\u200b"  # lets *bold* render next to CJK text, which Slack won't bold without a word boundary


@dataclass
class Message:
    """What Slack shows: `text` is the notification/fallback, `blocks` the layout."""

    text: str
    blocks: list[dict] = field(default_factory=list)


def truncate(text: str, limit: int) -> str:
    """Cut `text` to at most `limit` characters, ending in an ellipsis when cut."""
    text = text or ""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + ELLIPSIS


def plain_text(text: str, limit: int) -> dict:
    """A plain_text object, within `limit` characters (and never empty: Slack refuses that)."""
    return {"type": "plain_text", "text": truncate(text, limit) or " ", "emoji": True}


def mrkdwn_text(text: str, limit: int = LIMITS["section_text"]) -> dict:
    """A mrkdwn text object, within `limit` characters (never empty)."""
    return {"type": "mrkdwn", "text": truncate(text, limit) or " "}


def section(text: str, **extra) -> dict:
    return {"type": "section", "text": mrkdwn_text(text), **extra}


def context(*texts: str) -> dict:
    elements = [mrkdwn_text(x, LIMITS["context_text"]) for x in texts if x][: LIMITS["context_elements"]]
    return {"type": "context", "elements": elements or [mrkdwn_text(" ")]}


def header(text: str) -> dict:
    return {"type": "header", "text": plain_text(text, LIMITS["header_text"])}


def divider() -> dict:
    return {"type": "divider"}


def button(text: str, action_id: str, value: ButtonValue | str, *, style: str | None = None) -> dict:
    """A button whose `value` (bot/slack/values.py) fits Slack's 2,000 characters."""
    raw = value if isinstance(value, str) else encode_value(value)
    element = {
        "type": "button",
        "text": plain_text(text, LIMITS["button_text"]),
        "action_id": action_id,
        "value": raw[: LIMITS["button_value"]],
    }
    if style:
        element["style"] = style
    return element


def menu_option(text: str, value: ButtonValue | None = None, *, url: str = "") -> dict:
    """One option of an overflow menu: an action (`value`, at most 150 characters) or a link."""
    option: dict = {"text": plain_text(text, LIMITS["option_text"])}
    raw = encode_value(value or ButtonValue())
    option["value"] = raw[: LIMITS["option_value"]]
    if url:
        option["url"] = url[: LIMITS["url"]]
    return option


def overflow(action_id: str, options: list[dict]) -> dict:
    """An overflow ("⋯") menu; Slack shows 1 to 5 options, so the first five are kept."""
    return {"type": "overflow", "action_id": action_id, "options": options[: LIMITS["overflow_options"]]}


def actions(*elements: dict, block_id: str | None = None) -> dict:
    block = {"type": "actions", "elements": list(elements)[: LIMITS["actions_elements"]]}
    if block_id:
        block["block_id"] = block_id[: LIMITS["block_id"]]
    return block


def notification_text(mrkdwn: str) -> str:
    """A message's `text` (notifications, fallback): mrkdwn as sent, so mentions still
    mention and escaped `&lt;` stays escaped; only the zero-width spaces go."""
    return truncate(mrkdwn.replace(ZWSP, ""), LIMITS["message_text"])


def render_notice(text: str) -> Message:
    """A one-section message: confirmations, errors, usage."""
    return Message(text=notification_text(text), blocks=[section(text)])


def split_text(text: str, limit: int, max_parts: int) -> list[str]:
    """Split text into at most `max_parts` pieces of at most `limit` characters.

    Cuts at a sentence end or space near the limit; the last piece is truncated with an
    ellipsis when the text is longer than `limit * max_parts`.
    """
    parts: list[str] = []
    rest = text
    while rest and len(parts) < max_parts - 1 and len(rest) > limit:
        cut = max(rest.rfind(mark, 0, limit) for mark in ("。", ". ", "；", "\n", " "))
        cut = cut + 1 if cut > limit // 2 else limit
        parts.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    parts.append(truncate(rest, limit))
    return parts or [""]


def check_blocks(blocks: list[dict], surface: str = "message") -> list[str]:
    """List every way `blocks` breaks Block Kit's limits (empty when Slack will accept them).

    `surface` is "message" (50 blocks) or "home" (100 blocks).
    """
    problems: list[str] = []
    limit = LIMITS["home_blocks"] if surface == "home" else LIMITS["message_blocks"]
    if len(blocks) > limit:
        problems.append(f"{len(blocks)} blocks > {limit} on a {surface}")
    block_ids: set[str] = set()
    for index, block in enumerate(blocks):
        where = f"block {index} ({block.get('type')})"
        block_id = block.get("block_id")
        if block_id is not None:
            if len(block_id) > LIMITS["block_id"]:
                problems.append(f"{where}: block_id longer than {LIMITS['block_id']}")
            if block_id in block_ids:
                problems.append(f"{where}: duplicate block_id {block_id!r}")
            block_ids.add(block_id)
        kind = block.get("type")
        if kind == "section":
            problems += _check_section(block, where)
        elif kind == "header":
            problems += _check_text(block.get("text"), LIMITS["header_text"], f"{where} text", plain=True)
        elif kind == "context":
            elements = block.get("elements", [])
            if not 1 <= len(elements) <= LIMITS["context_elements"]:
                problems.append(f"{where}: {len(elements)} elements, allowed 1-{LIMITS['context_elements']}")
            for element in elements:
                if element.get("type") in ("mrkdwn", "plain_text"):
                    problems += _check_text(element, LIMITS["context_text"], f"{where} element")
        elif kind == "actions":
            elements = block.get("elements", [])
            if not 1 <= len(elements) <= LIMITS["actions_elements"]:
                problems.append(f"{where}: {len(elements)} elements, allowed 1-{LIMITS['actions_elements']}")
            action_ids = [e.get("action_id") for e in elements if e.get("action_id")]
            if len(action_ids) != len(set(action_ids)):
                problems.append(f"{where}: duplicate action_id")
            for element in elements:
                problems += _check_element(element, where)
        elif kind in ("divider", "image", "input", "rich_text"):
            pass
        else:
            problems.append(f"{where}: unknown block type")
    return problems


def _check_text(obj: dict | None, limit: int, where: str, *, plain: bool = False) -> list[str]:
    if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
        return [f"{where}: missing text object"]
    problems = []
    if plain and obj.get("type") != "plain_text":
        problems.append(f"{where}: must be plain_text")
    if not obj["text"]:
        problems.append(f"{where}: empty text")
    if len(obj["text"]) > limit:
        problems.append(f"{where}: {len(obj['text'])} characters > {limit}")
    return problems


def _check_section(block: dict, where: str) -> list[str]:
    problems = []
    if "text" not in block and "fields" not in block:
        problems.append(f"{where}: needs text or fields")
    if "text" in block:
        problems += _check_text(block["text"], LIMITS["section_text"], f"{where} text")
    fields = block.get("fields", [])
    if len(fields) > LIMITS["section_fields"]:
        problems.append(f"{where}: {len(fields)} fields > {LIMITS['section_fields']}")
    for field_obj in fields:
        problems += _check_text(field_obj, LIMITS["field_text"], f"{where} field")
    if "accessory" in block:
        problems += _check_element(block["accessory"], where)
    return problems


def _check_element(element: dict, where: str) -> list[str]:
    problems = []
    kind = element.get("type")
    if len(element.get("action_id", "")) > LIMITS["action_id"]:
        problems.append(f"{where}: action_id longer than {LIMITS['action_id']}")
    if kind == "button":
        problems += _check_text(element.get("text"), LIMITS["button_text"], f"{where} button", plain=True)
        if len(element.get("value", "")) > LIMITS["button_value"]:
            problems.append(f"{where}: button value longer than {LIMITS['button_value']}")
        if len(element.get("url", "")) > LIMITS["url"]:
            problems.append(f"{where}: button url longer than {LIMITS['url']}")
    elif kind == "overflow":
        options = element.get("options", [])
        if not 1 <= len(options) <= LIMITS["overflow_options"]:
            problems.append(f"{where}: {len(options)} overflow options, allowed 1-{LIMITS['overflow_options']}")
        for option in options:
            problems += _check_text(option.get("text"), LIMITS["option_text"], f"{where} option", plain=True)
            if len(option.get("value", "")) > LIMITS["option_value"]:
                problems.append(f"{where}: option value longer than {LIMITS['option_value']}")
    elif kind == "static_select":
        options = element.get("options", [])
        if not 1 <= len(options) <= LIMITS["select_options"]:
            problems.append(f"{where}: {len(options)} options, allowed 1-{LIMITS['select_options']}")
        for option in options + ([element["initial_option"]] if "initial_option" in element else []):
            problems += _check_text(option.get("text"), LIMITS["option_text"], f"{where} option", plain=True)
            if len(option.get("value", "")) > LIMITS["option_value"]:
                problems.append(f"{where}: option value longer than {LIMITS['option_value']}")
        if "placeholder" in element:
            problems += _check_text(element["placeholder"], LIMITS["header_text"], f"{where} placeholder", plain=True)
    return problems


def check_view(view: dict) -> list[str]:
    """Check a Home view: its blocks (100 max) and private_metadata."""
    problems = check_blocks(view.get("blocks", []), surface="home")
    if len(view.get("private_metadata", "")) > LIMITS["private_metadata"]:
        problems.append("private_metadata longer than 3,000 characters")
    return problems
