"""For you, learned: gather a person's (or a channel's) signals, rank, and give each pick a reason.

The signals: saves (a 👍), 👍 / 👎 from the feedback store (bot/store/feedback.py), opens
(weak), and interests (a cold start). The model is bot/library/learning.py. Every pick
carries a `Reason` (bot/models.py), rendered in the reader's language by the Slack side:
the saved or liked paper it is like, the interest it matches, how many people in the
channel liked it, or, with nothing close, that it is among the newest.

Privacy: a person's signals are read by the (team, user) Slack signed for; a channel's
only as counts of its members' votes on its own cards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.library.learning import Dense, Example, HashedTerms, Learner, Pool, log_scale, make_pool, signal_weight
from bot.models import Paper, Reason
from bot.store.feedback import FeedbackStore, PlaceVotes

PROFILE_MAX = 500  # the most recent saves / votes that teach a model

SOURCE_REASONS = {"saved": "saved", "liked": "liked", "opened": "opened", "interest": "interest", "channel": "channel_like"}
"""A pick's reason kind, by the source of the example it is most like."""


@dataclass
class Recommended:
    """A for-you pick: the paper, its score, and why it is here."""

    paper: Paper
    score: float
    reason: Reason


@dataclass
class Signals:
    """What a model learns from, and what must never come back."""

    examples: list[Example]
    excluded: set[str]

    @property
    def has_any(self) -> bool:
        return bool(self.examples)


class Recommender:
    """Ranks papers for a person or a channel from their signals."""

    def __init__(
        self,
        feedback: FeedbackStore,
        hashed: HashedTerms,
        *,
        saved_papers,
        get_many,
        alternatives=None,
        dense: Callable[[], Dense | None] | None = None,
        canonical: Callable[[str, str], str] | None = None,
    ):
        self.feedback = feedback
        # text -> what a search for it also looks for (Corpus.alternatives): an interest in
        # one language matches papers in the other, as a search for it would.
        self._alternatives = alternatives or (lambda _text: ())
        self.learner = Learner(hashed)
        self.hashed = hashed
        self._saved_papers = saved_papers  # user_id, limit, team_id= -> their saved papers, newest first
        self._get_many = get_many  # ids -> papers (each a duplicate's canonical paper: Corpus.shown_once)
        # The papers' vectors by meaning, when there are any (Corpus.meaning); None: the terms alone.
        self._dense = dense or (lambda: None)
        # A duplicate's id -> its canonical paper's (bot/semantic/dupes.py): a 👍 or 👎 on either counts for it.
        self._canonical = canonical or (lambda paper_id, _team: paper_id)
        self._pool: tuple[tuple, Dense | None, Pool] | None = None

    # -- signals ------------------------------------------------------------------------------

    def person_signals(self, team_id: str, user_id: str) -> Signals:
        """A person's examples: saves and 👍 (positive), opens (weak), 👎 (negative, and
        excluded), interests (positive text)."""
        saved = self._saved_papers(user_id, PROFILE_MAX, team_id=team_id)
        saved_ids = {p.id for p in saved}
        signals = [s for s in self.feedback.signals(team_id, user_id) if s.paper_id not in saved_ids][:PROFILE_MAX]
        papers = {p.id: p for p in self._get_many([s.paper_id for s in signals], team_id)}
        examples = [Example(1, "saved", paper=p) for p in saved]
        for signal in signals:
            paper = papers.get(self._canonical(signal.paper_id, team_id))  # a 👍 on a duplicate teaches its paper
            if paper is None:
                continue
            if signal.value < 0:
                examples.append(Example(-1, "disliked", paper=paper))
            else:
                source = "opened" if signal.weak else "liked"
                examples.append(Example(1, source, paper=paper, weight=signal_weight(source)))
        examples += [
            Example(1, "interest", interest=i, alternatives=tuple(self._alternatives(i)))
            for i in self.feedback.interests(team_id, user_id)
        ]
        excluded = saved_ids | {self._canonical(s.paper_id, team_id) for s in signals if s.value < 0}
        return Signals(examples, excluded)

    def channel_signals(self, team_id: str, channel_id: str, profile: list[Paper], weights: dict[str, float]) -> Signals:
        """A channel's examples: what it shared, saved from its cards and reacted to (the
        reading list's profile), and its members' net 👍 / 👎 on its cards. A paper most of
        the voters 👎'd is excluded from the channel's highlights."""
        votes = self.place_votes(team_id, channel_id)
        examples = [Example(1, "channel", paper=p, weight=log_scale(int(weights.get(p.id, 1)))) for p in profile]
        known = {p.id for p in profile}
        voted = {p.id: p for p in self._get_many(list(votes), team_id)}
        excluded = set()
        for paper_id, count in votes.items():
            paper = voted.get(paper_id)
            if paper is None:
                continue
            if count.down > count.up:
                excluded.add(paper_id)
                examples.append(Example(-1, "disliked", paper=paper))
            elif count.up > count.down and paper_id not in known:
                examples.append(Example(1, "channel", paper=paper, weight=log_scale(count.up - count.down)))
        return Signals(examples, excluded)

    def place_votes(self, team_id: str, channel_id: str) -> dict[str, PlaceVotes]:
        """The channel's 👍 / 👎 per paper (FeedbackStore.place_votes), a duplicate's counted for its canonical paper."""
        votes: dict[str, PlaceVotes] = {}
        for paper_id, count in self.feedback.place_votes(team_id, channel_id).items():
            canonical = self._canonical(paper_id, team_id)
            had = votes.get(canonical, PlaceVotes(canonical))
            votes[canonical] = PlaceVotes(canonical, had.up + count.up, had.down + count.down)
        return votes

    # -- ranking ------------------------------------------------------------------------------

    def pool(self, papers: list[Paper]) -> Pool:
        """The papers as a matrix, reused while the same papers are ranked (a digest morning)
        and no more of them have a vector by meaning."""
        key = tuple((p.id, p.rev) for p in papers)
        dense = self._dense()
        cached = self._pool
        if cached is not None and cached[0] == key and cached[1] is dense:
            had = 0 if cached[2].has_dense is None else int(cached[2].has_dense.sum())
            if dense is None or len(dense.paper_vectors([p.id for p in papers])) == had:
                return cached[2]
        pool = make_pool(papers, self.hashed, dense)
        self._pool = (key, dense, pool)
        return pool

    def rank(
        self, papers: list[Paper], signals: Signals, *, channel_id: str = "", channel_votes: dict[str, int] | None = None
    ) -> list[Recommended]:
        """Rank `papers` (newest first is the order kept without signals); never the excluded,
        nor the papers the signals are about (the caller decides where those go)."""
        pool = self.pool(papers)
        learner = self.learner if pool.dense is None else replace(self.learner, dense=self._dense())
        picks = learner.rank_pool(pool, signals.examples, exclude=signals.excluded)
        votes = channel_votes or {}
        return [Recommended(p.paper, p.score, self._reason(p.paper, p.like, votes, channel_id)) for p in picks]

    @staticmethod
    def _reason(paper: Paper, like: Example | None, channel_votes: dict[str, int], channel_id: str) -> Reason:
        liked_by = channel_votes.get(paper.id, 0)
        if liked_by > 0:
            return Reason("channel", count=liked_by, channel_id=channel_id)
        if like is None:
            return Reason("new")
        kind = SOURCE_REASONS.get(like.source, "new")
        if kind == "interest":
            return Reason("interest", interest=like.interest)
        return Reason(kind, paper=like.paper)
