"""/papers sources ...: admins manage feeds from Slack; App Home shows admins their status.

Pure answers over the services' SourceService (bot/feeds/sources.py). A poll can take as
long as a slow server (30 s), longer than Slack waits for an ack, so `add` and `poll`
start it in a thread and answer at once; `/papers sources` shows how it went.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from bot.errors import SourceError
from bot.i18n import t
from bot.services import Services
from bot.slack.render.blocks import Message, context, render_notice
from bot.slack.render.mrkdwn import escape_code
from bot.slack.render.sources import render_meaning_status, render_sources
from bot.slack.reply import Reply, notice
from bot.slack.words import CONFIRM_WORDS, SOURCES_ACTIONS

logger = logging.getLogger(__name__)


def _in_background(name: str, func: Callable[[], object]) -> None:
    def run() -> None:
        try:
            func()
        except Exception:
            logger.exception("%s failed", name)

    threading.Thread(target=run, name=name, daemon=True).start()


def admins_line(services: Services, team_id: str, lang: str) -> str:
    """Who manages feeds in workspace `team_id`, as mentions; or that nobody does yet."""
    admins = sorted(services.admins_of(team_id))
    if not admins:
        return t("sources.no_admins", lang)
    mentions = t("sources.list_separator", lang).join(f"<@{admin}>" for admin in admins[:10])
    return t("sources.managed_by", lang, admins=mentions)


def answer_sources_command(services: Services, *, user_id: str, rest: str, lang: str, team_id: str = "") -> Reply:
    """Answer `/papers sources [list|add|remove|poll|remove-papers] ...`.

    Anyone may see the list (read-only), with who the admins are; only that workspace's
    admins (`team_id`) change it, and anyone else asking to is told whom to ask. The
    workspace's sources alone are listed and managed.
    """
    team = team_id
    service = services.sources
    word, _, arg = rest.partition(" ")
    action = SOURCES_ACTIONS.get(word.lower(), "list") if word else "list"
    arg = arg.strip()
    if not services.is_admin(team_id, user_id):
        if action == "list":
            blocks = [*render_sources(service.list_sources(team), lang), context(admins_line(services, team_id, lang))]
            return Reply(Message(text=t("sources.title", lang), blocks=blocks), lang=lang)
        return notice("sources.admins_only", lang, admins=admins_line(services, team_id, lang))
    try:
        if action == "list":
            meaning = services.corpus.meaning
            status = render_meaning_status(meaning.builder.progress() if meaning is not None else None, lang)
            blocks = [*render_sources(service.list_sources(team), lang), *status]
            return Reply(Message(text=t("sources.title", lang), blocks=blocks), lang=lang)
        if action == "add":
            if not arg:
                return notice("sources.usage", lang)
            source = service.add(arg, added_by=user_id, team=team)
            _in_background(f"poll {source.target}", lambda: service.poll(source, force=True))
            minutes = service.interval.total_seconds() // 60
            return notice("sources.added", lang, source=escape_code(source.target), minutes=int(minutes))
        if action == "remove":
            if not arg:
                return notice("sources.usage", lang)
            source = service.remove(arg, team=team)
            return notice("sources.removed", lang, source=escape_code(source.target))
        if action == "remove_papers":
            return answer_remove_papers(services, arg, lang, team_id=team)
        sources = service.list_sources(team)
        _in_background("poll sources", lambda: service.poll_all(force=True, team=team))
        return notice("sources.polling", lang, count=len(sources))
    except SourceError as error:
        return Reply(render_notice(error.text(lang)), lang=lang)


def answer_remove_papers(services: Services, arg: str, lang: str, *, team_id: str | None = None) -> Reply:
    """`remove-papers SOURCE` says what would go and how to confirm; `... confirm` does it.

    Two steps rather than an undo: the papers go with their arXiv records, and a typed
    confirmation is as clear in the CLI (`--yes`) as in Slack.
    """
    words = arg.split()
    confirmed = len(words) > 1 and words[-1].lower() in CONFIRM_WORDS
    target = " ".join(words[:-1] if confirmed else words)
    if not target:
        return notice("sources.usage", lang)
    service = services.sources
    if not confirmed:
        removal = service.plan_removal(target, team=team_id)
        text = removal.line(lang, done=False, code=escape_code)
        if removal.count:
            text += "\n" + t("sources.remove_papers_confirm", lang, source=escape_code(removal.target))
        return Reply(render_notice(text), lang=lang)
    removal = service.remove_papers(target, team=team_id)
    return Reply(render_notice(removal.line(lang, done=True, code=escape_code)), lang=lang)
