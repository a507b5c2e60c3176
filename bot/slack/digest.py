"""Digests in Slack: render them, post them, and wire the service and scheduler for `serve`.

The subcommands that manage subscriptions live in bot/slack/subscribe.py; listings that
admins send in a DM, in bot/slack/uploads.py.

Rendering is pure (Digest -> messages of Block Kit dicts). A digest's first message holds
the header; when the papers don't fit one message (50 blocks, and a size budget so no
message gets unwieldy), the rest follow as replies in its thread. Each paper has the
same Share / Details / More like this buttons as a search result (action ids and values
from blocks.paper_buttons), so the same action handlers serve them.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
)

from bot.config import Settings
from bot.digest import DeliveryFailed, Digest, DigestService
from bot.i18n import normalize_lang, t
from bot.listing import parse_affiliations
from bot.models import Paper
from bot.slack.blocks import (
    LIMITS,
    Message,
    check_blocks,
    context,
    escape,
    escape_label,
    header,
    link,
    paper_buttons,
    paper_url,
    section,
    short_affiliations,
    short_authors,
    truncate,
)
from bot.subscriptions import (
    Clock,
    Subscription,
    SubscriptionStore,
    system_clock,
)

logger = logging.getLogger(__name__)


# A filter the parser had to repair would not mean what the subscriber typed: refuse it.
BAD_FILTER_PROBLEMS = {"query_empty", "query_repaired", "query_truncated"}


def filter_problem_text(problem: str, lang: str) -> str:
    """Why a filter was refused, one of BAD_FILTER_PROBLEMS: its own words, since unlike a
    search nothing was ignored: the subscription was not made."""
    return t(f"subscribe.filter_problem_{problem}", lang)
# Slack errors that mean the place can't take posts until someone acts: pause, tell the creator.
GONE = {"not_in_channel", "channel_not_found", "is_archived"}
# Errors worth another try later (rate limits outlast the client's own retries sometimes).
PASSING = {"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"}

MESSAGE_BLOCKS = LIMITS["message_blocks"] - 2  # room for the part/footer lines
MESSAGE_CHARS = 24_000  # JSON size per message: Slack takes more, people shouldn't scroll more
TITLE_CHARS = 280
SUMMARY_CHARS = 240
COMMENTS_CHARS = 200
PREVIEW_PAPERS = 8


# -- dates ------------------------------------------------------------------------------------


def format_date(day: date, lang: str) -> str:
    """Tue 1 Dec 2026 / 2026年12月1日（周二）."""
    weekday = t("digest.weekdays", lang).split(",")[day.weekday()]
    month = t("digest.months", lang).split(",")[day.month - 1]
    return t("digest.date", lang, weekday=weekday, day=day.day, month=month, year=day.year)


def format_when(moment: datetime, lang: str) -> str:
    """Tue 1 Dec 2026, 09:00 (Asia/Shanghai), in the moment's own zone."""
    zone = getattr(moment.tzinfo, "key", None) or moment.tzname() or "UTC"
    return t("digest.when", lang, date=format_date(moment.date(), lang), time=moment.strftime("%H:%M"), zone=zone)


# -- rendering ------------------------------------------------------------------------------


@dataclass
class DigestMessage:
    """One Slack message of a digest and the papers it carries (recorded once posted)."""

    message: Message
    paper_ids: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return self.message.text

    @property
    def blocks(self) -> list[dict]:
        return self.message.blocks


def group_label(paper: Paper, lang: str) -> str:
    """The group a paper is listed under: its venue, else its feed (in `lang`), else Other."""
    if paper.venue:
        return paper.venue
    if paper.feeds:
        names = parse_affiliations(paper.feeds[0])
        if names:
            return names[0].name(lang)
        return paper.feeds[0]
    return t("digest.group_other", lang)


def group_papers(papers: list[Paper], lang: str) -> list[tuple[str, list[Paper]]]:
    """Group by venue or feed: biggest group first, then by name; papers keep their order."""
    groups: dict[str, list[Paper]] = {}
    for paper in papers:
        groups.setdefault(group_label(paper, lang), []).append(paper)
    return sorted(groups.items(), key=lambda item: (-len(item[1]), item[0].lower()))


def _title_link(paper: Paper, lang: str) -> str:
    return link(paper_url(paper), escape_label(truncate(paper.title(lang), TITLE_CHARS)))


