"""What a digest holds: the papers new for a subscription, matching its filter, ranked for its highlights.

`compose_digest` collects the papers first stored after the subscription's cursor (up to
what the index has caught up with, when there is a filter); `Digest.highlights` picks the
first message's papers with `rank_highlights`, the one place digests rank. Pure over the
corpus: no Slack, no clock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date

from bot.corpus import Corpus
from bot.digests.times import day_set
from bot.models import Paper, Reason

MAX_PAPERS = 500
"""At most this many papers in one digest (about 23 messages); more wait for the next."""
MAX_PER_FEED = MAX_PAPERS // 2
"""At most this many papers of one feed in one digest, so no feed can fill it.

A feed that floods the library (a poll of thousands, hour after hour) would otherwise
fill every digest, oldest first, for hundreds of runs. Its papers over this are left out
and counted (`Digest.left_out`), not held back: held back, they would keep the cursor
behind them and lead every next digest, which is the flood again. Why a cap and not an
interleave by feed: with one cursor, whatever a digest skips below it is skipped for
good either way, and a cap says plainly how much and from where. Half of MAX_PAPERS: a
day's large listing still fills half a digest, and the other feeds always have the other half.
"""


@dataclass
class Digest:
    """What one digest holds: papers oldest first, and the cursor once it is delivered."""

    lang: str
    local_date: date
    papers: list[Paper] = field(default_factory=list)
    filter_text: str = ""
    from_seq: int = 0
    to_seq: int = 0
    held_back: int = 0  # matching papers over MAX_PAPERS, left for the next digest
    left_out: dict[str, int] = field(default_factory=dict)  # feed -> its papers over max_per_feed, not in any digest
    max_per_feed: int = MAX_PER_FEED  # the share of one feed this digest was composed with
    resumed: bool = False  # continues a thread whose first message is already posted
    # Set by the subscription's order (bot.library.readinglist.Library.order_digest):
    order: str = "new"  # "new" keeps papers oldest first; otherwise they are ranked
    reasons: dict[str, Reason] = field(default_factory=dict)  # paper id -> why it is where it is (issue 27)
    reason_kind: str = ""  # "saved" (a person's saves) | "channel" (what the channel valued)
    popular: list[Paper] = field(default_factory=list)  # the channel's popular papers this week
    top: int = 10  # papers in the first message (the highlights); the rest go in its thread
    relevance: dict[str, float] = field(default_factory=dict)  # paper id -> filter score
    days: str = "*"  # the subscription's days (bot.digests.times): a digest once a week is a weekly one

    @property
    def count(self) -> int:
        return len(self.papers)

    @property
    def is_weekly(self) -> bool:
        return is_weekly(self.days)

    def highlights(self) -> list[Paper]:
        """The papers of the first message: the `top` best by `rank_highlights`.

        A digest the subscription's order ranked (bot.library.readinglist, `order:foryou|popular`)
        keeps that ranking after the filter's relevance.
        """
        keys: list[RankKey] = []
        if self.order != "new":
            position = {paper.id: i for i, paper in enumerate(self.papers)}
            keys.append(lambda paper: -position[paper.id])
        return rank_highlights(self.papers, self.relevance, keys)[: self.top]

    def rest(self) -> list[Paper]:
        """The papers after the highlights, oldest first (the thread groups them by venue)."""
        chosen = {p.id for p in self.highlights()}
        return [p for p in self.papers if p.id not in chosen]


def is_weekly(days: str) -> bool:
    """A digest that comes on one day of the week (`weekly mon`, 每周一) is a weekly one."""
    return len(day_set(days)) == 1


RankKey = Callable[[Paper], float]
"""A paper's score under one ordering, higher first (the order a subscription ranked them in, ...)."""


def _venue_weight(paper: Paper) -> float:
    """Without a filter, papers with a main-track venue come first, then workshops."""
    return {"main": 2.0, "workshop": 1.0}.get(paper.track, 1.5 if paper.venue else 0.0)


def rank_highlights(papers: list[Paper], relevance: dict[str, float], keys: Iterable[RankKey] = ()) -> list[Paper]:
    """Order a digest's papers for its highlights: the one place digests rank.

    By the filter's relevance score (BM25 from the index; all 0 without a filter), then
    each of `keys` in turn, then venue (main track, workshop, none), then oldest first, so
    the order is total and stable.
    """
    keys = list(keys)

    def sort_key(paper: Paper) -> tuple:
        extra = tuple(-key(paper) for key in keys)
        return (-relevance.get(paper.id, 0.0), *extra, -_venue_weight(paper), paper.seq)

    return sorted(papers, key=sort_key)


