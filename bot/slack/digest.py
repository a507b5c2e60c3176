"""Digests in Slack: render them, post them, and wire the service and scheduler for `serve`.

The subcommands that manage subscriptions live in bot/slack/subscribe.py; listings that
admins send in a DM, in bot/slack/uploads.py.

Rendering is pure (Digest -> messages of Block Kit dicts), and slack_sdk is imported only
where Slack is called, so the offline console (bot/console.py) renders and subscribes
through this module without a Slack library. A digest's first message holds its
highlights (the top papers by bot.digests.service.rank_papers); the rest follow as replies in
its thread, grouped by venue, within 50 blocks and a size budget per message. Each row
has one overflow menu (`paper_menu`: Save, Details, More like this, then links; see
MENU_ENTRIES), answered by the same action handlers as search results.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from bot.clock import Clock, system_clock
from bot.config import Settings
from bot.digests.service import Digest, DigestService
from bot.digests.subscriptions import Subscription, SubscriptionStore
from bot.digests.times import WEEK, WEEKDAYS, chinese_city, day_set, zone_offset_label
from bot.errors import DeliveryFailed
from bot.i18n import normalize_lang, other_lang, t
from bot.ingest.listing import parse_affiliations
from bot.models import Paper, paper_links
from bot.slack.blocks import (
    LIMITS,
    Message,
    abstract_lead,
    check_blocks,
    context,
    escape,
    escape_label,
    header,
    is_linkable,
    link,
    menu_option,
    overflow,
    paper_url,
    section,
    short_affiliations,
    short_authors,
    truncate,
)

if TYPE_CHECKING:
    from slack_sdk import WebClient

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
SUMMARY_CHARS = 160  # one line of the AI summary: its first sentence
PREVIEW_PAPERS = 10


# -- dates, times, zones and schedules --------------------------------------------------------


def format_date(day: date, lang: str) -> str:
    """Tue 1 Dec 2026 / 2026年12月1日（周二）."""
    weekday = t("digest.weekdays", lang).split("|")[day.weekday()]
    month = t("digest.months", lang).split("|")[day.month - 1]
    return t("digest.date", lang, weekday=weekday, day=day.day, month=month, year=day.year)


def zone_label(zone: str, lang: str) -> str:
    """A zone as a reader names it: `UTC+8` as typed, 北京时间 in Chinese, else the IANA name."""
    offset = zone_offset_label(zone)
    if offset or zone == "UTC":
        return offset or "UTC"
    city = chinese_city(zone) if lang == "zh" else None
    if city:
        return t("zone.label_city", lang, city=city)
    return t("zone.label", lang, zone=zone)


def schedule_label(days: str, lang: str) -> str:
    """`*` -> every day, weekdays -> every weekday, `mon` -> every Monday / 每周一."""
    chosen = [d for d in WEEK if d in day_set(days)]
    if len(chosen) == 7:
        return t("schedule.every_day", lang)
    if days == WEEKDAYS:
        return t("schedule.weekdays", lang)
    names = t("schedule.day_names", lang).split("|")
    shown = [names[WEEK.index(d)] for d in chosen]
    if len(shown) == 1:
        return t("schedule.one_day", lang, day=shown[0])
    return t("schedule.some_days", lang, days=LIST_SEPARATOR[lang].join(shown[:-1]), last=shown[-1])


LIST_SEPARATOR = {"en": ", ", "zh": "、"}  # how a list of day names is joined


def format_when(moment: datetime, lang: str) -> str:
    """A moment for readers: Slack's `<!date^…>` shows it in each reader's own time zone;
    the fallback (old clients, notifications) is `Tue 1 Dec 2026, 09:00 (Asia/Shanghai)`."""
    return slack_date(moment, plain_when(moment, lang))


def plain_when(moment: datetime, lang: str) -> str:
    """Tue 1 Dec 2026, 09:00 (UTC) / 2026年12月1日（周二）09:00（北京时间）, in the moment's zone."""
    zone = getattr(moment.tzinfo, "key", None) or moment.tzname() or "UTC"
    return t("digest.when", lang, date=format_date(moment.date(), lang), time=moment.strftime("%H:%M"), zone=zone_label(zone, lang))


