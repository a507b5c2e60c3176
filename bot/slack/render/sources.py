"""The feeds and how each last poll went: for `/papers sources` and admins' App Home."""

from __future__ import annotations

from bot.feeds.sources import Source, format_source_line
from bot.i18n import t
from bot.slack.render.blocks import context, header
from bot.slack.render.mrkdwn import escape_code

SHOWN = 20


def quoted(text: str) -> str:
    """Text a feed's server chose (a Content-Type, a redirect's target, arXiv's error) as inline
    code: in mrkdwn nothing in it is a link, a mention or formatting, and it reads as quoted."""
    return f"`{escape_code(text)}`"


def source_line(source: Source, lang: str) -> str:
    """One feed and how its last poll went, every outside string in it made inert."""
    return format_source_line(source, lang, code=escape_code, quote=quoted)


def render_sources(sources: list, lang: str) -> list[dict]:
    """The feeds and how each last poll went: for `/papers sources` and admins' App Home."""
    blocks = [header(t("sources.title", lang))]
    if not sources:
        return [*blocks, context(t("sources.none", lang))]
    for source in sources[:SHOWN]:
        blocks.append(context(source_line(source, lang)))
    return blocks
