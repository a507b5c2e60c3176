"""Helpers for the digest, scheduler, subscription and inbox tests.

`listing_text` writes records in the real bilingual listing format, so papers reach the
store through the real parser and Corpus. `FakeClock` is the injected clock.
`RecordingPoster` stands in for Slack at the Poster boundary (the Slack poster itself is
tested over HTTP against tests/fake_slack.py); it renders with the real renderer, so the
papers it records per message are the ones Slack would receive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.config import Settings
from bot.corpus import Corpus
from bot.digests.compose import Digest
from bot.digests.places import Profile
from bot.digests.service import DigestService
from bot.digests.subscriptions import SubscriptionStore
from bot.errors import DeliveryFailed
from bot.slack.render.digest import render_digest

VENUES = ["Accepted at ICML 2026", "Published at NeurIPS 2025", "ICLR 2026 Workshop on World Models", ""]


def listing_text(feed: str, start: int, count: int, *, topic: str = "Sparse Attention") -> str:
    """`count` records numbered from `start`, in the format listing.py reads."""
    lines = [feed, ""]
    for n in range(start, start + count):
        lines += [
            f"{topic} Study Number {n}: Scaling Laws for Model {n}",
            "",
            f"{topic}研究第{n}号：模型{n}的缩放定律",
            "",
            f"Alice Zhang{n}, Bob Li, Carol Wang, Dan Chen, Eve Liu",
            "",
            f"机构 * Tsinghua University（清华大学） ； Lab {n} of Peking University（北京大学第{n}实验室） 纠错",
            "",
            f"AI总结 本文研究第{n}号模型的{topic}缩放规律，提出新的训练方法并在多个基准上验证了有效性。",
            "",
        ]
        venue = VENUES[n % len(VENUES)]
        if venue:
            lines += [f"Comments: {venue}; code at https://example.org/paper{n}", ""]
    return "\n".join(lines) + "\n"


def ingest(corpus: Corpus, tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / "listings" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    (report,) = corpus.ingest_paths([path])
    assert report.rejected == 0, report.errors


def open_corpus(data_dir: Path) -> Corpus:
    return Corpus.open(Settings(data_dir=data_dir, seeds_dir=data_dir / "no-seeds"))


class FakeClock:
    """An aware UTC clock that moves only when told."""

    def __init__(self, start: datetime):
        self.now = start.astimezone(UTC)

    def __call__(self) -> datetime:
        return self.now

    def set(self, moment: datetime) -> None:
        self.now = moment.astimezone(UTC)

    def advance(self, **delta) -> None:
        self.now += timedelta(**delta)


class Crash(BaseException):
    """The process dying mid-post: not an Exception, so nothing in the service catches it."""


@dataclass
class Post:
    sub_id: int
    local_date: str
    thread_ts: str
    paper_ids: list[str]
    ts: str


@dataclass
class RecordingPoster:
    """Records every message it 'posts'; scripted failures and crashes per message number."""

    posts: list[Post] = field(default_factory=list)
    paused: list[tuple[int, str]] = field(default_factory=list)
    fail_at: dict[int, DeliveryFailed] = field(default_factory=dict)  # message number -> failure
    crash_before_record_at: int | None = None  # Slack accepted message N, then the process died
    crash_after_record_at: int | None = None  # recorded message N, then the process died
    counter: int = 0

    def post_digest(self, sub, digest: Digest, *, thread_ts: str, on_posted) -> None:
        messages = [m.paper_ids for m in render_digest(digest)] if digest.papers else [[]]
        for ids in messages:
            self.counter += 1
            if self.counter in self.fail_at:
                raise self.fail_at.pop(self.counter)
            ts = f"{1000 + self.counter}.000100"
            self.posts.append(Post(sub.id, digest.local_date.isoformat(), thread_ts, list(ids), ts))
            thread_ts = thread_ts or ts
            if self.crash_before_record_at == self.counter:
                raise Crash()
            on_posted(list(ids), "C1", ts)
            if self.crash_after_record_at == self.counter:
                raise Crash()

    def notify_paused(self, sub, code: str) -> None:
        self.paused.append((sub.id, code))

    def papers_posted(self, sub_id: int | None = None) -> list[str]:
        return [p for post in self.posts if sub_id in (None, post.sub_id) for p in post.paper_ids]

    def digests(self, sub_id: int | None = None) -> list[str]:
        """Local dates that got a first (non-thread) message."""
        return [p.local_date for p in self.posts if not p.thread_ts and sub_id in (None, p.sub_id)]


class QuietDirectory:
    """A Directory (bot/digests/places.py) that knows nobody's profile and can post anywhere."""

    def __init__(self):
        self.announced: list[tuple[str, str]] = []

    def profile(self, user_id: str, *, team_id: str = "") -> Profile:
        return Profile()

    def cannot_post(self, channel_id: str, *, team_id: str = "") -> str:
        return ""

    def announce(self, channel_id: str, text: str, *, team_id: str = "") -> bool:
        self.announced.append((channel_id, text))
        return True


def service_for(corpus: Corpus, poster, clock, **kwargs) -> DigestService:
    return DigestService(corpus, SubscriptionStore(corpus.store, clock=clock), poster, clock=clock, **kwargs)
