"""Deliver a Reply through Slack and explain what Slack refused, in the reader's language.

Three ways out: the interaction's response_url (`respond`), chat.postMessage, and a DM
for clicks that came from App Home (which has no response_url); and two more kinds of
delivery, App Home's view (views.publish) and an export's file (files_upload_v2). Slack
API failures are logged and turned into a sentence for the user; they never escape a
listener.
"""

from __future__ import annotations

import logging

from slack_bolt.context.respond import Respond
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.i18n import t
from bot.library.readinglist import Library
from bot.models import SearchResult
from bot.services import Services
from bot.slack.answers.home import build_home
from bot.slack.client import error_code
from bot.slack.render.blocks import check_blocks, check_view, render_notice
from bot.slack.reply import Reply

logger = logging.getLogger(__name__)

# Slack error codes we can explain; the rest get the generic "Slack refused (code)".
EXPLAINED = {
    "not_in_channel": "slack.not_in_channel",
    "channel_not_found": "slack.channel_not_found",
    "is_archived": "slack.is_archived",
    "ratelimited": "slack.ratelimited",
}
FALLBACK_TO_RESPONSE_URL = {"not_in_channel", "channel_not_found"}


def explain_slack_error(code: str, lang: str) -> str:
    key = EXPLAINED.get(code)
    return t(key, lang) if key else t("slack.error", lang, error=code)


def warn_if_invalid(blocks: list[dict], surface: str = "message") -> None:
    """Log (don't raise) when a rendered message breaks Block Kit's limits; tests assert it."""
    problems = check_blocks(blocks, surface)
    if problems:
        logger.warning("rendered blocks break Block Kit limits: %s", "; ".join(problems[:5]))


def has_response_url(respond: Respond | None) -> bool:
    return bool(respond is not None and getattr(respond, "response_url", None))


def respond_privately(
    reply: Reply, *, respond: Respond | None, client: WebClient, user_id: str, channel_id: str = "", replace: bool = False
) -> None:
    """Show `reply` to `user_id` only: via response_url when there is one, else by DM."""
    warn_if_invalid(reply.blocks)
    if respond is not None and has_response_url(respond):
        response = respond(
            text=reply.text,
            blocks=reply.blocks,
            response_type="ephemeral",
            replace_original=replace,
        )
        if response.status_code != 200:
            logger.warning("response_url answered %s: %s", response.status_code, response.body[:200])
        return
    try:
        dm = client.conversations_open(users=user_id)
        client.chat_postMessage(channel=dm["channel"]["id"], text=reply.text, blocks=reply.blocks, unfurl_links=False)
    except SlackApiError as error:
        logger.warning("could not DM %s: %s", user_id, error_code(error))


def share_in_channel(
    reply: Reply,
    *,
    client: WebClient,
    respond: Respond | None,
    channel_id: str,
    user_id: str,
    logger: logging.Logger = logger,
    library: Library | None = None,
    team_id: str = "",
) -> bool:
    """Post the shared card in the channel; return whether everyone can now see it.

    With a `library` the share is counted for the channel (of workspace `team_id`), and the
    card's ts remembered so reactions to it count as votes (a response_url post has no ts).

    chat.postMessage fails with not_in_channel/channel_not_found where the bot isn't a
    member; the interaction's response_url can still post there (`in_channel`). If that
    fails too, tell the sharer to `/invite @paperbot`.
    """
    warn_if_invalid(reply.blocks)
    try:
        response = client.chat_postMessage(channel=channel_id, text=reply.text, blocks=reply.blocks, unfurl_links=False)
        _count_share(library, reply, response.get("channel") or channel_id, user_id, str(response.get("ts") or ""), team_id)
        return True
    except SlackApiError as error:
        code = error_code(error)
        logger.warning("chat.postMessage to %s failed: %s", channel_id, code)
    if code in FALLBACK_TO_RESPONSE_URL and respond is not None and has_response_url(respond):
        try:
            hook = respond(
                text=reply.text,
                blocks=reply.blocks,
                response_type="in_channel",
                replace_original=False,
            )
            if hook.status_code == 200:
                _count_share(library, reply, channel_id, user_id, "", team_id)
                return True
            logger.warning("response_url in_channel answered %s", hook.status_code)
        except Exception:
            logger.exception("posting the shared card through response_url failed")
    tell_user(
        explain_slack_error(code, reply.lang),
        lang=reply.lang,
        respond=respond,
        client=client,
        user_id=user_id,
        channel_id=channel_id,
    )
    return False


def _count_share(library: Library | None, reply: Reply, channel_id: str, user_id: str, message_ts: str, team_id: str) -> None:
    if library is None or reply.share is None:
        return
    try:
        library.record_share(channel_id, reply.share.id, user_id, message_ts, team_id=team_id)
    except Exception:  # the card is posted; a lost count must not look like a failed share
        logger.exception("recording the share of %s in %s failed", reply.share.id, channel_id)


def tell_user(text: str, *, lang: str, respond: Respond | None, client: WebClient, user_id: str, channel_id: str) -> None:
    """Send the user one private sentence, by whichever route still works."""
    message = render_notice(text)
    if respond is not None and has_response_url(respond):
        try:
            respond(text=message.text, blocks=message.blocks, response_type="ephemeral", replace_original=False)
            return
        except Exception:
            logger.exception("could not answer through response_url")
    try:
        if channel_id:
            client.chat_postEphemeral(channel=channel_id, user=user_id, text=message.text, blocks=message.blocks)
        else:
            dm = client.conversations_open(users=user_id)
            client.chat_postMessage(channel=dm["channel"]["id"], text=message.text, blocks=message.blocks)
    except SlackApiError as error:
        logger.warning("could not tell %s (%s): %s", user_id, lang, error_code(error))


def publish_home(
    client: WebClient,
    services: Services,
    user_id: str,
    *,
    result: SearchResult | None = None,
    lang: str | None = None,
    team_id: str = "",
) -> bool:
    """Render and publish the Home of `user_id` of workspace `team_id`; log (don't raise) when Slack refuses."""
    view = build_home(services, user_id, result=result, lang=lang, team_id=team_id)
    problems = check_view(view)
    if problems:
        logger.warning("home view breaks Block Kit limits: %s", "; ".join(problems[:5]))
    try:
        client.views_publish(user_id=user_id, view=view)
        return True
    except SlackApiError as error:
        logger.warning("views.publish for %s failed: %s", user_id, error_code(error))
        return False


def send_upload(reply: Reply, *, client: WebClient, respond: Respond | None, user_id: str, channel_id: str) -> bool:
    """DM the reply's file with files_upload_v2 (getUploadURLExternal + completeUploadExternal)."""
    upload = reply.upload
    if upload is None:
        return False
    try:
        dm = client.conversations_open(users=user_id)["channel"]["id"]
        client.files_upload_v2(
            channel=dm, content=upload.content, filename=upload.filename, title=upload.title, initial_comment=upload.comment
        )
        return True
    except SlackApiError as error:
        code = error_code(error)
        logger.warning("export upload for %s failed: %s", user_id, code)
    except Exception:
        logger.exception("export upload for %s failed", user_id)
        code = "upload_failed"
    tell_user(
        t("library.export_failed", reply.lang, error=code),
        lang=reply.lang,
        respond=respond,
        client=client,
        user_id=user_id,
        channel_id=channel_id,
    )
    return False
