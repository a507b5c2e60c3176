"""App Home: newest papers, example searches, the language setting, the reader's digests.

`render_home` is pure (papers in, view dict out); `publish_home` does one views.publish;
`register` wires app_home_opened, the example buttons, the language picker and each
digest's Unsubscribe button (the digest rows come from bot/slack/subscribe.py).
"""

from __future__ import annotations

import logging
import re

from slack_sdk.errors import SlackApiError

from bot.i18n import choose_lang, normalize_lang, t
from bot.models import Hit, Paper, SearchResult
from bot.slack.blocks import (
    LIMITS,
    actions,
    button,
    check_view,
    context,
    decode_value,
    divider,
    header,
    render_hit,
    render_results,
    section,
    truncate,
)
from bot.slack.commands import (
    answer_action,
    answer_command,
    error_reply,
    failure_reply,
    not_ready_message,
    reader_lang,
)
from bot.slack.delivery import error_code, share_in_channel, tell_user

logger = logging.getLogger(__name__)

NEWEST_SHOWN = 5
EXAMPLE_QUERIES = ("speculative decoding", "KV cache", "推测解码", "world model", "强化学习")


def render_subscriptions_section(user_id: str, lang: str, subscriptions: list | None = None) -> list[dict]:
    """The Home section for digests when there is no digest service: how to subscribe.

    With one, `subscribe.render_home_subscriptions` lists the reader's digests instead.
    """
    return [
        header(t("home.subscriptions_title", lang)),
        context(t("home.subscriptions_placeholder", lang)),
    ]


def language_picker(lang: str, is_set: bool) -> dict:
    options = [
        {"text": {"type": "plain_text", "text": "English"}, "value": "en"},
        {"text": {"type": "plain_text", "text": "中文"}, "value": "zh"},
    ]
    element = {"type": "static_select", "action_id": "home_lang", "options": options}
    if is_set:
        element["initial_option"] = options[0] if lang == "en" else options[1]
    else:
        element["placeholder"] = {"type": "plain_text", "text": t("home.lang_label", lang)}
    return {
        "type": "section",
        "block_id": "lang",
        "text": {"type": "mrkdwn", "text": f"*{t('home.lang_label', lang)}*"},
        "accessory": element,
    }


def render_home(
    user_id: str,
    lang: str,
    *,
    newest: list[Paper],
    paper_count: int,
    lang_is_set: bool = False,
    result: SearchResult | None = None,
    subscriptions: list[dict] | None = None,
    saved_ids: frozenset[str] | set[str] = frozenset(),
    saved_section: list[dict] | None = None,
    sources: list[dict] | None = None,
    not_ready: str | None = None,
) -> dict:
    """The Home tab view. `result`, when given, is shown under the example searches.

    `saved_ids` marks the reader's saved papers; `saved_section` is their Saved list.
    `not_ready`, while the index is loading or being rebuilt, says so under the intro
    (the store, and so the count and the newest papers, can be read meanwhile).
    """
    blocks: list[dict] = [
        header(t("home.title", lang)),
        section(t("home.intro", lang, count=paper_count)),
        *([section(not_ready)] if not_ready else []),
        language_picker(lang, lang_is_set),
        divider(),
        section(t("home.search_how", lang)),
        actions(
            # action_ids must be unique within a block; the listener matches the prefix.
            *(button(truncate(q, 60), f"home_example_{i}", {"q": q, "l": lang}) for i, q in enumerate(EXAMPLE_QUERIES)),
            block_id="examples",
        ),
    ]
    if result is not None:
        shown = render_results(result, lang, shareable=False, saved=saved_ids)
        blocks.append(header(t("home.results", lang, query=truncate(result.query, 100))))
        blocks.extend(shown.blocks[: LIMITS["message_blocks"]])
    blocks += [divider(), header(t("home.newest", lang))]
    if newest:
        for number, paper in enumerate(newest[:NEWEST_SHOWN], start=1):
            # The newest papers render as snippet-less hits: same layout as search results.
            hit = Hit(paper=paper, score=0.0)
            for block in render_hit(hit, lang, number, shareable=False, saved=paper.id in saved_ids, save_state={"m": "home"}):
                block = dict(block)
                if "block_id" in block:
                    block["block_id"] = f"new:{block['block_id']}"
                blocks.append(block)
    else:
        blocks.append(section(t("home.empty_library", lang)))
    if saved_section:
        blocks += [divider(), *saved_section]
    blocks.append(divider())
    blocks.extend(subscriptions if subscriptions is not None else render_subscriptions_section(user_id, lang))
    if sources:  # admins only: the feeds and how their last polls went
        blocks += [divider(), *sources]
    return {"type": "home", "blocks": blocks[: LIMITS["home_blocks"]]}


def build_home(corpus, user_id: str, *, result: SearchResult | None = None, lang: str | None = None, digests=None) -> dict:
    stored = corpus.get_user_lang(user_id)
    lang = normalize_lang(lang) if lang else choose_lang(stored, "")
    ready = corpus.is_ready()
    # While the index is rebuilt the store is readable: the count and the newest papers
    # come from it, and the notice says how far the rebuild has got.
    paper_count = int(corpus.stats().get("papers", 0)) if ready else corpus.store.state()[0]
    newest = corpus.newest(NEWEST_SHOWN)
    not_ready = None
    if not ready:
        key, fmt = not_ready_message(corpus.rebuilding())
        not_ready = t(key, lang, **fmt)
    return render_home(
        user_id,
        lang,
        newest=newest,
        paper_count=paper_count,
        lang_is_set=bool(stored),
        result=result,
        subscriptions=_digest_section(digests, user_id, lang),
        saved_ids=corpus.library.saved_ids(user_id) if ready else frozenset(),
        saved_section=_saved_section(corpus, user_id, lang),
        sources=_sources_section(digests, user_id, lang),
        not_ready=not_ready,
    )


