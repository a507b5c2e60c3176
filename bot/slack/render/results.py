"""A page of search results: the count, notes (a correction, the any-word fallback), the hits
with their buttons, and Previous / Next; "nothing found" with a suggestion to run.
"""

from __future__ import annotations

from bot.i18n import format_estimate, problem_text, t
from bot.models import Paper, SearchResult
from bot.slack.render.blocks import (
    LIMITS,
    Message,
    actions,
    button,
    context,
    divider,
    notification_text,
    render_notice,
    section,
    truncate,
)
from bot.slack.render.cards import render_hit
from bot.slack.render.mrkdwn import escape
from bot.slack.values import Action, ButtonValue


def render_results(
    result: SearchResult,
    lang: str,
    *,
    like: Paper | None = None,
    shareable: bool = True,
    note: str = "",
    saved: frozenset[str] | set[str] = frozenset(),
    corrected: str | None = None,
) -> Message:
    """A page of results: count, notes, the hits with buttons, and Previous/Next.

    `like` marks a "More like this" page (the header names that paper and paging keeps
    asking for papers like it). `shareable=False` drops Share (App Home has no channel).
    `saved`: the reader's saved paper ids, shown as "Saved" on their buttons.
    `corrected`: this page searched the text as typed, and the correction it turned
    down; the page offers the way back to it.

    A corrected search names the corrected query in its header, says once what was
    typed, and offers one way to search as typed (a button).
    """
    suggestion = _suggestion_to_offer(result) if like is None else None
    query_label = escape(truncate(query_label_text(suggestion or result.query), 200))
    notes = [note] if note else []
    if result.problem:
        notes.append(problem_text(result.problem, lang))
    if result.is_past_end:
        return render_past_end(result, lang, like=like, notes=notes)
    if like is not None:
        title = escape(truncate(like.title(lang), 200))
        if not result.hits:
            return render_notice("\n".join([t("search.more_like_none", lang, title=title), *notes]))
        head = results_header(result, lang, title=title)
    else:
        if not result.hits:
            return render_no_results(result, lang, notes, corrected=corrected)
        head = results_header(result, lang, query=query_label)
        if result.mode == "any":
            notes.append(t("search.any_terms", lang))
        if corrected:
            notes.append(t("search.as_typed", lang))
    blocks: list[dict] = [section(head)]
    if suggestion:
        # The hits are the corrected query's (the header names it): say what was typed, once.
        notes.append(t("search.corrected_from", lang, query=escape(truncate(result.query, 200))))
    if notes:
        blocks.append(context(*notes))
    state = page_state(result, lang, like=like).but(page=result.page, lang="")
    if like is not None:
        state = state.but(like_id=state.id, id="")  # `id` is the paper a Save button saves
    for number, hit in enumerate(result.hits, start=(result.page - 1) * result.per_page + 1):
        blocks.extend(
            render_hit(
                hit, lang, number, shareable=shareable, saved=hit.paper.id in saved, save_state=state,
                buttons=not result.store_away,
            )
        )  # fmt: skip
    if result.store_away:  # under the results: what they may lack; no button could answer until it is back
        blocks.append(context(t("search.store_away", lang)))
        return Message(text=notification_text(head), blocks=blocks[: LIMITS["message_blocks"]])
    nav = page_buttons(result, lang, like=like)
    if suggestion or corrected:
        nav = nav or actions(block_id="pages")
        nav["elements"].append(
            search_instead_button(result.query, lang) if suggestion else back_button(result.query, corrected or "", lang)
        )
    if nav:
        blocks.append(divider())
        blocks.append(nav)
    return Message(text=notification_text(head), blocks=blocks[: LIMITS["message_blocks"]])


def query_label_text(query: str) -> str:
    """The query as a header quotes it: a whole-query phrase without its own quotes, so
    “"language models"” reads “language models”."""
    stripped = query.strip()
    if len(stripped) > 2 and stripped[0] == stripped[-1] == '"' and '"' not in stripped[1:-1]:
        return stripped[1:-1]
    return query


SEARCH_HEADERS = {
    "pages": "search.header",
    "single": "search.header_single",
    "estimated": "search.header_estimated",
    "estimated_page": "search.header_estimated_page",
}
MORE_LIKE_HEADERS = {
    "pages": "search.more_like_header",
    "single": "search.more_like_header_single",
    "estimated": "search.more_like_header_estimated",
    "estimated_page": "search.more_like_header_estimated_page",
}
"""The count line of a page of results (or of papers like one), by what is known of the total."""


