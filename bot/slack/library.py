"""The reading list in Slack: save/saved/foryou/top/export, the Save button, reactions.

The domain (saves, votes, rankings, export formats) is bot/library/readinglist.py and bot/library/export.py;
this module renders it and wires Slack to it. Answers are pure (they return a `Reply`)
so the offline console shares them; `register` adds the reaction listeners and
`send_upload` the one Web API call an export needs (files_upload_v2).

Privacy: every answer reads the saves of the `user_id` Slack signed for, never of an id
in a button value or in what was typed; the Save button's value names only the paper and
the view to redraw.
"""

from __future__ import annotations

import logging

from bot.clock import system_clock
from bot.i18n import t
from bot.library.export import EXTENSIONS, export_papers, normalize_format
from bot.library.readinglist import Library, short_title
from bot.models import Hit, Paper
from bot.slack.blocks import (
    LIMITS,
    Message,
    actions,
    button,
    context,
    decode_value,
    divider,
    escape,
    escape_code,
    header,
    notification_text,
    render_hit,
    render_notice,
    save_button,
    section,
    truncate,
)

logger = logging.getLogger(__name__)

SAVE_WORDS = {"save", "收藏"}
SAVED_WORDS = {"saved", "收藏夹", "我的收藏"}
FORYOU_WORDS = {"foryou", "为你推荐", "推荐"}
TOP_WORDS = {"top", "热门"}
EXPORT_WORDS = {"export", "导出"}
PERIOD_WORDS = {"week": "week", "本周": "week", "周": "week", "month": "month", "本月": "month", "月": "month"}
FORYOU_SHOWN = 5
HOME_SAVED_SHOWN = 5
POPULAR_IN_DIGEST = 3


def is_library_command(word: str, rest: str) -> bool:
    """`top`/`export` are commands alone or before a period/format; else a search."""
    rest = rest.strip().lower()
    if word in TOP_WORDS:
        return not rest or rest in PERIOD_WORDS
    if word in EXPORT_WORDS:  # `export foo` is a format mistyped (usage), not a search for foo
        return not rest or normalize_format(rest) is not None or len(rest.split()) <= 2
    return True


def answer_library_command(corpus, user_id: str, channel_id: str, word: str, rest: str, lang: str):
    """`/papers save|saved|foryou|top|export ...`; `channel_id` is '' in a DM."""
    from bot.slack.commands import notice

    library: Library = corpus.library
    if word in SAVE_WORDS:
        return answer_save(corpus, user_id, rest, lang)
    if word in SAVED_WORDS:
        return answer_saved(corpus, user_id, rest, lang, shareable=bool(channel_id))
    if word in FORYOU_WORDS:
        return answer_foryou(corpus, user_id, lang, shareable=bool(channel_id))
    if word in TOP_WORDS:
        if not channel_id:
            return notice("library.top_needs_channel", lang)
        period = PERIOD_WORDS.get(rest.strip().lower(), "week")
        return _reply(render_top(library, channel_id, period, lang), lang)
    return answer_export(library, user_id, rest, lang)


def _reply(message: Message, lang: str, **kwargs):
    from bot.slack.commands import Reply

    return Reply(message, lang=lang, **kwargs)


# -- save ---------------------------------------------------------------------------------------


def answer_save(corpus, user_id: str, query: str, lang: str):
    """`/papers save QUERY|ID`: save the best match and say which paper it was."""
    from bot.slack.commands import MAX_QUERY_CHARS, notice

    query = query.strip()
    if not query:
        return notice("library.save_usage", lang)
    paper = corpus.resolve(query[:MAX_QUERY_CHARS])
    if paper is None:
        return notice("library.save_not_found", lang, query=escape_code(truncate(query, 200)))
    added = corpus.library.save(user_id, paper.id)
    return _reply(render_saved_note(paper, lang, saved=True, already=not added), lang)


def render_saved_note(paper: Paper, lang: str, *, saved: bool, already: bool = False) -> Message:
    """"Saved *X*" (or removed) with a button that undoes it: the answer to a save."""
    title = escape(truncate(paper.title(lang), 200))
    key = "library.already_saved" if already else "library.saved_ok" if saved else "library.unsaved_ok"
    text = t(key, lang, title=title)
    element = save_button(paper, lang, saved=saved, state={"m": "note"})
    if saved:
        element["text"]["text"] = t("button.remove", lang)
        element.pop("style", None)
    return Message(notification_text(text), [section(text), actions(element, block_id=f"saved:{paper.id}")])


