"""Tell paperbot's admins, by DM, about failures only they can fix; once, not per request.

A full disk (`AdminAlerts`), and a feed that starts failing (`tell_admins_failing`, once
per run of failures: bot/feeds/sources.py decides when). A full disk: every write (a language setting, a subscription, an upload)
fails with SQLite's "database or disk is full" until someone frees space. The reader is
told that the storage is full and that an admin knows; the admins of the reader's
workspace (its own, and PAPERBOT_ADMINS where they apply: bot/store/workspaces.py) get one
DM each. Further failures stay quiet for `repeat_after` (a day) per workspace, so a busy
channel doesn't flood them, yet a problem nobody fixed is raised again tomorrow. The memory
of having told them is this process's: the store that would remember it is what is full.
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
    """One DM to every admin of a workspace per kind of trouble, at most every `repeat_after` seconds.

    `admins_of(team_id)` says who they are (Services.admins_of); it reads the store, which
    a full disk leaves readable.
    """

    def __init__(
        self,
        admins_of: Callable[[str], frozenset[str]],
        corpus: Corpus,
        data_dir: Path,
        *,
        repeat_after: float = 24 * 3600,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.admins_of = admins_of
        self.corpus = corpus
        self.data_dir = Path(data_dir)
        self.repeat_after = repeat_after
        self.clock = clock
        self._lock = threading.Lock()
        self._told: dict[str, float] = {}

    def storage_full(self, client: WebClient, team_id: str = "") -> bool:
        """Tell workspace `team_id`'s admins (through `client`, that workspace's) the storage
        is full unless they were told lately; True if there are admins."""
        try:
            admins = sorted(self.admins_of(team_id))
        except Exception:  # whatever keeps the store from writing may keep it from reading too
            logger.exception("reading the admins of workspace %r failed", team_id)
            admins = []
        if not admins:
            logger.error(
                "storage under %s is full, and workspace %r has no admin to tell (PAPERBOT_ADMINS)", self.data_dir, team_id
            )
            return False
        with self._lock:
            now = self.clock()
            last = self._told.get(f"storage_full:{team_id}")
            if last is not None and now - last < self.repeat_after:
                return True
            self._told[f"storage_full:{team_id}"] = now
        logger.error("storage under %s is full; telling the admins %s", self.data_dir, ", ".join(admins))
        for admin_id in admins:
            self._dm(client, admin_id, "admin.storage_full", team_id, path=self.data_dir.absolute())
        return True

    def _dm(self, client: WebClient, user_id: str, key: str, team_id: str, **fmt: object) -> None:
        try:
            lang = normalize_lang(
                self.corpus.get_user_lang(user_id, team_id)
            )  # their `/papers lang` there  # reading still works on a full disk
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


def tell_admins_failing(client: WebClient, corpus: Corpus, admins: frozenset[str], source: Source, *, team_id: str = "") -> None:
    """DM every admin of workspace `team_id` (through `client`, its own), once per run of
    failures, that a feed fails and why (in their language there)."""
    for admin in sorted(admins):
        try:
            lang = normalize_lang(corpus.get_user_lang(admin, team_id))
            reason = source.error_text(lang, quote=quoted)  # the feed server's words, made inert
            text = t("sources.failing_dm", lang, source=escape_code(source.target), reason=reason)
            channel = client.conversations_open(users=admin)["channel"]["id"]
            client.chat_postMessage(channel=channel, text=text, blocks=[section(text)])
        except (SlackApiError, OSError) as error:
            logger.warning("telling admin %s that %s fails failed: %s", admin, source.target, error)
