"""App Home: publish it when opened, and answer its example searches, language picker and
Unsubscribe buttons by publishing it again (Home has no response_url to reply through).
"""

from __future__ import annotations

from slack_bolt import App
from slack_sdk import WebClient

from bot.i18n import normalize_lang
from bot.services import Services
from bot.slack.alerts import AdminAlerts
from bot.slack.answers.actions import answer_action
from bot.slack.answers.subscribe import unsubscribe_from_home
from bot.slack.delivery import publish_home, tell_user
from bot.slack.reply import error_reply, failure_reply
from bot.slack.values import HOME_EXAMPLE, Action, decode_value


def register(app: App, services: Services, *, alerts: AdminAlerts | None = None) -> None:
    @app.event("app_home_opened")
    def on_home_opened(event, client: WebClient, logger):
        if event.get("tab", "home") != "home":
            return
        try:
            publish_home(client, services, event["user"])
        except Exception:
            logger.exception("rendering Home for %s failed", event.get("user"))

    @app.action(HOME_EXAMPLE)
    def on_example(ack, body, action, client: WebClient, logger):
        ack()
        user_id = body["user"]["id"]
        value = decode_value(action.get("value"))
        try:
            reply = answer_action(services, user_id, Action.HOME_EXAMPLE, value, shareable=False)
        except Exception:
            logger.exception("example search from Home failed")
            reply = error_reply(value.lang or "en")
        publish_home(client, services, user_id, result=reply.result, lang=reply.lang)

    @app.action(Action.HOME_LANG)
    def on_lang(ack, body, action, client: WebClient, logger):
        ack()
        user_id = body["user"]["id"]
        lang = normalize_lang((action.get("selected_option") or {}).get("value"))
        try:
            services.corpus.set_user_lang(user_id, lang)
        except Exception as error:
            logger.exception("saving the language for %s failed", user_id)
            # Home has no place for a notice: say it in a DM, and show Home as it still is.
            reply = failure_reply(error, lang, alerts=alerts, client=client)
            tell_user(reply.text, lang=lang, respond=None, client=client, user_id=user_id, channel_id="")
            publish_home(client, services, user_id)
            return
        publish_home(client, services, user_id, lang=lang)

    @app.action(Action.HOME_UNSUBSCRIBE)
    def on_unsubscribe(ack, body, action, client: WebClient, logger):
        ack()
        user_id = body["user"]["id"]
        try:
            unsubscribe_from_home(services, user_id, decode_value(action.get("value")).id)
        except Exception:
            logger.exception("unsubscribing from Home failed for %s", user_id)
        publish_home(client, services, user_id)
