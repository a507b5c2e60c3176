"""The reading list as Slack shows it: a save's note, the saved list, the channel's top papers,
App Home's Saved section, and why a paper was ranked where it is.
"""

from __future__ import annotations

from bot.i18n import t
from bot.library.ranking import short_title
from bot.library.readinglist import Library, SavedPage
from bot.models import Hit, Paper
from bot.slack.render.blocks import (
    LIMITS,
    Message,
    actions,
    button,
    context,
    divider,
    header,
    notification_text,
    render_notice,
    section,
    truncate,
)
from bot.slack.render.cards import render_hit, save_button
from bot.slack.render.mrkdwn import escape
from bot.slack.values import Action, ButtonValue

FORYOU_SHOWN = 5


HOME_SAVED_SHOWN = 5


POPULAR_IN_DIGEST = 3
SAVED_HEADERS = {
    (False, True): "library.saved_header",
    (False, False): "library.saved_header_single",
    (True, True): "library.saved_header_query",
    (True, False): "library.saved_header_query_single",
}
"""The saved list's header, by (is it searched, has it several pages)."""
TOP_HEADERS = {"week": "library.top_header_week", "month": "library.top_header_month"}
TOP_NONE = {"week": "library.top_none_week", "month": "library.top_none_month"}
"""`/papers top`'s header, and what it says when nothing was shared, by period."""


def render_saved_note(paper: Paper, lang: str, *, saved: bool, already: bool = False) -> Message:
    """ "Saved *X*" (or removed) with a button that undoes it: the answer to a save."""
    title = escape(truncate(paper.title(lang), 200))
    key = "library.already_saved" if already else "library.saved_ok" if saved else "library.unsaved_ok"
    text = t(key, lang, title=title)
    element = save_button(paper, lang, saved=saved, state=ButtonValue(mode="note"))
    if saved:
        element["text"]["text"] = t("button.remove", lang)
        element.pop("style", None)
    return Message(notification_text(text), [section(text), actions(element, block_id=f"saved:{paper.id}")])


def _remove_button(element: dict, lang: str) -> dict:
    element = dict(element, text=dict(element["text"], text=t("button.remove", lang)))
    element.pop("style", None)
    return element


def render_saved(saved: SavedPage, lang: str, *, shareable: bool = True) -> Message:
    """A page of saved papers: each with Remove instead of Saved, and Previous/Next."""
    query = escape(truncate(saved.query, 200))
    if not saved.total:
        text = t("library.saved_none_query", lang, query=query) if saved.query else t("library.saved_none", lang)
        return render_notice(text)
    key = SAVED_HEADERS[(bool(saved.query), saved.pages > 1)]  # no "page 1 of 1"
    head = t(key, lang, total=saved.total, query=query, page=saved.page, pages=saved.pages)
    blocks: list[dict] = [section(head), context(t("library.saved_private", lang))]
    state = ButtonValue(mode="saved", query=saved.query, page=saved.page)
    for number, paper in enumerate(saved.papers, start=(saved.page - 1) * saved.per_page + 1):
        hit_blocks = render_hit(Hit(paper=paper, score=0.0), lang, number, shareable=shareable, saved=True, save_state=state)
        buttons = hit_blocks[-1]
        buttons["elements"] = [_remove_button(e, lang) if e["action_id"] == "paper_save" else e for e in buttons["elements"]]
        blocks.extend(hit_blocks)
    nav = []
    paging = ButtonValue(mode="saved", query=saved.query, lang=lang)
    if saved.page > 1:
        nav.append(button(t("button.prev", lang), Action.PREV, paging.but(page=saved.page - 1)))
    if saved.has_next:
        nav.append(button(t("button.next", lang), Action.NEXT, paging.but(page=saved.page + 1)))
    if nav:
        blocks += [divider(), actions(*nav, block_id="pages")]
    return Message(notification_text(head), blocks[: LIMITS["message_blocks"]])


def render_home_saved(library: Library, user_id: str, lang: str, *, team_id: str = "") -> list[dict]:
    """App Home's Saved section: the newest few saves with Remove, and how many more."""
    papers = library.saved_papers(user_id, HOME_SAVED_SHOWN + 1, team_id=team_id)
    blocks: list[dict] = [header(t("library.home_saved_title", lang))]
    if not papers:
        return blocks + [context(t("library.home_saved_none", lang))]
    for number, paper in enumerate(papers[:HOME_SAVED_SHOWN], start=1):
        hit_blocks = render_hit(
            Hit(paper=paper, score=0.0), lang, number, shareable=False, saved=True, save_state=ButtonValue(mode="home")
        )
        hit_blocks[0] = dict(hit_blocks[0], block_id=f"saved:{hit_blocks[0]['block_id']}")
        buttons = hit_blocks[1]
        buttons["block_id"] = f"saved:{buttons['block_id']}"
        buttons["elements"] = [_remove_button(e, lang) if e["action_id"] == "paper_save" else e for e in buttons["elements"]]
        blocks.extend(hit_blocks)
    total = library.saved_count(user_id, team_id=team_id)
    if total > HOME_SAVED_SHOWN:
        blocks.append(context(t("library.home_saved_more", lang, count=total - HOME_SAVED_SHOWN)))
    return blocks


def render_top(library: Library, channel_id: str, period: str, lang: str, *, team_id: str = "") -> Message:
    """`/papers top [week|month]`: the channel's most shared, saved and reacted papers (of
    those the channel's workspace may see: Library.top)."""
    items = library.top(channel_id, period, team_id=team_id)
    if not items:
        return render_notice(t(TOP_NONE[period], lang, channel_id=channel_id))
    head = t(TOP_HEADERS[period], lang, channel_id=channel_id)
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
