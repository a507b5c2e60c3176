"""What an answer returns (`Reply`), and the short answers every surface gives.

An answer (bot/slack/answers/) never touches Slack: it returns a Reply saying what to
show and where, and a listener (bot/slack/listeners/) or the offline console delivers it.
The notices here are the sentences any answer may end in: a usage line, "the library is
still loading", "something went wrong", "the storage is full".
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.corpus import Corpus, RebuildProgress
from bot.i18n import choose_lang, has_chinese, normalize_lang, t
from bot.models import Paper, SearchResult
from bot.slack.render.blocks import Message, render_notice
from bot.slack.render.mrkdwn import unescape_slack_text
from bot.store.database import is_storage_full, is_store_unavailable

if TYPE_CHECKING:  # the console imports this module, and needs no Slack SDK
    from slack_sdk import WebClient

    from bot.services import Services
    from bot.slack.alerts import AdminAlerts

logger = logging.getLogger(__name__)


@dataclass
class Upload:
    """A file to DM the user (an export)."""

    filename: str
    content: str
    title: str
    comment: str


@dataclass
class Reply:
    """What to show and where.

    `visibility`: "ephemeral" (only the user) or "in_channel" (everyone).
    `share`: the paper to post in the channel; `message` is then its shared card.
    `replace`: a button's answer replaces the message it was clicked in (paging).
    """

    message: Message
    lang: str = "en"
    visibility: str = "ephemeral"
    share: Paper | None = None
    replace: bool = False
    result: SearchResult | None = None  # the page shown, for surfaces that re-render it (Home)
    upload: Upload | None = None

    @property
    def text(self) -> str:
        return self.message.text

    @property
    def blocks(self) -> list[dict]:
        return self.message.blocks


def is_dm(channel_id: str, channel_name: str = "") -> bool:
    """A DM with the bot: nobody else would see a share there, so nothing offers one."""
    return channel_id.startswith("D") or channel_name == "directmessage"


def notice(key: str, lang: str, **fields: object) -> Reply:
    """One sentence from bot/i18n.py, as a private reply."""
    return Reply(render_notice(t(key, lang, **fields)), lang=lang)


def notice_lines(lines: list[str], lang: str) -> Reply:
    """Several sentences already in the reader's language, one section."""
    return Reply(render_notice("\n".join(lines)), lang=lang)


def not_ready_notice(corpus: Corpus, lang: str) -> Reply:
    """What a request that arrives before the corpus is ready is told: how far a rebuild
    of the index has got, when one is under way (minutes at 1M papers)."""
    key, fields = not_ready_message(corpus.rebuilding())
    return notice(key, lang, **fields)


def not_ready_message(progress: RebuildProgress | None) -> tuple[str, dict]:
    """(i18n key, its fields) for a corpus that is not ready; `progress` is Corpus.rebuilding()."""
    if progress is None or not progress.total:
        return "error.not_ready", {}
    done = min(progress.done, progress.total)  # papers stored meanwhile can be read too
    fields = {"done": done, "total": progress.total, "percent": min(99, done * 100 // progress.total)}
    left = progress.seconds_left()
    if done >= progress.total or (left is not None and left <= 60):
        return "error.rebuilding_almost", {"total": progress.total}
    if left is None:
        return "error.rebuilding", fields
    if left > 90 * 60:
        return "error.rebuilding_eta_hours", {**fields, "hours": round(left / 3600)}
    return "error.rebuilding_eta", {**fields, "minutes": max(2, round(left / 60))}


def error_reply(lang: str) -> Reply:
    """What a user sees when a handler fails: no traceback, a useful sentence."""
    return notice("error.generic", lang)


def failure_reply(
    error: BaseException,
    lang: str,
    *,
    alerts: AdminAlerts | None = None,
    client: WebClient | None = None,
    team_id: str = "",
) -> Reply:
    """What a user sees when a handler failed with `error`.

    A full disk is named as such, and the admins of the user's workspace (`team_id`) are
    told (once: bot/slack/alerts.py); a
    store that can't be reached just now (PostgreSQL restarting) says to try again;
    anything else gets the generic sentence.
    """
    if is_storage_full(error):
        told = alerts is not None and client is not None and alerts.storage_full(client, team_id)
        return notice("error.storage_full" if told else "error.storage_full_no_admin", lang)
    if is_store_unavailable(error):
        return notice("error.store_unavailable", lang)
    return error_reply(lang)


def person_lang(services: Services, user_id: str, stored_lang: str | None, text: str = "", *, team_id: str = "") -> str:
    """The one language rule: `/papers lang`, else the Slack locale (zh-* is Chinese), else
    Chinese for a line typed in Chinese, else, for someone Slack gives no locale, their
    workspace's default (`/papers settings lang`). Replies, App Home and the cards made for
    a person all follow it."""
    if stored_lang:
        return normalize_lang(stored_lang)
    locale = services.directory.profile(user_id, team_id=team_id).locale or ""
    if locale.lower().startswith("zh"):
        return "zh"
    if locale or has_chinese(text):
        return choose_lang(None, text)
    try:
        workspace_lang = services.workspaces.get(team_id).lang
    except Exception as error:  # like stored_lang: a store restarting must not stop a search
        if not is_store_unavailable(error):
            raise
        workspace_lang = ""
    return workspace_lang or choose_lang(None, text)


def stored_lang(corpus: Corpus, user_id: str, team_id: str | None = None) -> str | None:
    """The person's `/papers lang` in their workspace, or None when the store can't be read
    just now: a search needs only this instance's index, so a PostgreSQL restart must not stop it."""
    try:
        return corpus.get_user_lang(user_id, team_id)
    except Exception as error:
        if not is_store_unavailable(error):
            raise
        logger.warning("reading %s's language failed (%s); answering in the language they typed", user_id, error)
        return None


def reader_lang(corpus: Corpus, user_id: str, text: str = "", *, team_id: str | None = None) -> str:
    """The reader's language when an answer failed: their setting if it can still be read,
    else the language of what they typed."""
    try:
        stored = corpus.get_user_lang(user_id, team_id)
    except Exception:  # the failure may be the store itself
        stored = None
    return choose_lang(stored, unescape_slack_text(text or ""))