def results_header(result: SearchResult, lang: str, *, query: str = "", title: str | None = None) -> str:
    """The count line: "*7* papers for “q” · page 1 of 2", or "About *36,000* papers for “q”".

    `title` (already escaped) makes it a "More like this" header. An estimated total is
    rounded (`format_estimate`) and has no "of N pages": N would be an estimate too.
    """
    headers = MORE_LIKE_HEADERS if title is not None else SEARCH_HEADERS
    if result.estimated:
        key = headers["estimated_page" if result.page > 1 else "estimated"]
        shown = (result.page - 1) * result.per_page + len(result.hits)
        total: int | str = format_estimate(result.total, lang, at_least=shown)
    else:
        key = headers["pages" if result.pages > 1 else "single"]  # no "page 1 of 1"
        total = result.total
    return t(key, lang, total=total, query=query, title=title or "", page=result.page, pages=result.pages)


def render_past_end(result: SearchResult, lang: str, *, like: Paper | None = None, notes: list[str] | None = None) -> Message:
    """An estimated total promised a page the matches did not reach: say so, and offer the one before."""
    if like is not None:
        text = t("search.more_like_past_end", lang, title=escape(truncate(like.title(lang), 200)), page=result.page)
    else:
        text = t("search.past_end", lang, query=escape(truncate(result.query, 200)), page=result.page)
    blocks = [section(text)]
    if notes:
        blocks.append(context(*notes))
    blocks.append(
        actions(
            button(t("button.prev", lang), Action.PREV, page_state(result, lang, like=like).but(page=result.page - 1)),
            block_id="pages",
        )
    )
    return Message(text=notification_text(text), blocks=blocks)


def page_state(result: SearchResult, lang: str, *, like: Paper | None = None) -> ButtonValue:
    """What a paging button needs to ask for another page of the same results."""
    if like is not None:
        return ButtonValue(mode="more", id=like.id, lang=lang)
    return ButtonValue(mode="search", query=result.query, lang=lang)


def page_buttons(result: SearchResult, lang: str, *, like: Paper | None = None) -> dict | None:
    state = page_state(result, lang, like=like)
    elements = []
    if result.page > 1:
        elements.append(button(t("button.prev", lang), Action.PREV, state.but(page=result.page - 1)))
    if result.has_next:
        elements.append(button(t("button.next", lang), Action.NEXT, state.but(page=result.page + 1)))
    return actions(*elements, block_id="pages") if elements else None


def render_no_results(
    result: SearchResult, lang: str, notes: list[str] | None = None, *, corrected: str | None = None
) -> Message:
    """Say nothing matched; offer the index's suggestion as a button that runs it, or, when
    the text was searched as typed on purpose, the way back to its correction."""
    query_label = escape(truncate(result.query, 200))
    text = t("search.none_as_typed" if corrected else "search.none", lang, query=query_label)
    blocks = [section(text)]
    notes = [*(notes or []), *([t("search.store_away_none", lang)] if result.store_away else [])]
    if notes:
        blocks.append(context(*notes))
    if result.store_away:
        return Message(text=notification_text(text), blocks=blocks)
    if corrected:
        blocks.append(actions(back_button(result.query, corrected, lang), block_id="suggest"))
    elif result.suggestion:
        suggestion = escape(truncate(result.suggestion, 200))
        blocks.append(section(t("search.suggestion_prompt", lang, suggestion=suggestion)))
        blocks.append(actions(suggestion_button(result.suggestion, lang), block_id="suggest"))
    blocks.append(context(t("search.none_hint", lang)))
    return Message(text=notification_text(text), blocks=blocks)


def _suggestion_to_offer(result: SearchResult) -> str | None:
    suggestion = (result.suggestion or "").strip()
    if not suggestion or suggestion.casefold() == result.query.strip().casefold():
        return None
    return suggestion


def search_instead_button(query: str, lang: str) -> dict:
    """A button that runs `query` as typed, without spelling correction (`x`: exact)."""
    label = t("button.search_instead", lang, query=truncate(query, 40))
    return button(label, Action.SEARCH, ButtonValue(query=query, lang=lang, exact=True))


def back_button(query: str, corrected: str, lang: str) -> dict:
    """The way back from a search as typed: `query` again, corrected (to `corrected`)."""
    label = t("button.back_to_corrected", lang, query=truncate(corrected, 40))
    return button(label, Action.SEARCH, ButtonValue(query=query, lang=lang), style="primary")


def suggestion_button(suggestion: str, lang: str) -> dict:
    """A button that runs the suggested query (replacing the message it sits in)."""
    label = t("button.search", lang, query=truncate(suggestion, 50))
    return button(label, Action.SEARCH, ButtonValue(query=suggestion, lang=lang), style="primary")
