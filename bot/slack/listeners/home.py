"""App Home: publish it when opened, and answer its example searches, language picker,
Unsubscribe and interests buttons by publishing it again (Home has no response_url to
reply through). Add interests opens a modal; its submission adds them, or keeps the modal
open with what is wrong under the input (Slack's `response_action: errors`).
"""

from __future__ import annotations

from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.i18n import normalize_lang, t
from bot.services import Services
from bot.slack.alerts import AdminAlerts
from bot.slack.answers.actions import answer_action
from bot.slack.answers.interests import add_interests, remove_interests
from bot.slack.answers.subscribe import unsubscribe_from_home
from bot.slack.client import error_code
from bot.slack.delivery import publish_home, tell_user
from bot.slack.listeners.actions import team_id_of
from bot.slack.render.home import interests_modal
from bot.slack.reply import error_reply, failure_reply, person_lang, stored_lang
from bot.slack.values import HOME_EXAMPLE, INTERESTS_VIEW, Action, decode_value


def register(app: App, services: Services, *, alerts: AdminAlerts | None = None) -> None:
    @app.event("app_home_opened")
    def on_home_opened(event, body, client: WebClient, logger):
        if event.get("tab", "home") != "home":
            return
        try:
            publish_home(client, services, event["user"], team_id=team_id_of(body))
        except Exception:
            logger.exception("rendering Home for %s failed", event.get("user"))

    @app.action(HOME_EXAMPLE)
    def on_example(ack, body, action, client: WebClient, logger):
        ack()
        user_id = body["user"]["id"]
        value = decode_value(action.get("value"))
        try:
            reply = answer_action(services, user_id, Action.HOME_EXAMPLE, value, shareable=False, team_id=team_id_of(body))
        except Exception:
            logger.exception("example search from Home failed")
            reply = error_reply(value.lang or "en")
        publish_home(client, services, user_id, result=reply.result, lang=reply.lang, team_id=team_id_of(body))

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
            publish_home(client, services, user_id, team_id=team_id_of(body))
            return
        publish_home(client, services, user_id, lang=lang, team_id=team_id_of(body))

    @app.action(Action.HOME_UNSUBSCRIBE)
    def on_unsubscribe(ack, body, action, client: WebClient, logger):
        ack()
        user_id = body["user"]["id"]
        try:
            unsubscribe_from_home(services, user_id, decode_value(action.get("value")).id)
        except Exception:
            logger.exception("unsubscribing from Home failed for %s", user_id)
        publish_home(client, services, user_id, team_id=team_id_of(body))

    @app.action(Action.HOME_INTEREST_REMOVE)
    def on_interest_remove(ack, body, action, client: WebClient, logger):
        ack()
        user_id, team_id = body["user"]["id"], team_id_of(body)
        value = decode_value(action.get("value"))
        try:  # whose interest it is comes from the signed payload; the value only names it
            remove_interests(services, team_id, user_id, [value.query], value.lang or "en")
        except Exception:
            logger.exception("removing an interest from Home failed for %s", user_id)
        publish_home(client, services, user_id, team_id=team_id)

    @app.action(Action.HOME_INTERESTS_ADD)
    def on_interests_add(ack, body, client: WebClient, logger):
        ack()
        user_id = body["user"]["id"]
        lang = person_lang(services, user_id, stored_lang(services.corpus, user_id))
        try:
            client.views_open(trigger_id=body["trigger_id"], view=interests_modal(lang))
        except SlackApiError as error:
            logger.warning("views.open for %s failed: %s", user_id, error_code(error))

    @app.view(INTERESTS_VIEW)
    def on_interests_submitted(ack, body, view, client: WebClient, logger):
        # The modal's answer is the ack itself (close it, or show what is wrong under the
        # input), so the domain call comes first: adding a few rows takes milliseconds.
        user_id, team_id = body["user"]["id"], team_id_of(body)
        lang = normalize_lang(view.get("private_metadata"))
        state = ((view.get("state") or {}).get("values") or {}).get(Action.INTERESTS_INPUT) or {}
        text = (state.get(Action.INTERESTS_INPUT) or {}).get("value") or ""
        try:
            outcome = add_interests(services, team_id, user_id, text, lang)
        except Exception as error:
            logger.exception("adding interests from Home failed for %s", user_id)
            problem = failure_reply(error, lang, alerts=alerts, client=client).message.text
            ack(response_action="errors", errors={Action.INTERESTS_INPUT: problem})
            return
        if not outcome.changed:
            ack(response_action="errors", errors={Action.INTERESTS_INPUT: t(outcome.key, lang, **outcome.fields)})
            return
        ack()
        publish_home(client, services, user_id, team_id=team_id)