def _saved_section(corpus, user_id: str, lang: str) -> list[dict] | None:
    if not corpus.is_ready():
        return None
    from bot.slack.library import render_home_saved

    return render_home_saved(corpus.library, user_id, lang)


def _sources_section(digests, user_id: str, lang: str) -> list[dict] | None:
    service = getattr(digests, "sources", None)
    if service is None or user_id not in digests.admins:
        return None
    from bot.slack.feeds import render_sources

    return render_sources(service.list(), lang)


def _digest_section(digests, user_id: str, lang: str) -> list[dict] | None:
    if digests is None:
        return None
    from bot.slack.subscribe import render_home_subscriptions

    return render_home_subscriptions(digests, user_id, lang)


def publish_home(client, corpus, user_id: str, *, result: SearchResult | None = None, lang: str | None = None, digests=None) -> bool:
    """Render and publish one user's Home; log (don't raise) when Slack refuses."""
    view = build_home(corpus, user_id, result=result, lang=lang, digests=digests)
    problems = check_view(view)
    if problems:
        logger.warning("home view breaks Block Kit limits: %s", "; ".join(problems[:5]))
    try:
        client.views_publish(user_id=user_id, view=view)
        return True
    except SlackApiError as error:
        logger.warning("views.publish for %s failed: %s", user_id, error_code(error))
        return False


def register(app, corpus, digests=None, *, alerts=None) -> None:
    @app.event("app_home_opened")
    def on_home_opened(event, client, logger):
        if event.get("tab", "home") != "home":
            return
        try:
            publish_home(client, corpus, event["user"], digests=digests)
        except Exception:
            logger.exception("rendering Home for %s failed", event.get("user"))

    @app.action(re.compile(r"^home_example_\d+$"))
    def on_example(ack, body, action, client, logger):
        ack()
        user_id = body["user"]["id"]
        value = decode_value(action.get("value"))
        try:
            reply = answer_action(corpus, user_id, "home_example", value, shareable=False)
        except Exception:
            logger.exception("example search from Home failed")
            reply = error_reply(value.get("l", "en"))
        publish_home(client, corpus, user_id, result=reply.result, lang=reply.lang, digests=digests)

    @app.action("home_lang")
    def on_lang(ack, body, action, client, logger):
        ack()
        user_id = body["user"]["id"]
        lang = normalize_lang((action.get("selected_option") or {}).get("value"))
        try:
            corpus.set_user_lang(user_id, lang)
        except Exception as error:
            logger.exception("saving the language for %s failed", user_id)
            # Home has no place for a notice: say it in a DM, and show Home as it still is.
            reply = failure_reply(error, lang, alerts=alerts, client=client)
            tell_user(reply.text, lang=lang, respond=None, client=client, user_id=user_id, channel_id="")
            publish_home(client, corpus, user_id, digests=digests)
            return
        publish_home(client, corpus, user_id, lang=lang, digests=digests)

    if digests is not None:

        @app.action("home_unsubscribe")
        def on_unsubscribe(ack, body, action, client, logger):
            ack()
            user_id = body["user"]["id"]
            from bot.slack.subscribe import unsubscribe_from_home

            try:
                unsubscribe_from_home(digests, user_id, decode_value(action.get("value")).get("id"))
            except Exception:
                logger.exception("unsubscribing from Home failed for %s", user_id)
            publish_home(client, corpus, user_id, digests=digests)

    register_messages(app, corpus, digests, alerts=alerts)


def register_messages(app, corpus, digests=None, *, alerts=None) -> None:
    """The Messages tab: a DM to paperbot is a `/papers` line without the `/papers`."""
    @app.event("message")
    def on_message(event, client, logger):
        if event.get("channel_type") != "im" or event.get("subtype") or event.get("bot_id"):
            return
        user_id, channel_id, text = event.get("user", ""), event.get("channel", ""), event.get("text", "")
        try:
            reply = answer_command(corpus, user_id, channel_id, text, digests=digests)
        except Exception as error:
            logger.exception("answering a DM from %s failed", user_id)
            reply = failure_reply(error, reader_lang(corpus, user_id, text), alerts=alerts, client=client)
        if reply.share is not None:
            share_in_channel(reply, client=client, respond=None, channel_id=channel_id, user_id=user_id, logger=logger)
            return
        try:
            client.chat_postMessage(channel=channel_id, text=reply.text, blocks=reply.blocks, unfurl_links=False)
            if reply.upload is not None:  # `export bibtex` typed in the DM
                from bot.slack.library import send_upload

                send_upload(reply, client=client, respond=None, user_id=user_id, channel_id="")
        except SlackApiError as error:
            logger.warning("answering a DM failed: %s", error_code(error))
            tell_user(t("slack.error", reply.lang, error=error_code(error)), lang=reply.lang, respond=None, client=client, user_id=user_id, channel_id="")

