"""App Home's workspace settings: two selects (digest language, uploads) and two buttons that
open a modal (time zone, admins). Each acks, checks that the clicker administers the
workspace the signed payload names, changes the setting (bot/slack/answers/settings.py),
and publishes Home again. A modal's answer is its ack: closed, or kept open with what is
wrong under the input (Slack's `response_action: errors`).
"""

from __future__ import annotations

import logging

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.i18n import normalize_lang, t
from bot.services import Services
from bot.slack.alerts import AdminAlerts
from bot.slack.answers.settings import change_admins_in_modal, change_lang, change_zone, set_uploads
from bot.slack.client import error_code
from bot.slack.delivery import publish_home, tell_user
from bot.slack.listeners.actions import team_id_of
from bot.slack.render.settings import admins_modal, zone_modal
from bot.slack.reply import failure_reply, person_lang, stored_lang
from bot.slack.values import SETTINGS_ADMINS_VIEW, SETTINGS_ZONE_VIEW, Action

logger = logging.getLogger(__name__)


def register(app: App, services: Services, *, alerts: AdminAlerts | None = None) -> None:
    def reader_lang(body: dict) -> str:
        user_id = body["user"]["id"]
        team_id = team_id_of(body)
        return person_lang(services, user_id, stored_lang(services.corpus, user_id, team_id), team_id=team_id)

    def refused(body: dict, client: WebClient) -> bool:
        """Not an admin of the payload's workspace: told so by DM (Home has no place for a notice)."""
        user_id, team_id = body["user"]["id"], team_id_of(body)
        if services.is_admin(team_id, user_id):
            return False
        logger.info("refused a settings change from %s, not an admin of workspace %s", user_id, team_id)
        lang = reader_lang(body)
        tell_user(t("settings.admins_only", lang), lang=lang, respond=None, client=client, user_id=user_id, channel_id="")
        publish_home(client, services, user_id, team_id=team_id)
        return True

    def selected(action: dict) -> str:
        return str((action.get("selected_option") or {}).get("value") or "")

    def change(body: dict, client: WebClient, what: str, work) -> None:
        user_id, team_id = body["user"]["id"], team_id_of(body)
        lang = reader_lang(body)
        try:
            work(user_id, team_id, lang)
        except Exception as error:
            logger.exception("changing the %s of workspace %s failed", what, team_id)
            reply = failure_reply(error, lang, alerts=alerts, client=client, team_id=team_id)
            tell_user(reply.text, lang=lang, respond=None, client=client, user_id=user_id, channel_id="")
        publish_home(client, services, user_id, team_id=team_id)

    @app.action(Action.HOME_SETTINGS_LANG)
    def on_lang(ack, body, action, client: WebClient):
        ack()
        if refused(body, client):
            return
        chosen = normalize_lang(selected(action))
        change(body, client, "language", lambda user_id, team_id, lang: change_lang(services, team_id, user_id, chosen, lang))

    @app.action(Action.HOME_SETTINGS_UPLOADS)
    def on_uploads(ack, body, action, client: WebClient):
        ack()
        if refused(body, client):
            return
        choice = selected(action)
        if choice not in ("shared", "private"):  # a forged option changes nothing
            return
        shared = choice == "shared"
        change(body, client, "uploads", lambda user_id, team_id, lang: set_uploads(services, team_id, user_id, shared, lang))

    def open_modal(body: dict, client: WebClient, build) -> None:
        if refused(body, client):
            return
        lang = reader_lang(body)
        try:
            client.views_open(trigger_id=body["trigger_id"], view=build(services.workspaces.get(team_id_of(body)), lang))
        except SlackApiError as error:
            logger.warning("views.open for %s failed: %s", body["user"]["id"], error_code(error))

    @app.action(Action.HOME_SETTINGS_ZONE)
    def on_zone(ack, body, client: WebClient):
        ack()
        open_modal(body, client, zone_modal)

    @app.action(Action.HOME_SETTINGS_ADMINS)
    def on_admins(ack, body, client: WebClient):
        ack()
        open_modal(body, client, admins_modal)

    def submitted(ack, body, view, client: WebClient, block_id: str, work) -> None:
        """A modal's submission: checked, changed, answered in the ack; Home published again."""
        user_id, team_id = body["user"]["id"], team_id_of(body)
        lang = normalize_lang(view.get("private_metadata"))
        if not services.is_admin(team_id, user_id):  # the modal was opened by an admin; maybe no longer one
            ack(response_action="errors", errors={block_id: t("settings.admins_only", lang)})
            return
        state = (((view.get("state") or {}).get("values") or {}).get(block_id) or {}).get(block_id) or {}
        try:
            problem = work(user_id, team_id, state, lang)
        except Exception as error:
            logger.exception("a settings modal failed for %s", user_id)
            problem = failure_reply(error, lang, alerts=alerts, client=client, team_id=team_id).message.text
        if problem:
            ack(response_action="errors", errors={block_id: problem})
            return
        ack()
        publish_home(client, services, user_id, team_id=team_id)

    @app.view(SETTINGS_ZONE_VIEW)
    def on_zone_submitted(ack, body, view, client: WebClient):
        def work(user_id: str, team_id: str, state: dict, lang: str) -> str:
            done, sentence = change_zone(services, team_id, user_id, str(state.get("value") or "").strip(), lang)
            return "" if done else sentence

        submitted(ack, body, view, client, Action.SETTINGS_ZONE_INPUT, work)

    @app.view(SETTINGS_ADMINS_VIEW)
    def on_admins_submitted(ack, body, view, client: WebClient):
        def work(user_id: str, team_id: str, state: dict, lang: str) -> str:
            chosen = tuple(str(user) for user in state.get("selected_users") or [])
            return change_admins_in_modal(services, team_id, user_id, chosen, lang)

        submitted(ack, body, view, client, Action.SETTINGS_ADMINS_INPUT, work)