def slack_date(moment: datetime, fallback: str) -> str:
    """Slack's date formatting: `<!date^UNIX^{date_short_pretty} {time}|fallback>`."""
    safe = fallback.replace("|", "/").replace(">", "›").replace("<", "‹")
    return f"<!date^{int(moment.timestamp())}^{{date_short_pretty}} {{time}}|{safe}>"


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


def group_papers(papers: list[Paper], lang: str, *, ranked: bool = False) -> list[tuple[str, list[Paper]]]:
    """Group by venue or feed: biggest group first, then by name; papers keep their order.

    `ranked` (a digest ordered for its readers): the group holding the best paper first.
    """
    groups: dict[str, list[Paper]] = {}
    for paper in papers:
        groups.setdefault(group_label(paper, lang), []).append(paper)
    if ranked:
        return list(groups.items())
    return sorted(groups.items(), key=lambda item: (-len(item[1]), item[0].lower()))


def _reason(digest: Digest, paper: Paper) -> str:
    like = digest.reasons.get(paper.id)
    if like is None:
        return ""
    from bot.slack.library import reason_text

    return reason_text(like, digest.lang, digest.reason_kind)


def _title_link(paper: Paper, lang: str) -> str:
    return link(paper_url(paper), escape_label(truncate(paper.title(lang), TITLE_CHARS)))


def one_line_summary(paper: Paper, limit: int = SUMMARY_CHARS) -> str:
    """The AI summary's first sentence (the listing's 总结 is Chinese), within `limit`."""
    text = " ".join((paper.summary_zh or "").split())
    end = text.find("。")
    if 0 < end < limit:
        text = text[: end + 1]
    return truncate(text, limit)


MENU_ENTRIES: list[str] = ["save", "details", "more", "links"]
"""The digest row menu's entries, in order. Slack shows at most 5 options, so the actions
come first and the links (arXiv, PDF, Code, Project) fill what is left; Details lists
them all. Another feature appends its name here and a builder to MENU_BUILDERS."""


def _action_option(label_key: str, action_id: str) -> Callable[[Paper, str], list[dict]]:
    def build(paper: Paper, lang: str) -> list[dict]:
        return [menu_option(t(label_key, lang), {"a": action_id, "id": paper.id, "l": lang})]

    return build


MENU_LINK_ORDER = {"arxiv": 0, "code": 1, "project": 2, "pdf": 3}
"""With two slots left after the actions, a row offers the arXiv page and the code; the PDF
is one click from the arXiv page (and in Details)."""


def _link_options(paper: Paper, lang: str) -> list[dict]:
    """arXiv / Code / Project / PDF as link options (the menu's URL options open the page)."""
    links = sorted((item for item in paper_links(paper) if is_linkable(item.url)), key=lambda item: MENU_LINK_ORDER.get(item.kind, 9))
    return [menu_option(t(f"button.link_{item.kind}", lang), {"a": "link"}, url=item.url) for item in links]


MENU_BUILDERS: dict[str, Callable[[Paper, str], list[dict]]] = {
    "save": _action_option("button.save", "paper_save"),
    "details": _action_option("button.details", "paper_details"),
    "links": _link_options,
    "more": _action_option("button.more", "paper_more"),
}


def paper_menu(paper: Paper, lang: str, entries: list[str] | None = None) -> dict:
    """A digest row's one overflow menu: Details, More like this and what `entries` adds.

    `entries` names builders in MENU_BUILDERS (default MENU_ENTRIES); each gives options
    (an action, whose value carries `a`, or a link, with `url`). Its clicks arrive as
    `paper_menu` (bot/slack/actions.py).
    """
    options = [option for name in (entries or MENU_ENTRIES) if name in MENU_BUILDERS for option in MENU_BUILDERS[name](paper, lang)]
    return overflow("paper_menu", options)