def render_digest_paper(paper: Paper, lang: str, number: int, *, shareable: bool = True) -> list[dict]:
    """One paper, compact: title, authors and affiliations, then comments (en) or summary (zh).

    `shareable=False` for a personal digest in a DM: a share there would reach nobody.
    """
    lines = [f"*{number}. {_title_link(paper, lang)}*"]
    meta = " · ".join(x for x in (short_authors(paper.authors, lang), short_affiliations(paper, lang)) if x)
    if meta:
        lines.append(meta)
    if lang == "zh":
        if paper.summary_zh:
            lines.append("> " + escape(truncate(" ".join(paper.summary_zh.split()), SUMMARY_CHARS)))
    elif paper.comments:
        # escape() makes `_` inert and links URLs exactly, so the italics close where they should.
        lines.append("_" + escape(truncate(" ".join(paper.comments.split()), COMMENTS_CHARS)) + "_")
    return [section("\n".join(lines), block_id=f"digest:{paper.id}"), paper_buttons(paper, lang, shareable=shareable)]


def _group_heading(label: str, count: int, lang: str, *, continued: bool = False) -> dict:
    name = escape(truncate(label, 200))
    if continued:
        return context(t("digest.group_continued", lang, group=f"*{name}*"))
    return section(f"*{name}* · {count}")


def _size(blocks: list[dict]) -> int:
    return len(json.dumps(blocks, ensure_ascii=False))


def _count_label(count: int, lang: str) -> str:
    return t("digest.count", lang, count=count)


def render_digest(digest: Digest, *, shareable: bool = True) -> list[DigestMessage]:
    """Split a digest into messages within Block Kit's limits; the first is the thread's head.

    Papers are numbered across the whole digest, grouped by venue or feed; a group that
    continues into the next message gets a "(continued)" line there. A personal digest
    (`shareable=False`) has no Share buttons.
    """
    lang = digest.lang
    day = format_date(digest.local_date, lang)
    pages: list[tuple[list[dict], list[str]]] = []
    blocks: list[dict] = []
    ids: list[str] = []

    def flush() -> None:
        nonlocal blocks, ids
        pages.append((blocks, ids))
        blocks, ids = [{"type": "context", "elements": []}], []  # the part line, filled in below

    if digest.resumed:
        blocks = [{"type": "context", "elements": []}]
    else:
        blocks = [header(t("digest.header", lang, date=day)), {"type": "context", "elements": []}]
    number = 0
    for label, papers in group_papers(digest.papers, lang):
        heading: dict | None = _group_heading(label, len(papers), lang)
        for paper in papers:
            number += 1
            paper_blocks = render_digest_paper(paper, lang, number, shareable=shareable)
            extra = ([heading] if heading else []) + paper_blocks
            if ids and (len(blocks) + len(extra) > MESSAGE_BLOCKS or _size(blocks) + _size(extra) > MESSAGE_CHARS):
                flush()
                if heading is None:
                    extra = [_group_heading(label, len(papers), lang, continued=True), *paper_blocks]
            blocks.extend(extra)
            ids.append(paper.id)
            heading = None
    pages.append((blocks, ids))

    parts = len(pages)
    messages = []
    for part, (page, page_ids) in enumerate(pages, start=1):
        is_head = part == 1 and not digest.resumed
        slot = 1 if is_head else 0  # the placeholder context's index
        if is_head:
            bits = [_count_label(digest.count, lang)]
            if digest.filter_text:
                bits.append(t("digest.filter", lang, filter=f"“{escape(truncate(digest.filter_text, 200))}”"))
            if parts > 1:
                bits.append(t("digest.in_thread", lang, count=parts - 1))  # the replies, not this message
            page[slot] = context(" · ".join(bits))
            text = t("digest.notification", lang, date=day, count=digest.count)
        else:
            page[slot] = context(t("digest.part", lang, date=day, part=part, parts=parts))
            text = t("digest.notification_part", lang, date=day, part=part, parts=parts)
        if part == parts:
            footer = [t("digest.footer", lang)]
            if digest.held_back:
                footer.insert(0, t("digest.held_back", lang, count=digest.held_back))
            page.append(context(*footer))
        messages.append(DigestMessage(Message(text=truncate(text, LIMITS["message_text"]), blocks=page), page_ids))
    return messages


def render_empty(digest: Digest) -> Message:
    """The short note a `notify:empty` subscription gets on a day without new papers."""
    lang = digest.lang
    note = t("digest.empty_filter_note", lang, filter=escape(truncate(digest.filter_text, 200))) if digest.filter_text else ""
    text = t("digest.empty", lang, filter_note=note)
    day = format_date(digest.local_date, lang)
    return Message(text=text, blocks=[context(t("digest.header", lang, date=day)), section(text)])