def covered_seq(corpus: Corpus, filter_text: str) -> int:
    """The highest seq a digest may cover now: every paper up to it is visible to the query.

    Without a filter papers come from the store, whose seqs are committed in order. With
    one they come from the index, which catches up after the store commits; its rev says
    how far it got (a paper's first rev is its seq, and the index syncs in rev order).
    """
    last = corpus.store.last_seq()
    if not filter_text.strip():
        return last
    _, indexed_rev = corpus.index.state()
    return min(last, indexed_rev)


def compose_digest(
    corpus: Corpus,
    *,
    after_seq: int,
    filter_text: str = "",
    lang: str = "en",
    local_date: date,
    exclude_ids: Iterable[str] = (),
    max_papers: int = MAX_PAPERS,
    max_per_feed: int = MAX_PER_FEED,
    top: int = 10,
    team: str | None = None,
) -> Digest:
    """Collect the papers first stored after `after_seq` that match `filter_text`.

    Covers seqs up to `covered_seq`; papers in `exclude_ids` (already posted by a digest
    that was cut short) are left out, and so are a feed's papers over `max_per_feed`
    (counted in `left_out`). When more than `max_papers` are left, the oldest go now and
    `to_seq` stops after them, so the rest lead the next digest. `team`: the workspace the
    digest is for; a paper another workspace uploaded privately is never in it (None: every
    paper, the CLI's preview).
    """
    upto = covered_seq(corpus, filter_text)
    digest = Digest(
        lang=lang,
        local_date=local_date,
        filter_text=filter_text,
        from_seq=after_seq,
        to_seq=max(after_seq, upto),
        top=top,
        max_per_feed=max_per_feed,
    )
    if upto <= after_seq:
        return digest
    papers = corpus.new_papers(after_seq=after_seq, upto_seq=upto, filter_text=filter_text, team=team)
    skip = set(exclude_ids)
    papers = [p for p in papers if p.id not in skip]
    kept, over = share_by_feed(papers, max_per_feed)
    if len(kept) > max_papers:
        kept = kept[:max_papers]
        digest.to_seq = kept[-1].seq
        # Everything after the cut comes back next time, a capped feed's papers too.
        digest.held_back = sum(1 for paper in papers if paper.seq > digest.to_seq)
    for paper in over:
        if paper.seq <= digest.to_seq:
            feed = feed_of(paper)
            digest.left_out[feed] = digest.left_out.get(feed, 0) + 1
    papers = kept
    digest.papers = papers
    if filter_text.strip() and papers:
        digest.relevance = relevance_scores(corpus, filter_text, after_seq, {p.id for p in papers})
    return digest


def subscription_team(sub: object) -> str | None:
    """The workspace a subscription's digest is for: its `team_id` once subscriptions are
    keyed by workspace (issue 25), until then None (every paper, as before)."""
    team = getattr(sub, "team_id", None)
    return team if isinstance(team, str) else None


def feed_of(paper: Paper) -> str:
    """The feed a paper counts against in a digest: the first that listed it."""
    return paper.feeds[0] if paper.feeds else ""


def share_by_feed(papers: list[Paper], max_per_feed: int) -> tuple[list[Paper], list[Paper]]:
    """Split papers (oldest first) into those within their feed's `max_per_feed` and the rest."""
    kept: list[Paper] = []
    over: list[Paper] = []
    counts: dict[str, int] = {}
    for paper in papers:
        feed = feed_of(paper)
        counts[feed] = counts.get(feed, 0) + 1
        (kept if counts[feed] <= max_per_feed else over).append(paper)
    return kept, over


def relevance_scores(corpus: Corpus, filter_text: str, after_seq: int, ids: set[str]) -> dict[str, float]:
    """Each paper's relevance to the filter (the index's score), for ranking highlights.

    The scores a search for the filter gives the papers after `after_seq` (its best
    len(ids) + 50), read from the new papers' segments only (PaperIndex.score_new). Only
    when some of `ids` do not match the filter's words with short names resolved (北大
    typed as such) does the full search run, which ranks those through its fallbacks.
    """
    window = max(len(ids), 1) + 50
    found = corpus.index.score_new(filter_text, after_seq=after_seq, aliases=True)
    scores = {paper_id: score for paper_id, score in found[:window] if paper_id in ids}
    if len(found) <= window and len(scores) < len(ids):
        page = corpus.index.search(filter_text, min_seq=after_seq, limit=window)
        return {h.id: float(h.score or 0.0) for h in page.hits if h.id in ids}
    return scores