def render_digest_paper(paper: Paper, lang: str, number: int, *, reason: str = "") -> dict:
    """One compact row: title (and the other language's), authors, affiliations, venue,
    the summary's first sentence, and one overflow menu. One block per paper.

    `reason` says why a ranked digest put it here ("like *ParisKV*, which you saved").
    """
    lines = [f"*{number}. {_title_link(paper, lang)}*"]
    other = paper.title(other_lang(lang))
    if other and other != paper.title(lang):
        lines.append(escape(truncate(other, TITLE_CHARS)))
    meta = [short_authors(paper.authors, lang), short_affiliations(paper, lang)]
    if paper.venue:
        meta.append(f"_{escape(paper.venue)}_")
    meta_line = " · ".join(x for x in meta if x)
    if meta_line:
        lines.append(meta_line)
    summary = one_line_summary(paper)
    if paper.abstract_en and (lang != "zh" or not summary):  # the English reader's summary
        lines.append(f"> {escape(abstract_lead(paper.abstract_en, SUMMARY_CHARS))}")
    elif summary:
        label = t("card.label_summary", lang) if lang == "zh" else f"{t('card.label_summary', lang)} {t('card.summary_language_note', lang)}"
        lines.append(f"> {label}{'：' if lang == 'zh' else ': '}{escape(summary)}")
    if reason:
        lines.append(f"↳ {reason}")
    return section("\n".join(lines), block_id=f"digest:{paper.id}", accessory=paper_menu(paper, lang))


def _group_heading(label: str, count: int, lang: str, *, continued: bool = False) -> dict:
    name = escape(truncate(label, 200))
    if continued:
        return context(t("digest.group_continued", lang, group=f"*{name}*"))
    return context(f"*{name}* · {count}")


def _size(blocks: list[dict]) -> int:
    return len(json.dumps(blocks, ensure_ascii=False))


def _count_label(count: int, lang: str) -> str:
    return t("digest.count", lang, count=count)


def _filter_label(digest: Digest) -> str:
    return t("digest.filter", digest.lang, filter=f"“{escape(truncate(digest.filter_text, 200))}”")


def render_digest(digest: Digest) -> list[DigestMessage]:
    """Split a digest into messages within Block Kit's limits; the first is the thread's head.

    The first message holds the highlights: the `top` papers by `rank_papers`, with a
    header saying how many there are and that the rest are in the thread. The rest
    follow as replies, grouped by venue or feed; a group that continues into the next
    reply gets a "(continued)" line there. Rows have one overflow menu and no Share: a
    channel's digest is already in the channel. Numbers run across the whole digest.
    """
    lang = digest.lang
    day = format_date(digest.local_date, lang)
    highlights = [] if digest.resumed else digest.highlights()
    rest = digest.rest() if highlights else list(digest.papers)
    messages: list[DigestMessage] = []
    number = 0
    if not digest.resumed:
        blocks = [header(t("digest.header", lang, date=day)), {"type": "context", "elements": []}]
        if digest.popular:
            from bot.slack.library import popular_line

            blocks.append(context(popular_line(digest.popular, lang)))
        for paper in highlights:
            number += 1
            blocks.append(render_digest_paper(paper, lang, number, reason=_reason(digest, paper)))
        bits = [_count_label(digest.count, lang)]
        if rest:
            bits.append(t("digest.top_in_thread", lang, top=len(highlights), rest=len(rest)))
        if digest.filter_text:
            bits.append(_filter_label(digest))
        blocks[1] = context(" · ".join(bits))
        footer = [t("digest.footer", lang)]
        if digest.held_back:
            footer.insert(0, t("digest.held_back", lang, count=digest.held_back))
        blocks.append(context(*footer))
        text = t("digest.notification", lang, date=day, count=digest.count)
        messages.append(DigestMessage(Message(text=truncate(text, LIMITS["message_text"]), blocks=blocks), [p.id for p in highlights]))

    pages: list[tuple[list[dict], list[str]]] = []
    blocks, ids = [{"type": "context", "elements": []}], []
    if rest and not digest.resumed:
        blocks.append(context(t("digest.thread_intro", lang, count=len(rest))))
    for label, papers in group_papers(rest, lang, ranked=digest.order != "new"):
        heading: dict | None = _group_heading(label, len(papers), lang)
        for paper in papers:
            number += 1
            row = render_digest_paper(paper, lang, number, reason=_reason(digest, paper))
            extra = ([heading] if heading else []) + [row]
            if ids and (len(blocks) + len(extra) > MESSAGE_BLOCKS or _size(blocks) + _size(extra) > MESSAGE_CHARS):
                pages.append((blocks, ids))
                blocks, ids = [{"type": "context", "elements": []}], []
                if heading is None:
                    extra = [_group_heading(label, len(papers), lang, continued=True), row]
            blocks.extend(extra)
            ids.append(paper.id)
            heading = None
    if ids:
        pages.append((blocks, ids))
    parts = len(pages) + (0 if digest.resumed else 1)
    for offset, (page, page_ids) in enumerate(pages):
        part = offset + (1 if digest.resumed else 2)
        page[0] = context(t("digest.part", lang, date=day, part=part, parts=parts))
        text = t("digest.notification_part", lang, date=day, part=part, parts=parts)
        messages.append(DigestMessage(Message(text=truncate(text, LIMITS["message_text"]), blocks=page), page_ids))
    return messages