def render_preview(digest: Digest, when: str, *, sample: bool = False, note: str = "", shareable: bool = True) -> Message:
    """The private preview: the first papers of the next digest, and how many more follow.

    `when` is the next run (empty for a sample, or a paused digest: `note` says why).
    """
    lang = digest.lang
    title = t("digest.sample_header", lang) if sample else t("digest.preview_header", lang, date=format_date(digest.local_date, lang))
    blocks: list[dict] = [header(title)]
    if note:
        blocks.append(section(note))
    if not digest.papers:
        if when:  # a paused digest has no "next" time; its note says why
            blocks.append(section(t("digest.preview_none", lang, when=when)))
        return Message(text=title, blocks=blocks)
    bits = [] if sample else [_count_label(digest.count, lang)]
    if digest.filter_text:
        bits.append(t("digest.filter", lang, filter=f"“{escape(truncate(digest.filter_text, 200))}”"))
    if bits:
        blocks.append(context(" · ".join(bits)))
    shown = 0
    for label, papers in group_papers(digest.papers, lang):
        if shown >= PREVIEW_PAPERS:
            break
        blocks.append(_group_heading(label, len(papers), lang))
        for paper in papers[: PREVIEW_PAPERS - shown]:
            shown += 1
            blocks.extend(render_digest_paper(paper, lang, shown, shareable=shareable))
    if digest.count > shown and not sample:
        blocks.append(context(t("digest.preview_more", lang, count=digest.count - shown)))
    return Message(text=title, blocks=blocks[: LIMITS["message_blocks"]])


# -- pauses -----------------------------------------------------------------------------------


def paused_reason(code: str, lang: str) -> str:
    """Why a digest is paused, from the Slack error that paused it."""
    return t(f"digest.reason_{code}", lang) if code in GONE else t("digest.reason_other", lang, error=code or "?")


def resume_hint(code: str, lang: str) -> str:
    """How to resume a digest paused by `code`: invite the bot, unarchive, or just resubscribe."""
    if code == "is_archived":
        return t("digest.fix_archived", lang)
    return t("digest.fix_invite" if code in GONE else "digest.fix_resume", lang)


# -- posting ----------------------------------------------------------------------------------


def build_digest_client(settings: Settings) -> WebClient:
    """A WebClient for digests: waits out rate limits (Retry-After) and retries network errors.

    More patient than the app's client, since nobody is waiting on a click here.
    """
    kwargs = {}
    if settings.slack_api_base_url:
        base = settings.slack_api_base_url
        kwargs["base_url"] = base if base.endswith("/") else base + "/"
    client = WebClient(token=settings.slack_bot_token or None, timeout=30, **kwargs)
    client.retry_handlers = [
        ConnectionErrorRetryHandler(max_retry_count=3),
        RateLimitErrorRetryHandler(max_retry_count=5),
    ]
    return client


def slack_error_code(error: SlackApiError) -> str:
    try:
        return str(error.response.get("error") or "unknown_error")
    except Exception:
        return "unknown_error"


class SlackDigestPoster:
    """Posts digests with a WebClient; Slack's refusals become DeliveryFailed."""

    def __init__(self, client: WebClient):
        self.client = client

    def channel_for(self, sub: Subscription) -> str:
        if sub.kind == "channel":
            return sub.place_id
        return self.client.conversations_open(users=sub.place_id)["channel"]["id"]

    def post_digest(self, sub: Subscription, digest: Digest, *, thread_ts: str, on_posted) -> None:
        try:
            channel_id = self.channel_for(sub)
            if not digest.papers:
                note = render_empty(digest)
                response = self.client.chat_postMessage(channel=channel_id, text=note.text, blocks=note.blocks)
                on_posted([], response.get("channel") or channel_id, response["ts"])
                return
            for message in render_digest(digest, shareable=sub.kind == "channel"):
                problems = check_blocks(message.blocks)
                if problems:  # a renderer bug: log it, Slack will say the rest
                    logger.warning("digest message breaks Block Kit limits: %s", "; ".join(problems[:3]))
                kwargs = {"thread_ts": thread_ts} if thread_ts else {}
                response = self.client.chat_postMessage(
                    channel=channel_id, text=message.text, blocks=message.blocks, unfurl_links=False, unfurl_media=False, **kwargs
                )
                thread_ts = thread_ts or response["ts"]
                on_posted(message.paper_ids, response.get("channel") or channel_id, response["ts"])
        except SlackApiError as error:
            code = slack_error_code(error)
            raise DeliveryFailed(code, gone=code in GONE, retryable=code in PASSING) from error
        except (OSError, TimeoutError) as error:  # URLError, connection reset, DNS: after the client's retries
            raise DeliveryFailed(f"network: {type(error).__name__}", retryable=True) from error

    def notify_paused(self, sub: Subscription, code: str) -> None:
        lang = sub.lang
        place = t("subscribe.place_channel", lang, channel_id=sub.place_id) if sub.kind == "channel" else t("subscribe.place_your_dm", lang)
        text = t("digest.paused_dm", lang, place=place, reason=paused_reason(code, lang), fix=resume_hint(code, lang))
        dm = self.client.conversations_open(users=sub.created_by)["channel"]["id"]
        self.client.chat_postMessage(channel=dm, text=text, blocks=[section(text)])


