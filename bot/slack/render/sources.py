"""The feeds and how each last poll went: for `/papers sources` and admins' App Home."""

from __future__ import annotations

from bot.feeds.sources import Source, format_source_line
from bot.i18n import t
from bot.semantic.builder import BuildProgress
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


def render_meaning_status(progress: BuildProgress | None, lang: str) -> list[dict]:
    """How far the papers' vectors are (search by meaning), for admins: None when it is off."""
    if progress is None:
        return [context(t("meaning.status_off", lang))]
    if not progress.missing:
        return [context(t("meaning.status_done", lang, total=progress.papers))]
    left = progress.seconds_left()
    if left:
        minutes = max(1, round(left / 60))
        return [context(t("meaning.status_eta", lang, done=progress.with_vectors, total=progress.papers, minutes=minutes))]
    return [context(t("meaning.status", lang, done=progress.with_vectors, total=progress.papers))]