def answer_save_click(corpus, user_id: str, value: dict, lang: str, *, shareable: bool = True, card_channel_id: str = ""):
    """A click on Save / Saved / Remove: toggle the clicker's save, then redraw what they see.

    A private message (results, a card, the saved list) is redrawn in place with the new
    state; a card everyone sees (a share or a digest in a channel) cannot show one
    person's state, so the clicker gets a private note instead, with an undo button.
    """
    from bot.slack.commands import answer_details, answer_more_like, answer_search, notice

    paper = corpus.get(str(value.get("id", "")))
    if paper is None:
        return notice("card.paper_not_found", lang)
    library: Library = corpus.library
    mode, page = value.get("m"), _page(value.get("p"))
    if mode is None:
        # A card that can't show this reader's state (a share, a digest row's menu, the
        # channel's top list) always says Save, so a click there means save, never unsave:
        # a paper already saved stays saved, and the note says so and offers Remove.
        already = not library.save(user_id, paper.id, channel_id=card_channel_id)
        return _reply(render_saved_note(paper, lang, saved=True, already=already), lang)
    now_saved = library.toggle(user_id, paper.id, channel_id=card_channel_id)
    if mode == "search":
        reply = answer_search(corpus, str(value.get("q", "")), lang, page=page, shareable=shareable, saved=library.saved_ids(user_id))
    elif mode == "more":
        reply = answer_more_like(corpus, str(value.get("k", "")), lang, page=page, shareable=shareable, saved=library.saved_ids(user_id))
    elif mode == "details":
        reply = answer_details(corpus, paper.id, lang, saved={paper.id} if now_saved else set(), shareable=shareable)
    elif mode == "saved":
        reply = answer_saved(corpus, user_id, str(value.get("q", "")), lang, page=page, shareable=shareable)
    elif mode == "foryou":
        # For you leaves saved papers out, so a redraw would make the row vanish unexplained:
        # the list stays as it is, and a private note says what happened, with its undo.
        return _reply(render_saved_note(paper, lang, saved=now_saved), lang)
    else:  # the note's own Remove / Save again, Home
        reply = _reply(render_saved_note(paper, lang, saved=now_saved), lang)
        reply.replace = mode == "note"
        return reply
    reply.replace = True
    return reply


def flip_save_button(blocks: list[dict], paper_id: str, saved: bool, lang: str) -> list[dict] | None:
    """`blocks` with the Save button of `paper_id` showing `saved`; None when there is none.

    For a message only its reader sees that isn't ephemeral (a personal digest in a DM),
    which chat.update can redraw in place: the rest of the message stays as it was.
    """
    found = False
    out = []
    for block in blocks:
        if block.get("type") == "actions":
            elements = []
            for element in block.get("elements", []):
                if element.get("action_id") == "paper_save" and decode_value(element.get("value")).get("id") == paper_id:
                    state = {k: v for k, v in decode_value(element["value"]).items() if k not in ("id", "l")}
                    element = save_button(Paper(id=paper_id, title_en="", title_zh=""), lang, saved=saved, state=state)
                    found = True
                elements.append(element)
            block = {**block, "elements": elements}
        out.append(block)
    return out if found else None


def _page(raw: object) -> int:
    try:
        return max(1, int(raw))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 1


# -- saved ---------------------------------------------------------------------------------------


def answer_saved(corpus, user_id: str, query: str, lang: str, *, page: int = 1, shareable: bool = True):
    """`/papers saved [QUERY]`: the reader's own saves, newest first, five a page."""
    from bot.slack.commands import MAX_QUERY_CHARS

    saved = corpus.library.saved(user_id, query[:MAX_QUERY_CHARS], page=page)
    return _reply(render_saved(saved, lang, shareable=shareable), lang)


def _remove_button(element: dict, lang: str) -> dict:
    element = dict(element, text=dict(element["text"], text=t("button.remove", lang)))
    element.pop("style", None)
    return element


