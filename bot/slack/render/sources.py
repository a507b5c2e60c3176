"""The feeds and how each last poll went: for `/papers sources` and admins' App Home."""

from __future__ import annotations

from bot.feeds.sources import format_source_line
from bot.i18n import t
from bot.slack.render.blocks import context, header

SHOWN = 20


def render_sources(sources: list, lang: str) -> list[dict]:
    """The feeds and how each last poll went: for `/papers sources` and admins' App Home."""
    blocks = [header(t("sources.title", lang))]
    if not sources:
        return [*blocks, context(t("sources.none", lang))]
    for source in sources[:SHOWN]:
        blocks.append(context(format_source_line(source, lang)))
    return blocks
