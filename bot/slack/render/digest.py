"""A digest as Slack messages: the highlights first, the rest in its thread, one row per paper.

Pure (Digest -> messages of Block Kit dicts), so the offline console renders digests the
same way. A digest's first message holds its highlights (the top papers by
bot.digests.compose.rank_highlights); the rest follow as replies in its thread, grouped by
venue, within 50 blocks and a size budget per message. Each row has one overflow menu
(`paper_menu`: Save, Details, More like this, then links; see MENU_ENTRIES), answered by
the same action handlers as search results (bot/slack/listeners/actions.py).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.digests.compose import Digest, is_weekly
from bot.i18n import t
from bot.ingest.listing import parse_affiliations
from bot.models import Paper, paper_links
from bot.slack.render.affiliations import compact_paper
from bot.slack.render.blocks import (
    LIMITS,
    Message,
    context,
    header,
    menu_option,
    overflow,
    section,
    truncate,
)
from bot.slack.render.cards import (
    LINK_LABELS,
    paper_url,
    short_affiliations,
    short_authors,
)
from bot.slack.render.feedback import reason_line
from bot.slack.render.library import popular_line
from bot.slack.render.mrkdwn import escape, escape_label, is_linkable, link
from bot.slack.render.when import format_date
from bot.slack.values import Action, ButtonValue

logger = logging.getLogger(__name__)
LEFT_OUT_SHOWN = 3  # feeds named in the footer for papers left out (bot/digests/compose.py, MAX_PER_FEED)


MESSAGE_BLOCKS = LIMITS["message_blocks"] - 2  # room for the part/footer lines
MESSAGE_CHARS = 24_000  # JSON size per message: Slack takes more, people shouldn't scroll more
# A compact row is about three lines of a Slack message (~100 Latin or ~50 Chinese
# characters a line), so ten highlights fit on one screen; Details holds the rest.
TITLE_CHARS = {"en": 110, "zh": 55}
SUMMARY_CHARS = {"en": 110, "zh": 55}
AUTHORS_IN_ROW = 2
AFFILIATIONS_IN_ROW = 2
AFFILIATION_CHARS_IN_ROW = {"en": 64, "zh": 30}  # a second affiliation only when both fit
PREVIEW_PAPERS = 10


# -- dates, times, zones and schedules --------------------------------------------------------


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
    reason = digest.reasons.get(paper.id)
    if reason is None:
        return ""
    return reason_line(reason, digest.lang)


def _title_link(paper: Paper, lang: str) -> str:
    return link(paper_url(paper), escape_label(clip(paper.title(lang), TITLE_CHARS[lang])))


def clip(text: str, limit: int) -> str:
    """`text` within `limit` characters, cut at a word when it is Latin text (`truncate` cuts anywhere)."""
    if len(text) <= limit:
        return text
    cut = truncate(text, limit)[:-1]
    space = cut.rfind(" ")
    if space > limit * 2 // 3 and cut[space - 1 : space].isascii():
        cut = cut[:space]
    return cut.rstrip(" ,;:，；：、") + "…"


def one_line_summary(paper: Paper, limit: int = SUMMARY_CHARS["zh"]) -> str:
    """The AI summary's first sentence (the listing's 总结 is Chinese), within `limit`."""
    text = " ".join((paper.summary_zh or "").split())
    end = text.find("。")
    if 0 < end < limit:
        text = text[: end + 1]
    return clip(text, limit)


def summary_line(paper: Paper, lang: str) -> str:
    """A row's one line of summary, in the reader's language or not at all.

    Chinese readers get the AI summary's first sentence (the arXiv abstract's when there
    is no summary); English readers the abstract's, and nothing when arXiv has none:
    the Chinese summary is in Details, labelled as one, not on an English row.
    """
    if lang == "zh" and paper.summary_zh:
        return one_line_summary(paper, SUMMARY_CHARS["zh"])
    if paper.abstract_en:
        first = _SENTENCE_END.split(" ".join(paper.abstract_en.split()), maxsplit=1)[0]
        return clip(first, SUMMARY_CHARS["en"])
    return ""


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")


def row_affiliations(paper: Paper, lang: str) -> str:
    """At most two affiliations and "+N": institutions, once, without the authors repeated."""
    compact = compact_paper(paper)
    shown = compact.affiliations[:1]
    for affiliation in compact.affiliations[1:AFFILIATIONS_IN_ROW]:
        if sum(len(a.name(lang)) for a in [*shown, affiliation]) <= AFFILIATION_CHARS_IN_ROW[lang]:
            shown.append(affiliation)
    text = short_affiliations(dataclasses.replace(compact, affiliations=shown), lang, shown=AFFILIATIONS_IN_ROW)
    more = len(compact.affiliations) - len(shown)
    if more:
        count = len(compact.affiliations) if lang == "zh" else more  # Chinese counts them all: 等 5 个机构
        text += " " + t("card.affiliations_more", lang, count=count)
    return text


def digest_name(days: str, lang: str) -> str:
    """What a digest is called in a sentence: a paper digest; in Chinese 论文日报, or 论文周报
    when it comes once a week."""
    return t("digest.name_weekly" if is_weekly(days) else "digest.name_daily", lang)


def digest_title(days: str, lang: str) -> str:
    """What a digest is called at the head of a message: Paper digest / 论文日报 / 论文周报."""
    return t("digest.title_weekly" if is_weekly(days) else "digest.title_daily", lang)


MENU_ENTRIES: list[str] = ["save", "like", "dislike", "details", "links"]
"""The digest row menu's entries, in order. Slack shows at most 5 options, so the actions
come first and the links (arXiv, PDF, Code, Project) fill what is left; Details lists
them all, and has More like this (which 👍 / 👎 took the row's slot of: issue 27). Another
feature appends its name here and a builder to MENU_BUILDERS."""


def _action_option(label_key: str, action_id: str) -> Callable[[Paper, str], list[dict]]:
    def build(paper: Paper, lang: str) -> list[dict]:
        return [menu_option(t(label_key, lang), ButtonValue(action=action_id, id=paper.id, lang=lang))]

    return build


MENU_LINK_ORDER = {"arxiv": 0, "code": 1, "project": 2, "pdf": 3}
"""With two slots left after the actions, a row offers the arXiv page and the code; the PDF
is one click from the arXiv page (and in Details)."""


def _link_options(paper: Paper, lang: str) -> list[dict]:
    """arXiv / Code / Project / PDF as link options (the menu's URL options open the page;
    Slack still tells the app, and the paper the value names counts as opened)."""
    links = sorted(
        (item for item in paper_links(paper) if is_linkable(item.url)), key=lambda item: MENU_LINK_ORDER.get(item.kind, 9)
    )
    return [
        menu_option(t(LINK_LABELS[item.kind], lang), ButtonValue(action=Action.MENU_LINK, id=paper.id), url=item.url)
        for item in links
    ]


MENU_BUILDERS: dict[str, Callable[[Paper, str], list[dict]]] = {
    "save": _action_option("button.save", Action.SAVE),
    "details": _action_option("button.details", Action.DETAILS),
    "links": _link_options,
    "more": _action_option("button.more", Action.MORE),
    "like": _action_option("foryou.menu_like", Action.LIKE),
    "dislike": _action_option("foryou.menu_dislike", Action.DISLIKE),
}


def paper_menu(paper: Paper, lang: str, entries: list[str] | None = None) -> dict:
    """A digest row's one overflow menu: Details, More like this and what `entries` adds.

    `entries` names builders in MENU_BUILDERS (default MENU_ENTRIES); each gives options
    (an action, whose value carries `a`, or a link, with `url`). Its clicks arrive as
    `paper_menu` (bot/slack/listeners/actions.py).
    """
    options = [
        option for name in (entries or MENU_ENTRIES) if name in MENU_BUILDERS for option in MENU_BUILDERS[name](paper, lang)
    ]
    return overflow(Action.MENU, options)


def render_digest_paper(paper: Paper, lang: str, number: int, *, reason: str = "") -> dict:
    """One compact row: the title, short authors, at most two affiliations, the venue, one
    line of summary in the reader's language, and one overflow menu whose Details holds
    the rest (the other title, every author and affiliation, the whole summary). One
    block per paper, a few lines tall, so ten highlights fit on a screen.

    `reason` says why a ranked digest put it here ("like *ParisKV*, which you saved").
    """
    lines = [f"*{number}. {_title_link(paper, lang)}*"]
    meta = [short_authors(paper.authors, lang, shown=AUTHORS_IN_ROW), row_affiliations(paper, lang)]
    if paper.venue:
        meta.append(f"_{escape(paper.venue)}_")
    meta_line = " · ".join(x for x in meta if x)
    if meta_line:
        lines.append(meta_line)
    summary = summary_line(paper, lang)
    if summary:
        lines.append(f"> {escape(summary)}")
    if reason:
        lines.append(f"↳ {reason}")
    return section("\n".join(lines), block_id=f"digest:{paper.id}", accessory=paper_menu(paper, lang))


TOP_IN_THREAD = {
    "filter": "digest.top_in_thread_filter",
    "saved": "digest.top_in_thread_saved",
    "channel": "digest.top_in_thread_channel",
    "plain": "digest.top_in_thread_plain",
}
"""What the first message's papers are the top of (see `highlight_reason`)."""


def highlight_reason(digest: Digest) -> str:
    """Why these papers open the digest: its filter's relevance, the reader's saves, the
    channel's signals, or (none of those) main-track venues first (compose.rank_highlights)."""
    if digest.filter_text:
        return "filter"
    if digest.order != "new" and digest.reason_kind in ("saved", "channel"):
        return digest.reason_kind
    return "plain"


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
    blocks: list[dict]
    if not digest.resumed:
        blocks = [
            header(t("digest.header", lang, date=day, digest=digest_title(digest.days, lang))),
            {"type": "context", "elements": []},
        ]
        if digest.popular:
            blocks.append(context(popular_line(digest.popular, lang)))
        for paper in highlights:
            number += 1
            blocks.append(render_digest_paper(paper, lang, number, reason=_reason(digest, paper)))
        bits = [_count_label(digest.count, lang)]
        if rest:
            bits.append(t(TOP_IN_THREAD[highlight_reason(digest)], lang, top=len(highlights), rest=len(rest)))
        if digest.filter_text:
            bits.append(_filter_label(digest))
        blocks[1] = context(" · ".join(bits))
        footer = [t("digest.footer", lang)]
        if digest.held_back:
            footer.insert(0, t("digest.held_back", lang, count=digest.held_back))
        for feed, count in sorted(digest.left_out.items(), key=lambda item: -item[1])[:LEFT_OUT_SHOWN]:
            name = escape(feed) if feed else t("digest.group_other", lang)  # a listing's first line: anyone's text
            footer.insert(0, t("digest.left_out", lang, count=count, feed=name, most=digest.max_per_feed))
        blocks.append(context(*footer))
        text = t("digest.notification", lang, date=day, count=digest.count, digest=digest_title(digest.days, lang))
        messages.append(
            DigestMessage(Message(text=truncate(text, LIMITS["message_text"]), blocks=blocks), [p.id for p in highlights])
        )

    pages: list[tuple[list[dict], list[str]]] = []
    blocks = [{"type": "context", "elements": []}]
    ids: list[str] = []
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
        text = t("digest.notification_part", lang, date=day, part=part, parts=parts, digest=digest_title(digest.days, lang))
        messages.append(DigestMessage(Message(text=truncate(text, LIMITS["message_text"]), blocks=page), page_ids))
    return messages


def render_empty(digest: Digest) -> Message:
    """The short note a `notify:empty` subscription gets on a day without new papers."""
    lang = digest.lang
    note = t("digest.empty_filter_note", lang, filter=escape(truncate(digest.filter_text, 200))) if digest.filter_text else ""
    text = t("digest.empty", lang, filter_note=note)
    day = format_date(digest.local_date, lang)
    return Message(
        text=text, blocks=[context(t("digest.header", lang, date=day, digest=digest_title(digest.days, lang))), section(text)]
    )


def render_preview(digest: Digest, when: str, *, sample: bool = False, note: str = "") -> Message:
    """The private preview: the next digest's first message (its highlights), and how many
    more its thread holds. `when` is the next run (empty for a sample, or a paused digest:
    `note` says why)."""
    lang = digest.lang
    title = (
        t("digest.sample_header", lang)
        if sample
        else t("digest.preview_header", lang, date=format_date(digest.local_date, lang), digest=digest_name(digest.days, lang))
    )
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
        blocks.append(context(popular_line(digest.popular, lang)))
    for number, paper in enumerate(highlights, start=1):
        blocks.append(render_digest_paper(paper, lang, number, reason=_reason(digest, paper)))
    if digest.count > len(highlights) and not sample:
        blocks.append(context(t("digest.preview_more", lang, count=digest.count - len(highlights))))
    return Message(text=title, blocks=blocks[: LIMITS["message_blocks"]])


# -- pauses -----------------------------------------------------------------------------------


PAUSE_REASONS = {
    "not_in_channel": "digest.reason_not_in_channel",
    "channel_not_found": "digest.reason_channel_not_found",
    "is_archived": "digest.reason_is_archived",
}
"""The Slack errors that mean a place can't take posts until someone acts (the digest is
paused and its creator told), and how each is explained."""


def paused_reason(code: str, lang: str) -> str:
    """Why a digest is paused, from the Slack error that paused it."""
    key = PAUSE_REASONS.get(code)
    return t(key, lang) if key else t("digest.reason_other", lang, error=code or "?")


def resume_hint(code: str, lang: str) -> str:
    """How to resume a digest paused by `code`: invite the bot, unarchive, or just resubscribe."""
    if code == "is_archived":
        return t("digest.fix_archived", lang)
    return t("digest.fix_invite" if code in PAUSE_REASONS else "digest.fix_resume", lang)


# -- posting ----------------------------------------------------------------------------------


# -- people and places -------------------------------------------------------------------------


# -- the pieces, together -----------------------------------------------------------------------


# -- the command line -----------------------------------------------------------------------------