def render_saved(saved, lang: str, *, shareable: bool = True) -> Message:
    """A page of saved papers: each with Remove instead of Saved, and Previous/Next."""
    query = escape(truncate(saved.query, 200))
    if not saved.total:
        text = t("library.saved_none_query", lang, query=query) if saved.query else t("library.saved_none", lang)
        return render_notice(text)
    key = "library.saved_header_query" if saved.query else "library.saved_header"
    if saved.pages <= 1:
        key += "_single"  # no "page 1 of 1"
    head = t(key, lang, total=saved.total, query=query, page=saved.page, pages=saved.pages)
    blocks: list[dict] = [section(head), context(t("library.saved_private", lang))]
    state = {"m": "saved", "q": saved.query, "p": saved.page}
    for number, paper in enumerate(saved.papers, start=(saved.page - 1) * saved.per_page + 1):
        hit_blocks = render_hit(Hit(paper=paper, score=0.0), lang, number, shareable=shareable, saved=True, save_state=state)
        buttons = hit_blocks[-1]
        buttons["elements"] = [_remove_button(e, lang) if e["action_id"] == "paper_save" else e for e in buttons["elements"]]
        blocks.extend(hit_blocks)
    nav = []
    paging = {"m": "saved", "q": saved.query, "l": lang}
    if saved.page > 1:
        nav.append(button(t("button.prev", lang), "results_prev", {**paging, "p": saved.page - 1}))
    if saved.has_next:
        nav.append(button(t("button.next", lang), "results_next", {**paging, "p": saved.page + 1}))
    if nav:
        blocks += [divider(), actions(*nav, block_id="pages")]
    return Message(notification_text(head), blocks[: LIMITS["message_blocks"]])


def render_home_saved(library: Library, user_id: str, lang: str) -> list[dict]:
    """App Home's Saved section: the newest few saves with Remove, and how many more."""
    papers = library.saved_papers(user_id, HOME_SAVED_SHOWN + 1)
    blocks: list[dict] = [header(t("library.home_saved_title", lang))]
    if not papers:
        return blocks + [context(t("library.home_saved_none", lang))]
    for number, paper in enumerate(papers[:HOME_SAVED_SHOWN], start=1):
        hit_blocks = render_hit(Hit(paper=paper, score=0.0), lang, number, shareable=False, saved=True, save_state={"m": "home"})
        hit_blocks[0] = dict(hit_blocks[0], block_id=f"saved:{hit_blocks[0]['block_id']}")
        buttons = hit_blocks[1]
        buttons["block_id"] = f"saved:{buttons['block_id']}"
        buttons["elements"] = [_remove_button(e, lang) if e["action_id"] == "paper_save" else e for e in buttons["elements"]]
        blocks.extend(hit_blocks)
    total = library.saved_count(user_id)
    if total > HOME_SAVED_SHOWN:
        blocks.append(context(t("library.home_saved_more", lang, count=total - HOME_SAVED_SHOWN)))
    return blocks


# -- for you ---------------------------------------------------------------------------------------


def reason_text(like: Paper, lang: str, why: str = "saved") -> str:
    """"like *ParisKV*, which you saved": why a paper was ranked where it is."""
    title = escape(short_title(like, lang))
    return t("library.reason_channel" if why == "channel" else "library.reason_saved", lang, title=title)


def answer_foryou(corpus, user_id: str, lang: str, *, shareable: bool = True):
    """`/papers foryou`: the newest papers, most like the reader's saves first."""
    from bot.slack.commands import notice

    library: Library = corpus.library
    has_saves = library.saved_count(user_id) > 0
    ranked = library.foryou(user_id, limit=FORYOU_SHOWN)
    if not ranked:
        return notice("library.foryou_none", lang)
    head = t("library.foryou_header", lang) if has_saves else t("library.foryou_nothing_saved", lang)
    blocks: list[dict] = [section(head)]
    for number, item in enumerate(ranked, start=1):
        hit_blocks = render_hit(Hit(paper=item.paper, score=item.score), lang, number, shareable=shareable, save_state={"m": "foryou"})
        if item.like is not None:
            hit_blocks.insert(1, context(reason_text(item.like, lang)))
        blocks.extend(hit_blocks)
    return _reply(Message(notification_text(head), blocks[: LIMITS["message_blocks"]]), lang)


# -- top -----------------------------------------------------------------------------------------