def render_empty(digest: Digest) -> Message:
    """The short note a `notify:empty` subscription gets on a day without new papers."""
    lang = digest.lang
    note = t("digest.empty_filter_note", lang, filter=escape(truncate(digest.filter_text, 200))) if digest.filter_text else ""
    text = t("digest.empty", lang, filter_note=note)
    day = format_date(digest.local_date, lang)
    return Message(text=text, blocks=[context(t("digest.header", lang, date=day)), section(text)])


def render_preview(digest: Digest, when: str, *, sample: bool = False, note: str = "") -> Message:
    """The private preview: the next digest's first message (its highlights), and how many
    more its thread holds. `when` is the next run (empty for a sample, or a paused digest:
    `note` says why)."""
    lang = digest.lang
    title = t("digest.sample_header", lang) if sample else t("digest.preview_header", lang, date=format_date(digest.local_date, lang))
    blocks: list[dict] = [header(title)]
    if note:
        blocks.append(section(note))
    if not digest.papers:
        if when:  # a paused digest has no "next" time; its note says why
            blocks.append(section(t("digest.preview_none", lang, when=when)))
        return Message(text=title, blocks=blocks)
    highlights = digest.highlights()[:PREVIEW_PAPERS] if not sample else digest.papers[:PREVIEW_PAPERS]
    bits = [] if sample else [_count_label(digest.count, lang)]
    if digest.filter_text:
        bits.append(_filter_label(digest))
    if bits:
        blocks.append(context(" · ".join(bits)))
    if digest.popular:
        from bot.slack.library import popular_line

        blocks.append(context(popular_line(digest.popular, lang)))
    for number, paper in enumerate(highlights, start=1):
        blocks.append(render_digest_paper(paper, lang, number, reason=_reason(digest, paper)))
    if digest.count > len(highlights) and not sample:
        blocks.append(context(t("digest.preview_more", lang, count=digest.count - len(highlights))))
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


def build_digest_client(settings: Settings, *, patient: bool = True) -> WebClient:
    """A WebClient for digests: waits out rate limits (Retry-After) and retries network errors.

    More patient than the app's client, since nobody is waiting on a click here.
    `patient=False` is for the lookups a slash command waits on before its ack (3 s):
    a 2-second timeout and no retries.
    """
    from slack_sdk import WebClient
    from slack_sdk.http_retry.builtin_handlers import (
        ConnectionErrorRetryHandler,
        RateLimitErrorRetryHandler,
    )

    kwargs = {}
    if settings.slack_api_base_url:
        base = settings.slack_api_base_url
        kwargs["base_url"] = base if base.endswith("/") else base + "/"
    client = WebClient(token=settings.slack_bot_token or None, timeout=30 if patient else 2, **kwargs)
    client.retry_handlers = (
        [ConnectionErrorRetryHandler(max_retry_count=3), RateLimitErrorRetryHandler(max_retry_count=5)] if patient else []
    )
    return client


def slack_error_code(error) -> str:
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
        from slack_sdk.errors import SlackApiError

        try:
            channel_id = self.channel_for(sub)
            if not digest.papers:
                note = render_empty(digest)
                response = self.client.chat_postMessage(channel=channel_id, text=note.text, blocks=note.blocks)
                on_posted([], response.get("channel") or channel_id, response["ts"])
                return
            for message in render_digest(digest):
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


# -- people and places -------------------------------------------------------------------------


@dataclass
class Profile:
    """What Slack says about a person that digests use: their zone and locale (None: unknown)."""

    tz: str | None = None
    locale: str | None = None


CANNOT_POST = {"not_in_channel", "channel_not_found", "is_archived"}
FAILED_PROFILE_TTL = timedelta(minutes=1)


