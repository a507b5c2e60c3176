"""/papers sources ...: admins manage feeds from Slack; App Home shows admins their status.

Pure answers over `Digests.sources` (a bot.feeds.sources.SourceService). A poll can take as
long as a slow server (30 s), longer than Slack waits for an ack, so `add` and `poll`
start it in a thread and answer at once; `/papers sources` shows how it went.
"""

from __future__ import annotations

import logging
import threading

from bot.errors import SourceError
from bot.feeds.sources import format_source_line
from bot.i18n import t
from bot.slack.blocks import Message, context, escape_code, header, render_notice

logger = logging.getLogger(__name__)

SOURCES_WORDS = {"sources", "feeds", "订阅源"}
ACTIONS = {"list": "list", "add": "add", "remove": "remove", "poll": "poll", "添加": "add", "删除": "remove", "抓取": "poll", "列表": "list"}
SHOWN = 20


def is_sources_command(word: str, rest: str) -> bool:
    """`sources` alone or before an action is the command; `/papers sources of bias` searches."""
    return word in SOURCES_WORDS and (not rest or rest.split()[0].lower() in ACTIONS)


def render_sources(sources: list, lang: str) -> list[dict]:
    """The feeds and how each last poll went: for `/papers sources` and admins' App Home."""
    blocks = [header(t("sources.title", lang))]
    if not sources:
        return [*blocks, context(t("sources.none", lang))]
    for source in sources[:SHOWN]:
        blocks.append(context(format_source_line(source, lang)))
    return blocks


def _in_background(name: str, func) -> None:
    def run():
        try:
            func()
        except Exception:
            logger.exception("%s failed", name)

    threading.Thread(target=run, name=name, daemon=True).start()


def answer_sources_command(digests, *, user_id: str, rest: str, lang: str):
    """Answer `/papers sources [list|add|remove|poll] ...` for an admin; others are told why not."""
    from bot.slack.commands import Reply, notice

    service = getattr(digests, "sources", None) if digests is not None else None
    if service is None:
        return notice("sources.needs_serve", lang)
    if user_id not in digests.admins:
        return notice("sources.admins_only", lang)
    word, _, arg = rest.partition(" ")
    action = ACTIONS.get(word.lower(), "list") if word else "list"
    arg = arg.strip()
    try:
        if action == "list":
            return Reply(Message(text=t("sources.title", lang), blocks=render_sources(service.list(), lang)), lang=lang)
        if action == "add":
            if not arg:
                return notice("sources.usage", lang)
            source = service.add(arg, added_by=user_id)
            _in_background(f"poll {source.target}", lambda: service.poll(source, force=True))
            minutes = service.interval.total_seconds() // 60
            return notice("sources.added", lang, source=escape_code(source.target), minutes=int(minutes))
        if action == "remove":
            if not arg:
                return notice("sources.usage", lang)
            source = service.remove(arg)
            return notice("sources.removed", lang, source=escape_code(source.target))
        sources = service.list()
        _in_background("poll sources", lambda: service.poll_all(force=True))
        return notice("sources.polling", lang, count=len(sources))
    except SourceError as error:
        return Reply(render_notice(error.text(lang)), lang=lang)
