"""Block Kit as the plain text a reader would see: for the offline console and the CLI.

Not for what is sent to Slack: unescaped `<` and `&` there would be read as markup.
"""

from __future__ import annotations

import re

from bot.slack.render.blocks import ZWSP
from bot.slack.render.mrkdwn import unescape_entities

_LINK = re.compile(r"<(https?://[^|>]+)\|([^>]+)>")


_BARE_LINK = re.compile(r"<(https?://[^|>]+)>")


_MENTION = re.compile(r"<@(\w+)>")


_CHANNEL = re.compile(r"<#(\w+)(?:\|([^>]*))?>")


_DATE = re.compile(r"<!date\^[^|>]*\|([^>]*)>")


def _to_plain(mrkdwn: str) -> str:
    """Flatten mrkdwn for terminals (the console): links become "label (url)".

    Not for what is sent to Slack: unescaped `<` and `&` there would be read as markup.
    """
    text = _LINK.sub(lambda m: f"{m.group(2)} ({m.group(1)})", mrkdwn)
    text = _BARE_LINK.sub(r"\1", text)
    text = _MENTION.sub(r"@\1", text)
    text = _CHANNEL.sub(lambda m: f"#{m.group(2) or m.group(1)}", text)
    text = _DATE.sub(r"\1", text)
    return unescape_entities(text.replace(ZWSP, ""))


def blocks_to_text(blocks: list[dict]) -> str:
    """Render blocks as the plain text a reader would see; buttons become [Label]."""
    lines: list[str] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "header":
            title = block["text"]["text"]
            lines += [title, "=" * min(len(title), 60)]
        elif kind == "section":
            if "text" in block:
                lines.append(_to_plain(block["text"]["text"]))
            if block.get("accessory", {}).get("type") == "overflow":
                lines.append("[⋯ " + " | ".join(o["text"]["text"] for o in block["accessory"]["options"]) + "]")
            if "fields" in block:
                lines.append("   ".join(_to_plain(f["text"]).replace("\n", ": ", 1) for f in block["fields"]))
        elif kind == "context":
            lines.append(" · ".join(_to_plain(e.get("text", "")) for e in block.get("elements", [])))
        elif kind == "actions":
            labels = []
            for element in block.get("elements", []):
                if element.get("type") == "button" and element.get("url"):
                    labels.append(f"[{element['text']['text']} {element['url']}]")  # a terminal can't click
                elif element.get("type") == "button":
                    labels.append(f"[{element['text']['text']}]")
                elif element.get("type") == "static_select":
                    chosen = element.get("initial_option", {}).get("text", {}).get("text", "")
                    labels.append(f"[{chosen} ▾]")
            lines.append(" ".join(labels))
        elif kind == "divider":
            lines.append("-" * 40)
    return "\n".join(lines)