class SlackDirectory:
    """Ask Slack about people (users.info) and channels (conversations.info), cached.

    Strategy for "can the bot post here": conversations.info (`is_archived`; for a
    private channel `is_member`, and `channel_not_found` when the bot isn't in it), not
    a test post, which would ping the channel. A public channel takes posts without
    the bot joining (chat:write.public). An answer we can't
    read (missing scope on a group DM, a network error) counts as "yes": the first post
    then says for sure, and pauses the digest if Slack refuses.
    """

    def __init__(self, client: WebClient, *, clock: Clock = system_clock, ttl: timedelta = timedelta(hours=1)):
        self.client = client
        self.clock = clock
        self.ttl = ttl
        self._profiles: dict[str, tuple[datetime, Profile]] = {}

    def profile(self, user_id: str) -> Profile:
        from slack_sdk.errors import SlackApiError

        cached = self._profiles.get(user_id)
        if cached and self.clock() - cached[0] < self.ttl:
            return cached[1]
        try:
            user = self.client.users_info(user=user_id, include_locale=True).get("user") or {}
            profile = Profile(tz=user.get("tz") or None, locale=user.get("locale") or None)
        except (SlackApiError, OSError, TimeoutError) as error:
            code = slack_error_code(error) if isinstance(error, SlackApiError) else type(error).__name__
            logger.warning("users.info for %s failed: %s", user_id, code)
            # Remembered briefly, so an outage doesn't slow every command by a timeout.
            self._profiles[user_id] = (self.clock() - self.ttl + FAILED_PROFILE_TTL, Profile())
            return Profile()
        self._profiles[user_id] = (self.clock(), profile)
        return profile

    def cannot_post(self, channel_id: str) -> str:
        """Why the bot can't post in `channel_id` (a Slack error code), or "" when it can."""
        from slack_sdk.errors import SlackApiError

        try:
            channel = self.client.conversations_info(channel=channel_id).get("channel") or {}
        except SlackApiError as error:
            code = slack_error_code(error)
            return code if code in CANNOT_POST else ""
        except (OSError, TimeoutError):
            return ""
        if channel.get("is_archived"):
            return "is_archived"
        # chat:write.public lets the bot post in a public channel it hasn't joined; a
        # private one (or a group DM) needs it as a member.
        if channel.get("is_member") is False and (channel.get("is_private") or channel.get("is_mpim")):
            return "not_in_channel"
        return ""

    def announce(self, channel_id: str, text: str) -> bool:
        """Tell a channel about its digest (set up, changed, stopped); False if Slack refused."""
        from slack_sdk.errors import SlackApiError

        try:
            self.client.chat_postMessage(channel=channel_id, text=text, blocks=[section(text)], unfurl_links=False)
            return True
        except (SlackApiError, OSError, TimeoutError) as error:
            logger.warning("announcing to %s failed: %s", channel_id, type(error).__name__)
            return False


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
    directory: object | None = None  # SlackDirectory (or the console's): people's zones, channels
    sources: object | None = None  # a bot.feeds.sources.SourceService (feeds) under `serve`
    enricher: object | None = None  # a bot.feeds.arxiv.Enricher under `serve`, when arXiv is on

    def changed(self, sub_id: int) -> None:
        if self.on_change:
            self.on_change(sub_id)

    def start(self) -> None:
        """Start the scheduler: jobs from the database, a catch-up run, inbox scans."""
        if self.scheduler is not None:
            self.scheduler.start()

    def shutdown(self) -> None:
        # Background jobs may be waiting out a backoff: end the waits so shutdown is prompt.
        for service in (self.enricher, self.sources):
            client = getattr(service, "client", None) or getattr(service, "arxiv", None)
            if client is not None:
                client.stop()
        if self.scheduler is not None:
            self.scheduler.shutdown()


def build_digests(settings: Settings, corpus, *, client: WebClient | None = None, clock: Clock = system_clock) -> Digests:
    """Subscriptions in the corpus's database and a service that posts with `client`."""
    subscriptions = SubscriptionStore(corpus.store, clock=clock)
    poster = SlackDigestPoster(client or build_digest_client(settings))
    service = DigestService(corpus, subscriptions, poster, clock=clock)
    service.order_digest = corpus.library.order_digest
    service.on_message = corpus.library.record_digest_message
    directory = SlackDirectory(client or build_digest_client(settings, patient=False), clock=clock)
    return Digests(
        corpus=corpus, subscriptions=subscriptions, service=service, default_timezone=settings.timezone,
        clock=clock, admins=settings.admins, settings=settings, directory=directory,
    )  # fmt: skip


