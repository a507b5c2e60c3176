"""The reading list's answers: save, saved, foryou, top, export, and a click on Save.

The domain (saves, votes, rankings, export formats) is bot/library/; the rendering is
bot/slack/render/library.py. Answers are pure (they return a `Reply`), so the offline
console shares them.

Privacy: every answer reads the saves of the (`team_id`, `user_id`) Slack signed for,
never of an id in a button value or in what was typed; the Save button's value names
only the paper and the view to redraw.
"""

from __future__ import annotations

from bot.clock import Clock, system_clock
from bot.i18n import t
from bot.library.export import EXTENSIONS, FORMAT_LABELS, export_papers, normalize_format
from bot.library.readinglist import Library
from bot.models import Hit, Paper
from bot.search.query import MAX_QUERY_CHARS
from bot.services import Services
from bot.slack.answers.search import answer_details, answer_more_like, answer_search
from bot.slack.render.blocks import LIMITS, Message, context, notification_text, section, truncate
from bot.slack.render.cards import render_hit, save_button
from bot.slack.render.feedback import reason_line
from bot.slack.render.library import (
    FORYOU_SHOWN,
    render_saved,
    render_saved_note,
    render_top,
)
from bot.slack.render.mrkdwn import escape, escape_code
from bot.slack.reply import Reply, Upload, notice
from bot.slack.values import Action, ButtonValue, decode_value
from bot.slack.words import PERIOD_WORDS, Command


def answer_library_command(
    services: Services, user_id: str, channel_id: str, command: Command, rest: str, lang: str, *, team_id: str = ""
) -> Reply:
    """`/papers save|saved|foryou|interests|top|export ...`; `channel_id` is '' in a DM."""
    if command is Command.SAVE:
        return answer_save(services, user_id, rest, lang, team_id=team_id)
    if command is Command.SAVED:
        return answer_saved(services.library, user_id, rest, lang, shareable=bool(channel_id), team_id=team_id)
    if command is Command.FORYOU:
        return answer_foryou(services.library, user_id, lang, shareable=bool(channel_id), team_id=team_id)
    if command is Command.TOP:
        if not channel_id:
            return notice("library.top_needs_channel", lang)
        asked = rest.strip().lower()
        if asked and asked not in PERIOD_WORDS:  # `top year`: say what top takes
            return notice("library.top_bad_period", lang, value=escape_code(truncate(rest.strip(), 40)))
        period = PERIOD_WORDS.get(asked, "week")
        return Reply(render_top(services.library, channel_id, period, lang, team_id=team_id), lang=lang)
    return answer_export(services.library, user_id, rest, lang, clock=services.clock, team_id=team_id)


# -- save ---------------------------------------------------------------------------------------


def answer_save(services: Services, user_id: str, query: str, lang: str, *, team_id: str = "") -> Reply:
    """`/papers save QUERY|ID`: save the best match (of the papers `team_id` sees) and say which paper it was."""
    query = query.strip()
    if not query:
        return notice("library.save_usage", lang)
    paper = services.corpus.resolve(query[:MAX_QUERY_CHARS], team=team_id)
    if paper is None:
        return notice("library.save_not_found", lang, query=escape_code(truncate(query, 200)))
    added = services.library.save(user_id, paper.id, team_id=team_id)
    return Reply(render_saved_note(paper, lang, saved=True, already=not added), lang=lang)


