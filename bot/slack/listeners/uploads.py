"""Listing files that admins send to paperbot in a DM: download, ingest, report back.

Only users in PAPERBOT_ADMINS may add papers; others are told so politely. The bot token
is only ever sent to Slack's own file hosts (or the configured API host, for tests), also
after a redirect.
"""

from __future__ import annotations

import logging
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.config import Settings
from bot.errors import PaperbotError
from bot.i18n import choose_lang, t
from bot.models import IngestReport
from bot.services import Services
from bot.slack.alerts import AdminAlerts
from bot.slack.client import error_code
from bot.slack.render.blocks import LIMITS, section, truncate
from bot.slack.render.mrkdwn import escape, escape_code
from bot.store.database import is_storage_full

logger = logging.getLogger(__name__)

UPLOAD_MAX_BYTES = 20 * 1024 * 1024
REJECTED_SHOWN = 20


def format_upload_report(report: IngestReport, name: str, lang: str) -> str:
    """What the admin reads back: counts, then the rejected records as file:line: reason."""
    if not report.feed and report.errors:
        reason = report.errors[0].reason_zh if lang == "zh" and report.errors[0].reason_zh else report.errors[0].reason
        return t("inbox.nothing_added", lang, name=escape_code(name), reason=escape(reason))
    feed = f" [{escape(report.feed)}]" if report.feed else ""
    lines = [
        t("inbox.report", lang, name=escape_code(name), feed=feed, new=report.new, updated=report.updated,
          unchanged=report.unchanged, rejected=report.rejected)
    ]  # fmt: skip
    if report.errors:
        rows = []
        for error in report.errors[:REJECTED_SHOWN]:
            reason = error.reason_zh if lang == "zh" and error.reason_zh else error.reason
            rows.append(f"{name}:{error.line}: {reason}" if error.line else f"{name}: {reason}")
        lines.append(t("inbox.rejected_header", lang))
        lines.append("```" + escape_code("\n".join(rows)) + "```")
        if len(report.errors) > REJECTED_SHOWN:
            lines.append(t("inbox.rejected_more", lang, count=len(report.errors) - REJECTED_SHOWN))
    return "\n".join(lines)