def start_digests(
    settings: Settings, corpus, *, clock: Clock = system_clock, scheduler=None, start: bool = True, background: bool = False
) -> Digests:
    """Build digests, their scheduler and the inbox scan, and start them unless `start` is False.

    `background` (serve) also schedules feed polls and, unless PAPERBOT_ARXIV=off, arXiv
    enrichment: both run in the scheduler's worker threads, never in a request's.
    """
    from bot.digests.scheduler import DigestScheduler, background_scheduler
    from bot.feeds.inbox import scan_inbox_and_check_index

    digests = build_digests(settings, corpus, clock=clock)
    inbox = settings.inbox_dir
    inbox.mkdir(parents=True, exist_ok=True)
    jobs_to_add = []
    if background:
        from bot.feeds.sources import SourceService

        poster = digests.service.poster
        client = getattr(poster, "client", None)
        digests.sources = SourceService(settings, corpus, clock=clock, on_failing=lambda s: tell_admins_failing(client, corpus, settings.admins, s))
        jobs_to_add.append((SOURCES_JOB, digests.sources.poll_due, timedelta(minutes=settings.sources_interval_minutes)))
        if settings.arxiv_enabled:
            from bot.feeds.arxiv import build_enricher

            digests.enricher = build_enricher(settings, corpus, clock=clock)
            jobs_to_add.append((ENRICH_JOB, digests.enricher.run_background, ENRICH_INTERVAL))
    jobs = DigestScheduler(
        scheduler or background_scheduler(),  # on the system clock: a fake one needs ManualScheduler
        digests.service,
        clock=clock,
        inbox_scan=lambda: scan_inbox_and_check_index(corpus, inbox, clock=clock),
        inbox_interval=timedelta(minutes=settings.inbox_interval_minutes),
        background_jobs=jobs_to_add,
    )
    digests.scheduler = jobs
    digests.on_change = jobs.sync
    if start:
        digests.start()
    return digests


SOURCES_JOB = "sources-poll"
ENRICH_JOB = "arxiv-enrich"
ENRICH_INTERVAL = timedelta(minutes=2)  # each run works through up to Enricher.per_run papers


def tell_admins_failing(client, corpus, admins: frozenset[str], source) -> None:
    """DM every admin, once per run of failures, that a feed fails and why (their language)."""
    if client is None:
        return
    from slack_sdk.errors import SlackApiError

    for admin in sorted(admins):
        try:
            lang = normalize_lang(corpus.get_user_lang(admin))
            text = t("sources.failing_dm", lang, source=source.target, reason=source.error_text(lang))
            channel = client.conversations_open(users=admin)["channel"]["id"]
            client.chat_postMessage(channel=channel, text=text, blocks=[section(text)])
        except (SlackApiError, OSError) as error:
            logger.warning("telling admin %s that %s fails failed: %s", admin, source.target, error)


# -- the command line -----------------------------------------------------------------------------


def digest_payload(corpus, *, lang: str = "en", filter_text: str = "", since: int = 0, timezone: str = "UTC", clock: Clock = system_clock) -> dict:
    """What a digest of the papers after `since` would post: `{"papers", "held_back", "messages"}`.

    Dated today in `timezone`. Raises ValueError with a sentence when the filter can't be read.
    """
    from zoneinfo import ZoneInfo

    from bot.digests.service import compose_digest

    if filter_text:
        problem = corpus.query_problem(filter_text)  # not a search of the whole index: only whether it reads
        if problem in BAD_FILTER_PROBLEMS:
            raise ValueError(t("subscribe.bad_filter", "en", filter=filter_text, problem=filter_problem_text(problem, "en")))
    today = clock().astimezone(ZoneInfo(timezone)).date()
    digest = compose_digest(corpus, after_seq=max(0, since), filter_text=filter_text, lang=normalize_lang(lang), local_date=today)
    messages = render_digest(digest) if digest.papers else []
    return {
        "papers": digest.count,
        "held_back": digest.held_back,
        "messages": [{"text": m.text, "blocks": m.blocks} for m in messages],
    }
