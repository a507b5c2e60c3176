"""/papers: pure answers (`answer_command`, `answer_action`) and the Bolt listener.

The answers take the corpus and what the user typed or clicked and return a `Reply`; they
never touch Slack, so the Bolt listeners and the offline console (bot/console.py) share
them. Only `register` knows about Bolt.

Subcommands are reserved first words: `help`, `lang`, `share`, and the digest words
(`subscribe`, `unsubscribe`, `subscriptions`, `digest`), answered by bot/slack/subscribe.py
(the offline console, which has no Slack to post into, explains that instead). Every
other first word starts a search: `/papers diffusion models` must
search, so an unknown word is a query, not an error.

Two command words are also ordinary words in paper titles, so they are commands only
when what follows fits: `language`/`语言` alone or before a language name (`/papers
language zh`), else the whole line is searched (`/papers language models`). `lang` is
always the command (a bad argument gets its usage). `digest`/`日报` is always the
preview; anything after it that is not a language is named back as ignored, since a
search for "digest ..." is rarely what was meant.

Slack escapes what people type (`&amp;`, `&lt;`, `<https://…|label>`, `<@U123>`);
`answer_command` reads it back as plain text first (`unescape_slack_text`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.i18n import choose_lang, detect_lang, is_lang, normalize_lang, t
from bot.models import Paper, SearchResult
from bot.slack.blocks import (
    Message,
    escape_code,
    render_card,
    render_help,
    render_notice,
    render_results,
    unescape_slack_text,
)

logger = logging.getLogger(__name__)

PER_PAGE = 5
MAX_QUERY_CHARS = 500
HELP_WORDS = {"help", "-h", "--help", "?", "？", "帮助"}
LANG_WORDS = {"lang"}
LANG_WORDS_IF_LANG = {"language", "语言"}  # commands only when alone or before a language
SHARE_WORDS = {"share", "分享"}
SUBSCRIBE_WORDS = {"subscribe", "订阅"}
UNSUBSCRIBE_WORDS = {"unsubscribe", "取消订阅", "退订"}
LIST_WORDS = {"subscriptions", "订阅列表"}
PREVIEW_WORDS = {"digest", "日报"}
DIGEST_WORDS = SUBSCRIBE_WORDS | UNSUBSCRIBE_WORDS | LIST_WORDS | PREVIEW_WORDS


@dataclass
class Reply:
    """What to show and where.

    `visibility`: "ephemeral" (only the user) or "in_channel" (everyone).
    `share`: the paper to post in the channel; `message` is then its shared card.
    `replace`: a button's answer replaces the message it was clicked in (paging).
    """

    message: Message
    lang: str = "en"
    visibility: str = "ephemeral"
    share: Paper | None = None
    replace: bool = False
    result: SearchResult | None = None  # the page shown, for surfaces that re-render it (Home)

    @property
    def text(self) -> str:
        return self.message.text

    @property
    def blocks(self) -> list[dict]:
        return self.message.blocks


def is_dm(channel_id: str, channel_name: str = "") -> bool:
    """A DM with the bot: nobody else would see a share there, so nothing offers one."""
    return channel_id.startswith("D") or channel_name == "directmessage"


def notice(key: str, lang: str, **fmt: object) -> Reply:
    return Reply(render_notice(t(key, lang, **fmt)), lang=lang)


def error_reply(lang: str) -> Reply:
    """What a user sees when a handler fails: no traceback, a useful sentence."""
    return notice("error.generic", lang)


def reader_lang(corpus, user_id: str, text: str = "") -> str:
    """The reader's language when an answer failed: their setting if it can still be read,
    else the language of what they typed."""
    try:
        stored = corpus.get_user_lang(user_id)
    except Exception:  # the failure may be the store itself
        stored = None
    return choose_lang(stored, unescape_slack_text(text or ""))


def answer_command(corpus, user_id: str, channel_id: str, text: str, *, digests=None, channel_name: str = "") -> Reply:
    """Answer `/papers TEXT` from `user_id` in `channel_id`.

    The reply is in the user's saved language, else in the language of the whole line,
    command word included (`/papers 分享 ParisKV` answers in Chinese).
    `digests` (bot.slack.digest.Digests) answers the digest words; without it they
    explain that digests need Slack (the offline console).
    """
    text = " ".join(unescape_slack_text(text or "").split())
    stored = corpus.get_user_lang(user_id)
    lang = choose_lang(stored, text)
    word, _, rest = text.partition(" ")
    word = word.lower()
    if not text or word in HELP_WORDS:
        return Reply(render_help(lang), lang=lang)
    if word in LANG_WORDS or (word in LANG_WORDS_IF_LANG and (not rest or is_lang(rest))):
        return answer_lang(corpus, user_id, rest, stored, lang)
    if word in DIGEST_WORDS:
        if digests is None:
            return notice("help.digests_need_slack", lang, word=word)
        from bot.slack.subscribe import answer_digest_command

        return answer_digest_command(digests, user_id=user_id, channel_id=channel_id, channel_name=channel_name, text=text, stored_lang=stored)
    if not corpus.is_ready():
        return notice("error.not_ready", lang)
    in_dm = is_dm(channel_id, channel_name)
    if word in SHARE_WORDS:
        return answer_share(corpus, user_id, "" if in_dm else channel_id, rest, lang)
    return answer_search(corpus, text, lang, shareable=not in_dm)


def answer_lang(corpus, user_id: str, arg: str, stored: str | None, lang: str) -> Reply:
    """`/papers lang` shows the setting; `/papers lang en|zh` changes and remembers it.

    `lang` is the reply language for the usage and "not set" answers: the setting, else
    the language the command was typed in (`/papers 语言` answers in Chinese).
    """
    arg = arg.strip()
    if not arg:
        if stored:
            lang = normalize_lang(stored)
            return notice("lang.current", lang, name=t(f"lang.name_{lang}", lang))
        return notice("lang.unset", lang)
    if not is_lang(arg):
        return notice("lang.usage", lang)
    lang = normalize_lang(arg)
    corpus.set_user_lang(user_id, lang)
    return notice("lang.set", lang)


def _clip_query(text: str, lang: str) -> tuple[str, str]:
    if len(text) <= MAX_QUERY_CHARS:
        return text, ""
    return text[:MAX_QUERY_CHARS], t("search.query_too_long", lang, limit=MAX_QUERY_CHARS)


def answer_search(corpus, text: str, lang: str, *, page: int = 1, shareable: bool = True, correct: bool = True) -> Reply:
    """Search and render one page; a page past the end (a stale Next) shows the last one.

    `correct=False`: the text as typed, no spelling correction ("Search instead for").
    """
    query, note = _clip_query(text, lang)
    result = corpus.search(query, page=max(1, page), per_page=PER_PAGE, lang=lang, correct=correct)
    if not result.hits and result.total and result.page > result.pages:
        result = corpus.search(query, page=result.pages, per_page=PER_PAGE, lang=lang, correct=correct)
    message = render_results(result, lang, shareable=shareable, note=note)
    return Reply(message, lang=lang, result=result)


def answer_more_like(corpus, paper_id: str, lang: str, *, page: int = 1, shareable: bool = True) -> Reply:
    """Papers like `paper_id`, one page; a page past the end (a stale Next) shows the last one."""
    paper = corpus.get(paper_id)
    if paper is None:
        return notice("card.paper_not_found", lang)
    result = corpus.more_like(paper.id, page=max(1, page), per_page=PER_PAGE)
    if not result.hits and result.total and result.page > result.pages:
        result = corpus.more_like(paper.id, page=result.pages, per_page=PER_PAGE)
    return Reply(render_results(result, lang, like=paper, shareable=shareable), lang=lang, result=result)


def answer_details(corpus, paper_id: str, lang: str) -> Reply:
    paper = corpus.get(paper_id)
    if paper is None:
        return notice("card.paper_not_found", lang)
    return Reply(render_card(paper, lang, full=True), lang=lang)


def share_reply(paper: Paper, user_id: str, lang: str) -> Reply:
    card = render_card(paper, lang, full=False, shared_by=user_id)
    return Reply(card, lang=lang, visibility="in_channel", share=paper)


def answer_share(corpus, user_id: str, channel_id: str, query: str, lang: str) -> Reply:
    """`/papers share QUERY|ID`: the best match, to be posted in the channel."""
    query = query.strip()
    if not query:
        return notice("share.usage", lang)
    if not channel_id:
        return notice("share.needs_channel", lang, query=escape_code(query[:200]))
    paper = corpus.resolve(query[:MAX_QUERY_CHARS])
    if paper is None:
        return notice("share.not_found", lang, query=escape_code(query[:200]))
    return share_reply(paper, user_id, lang)


def answer_action(corpus, user_id: str, action_id: str, value: dict, *, shareable: bool = True) -> Reply:
    """Answer a button: share, details, more like this, a page, a suggested search.

    `value` is the decoded button value (see blocks.encode_value). The reader's saved
    language wins over the one the message was rendered in. `shareable=False` where a
    share would reach nobody (App Home, a DM with the bot): results drop Share.
    """
    stored = corpus.get_user_lang(user_id)
    lang = normalize_lang(stored or value.get("l") or detect_lang(str(value.get("q", ""))))
    if not corpus.is_ready():
        return notice("error.not_ready", lang)
    paper_id = str(value.get("id", ""))
    page = _as_int(value.get("p"), 1)
    if action_id == "paper_share":
        paper = corpus.get(paper_id)
        if paper is None:
            return notice("card.paper_not_found", lang)
        if not shareable:  # an old message in a DM, or Home: no channel to share into
            return notice("share.needs_channel", lang, query=paper.id)
        return share_reply(paper, user_id, lang)
    if action_id == "paper_details":
        return answer_details(corpus, paper_id, lang)
    if action_id == "paper_more":
        return answer_more_like(corpus, paper_id, lang, shareable=shareable)
    if action_id in ("results_next", "results_prev"):
        if value.get("m") == "more":
            reply = answer_more_like(corpus, paper_id, lang, page=page, shareable=shareable)
        else:
            reply = answer_search(corpus, str(value.get("q", "")), lang, page=page, shareable=shareable)
        reply.replace = True
        return reply
    if action_id in ("search_run", "home_example"):
        exact = bool(value.get("x"))
        reply = answer_search(corpus, str(value.get("q", "")), lang, shareable=shareable, correct=not exact)
        reply.replace = action_id == "search_run"
        return reply
    logger.warning("unknown action %r", action_id)
    return error_reply(lang)


def _as_int(raw: object, default: int) -> int:
    try:
        return max(1, int(raw))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default


def register(app, corpus, digests=None) -> None:
    """Wire `/papers` into a Bolt app: answer in the ack body; share via the Web API."""
    # Imported here so the pure answers above stay importable without slack_sdk (console).
    from bot.slack.delivery import share_in_channel, warn_if_invalid

    @app.command("/papers")
    def on_papers(ack, command, client, respond, logger):
        user_id = command.get("user_id", "")
        channel_id = command.get("channel_id", "")
        text = command.get("text", "")
        try:
            reply = answer_command(corpus, user_id, channel_id, text, digests=digests, channel_name=command.get("channel_name", ""))
        except Exception:
            logger.exception("/papers failed for user %s", user_id)
            reply = error_reply(reader_lang(corpus, user_id, text))
        if reply.share is None:
            # The search takes tens of milliseconds, so the answer rides in the ack itself.
            warn_if_invalid(reply.blocks)
            ack(text=reply.text, blocks=reply.blocks, response_type="ephemeral")
            return
        ack()
        share_in_channel(reply, client=client, respond=respond, channel_id=channel_id, user_id=user_id, logger=logger)