def is_trusted_download(url: str, settings: Settings | None) -> bool:
    """Send the bot token only to Slack's file hosts (or the configured API host, in tests)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme == "https" and ("." + host).endswith((".slack.com", ".slack-edge.com")):
        return True
    base = urlsplit(settings.slack_api_base_url) if settings and settings.slack_api_base_url else None
    return bool(base and base.hostname and host == base.hostname.lower() and parts.port == base.port)


class TooLarge(PaperbotError):
    """The file turned out larger than we read."""


class _TokenStaysWithSlack(urllib.request.HTTPRedirectHandler):
    """Follow a download's redirects, but carry the bot token only to Slack's file hosts.

    urllib copies every header of a request to its redirect, Authorization included, to
    whatever host the Location names; and it follows redirects to ftp:// too.
    """

    def __init__(self, settings: Settings | None):
        self.settings = settings

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if urlsplit(newurl).scheme.lower() not in ("http", "https"):
            raise urllib.error.HTTPError(newurl, code, "redirect to a scheme that is not http(s)", headers, fp)
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and not is_trusted_download(newurl, self.settings):
            new.remove_header("Authorization")
            logger.info("a file download redirected to %s; following it without the token", urlsplit(newurl).hostname)
        return new


def download_file(
    url: str, token: str, *, settings: Settings | None = None, limit: int = UPLOAD_MAX_BYTES, timeout: float = 30
) -> bytes:
    """GET a private Slack file with the bot token; raise TooLarge when over `limit` bytes.

    `url` is a trusted download (is_trusted_download); a redirect elsewhere is followed
    without the token.
    """
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    opener = urllib.request.build_opener(_TokenStaysWithSlack(settings))
    with opener.open(request, timeout=timeout) as response:  # checked host
        data = response.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(url)
    return data


def handle_listing_upload(
    services: Services, client: WebClient, event: dict, *, token: str, alerts: AdminAlerts | None = None, team_id: str = ""
) -> None:
    """An admin of workspace `team_id` sent listing files in a DM: ingest each and reply with its report.

    The papers a listing brings are private to the admin's workspace (`team_id`, from
    Slack's signed envelope), unless a shared source also lists them or the workspace
    shares its uploads (bot/store/visibility.py).

    Anyone else is told, politely, that only admins can add papers. Every failure gets a
    reply saying what failed and that nothing was lost (a listing is stored in one
    transaction, so a failed one leaves the library as it was); a full disk also tells
    the other admins, once (`alerts`, bot/slack/alerts.py).
    """
    user_id, channel_id = event.get("user", ""), event.get("channel", "")
    corpus = services.corpus
    stored = corpus.get_user_lang(user_id, team_id)
    lang = choose_lang(stored, event.get("text", ""))
    replies = []
    lost_nothing = " " + t("inbox.nothing_lost", lang)
    for file in event.get("files") or []:
        name = str(file.get("name") or file.get("title") or file.get("id") or "listing.txt")
        if not services.is_admin(team_id, user_id):
            replies.append(t("inbox.admins_only", lang, name=escape_code(name)))
            continue
        if _size(file) > UPLOAD_MAX_BYTES:
            replies.append(t("inbox.too_large", lang, name=escape_code(name), limit_mb=UPLOAD_MAX_BYTES // (1024 * 1024)))
            continue
        try:
            url = file.get("url_private_download") or file.get("url_private")
            if not url and file.get("id"):
                info = client.files_info(file=file["id"])["file"]
                url = info.get("url_private_download") or info.get("url_private")
            if not url or not is_trusted_download(url, services.settings):
                logger.warning("no trusted download URL for %s: %r", name, url)
                replies.append(
                    t("inbox.download_failed", lang, name=escape_code(name), error=t("inbox.detail_no_url", lang)) + lost_nothing
                )
                continue
            data = download_file(url, token, settings=services.settings)
        except TooLarge:
            replies.append(t("inbox.too_large", lang, name=escape_code(name), limit_mb=UPLOAD_MAX_BYTES // (1024 * 1024)))
            continue
        except SlackApiError as error:
            logger.warning("files.info for %s failed: %s", name, error_code(error))
            detail = t("inbox.detail_slack", lang, error=escape_code(error_code(error)))
            replies.append(t("inbox.download_failed", lang, name=escape_code(name), error=detail) + lost_nothing)
            continue
        except OSError as error:
            logger.warning("downloading %s from Slack failed: %s", name, error)
            replies.append(
                t("inbox.download_failed", lang, name=escape_code(name), error=t("inbox.detail_network", lang)) + lost_nothing
            )
            continue
        except (ValueError, TypeError, KeyError) as error:  # a URL or file record we can't read
            logger.warning("no usable download URL for %s: %r", name, error)
            replies.append(
                t("inbox.download_failed", lang, name=escape_code(name), error=t("inbox.detail_no_url", lang)) + lost_nothing
            )
            continue
        try:
            report = corpus.ingest_bytes(name, data, team=team_id)
        except Exception as error:
            if is_storage_full(error):
                logger.error("upload from %s: %s: the storage is full", user_id, name)
                if alerts is not None:
                    alerts.storage_full(client, team_id)
                replies.append(t("inbox.storage_full", lang, name=escape_code(name)) + lost_nothing)
            else:
                logger.exception("upload from %s: storing %s failed", user_id, name)
                detail = escape_code(truncate(f"{type(error).__name__}: {error}", 200))
                replies.append(t("inbox.save_failed", lang, name=escape_code(name), error=detail) + lost_nothing)
            continue
        logger.info("upload from %s: %s: %d new, %d updated, %d unchanged, %d rejected",
                    user_id, name, report.new, report.updated, report.unchanged, report.rejected)  # fmt: skip
        reply = format_upload_report(report, name, lang)
        if (report.new or report.updated) and corpus.rebuilding() is not None:
            reply += "\n" + t("inbox.stored_during_rebuild", lang)
        replies.append(reply)
    for text in replies:
        blocks = [section(truncate(text, LIMITS["section_text"]))]
        try:
            client.chat_postMessage(channel=channel_id, text=truncate(text, LIMITS["message_text"]), blocks=blocks)
        except SlackApiError as error:
            logger.warning("replying to an upload failed: %s", error_code(error))


def _size(file: dict) -> int:
    try:
        return int(file.get("size") or 0)
    except (TypeError, ValueError):
        return 0  # unknown: download_file still stops at UPLOAD_MAX_BYTES


def register(app: App, services: Services, *, token: str, alerts: AdminAlerts | None = None) -> None:
    """Listeners for listing files sent to paperbot in a DM (message.im with files).

    Register before any catch-all `message` listener: Bolt runs only the first match.
    """

    def is_dm_file_share(event: dict) -> bool:
        return event.get("channel_type") == "im" and event.get("subtype") == "file_share" and not event.get("bot_id")

    @app.event("message", matchers=[lambda event: is_dm_file_share(event)])
    def on_file_share(event, body, client: WebClient, logger):
        try:  # the sender's workspace: the signed envelope's, else the event's own
            team_id = body.get("team_id") or event.get("team") or ""
            handle_listing_upload(services, client, event, token=token, alerts=alerts, team_id=team_id)
        except Exception:
            logger.exception("handling a listing upload from %s failed", event.get("user"))
            lang = choose_lang(None, event.get("text", ""))
            text = t("error.generic", lang) + " " + t("inbox.nothing_lost", lang)
            try:
                client.chat_postMessage(channel=event.get("channel", ""), text=text, blocks=[section(text)])
            except Exception:
                logger.warning("could not tell %s that their upload failed", event.get("user"))
