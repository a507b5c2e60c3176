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

from dataclasses import dataclass

from bot.library.learning import Example, HashedTerms, Learner, Pool, log_scale, make_pool, signal_weight
from bot.models import Paper, Reason
from bot.store.feedback import FeedbackStore

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

    def __init__(self, feedback: FeedbackStore, hashed: HashedTerms, *, saved_papers, get_many, alternatives=None):
        self.feedback = feedback
        # text -> what a search for it also looks for (Corpus.alternatives): an interest in
        # one language matches papers in the other, as a search for it would.
        self._alternatives = alternatives or (lambda _text: ())
        self.learner = Learner(hashed)
        self.hashed = hashed
        self._saved_papers = saved_papers  # user_id, limit, team_id= -> their saved papers, newest first
        self._get_many = get_many  # ids -> papers
        self._pool: tuple[tuple, Pool] | None = None

    # -- signals ------------------------------------------------------------------------------

    def person_signals(self, team_id: str, user_id: str) -> Signals:
        """A person's examples: saves and 👍 (positive), opens (weak), 👎 (negative, and
        excluded), interests (positive text)."""
        saved = self._saved_papers(user_id, PROFILE_MAX, team_id=team_id)
        saved_ids = {p.id for p in saved}
        signals = [s for s in self.feedback.signals(team_id, user_id) if s.paper_id not in saved_ids][:PROFILE_MAX]
        papers = {p.id: p for p in self._get_many([s.paper_id for s in signals])}
        examples = [Example(1, "saved", paper=p) for p in saved]
        for signal in signals:
            paper = papers.get(signal.paper_id)
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
        excluded = saved_ids | {s.paper_id for s in signals if s.value < 0}
        return Signals(examples, excluded)

    def channel_signals(self, team_id: str, channel_id: str, profile: list[Paper], weights: dict[str, float]) -> Signals:
        """A channel's examples: what it shared, saved from its cards and reacted to (the
        reading list's profile), and its members' net 👍 / 👎 on its cards. A paper most of
        the voters 👎'd is excluded from the channel's highlights."""
        votes = self.feedback.place_votes(team_id, channel_id)
        examples = [Example(1, "channel", paper=p, weight=log_scale(int(weights.get(p.id, 1)))) for p in profile]
        known = {p.id for p in profile}
        voted = {p.id: p for p in self._get_many(list(votes))}
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

    # -- ranking ------------------------------------------------------------------------------

    def pool(self, papers: list[Paper]) -> Pool:
        """The papers as a matrix, reused while the same papers are ranked (a digest morning)."""
        key = tuple((p.id, p.rev) for p in papers)
        if self._pool is None or self._pool[0] != key:
            self._pool = (key, make_pool(papers, self.hashed))
        return self._pool[1]

    def rank(
        self, papers: list[Paper], signals: Signals, *, channel_id: str = "", channel_votes: dict[str, int] | None = None
    ) -> list[Recommended]:
        """Rank `papers` (newest first is the order kept without signals); never the excluded,
        nor the papers the signals are about (the caller decides where those go)."""
        picks = self.learner.rank_pool(self.pool(papers), signals.examples, exclude=signals.excluded)
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