def answer_save_click(
    services: Services,
    user_id: str,
    value: ButtonValue,
    lang: str,
    *,
    shareable: bool = True,
    card_channel_id: str = "",
    team_id: str = "",
) -> Reply:
    """A click on Save / Saved / Remove: toggle the clicker's save, then redraw what they see.

    A private message (results, a card, the saved list) is redrawn in place with the new
    state; a card everyone sees (a share or a digest in a channel) cannot show one
    person's state, so the clicker gets a private note instead, with an undo button.
    """
    corpus, library = services.corpus, services.library
    paper = corpus.get(value.id, team=team_id)
    if paper is None:
        return notice("card.paper_not_found", lang)
    mode, page = value.mode, value.page_or(1)
    if not mode:
        # A card that can't show this reader's state (a share, a digest row's menu, the
        # channel's top list) always says Save, so a click there means save, never unsave:
        # a paper already saved stays saved, and the note says so and offers Remove.
        already = not library.save(user_id, paper.id, channel_id=card_channel_id, team_id=team_id)
        return Reply(render_saved_note(paper, lang, saved=True, already=already), lang=lang)
    now_saved = library.toggle(user_id, paper.id, channel_id=card_channel_id, team_id=team_id)
    saved = library.saved_ids(user_id, team_id=team_id) if mode in ("search", "more") else set()
    if mode == "search":
        reply = answer_search(corpus, value.query, lang, page=page, shareable=shareable, saved=saved, team_id=team_id)
    elif mode == "more":
        reply = answer_more_like(corpus, value.like_id, lang, page=page, shareable=shareable, saved=saved, team_id=team_id)
    elif mode == "details":
        reply = answer_details(
            corpus, paper.id, lang, saved={paper.id} if now_saved else set(), shareable=shareable, team_id=team_id
        )
    elif mode == "saved":
        reply = answer_saved(library, user_id, value.query, lang, page=page, shareable=shareable, team_id=team_id)
    elif mode == "foryou":
        # For you leaves saved papers out, so a redraw would make the row vanish unexplained:
        # the list stays as it is, and a private note says what happened, with its undo.
        return Reply(render_saved_note(paper, lang, saved=now_saved), lang=lang)
    else:  # the note's own Remove / Save again, Home
        reply = Reply(render_saved_note(paper, lang, saved=now_saved), lang=lang)
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
                value = decode_value(element.get("value"))
                if element.get("action_id") == Action.SAVE and value.id == paper_id:
                    state = value.but(id="", lang="")
                    element = save_button(Paper(id=paper_id, title_en="", title_zh=""), lang, saved=saved, state=state)
                    found = True
                elements.append(element)
            block = {**block, "elements": elements}
        out.append(block)
    return out if found else None


# -- saved, for you -------------------------------------------------------------------------------


def answer_saved(
    library: Library, user_id: str, query: str, lang: str, *, page: int = 1, shareable: bool = True, team_id: str = ""
) -> Reply:
    """`/papers saved [QUERY]`: the reader's own saves, newest first, five a page."""
    saved = library.saved(user_id, query[:MAX_QUERY_CHARS], page=page, team_id=team_id)
    return Reply(render_saved(saved, lang, shareable=shareable), lang=lang)


def answer_foryou(
    library: Library,
    user_id: str,
    lang: str,
    *,
    shareable: bool = True,
    team_id: str = "",
) -> Reply:
    """`/papers foryou`: the newest papers ranked by the reader's own model, each with its reason
    (never one the reader's workspace may not see: Library.foryou)."""
    signals = library.recommender.person_signals(team_id, user_id)
    picks = library.foryou(user_id, team_id=team_id, limit=FORYOU_SHOWN)
    if not picks:
        return notice("library.foryou_none", lang)
    interests = [e.interest for e in signals.examples if e.interest]
    if any(e.paper is not None for e in signals.examples):
        head = t("foryou.header_learned", lang)
    elif interests:
        separator = "、" if lang == "zh" else ", "
        head = t("foryou.header_interests", lang, interests=separator.join(escape(truncate(i, 80)) for i in interests))
    else:
        head = t("library.foryou_nothing_saved", lang)
    blocks: list[dict] = [section(head)]
    for number, pick in enumerate(picks, start=1):
        hit_blocks = render_hit(
            Hit(paper=pick.paper, score=pick.score), lang, number, shareable=shareable, save_state=ButtonValue(mode="foryou")
        )
        hit_blocks.insert(1, context(reason_line(pick.reason, lang)))
        blocks.extend(hit_blocks)
    return Reply(Message(notification_text(head), blocks[: LIMITS["message_blocks"]]), lang=lang)


# -- export ---------------------------------------------------------------------------------------


def answer_export(
    library: Library,
    user_id: str,
    rest: str,
    lang: str,
    *,
    clock: Clock = system_clock,
    team_id: str = "",
) -> Reply:
    """`/papers export bibtex|ris|csl-json`: the reader's saves as a file, sent by DM; not a
    paper their workspace may no longer see (Library.saved_papers: another workspace's
    upload it stopped sharing since it was saved)."""
    fmt = normalize_format(rest) if rest.strip() else None
    if fmt is None:
        return notice("library.export_usage", lang)
    papers = library.saved_papers(user_id, team_id=team_id)
    if not papers:
        return notice("library.export_empty", lang)
    label = FORMAT_LABELS[fmt]
    day = clock().date().isoformat()
    reply = notice("library.export_sending", lang, count=len(papers), format=label)
    reply.upload = Upload(
        filename=f"paperbot-saved-{day}.{EXTENSIONS[fmt]}",
        content=export_papers(papers, fmt, lang),
        title=f"paperbot saved papers ({label})",
        comment=t("library.export_comment", lang, count=len(papers), format=label),
    )
    return reply
