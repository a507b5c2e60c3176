"""The `/papers` listener: ack within Slack's 3 s, answering in the ack when it can.

The answer (bot/slack/answers/commands.py) is worked out in its own thread. Ready within
the ack budget (a search takes tens of milliseconds), it rides in the ack itself; later,
the ack says "Searching…" and the answer replaces it through the command's response_url,
which Slack keeps open for 30 minutes.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as AnswerTimeout

from slack_bolt import App
from slack_bolt.context.respond import Respond
from slack_sdk import WebClient

from bot.i18n import t
from bot.services import Services
from bot.slack.alerts import AdminAlerts
from bot.slack.answers.commands import answer_command
from bot.slack.delivery import respond_privately, send_upload, share_in_channel, warn_if_invalid
from bot.slack.render.blocks import render_notice
from bot.slack.reply import Reply, failure_reply, reader_lang
from bot.store.database import is_store_unavailable

LATE_ANSWER_SECONDS = 25.0  # after "Searching…", how long an answer may take before we give up on it


def register(app: App, services: Services, *, ack_budget: float = 1.5, alerts: AdminAlerts | None = None) -> None:
    """Wire `/papers` into a Bolt app: answer in the ack body; share via the Web API.

    The answer is worked out in its own thread. Ready within `ack_budget` seconds (a search
    takes tens of milliseconds), it rides in the ack itself; later, the ack says
    "Searching…" and the answer replaces it through the command's response_url, which
    Slack keeps open for 30 minutes. Bolt gives up on an ack after Slack's 3 s (a lost
    answer), so the budget leaves room for the network and a slow machine.
    `alerts` tells the admins about a full disk.
    """
    corpus = services.corpus
    answers = ThreadPoolExecutor(max_workers=8, thread_name_prefix="papers-answer")

    @app.command("/papers")
    def on_papers(ack, command, client: WebClient, respond: Respond, logger):
        user_id = command.get("user_id", "")
        channel_id = command.get("channel_id", "")
        text = command.get("text", "")
        team_id = command.get("team_id", "")  # the workspace Slack signed for: it keys the person's records

        def answer() -> Reply:
            try:
                return answer_command(
                    services, user_id, channel_id, text, channel_name=command.get("channel_name", ""), team_id=team_id
                )
            except Exception as error:
                if is_store_unavailable(error):  # PostgreSQL restarting: said to the user, no traceback needed
                    logger.warning("/papers for user %s: the store is unavailable (%s)", user_id, error)
                else:
                    logger.exception("/papers failed for user %s", user_id)
                return failure_reply(
                    error, reader_lang(corpus, user_id, text, team_id=team_id), alerts=alerts, client=client, team_id=team_id
                )

        pending = answers.submit(answer)
        try:
            reply = pending.result(timeout=ack_budget)
        except AnswerTimeout:
            searching = render_notice(t("search.searching", reader_lang(corpus, user_id, text, team_id=team_id)))
            ack(text=searching.text, blocks=searching.blocks, response_type="ephemeral")
            try:
                reply = pending.result(timeout=LATE_ANSWER_SECONDS)
            except AnswerTimeout:
                # Never leave "Searching…" standing: say it took too long, and to try again.
                logger.warning("/papers for %s gave no answer within %s s", user_id, LATE_ANSWER_SECONDS)
                reply = Reply(render_notice(t("search.too_slow", reader_lang(corpus, user_id, text, team_id=team_id))))
            if reply.share is None:
                try:
                    respond_privately(reply, respond=respond, client=client, user_id=user_id, channel_id=channel_id, replace=True)
                    if reply.upload is not None:
                        send_upload(reply, client=client, respond=respond, user_id=user_id, channel_id=channel_id)
                except Exception:
                    logger.exception("/papers: the late answer for %s could not be delivered", user_id)
                return
            if share_in_channel(
                reply,
                client=client,
                respond=respond,
                channel_id=channel_id,
                user_id=user_id,
                logger=logger,
                library=services.library,
                team_id=team_id,
            ):
                try:  # the card is in the channel: "Searching…" has nothing left to say
                    respond(delete_original=True)
                except Exception:
                    logger.exception("/papers: could not remove the searching note for %s", user_id)
            return
        if reply.share is None:
            warn_if_invalid(reply.blocks)
            ack(text=reply.text, blocks=reply.blocks, response_type="ephemeral")
            if reply.upload is not None:
                send_upload(reply, client=client, respond=respond, user_id=user_id, channel_id=channel_id)
            return
        ack()
        share_in_channel(
            reply, client=client, respond=respond, channel_id=channel_id, user_id=user_id, logger=logger,
            library=services.library, team_id=team_id,
        )  # fmt: skip
