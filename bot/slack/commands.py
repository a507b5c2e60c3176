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
    actions,
    button,
    context,
    escape_code,
    notification_text,
    render_card,
    render_help,
    render_notice,
    render_results,
    section,
    unescape_slack_text,
)
from bot.store.database import is_storage_full

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
# The reading list (bot/slack/library.py): `top` and `export` are also title words, so they
# are commands only alone or before a period / format (`/papers top-k sampling` searches).
LIBRARY_WORDS = {"save", "收藏", "saved", "收藏夹", "我的收藏", "foryou", "为你推荐", "推荐"}
LIBRARY_WORDS_IF_ARG = {"top", "热门", "export", "导出"}


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
    upload: dict | None = None  # a file to DM the user (an export): filename, content, title, comment

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


def not_ready_notice(corpus, lang: str) -> Reply:
    """What a request that arrives before the corpus is ready is told: how far a rebuild
    of the index has got, when one is under way (minutes at 1M papers)."""
    key, fmt = not_ready_message(corpus.rebuilding())
    return notice(key, lang, **fmt)


def not_ready_message(progress) -> tuple[str, dict]:
    """(i18n key, its fields) for a corpus that is not ready; `progress` is Corpus.rebuilding()."""
    if progress is None or not progress.total:
        return "error.not_ready", {}
    done = min(progress.done, progress.total)  # papers stored meanwhile can be read too
    fmt = {"done": done, "total": progress.total, "percent": min(99, done * 100 // progress.total)}
    left = progress.seconds_left()
    if done >= progress.total or (left is not None and left <= 60):
        return "error.rebuilding_almost", {"total": progress.total}
    if left is None:
        return "error.rebuilding", fmt
    if left > 90 * 60:
        return "error.rebuilding_eta_hours", {**fmt, "hours": round(left / 3600)}
    return "error.rebuilding_eta", {**fmt, "minutes": max(2, round(left / 60))}


def error_reply(lang: str) -> Reply:
    """What a user sees when a handler fails: no traceback, a useful sentence."""
    return notice("error.generic", lang)


def failure_reply(error: BaseException, lang: str, *, alerts=None, client=None) -> Reply:
    """What a user sees when a handler failed with `error`.

    A full disk is named as such, and the admins are told (once: bot/slack/alerts.py);
    anything else gets the generic sentence.
    """
    if is_storage_full(error):
        told = alerts is not None and client is not None and alerts.storage_full(client)
        return notice("error.storage_full" if told else "error.storage_full_no_admin", lang)
    return error_reply(lang)


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
    if stored is None and digests is not None:  # Slack is there to ask: the person's locale counts
        from bot.slack.subscribe import person_lang

        lang = person_lang(digests, user_id, None, text)
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
    from bot.slack.feeds import answer_sources_command, is_sources_command

    if is_sources_command(word, rest):
        return answer_sources_command(digests, user_id=user_id, rest=rest, lang=lang)
    if not corpus.is_ready():
        return not_ready_notice(corpus, lang)
    in_dm = is_dm(channel_id, channel_name)
    if word in SHARE_WORDS:
        return answer_share(corpus, user_id, "" if in_dm else channel_id, rest, lang)
    from bot.slack.library import answer_library_command, is_library_command

    if word in LIBRARY_WORDS or (word in LIBRARY_WORDS_IF_ARG and is_library_command(word, rest)):
        return answer_library_command(corpus, user_id, "" if in_dm else channel_id, word, rest, lang)
    reply = answer_search(corpus, text, lang, shareable=not in_dm, saved=corpus.library.saved_ids(user_id))
    meant = meant_command(word, rest)
    result = reply.result
    if meant and result is not None and (result.mode != "all" or result.suggestion or not result.total):
        # Searched as typed, but the words read like a mistyped command (`subscibe 9am`).
        note = context(t("search.command_did_you_mean", lang, command=escape_code(" ".join(x for x in (meant, rest) if x)[:100])))
        reply.message.blocks.insert(1 if reply.message.blocks else 0, note)
    return reply


COMMAND_WORDS = ("subscribe", "unsubscribe", "subscriptions", "digest", "share", "save", "saved", "foryou", "export", "sources", "help", "lang")


def meant_command(word: str, rest: str) -> str | None:
    """The command a first word of 4+ letters is one or two typos away from, else None."""
    from bot.search.spelling import edit_distance

    if len(word) < 4 or not word.isascii() or not word.isalpha():
        return None
    near = [(edit_distance(word, command, 3), command) for command in COMMAND_WORDS if command != word]
    distance, command = min(near)
    return command if distance <= (1 if len(word) <= 5 else 2) else None


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


def answer_search(
    corpus, text: str, lang: str, *, page: int = 1, shareable: bool = True, saved=frozenset(), correct: bool = True
) -> Reply:
    """Search and render one page; a page past the end (a stale Next) shows the last one.

    Under an estimated total the last page is not known: an empty page says so instead
    (render_past_end) and leads back one page.

    `saved`: the reader's saved paper ids, marked on their Save buttons. `correct=False`:
    the text as typed, no spelling correction ("Search instead for").
    """
    query, note = _clip_query(text, lang)
    result = corpus.search(query, page=max(1, page), per_page=PER_PAGE, lang=lang, correct=correct)
    if not result.hits and result.total and result.page > result.pages and not result.estimated:
        result = corpus.search(query, page=result.pages, per_page=PER_PAGE, lang=lang, correct=correct)
    message = render_results(result, lang, shareable=shareable, note=note, saved=saved)
    return Reply(message, lang=lang, result=result)


def answer_more_like(corpus, paper_id: str, lang: str, *, page: int = 1, shareable: bool = True, saved=frozenset()) -> Reply:
    """Papers like `paper_id`, one page; a page past the end (a stale Next) shows the last one."""
    paper = corpus.get(paper_id)
    if paper is None:
        return notice("card.paper_not_found", lang)
    result = corpus.more_like(paper.id, page=max(1, page), per_page=PER_PAGE)
    if not result.hits and result.total and result.page > result.pages and not result.estimated:
        result = corpus.more_like(paper.id, page=result.pages, per_page=PER_PAGE)
    return Reply(render_results(result, lang, like=paper, shareable=shareable, saved=saved), lang=lang, result=result)


def answer_details(corpus, paper_id: str, lang: str, *, saved=frozenset(), shareable: bool = True) -> Reply:
    """The whole card; `shareable=False` where there is no channel to share into (Home, a DM)."""
    paper = corpus.get(paper_id)
    if paper is None:
        return notice("card.paper_not_found", lang)
    return Reply(render_card(paper, lang, full=True, saved=paper.id in saved, shareable=shareable), lang=lang)


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
    return share_preview(paper, user_id, channel_id, lang)


def share_preview(paper: Paper, user_id: str, channel_id: str, lang: str) -> Reply:
    """What `/papers share` shows first, privately: the card as it would be posted, with
    Post and Cancel (the best match may not be the paper meant)."""
    card = render_card(paper, lang, full=False, shared_by=user_id)
    value = {"id": paper.id, "l": lang}
    blocks = [
        section(t("share.preview", lang, channel_id=channel_id)),
        *[b for b in card.blocks if b.get("type") != "actions"],
        actions(button(t("button.post", lang), "share_post", value, style="primary"),
                button(t("button.cancel", lang), "share_cancel", value), block_id="share_preview"),
    ]  # fmt: skip
    return Reply(Message(text=notification_text(t("share.preview", lang, channel_id=channel_id)), blocks=blocks), lang=lang)


def answer_action(corpus, user_id: str, action_id: str, value: dict, *, shareable: bool = True, card_channel_id: str = "") -> Reply:
    """Answer a button: share, details, more like this, a page, a suggested search, save.

    `value` is the decoded button value (see blocks.encode_value). The reader's saved
    language wins over the one the message was rendered in. `shareable=False` where a
    share would reach nobody (App Home, a DM with the bot): results drop Share.
    `card_channel_id`: the channel whose public card (a share, a digest) was clicked.
    """
    stored = corpus.get_user_lang(user_id)
    lang = normalize_lang(stored or value.get("l") or detect_lang(str(value.get("q", ""))))
    if not corpus.is_ready():
        return not_ready_notice(corpus, lang)
    paper_id = str(value.get("id", ""))
    page = _as_int(value.get("p"), 1)
    if action_id == "share_cancel":
        reply = notice("share.cancelled", lang)
        reply.replace = True
        return reply
    if action_id in ("paper_share", "share_post"):
        paper = corpus.get(paper_id)
        if paper is None:
            return notice("card.paper_not_found", lang)
        if not shareable:  # an old message in a DM, or Home: no channel to share into
            return notice("share.needs_channel", lang, query=paper.id)
        reply = share_reply(paper, user_id, lang)
        reply.replace = action_id == "share_post"  # the confirmation replaces the preview
        return reply
    if action_id == "paper_save":
        from bot.slack.library import answer_save_click

        return answer_save_click(corpus, user_id, value, lang, shareable=shareable, card_channel_id=card_channel_id)
    saved = corpus.library.saved_ids(user_id)
    if action_id == "paper_details":
        return answer_details(corpus, paper_id, lang, saved=saved, shareable=shareable)
    if action_id == "paper_more":
        return answer_more_like(corpus, paper_id, lang, shareable=shareable, saved=saved)
    if action_id in ("results_next", "results_prev"):
        if value.get("m") == "more":
            reply = answer_more_like(corpus, paper_id, lang, page=page, shareable=shareable, saved=saved)
        elif value.get("m") == "saved":
            from bot.slack.library import answer_saved

            reply = answer_saved(corpus, user_id, str(value.get("q", "")), lang, page=page, shareable=shareable)
        else:
            reply = answer_search(corpus, str(value.get("q", "")), lang, page=page, shareable=shareable, saved=saved)
        reply.replace = True
        return reply
    if action_id in ("search_run", "home_example"):
        exact = bool(value.get("x"))
        reply = answer_search(corpus, str(value.get("q", "")), lang, shareable=shareable, saved=saved, correct=not exact)
        reply.replace = action_id == "search_run"
        return reply
    logger.warning("unknown action %r", action_id)
    return error_reply(lang)


def _as_int(raw: object, default: int) -> int:
    try:
        return max(1, int(raw))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default


LATE_ANSWER_SECONDS = 25.0  # after "Searching…", how long an answer may take before we give up on it


def register(app, corpus, digests=None, *, ack_budget: float = 1.5, alerts=None) -> None:
    """Wire `/papers` into a Bolt app: answer in the ack body; share via the Web API.

    The answer is worked out in its own thread. Ready within `ack_budget` seconds (a search
    takes tens of milliseconds), it rides in the ack itself; later, the ack says
    "Searching…" and the answer replaces it through the command's response_url, which
    Slack keeps open for 30 minutes. Bolt gives up on an ack after Slack's 3 s (a lost
    answer), so the budget leaves room for the network and a slow machine.
    `alerts` (bot/slack/alerts.AdminAlerts) tells the admins about a full disk.
    """
    # Imported here so the pure answers above stay importable without slack_sdk (console).
    from concurrent.futures import ThreadPoolExecutor
    from concurrent.futures import TimeoutError as AnswerTimeout

    from bot.slack.delivery import respond_privately, share_in_channel, warn_if_invalid

    answers = ThreadPoolExecutor(max_workers=8, thread_name_prefix="papers-answer")

    @app.command("/papers")
    def on_papers(ack, command, client, respond, logger):
        user_id = command.get("user_id", "")
        channel_id = command.get("channel_id", "")
        text = command.get("text", "")

        def answer() -> Reply:
            try:
                return answer_command(corpus, user_id, channel_id, text, digests=digests, channel_name=command.get("channel_name", ""))
            except Exception as error:
                logger.exception("/papers failed for user %s", user_id)
                return failure_reply(error, reader_lang(corpus, user_id, text), alerts=alerts, client=client)

        pending = answers.submit(answer)
        try:
            reply = pending.result(timeout=ack_budget)
        except AnswerTimeout:
            searching = render_notice(t("search.searching", reader_lang(corpus, user_id, text)))
            ack(text=searching.text, blocks=searching.blocks, response_type="ephemeral")
            try:
                reply = pending.result(timeout=LATE_ANSWER_SECONDS)
            except AnswerTimeout:
                # Never leave "Searching…" standing: say it took too long, and to try again.
                logger.warning("/papers for %s gave no answer within %s s", user_id, LATE_ANSWER_SECONDS)
                reply = Reply(render_notice(t("search.too_slow", reader_lang(corpus, user_id, text))))
            if reply.share is None:
                try:
                    respond_privately(reply, respond=respond, client=client, user_id=user_id, channel_id=channel_id, replace=True)
                    if reply.upload is not None:
                        from bot.slack.library import send_upload

                        send_upload(reply, client=client, respond=respond, user_id=user_id, channel_id=channel_id)
                except Exception:
                    logger.exception("/papers: the late answer for %s could not be delivered", user_id)
                return
            if share_in_channel(
                reply, client=client, respond=respond, channel_id=channel_id, user_id=user_id, logger=logger, library=corpus.library
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
                from bot.slack.library import send_upload

                send_upload(reply, client=client, respond=respond, user_id=user_id, channel_id=channel_id)
            return
        ack()
        share_in_channel(reply, client=client, respond=respond, channel_id=channel_id, user_id=user_id, logger=logger, library=corpus.library)
