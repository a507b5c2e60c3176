"""Searching: a page of results, papers like one, a paper's whole card.

Pure over the corpus: the reader's saved ids come in (`saved`) to mark their Save
buttons. A page past the end (a stale Next) shows the last page, or, under an estimated
total whose last page is not known, says so and leads back one page.
"""

from __future__ import annotations

from bot.corpus import Corpus
from bot.i18n import t
from bot.models import Hit, Identifier, SearchResult, read_identifier
from bot.search.query import MAX_QUERY_CHARS
from bot.slack.render.cards import render_card
from bot.slack.render.mrkdwn import escape_code
from bot.slack.render.results import render_results
from bot.slack.reply import Reply, notice

PER_PAGE = 5
Saved = frozenset[str] | set[str]  # the reader's saved paper ids


def _clip_query(text: str, lang: str) -> tuple[str, str]:
    if len(text) <= MAX_QUERY_CHARS:
        return text, ""
    return text[:MAX_QUERY_CHARS], t("search.query_too_long", lang, limit=MAX_QUERY_CHARS)


def answer_search(
    corpus: Corpus,
    text: str,
    lang: str,
    *,
    page: int = 1,
    shareable: bool = True,
    saved: Saved = frozenset(),
    correct: bool = True,
    team_id: str | None = None,
) -> Reply:
    """Search and render one page; a page past the end (a stale Next) shows the last one.

    Under an estimated total the last page is not known: an empty page says so instead
    (render_past_end) and leads back one page.

    `saved`: the reader's saved paper ids, marked on their Save buttons. `correct=False`:
    the text as typed, no spelling correction ("Search instead for"). `team_id`: the
    reader's workspace (a paper another one uploaded privately is not found; None: every paper).
    """
    query, note = _clip_query(text, lang)
    identifier = read_identifier(query) if page <= 1 else None
    if identifier is not None:
        found = answer_identifier(corpus, query, identifier, lang, shareable=shareable, saved=saved, team_id=team_id)
        if found is not None:
            return found
    result = corpus.search(query, page=max(1, page), per_page=PER_PAGE, lang=lang, correct=correct, team=team_id)
    if not result.hits and result.total and result.page > result.pages and not result.estimated:
        result = corpus.search(query, page=result.pages, per_page=PER_PAGE, lang=lang, correct=correct, team=team_id)
    corrected = None
    if not correct and result.page == 1:
        # Searched as typed on purpose: keep the way back to the correction it turned down.
        fixed = corpus.search(query, per_page=1, lang=lang, team=team_id)
        corrected = fixed.suggestion if fixed.hits else None
    message = render_results(result, lang, shareable=shareable, note=note, saved=saved, corrected=corrected)
    return Reply(message, lang=lang, result=result)


MISSING = {
    "arxiv": "search.arxiv_missing",
    "doi": "search.doi_missing",
    "url": "search.url_missing",
}
"""What a pasted identifier that names no paper in the library is told, by its kind."""


def answer_identifier(
    corpus: Corpus,
    query: str,
    identifier: Identifier,
    lang: str,
    *,
    shareable: bool = True,
    saved: Saved = frozenset(),
    team_id: str | None = None,
) -> Reply | None:
    """A pasted arXiv URL or id, DOI, paper id or link: that paper, or that it isn't in the
    library (with the papers that mention it, found as the exact text); None for a paper
    id that names no paper, which is searched as a word instead."""
    paper = corpus.find_identifier(identifier, team=team_id)
    if paper is not None:
        result = SearchResult(query=query, hits=[Hit(paper=paper, score=1.0)], total=1, page=1, per_page=PER_PAGE, mode="all")
        return Reply(render_results(result, lang, shareable=shareable, saved=saved), lang=lang, result=result)
    if identifier.kind not in MISSING:
        return None
    missing = t(MISSING[identifier.kind], lang, value=escape_code(identifier.value[:200]))
    mentions = corpus.search(f'"{identifier.value}"', per_page=PER_PAGE, lang=lang, correct=False, expand=False, team=team_id)
    if not mentions.hits or mentions.mode != "all":
        return notice("search.identifier_missing", lang, missing=missing)
    note = t("search.identifier_mentioned", lang, missing=missing)
    return Reply(render_results(mentions, lang, shareable=shareable, note=note, saved=saved), lang=lang, result=mentions)


def answer_more_like(
    corpus: Corpus,
    paper_id: str,
    lang: str,
    *,
    page: int = 1,
    shareable: bool = True,
    saved: Saved = frozenset(),
    team_id: str | None = None,
) -> Reply:
    """Papers like `paper_id`, one page; a page past the end (a stale Next) shows the last one."""
    paper = corpus.get(paper_id, team=team_id)
    if paper is None:
        return notice("card.paper_not_found", lang)
    result = corpus.more_like(paper.id, page=max(1, page), per_page=PER_PAGE, team=team_id)
    if not result.hits and result.total and result.page > result.pages and not result.estimated:
        result = corpus.more_like(paper.id, page=result.pages, per_page=PER_PAGE, team=team_id)
    return Reply(render_results(result, lang, like=paper, shareable=shareable, saved=saved), lang=lang, result=result)


def answer_details(
    corpus: Corpus,
    paper_id: str,
    lang: str,
    *,
    saved: Saved = frozenset(),
    shareable: bool = True,
    team_id: str | None = None,
) -> Reply:
    """The whole card; `shareable=False` where there is no channel to share into (Home, a DM)."""
    paper = corpus.get(paper_id, team=team_id)
    if paper is None:
        return notice("card.paper_not_found", lang)
    return Reply(render_card(paper, lang, full=True, saved=paper.id in saved, shareable=shareable), lang=lang)