def render_top(library: Library, channel_id: str, period: str, lang: str) -> Message:
    """`/papers top [week|month]`: the channel's most shared, saved and reacted papers."""
    items = library.top(channel_id, period)
    if not items:
        return render_notice(t(f"library.top_none_{period}", lang, channel_id=channel_id))
    head = t(f"library.top_header_{period}", lang, channel_id=channel_id)
    blocks: list[dict] = [section(head)]
    for number, item in enumerate(items, start=1):
        hit_blocks = render_hit(Hit(paper=item.paper, score=item.score), lang, number, shareable=True)
        bits = []
        if item.shares:
            bits.append(t("library.top_shares", lang, count=item.shares))
        if item.saves:
            bits.append(t("library.top_saves", lang, count=item.saves))
        if item.voters:
            bits.append(t("library.top_voters", lang, count=item.voters))
        hit_blocks.insert(1, context(" · ".join(bits)))
        blocks.extend(hit_blocks)
    blocks.append(context(t("library.top_usage", lang)))
    return Message(notification_text(head), blocks[: LIMITS["message_blocks"]])


def popular_line(papers: list[Paper], lang: str) -> str:
    """The line a channel digest opens with: "Popular in this channel this week: A · B"."""
    names = " · ".join(f"*{escape(short_title(p, lang))}*" for p in papers[:POPULAR_IN_DIGEST])
    return t("library.popular_intro", lang, papers=names)


# -- export ---------------------------------------------------------------------------------------


def answer_export(library: Library, user_id: str, rest: str, lang: str, *, clock=None):
    """`/papers export bibtex|ris|csl-json`: the reader's saves as a file, sent by DM."""
    from bot.slack.commands import notice

    fmt = normalize_format(rest) if rest.strip() else None
    if fmt is None:
        return notice("library.export_usage", lang)
    papers = library.saved_papers(user_id)
    if not papers:
        return notice("library.export_empty", lang)
    label = {"bibtex": "BibTeX", "ris": "RIS", "csl-json": "CSL-JSON"}[fmt]
    day = (clock or system_clock)().date().isoformat()
    upload = {
        "filename": f"paperbot-saved-{day}.{EXTENSIONS[fmt]}",
        "content": export_papers(papers, fmt),
        "title": f"paperbot saved papers ({label})",
        "comment": t("library.export_comment", lang, count=len(papers), format=label),
    }
    reply = notice("library.export_sending", lang, count=len(papers), format=label)
    reply.upload = upload
    return reply


def send_upload(reply, *, client, respond, user_id: str, channel_id: str) -> bool:
    """DM the reply's file with files_upload_v2 (getUploadURLExternal + completeUploadExternal)."""
    from slack_sdk.errors import SlackApiError

    from bot.slack.delivery import error_code, tell_user

    upload = reply.upload
    try:
        dm = client.conversations_open(users=user_id)["channel"]["id"]
        client.files_upload_v2(
            channel=dm, content=upload["content"], filename=upload["filename"], title=upload["title"],
            initial_comment=upload["comment"],
        )  # fmt: skip
        return True
    except SlackApiError as error:
        code = error_code(error)
        logger.warning("export upload for %s failed: %s", user_id, code)
    except Exception:
        logger.exception("export upload for %s failed", user_id)
        code = "upload_failed"
    tell_user(t("library.export_failed", reply.lang, error=code), lang=reply.lang, respond=respond, client=client, user_id=user_id, channel_id=channel_id)
    return False


# -- reactions ---------------------------------------------------------------------------------------


def register(app, corpus) -> None:
    """Reactions on the bot's paper cards in channels are that channel's votes."""

    def on_reaction(event, added: bool, log) -> None:
        item = event.get("item") or {}
        if item.get("type") != "message":
            return
        try:
            corpus.library.react(
                channel_id=item.get("channel", ""), message_ts=str(item.get("ts", "")), user_id=event.get("user", ""),
                reaction=event.get("reaction", ""), added=added, event_ts=str(event.get("event_ts", "")),
            )  # fmt: skip
        except Exception:
            log.exception("recording a reaction in %s failed", item.get("channel"))

    @app.event("reaction_added")
    def on_reaction_added(event, logger):
        on_reaction(event, True, logger)

    @app.event("reaction_removed")
    def on_reaction_removed(event, logger):
        on_reaction(event, False, logger)