# -- the pieces, together -----------------------------------------------------------------------


@dataclass
class Digests:
    """What the digest subcommands, App Home and `serve` share."""

    corpus: object
    subscriptions: SubscriptionStore
    service: DigestService
    default_timezone: str = "UTC"
    clock: Clock = system_clock
    on_change: Callable[[int], None] | None = None  # the scheduler's sync(sub_id)
    scheduler: object | None = None  # a DigestScheduler when running under `serve`
    admins: frozenset[str] = frozenset()
    settings: Settings | None = None

    def changed(self, sub_id: int) -> None:
        if self.on_change:
            self.on_change(sub_id)

    def start(self) -> None:
        """Start the scheduler: jobs from the database, a catch-up run, inbox scans."""
        if self.scheduler is not None:
            self.scheduler.start()

    def shutdown(self) -> None:
        if self.scheduler is not None:
            self.scheduler.shutdown()


def build_digests(settings: Settings, corpus, *, client: WebClient | None = None, clock: Clock = system_clock) -> Digests:
    """Subscriptions in the corpus's database and a service that posts with `client`."""
    subscriptions = SubscriptionStore(corpus.store, clock=clock)
    poster = SlackDigestPoster(client or build_digest_client(settings))
    service = DigestService(corpus, subscriptions, poster, clock=clock)
    return Digests(
        corpus=corpus, subscriptions=subscriptions, service=service, default_timezone=settings.timezone,
        clock=clock, admins=settings.admins, settings=settings,
    )  # fmt: skip


def start_digests(settings: Settings, corpus, *, clock: Clock = system_clock, scheduler=None, start: bool = True) -> Digests:
    """Build digests, their scheduler and the inbox scan, and start them unless `start` is False."""
    from bot.inbox import scan_inbox_and_check_index
    from bot.scheduler import ClockedBackgroundScheduler, DigestScheduler

    digests = build_digests(settings, corpus, clock=clock)
    inbox = settings.inbox_dir
    inbox.mkdir(parents=True, exist_ok=True)
    jobs = DigestScheduler(
        scheduler or ClockedBackgroundScheduler(clock),
        digests.service,
        clock=clock,
        inbox_scan=lambda: scan_inbox_and_check_index(corpus, inbox, clock=clock),
        inbox_interval=timedelta(minutes=settings.inbox_interval_minutes),
    )
    digests.scheduler = jobs
    digests.on_change = jobs.sync
    if start:
        digests.start()
    return digests


# -- the command line -----------------------------------------------------------------------------


def digest_payload(corpus, *, lang: str = "en", filter_text: str = "", since: int = 0, timezone: str = "UTC", clock: Clock = system_clock) -> dict:
    """What a digest of the papers after `since` would post: `{"papers", "held_back", "messages"}`.

    Dated today in `timezone`. Raises ValueError with a sentence when the filter can't be read.
    """
    from zoneinfo import ZoneInfo

    from bot.digest import compose_digest

    if filter_text:
        result = corpus.search(filter_text, per_page=1, expand=False)
        if result.problem in BAD_FILTER_PROBLEMS:
            raise ValueError(t("subscribe.bad_filter", "en", filter=filter_text, problem=filter_problem_text(result.problem, "en")))
    today = clock().astimezone(ZoneInfo(timezone)).date()
    digest = compose_digest(corpus, after_seq=max(0, since), filter_text=filter_text, lang=normalize_lang(lang), local_date=today)
    messages = render_digest(digest) if digest.papers else []
    return {
        "papers": digest.count,
        "held_back": digest.held_back,
        "messages": [{"text": m.text, "blocks": m.blocks} for m in messages],
    }
