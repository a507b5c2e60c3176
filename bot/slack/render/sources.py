"""The feeds and how each last poll went: for `/papers sources` and admins' App Home."""

from __future__ import annotations

from bot.feeds.sources import format_source_line
from bot.i18n import t
from bot.semantic.builder import BuildProgress
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
