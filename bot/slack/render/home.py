"""App Home's view: newest papers, example searches, the language picker, the reader's
saves and digests, the workspace's settings and (for admins) the feeds. Pure: what to show comes in, a view goes out.
"""

from __future__ import annotations

from bot.i18n import lang_name, t
from bot.models import Hit, Paper, SearchResult
from bot.slack.render.blocks import LIMITS, actions, button, context, divider, header, plain_text, section, truncate
from bot.slack.render.cards import render_hit
from bot.slack.render.mrkdwn import escape
from bot.slack.render.results import render_results
from bot.slack.values import INTERESTS_VIEW, Action, ButtonValue, home_example_id

NEWEST_SHOWN = 5
INTERESTS_SHOWN = 10  # each with its Remove button; the rest are counted
MODAL_TITLE_CHARS = 24  # a modal's title, submit and close texts (Block Kit)


EXAMPLE_QUERIES = ("speculative decoding", "KV cache", "推测解码", "world model", "强化学习")


def language_picker(lang: str, is_set: bool) -> dict:
    """The language picker: the language chosen, or, before anyone chose, the one in use and
    that it follows Slack (the placeholder says so, instead of repeating the label)."""
    options = [
        {"text": {"type": "plain_text", "text": "English"}, "value": "en"},
        {"text": {"type": "plain_text", "text": "中文"}, "value": "zh"},
    ]
    element: dict[str, object] = {"type": "static_select", "action_id": Action.HOME_LANG, "options": options}
    if is_set:
        element["initial_option"] = options[0] if lang == "en" else options[1]
    else:
        element["placeholder"] = {"type": "plain_text", "text": t("home.lang_automatic", lang, name=lang_name(lang, lang))}
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
    subscriptions: list[dict],
    interests: list[str] | None = None,
    saved_ids: frozenset[str] | set[str] = frozenset(),
    saved_section: list[dict] | None = None,
    sources: list[dict] | None = None,
    workspace: list[dict] | None = None,
    not_ready: str | None = None,
) -> dict:
    """The Home tab view. `result`, when given, is shown under the example searches.

    `saved_ids` marks the reader's saved papers; `saved_section` is their Saved list;
    `interests` their interests (None: not shown, as while the index is loading).
    `not_ready`, while the index is loading or being rebuilt, says so under the intro
    (the store, and so the count and the newest papers, can be read meanwhile).
    `workspace` is the workspace's settings (render/settings.py: controls for its admins).
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
            *(
                button(truncate(q, 60), home_example_id(i), ButtonValue(query=q, lang=lang))
                for i, q in enumerate(EXAMPLE_QUERIES)
            ),
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
            for block in render_hit(
                hit, lang, number, shareable=False, saved=paper.id in saved_ids, save_state=ButtonValue(mode="home")
            ):
                block = dict(block)
                if "block_id" in block:
                    block["block_id"] = f"new:{block['block_id']}"
                blocks.append(block)
    else:
        blocks.append(section(t("home.empty_library", lang)))
    if interests is not None:
        blocks += [divider(), *render_home_interests(interests, lang)]
    if saved_section:
        blocks += [divider(), *saved_section]
    blocks.append(divider())
    blocks.extend(subscriptions)
    if workspace:
        blocks += [divider(), *workspace]
    if sources:  # admins only: the feeds and how their last polls went
        blocks += [divider(), *sources]
    return {"type": "home", "blocks": blocks[: LIMITS["home_blocks"]]}


def render_home_interests(interests: list[str], lang: str) -> list[dict]:
    """App Home's interests: each with Remove (its value is the interest, shown only to its
    owner; whose it is comes from the signed click), and Add interests, which opens a modal."""
    blocks: list[dict] = [header(t("home.interests_title", lang))]
    blocks.append(context(t("home.interests_intro", lang) if interests else t("home.interests_none", lang)))
    for number, interest in enumerate(interests[:INTERESTS_SHOWN]):
        remove = button(t("home.interest_remove", lang), Action.HOME_INTEREST_REMOVE, ButtonValue(query=interest, lang=lang))
        blocks.append(section(f"“{escape(truncate(interest, 80))}”", block_id=f"interest:{number}", accessory=remove))
    if len(interests) > INTERESTS_SHOWN:
        blocks.append(context(t("home.interests_more", lang, count=len(interests) - INTERESTS_SHOWN)))
    add = button(t("home.interests_add", lang), Action.HOME_INTERESTS_ADD, ButtonValue(lang=lang), style="primary")
    blocks.append(actions(add, block_id="interests_add"))
    return blocks


def interests_modal(lang: str) -> dict:
    """The Add interests modal: one text input, topics separated by commas in either script;
    its view_submission (INTERESTS_VIEW) adds them, or shows what is wrong under the input."""
    return {
        "type": "modal",
        "callback_id": INTERESTS_VIEW,
        "private_metadata": lang,
        "title": plain_text(t("interests.modal_title", lang), MODAL_TITLE_CHARS),
        "submit": plain_text(t("interests.modal_submit", lang), MODAL_TITLE_CHARS),
        "close": plain_text(t("interests.modal_cancel", lang), MODAL_TITLE_CHARS),
        "blocks": [
            {
                "type": "input",
                "block_id": Action.INTERESTS_INPUT,
                "label": plain_text(t("interests.modal_label", lang), 2000),
                "hint": plain_text(t("interests.modal_hint", lang), 2000),
                "element": {
                    "type": "plain_text_input",
                    "action_id": Action.INTERESTS_INPUT,
                    "max_length": 500,
                    "placeholder": plain_text("KV cache, 推测解码", 150),
                },
            }
        ],
    }
