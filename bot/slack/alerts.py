"""Tell paperbot's admins, by DM, about failures only they can fix; once, not per request.

A full disk (`AdminAlerts`), and a feed that starts failing (`tell_admins_failing`, once
per run of failures: bot/feeds/sources.py decides when). A full disk: every write (a language setting, a subscription, an upload)
fails with SQLite's "database or disk is full" until someone frees space. The reader is
told that the storage is full and that an admin knows; the admins (PAPERBOT_ADMINS) get
one DM each. Further failures stay quiet for `repeat_after` (a day), so a busy channel
doesn't flood them, yet a problem nobody fixed is raised again tomorrow. The memory of
having told them is this process's: the store that would remember it is what is full.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.corpus import Corpus
from bot.feeds.sources import Source
from bot.i18n import normalize_lang, t
from bot.slack.client import error_code
from bot.slack.render.blocks import section
from bot.slack.render.mrkdwn import escape_code
from bot.slack.render.sources import quoted

logger = logging.getLogger(__name__)


class AdminAlerts:
    """One DM to every admin per kind of trouble, at most every `repeat_after` seconds."""

    def __init__(
        self,
        admins: frozenset[str],
        corpus: Corpus,
        data_dir: Path,
        *,
        repeat_after: float = 24 * 3600,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.admins = admins
        self.corpus = corpus
        self.data_dir = Path(data_dir)
        self.repeat_after = repeat_after
        self.clock = clock
        self._lock = threading.Lock()
        self._told: dict[str, float] = {}

    def storage_full(self, client: WebClient) -> bool:
        """Tell the admins the storage is full unless they were told lately; True if there are admins."""
        if not self.admins:
            logger.error("storage under %s is full, and PAPERBOT_ADMINS names nobody to tell", self.data_dir)
            return False
        with self._lock:
            now = self.clock()
            last = self._told.get("storage_full")
            if last is not None and now - last < self.repeat_after:
                return True
            self._told["storage_full"] = now
        logger.error("storage under %s is full; telling the admins %s", self.data_dir, ", ".join(sorted(self.admins)))
        for admin_id in sorted(self.admins):
            self._dm(client, admin_id, "admin.storage_full", path=self.data_dir.absolute())
        return True

    def _dm(self, client: WebClient, user_id: str, key: str, **fmt: object) -> None:
        try:
            lang = normalize_lang(self.corpus.get_user_lang(user_id))  # reading still works on a full disk
        except Exception:
            lang = "en"
        text = t(key, lang, **fmt)
        try:
            channel_id = client.conversations_open(users=user_id)["channel"]["id"]
            client.chat_postMessage(channel=channel_id, text=text, blocks=[section(text)])
        except SlackApiError as error:
            logger.warning("telling admin %s failed: %s", user_id, error_code(error))
        except OSError as error:
            logger.warning("telling admin %s failed: %s", user_id, error)


def tell_admins_failing(client: WebClient, corpus: Corpus, admins: frozenset[str], source: Source) -> None:
    """DM every admin, once per run of failures, that a feed fails and why (their language)."""
    for admin in sorted(admins):
        try:
            lang = normalize_lang(corpus.get_user_lang(admin))
            reason = source.error_text(lang, quote=quoted)  # the feed server's words, made inert
            text = t("sources.failing_dm", lang, source=escape_code(source.target), reason=reason)
            channel = client.conversations_open(users=admin)["channel"]["id"]
            client.chat_postMessage(channel=channel, text=text, blocks=[section(text)])
        except (SlackApiError, OSError) as error:
            logger.warning("telling admin %s that %s fails failed: %s", admin, source.target, error)
