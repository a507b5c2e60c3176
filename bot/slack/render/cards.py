"""A paper as Slack shows it: a result row with its buttons, a card, a shared card.

Everything a paper says is untrusted (anyone can write a listing or a feed), so every
field goes through bot/slack/render/mrkdwn.py before it is shown.
"""

from __future__ import annotations

import re

from bot.i18n import other_lang, t
from bot.models import Affiliation, Fragment, Hit, Paper, paper_links
from bot.slack.render.affiliations import compact_paper
from bot.slack.render.blocks import (
    LIMITS,
    ZWSP,
    Message,
    actions,
    button,
    context,
    header,
    mrkdwn_text,
    notification_text,
    plain_text,
    section,
    split_text,
    truncate,
)
from bot.slack.render.mrkdwn import escape, escape_code, escape_label, is_linkable, link
from bot.slack.values import Action, ButtonValue, encode_value, link_action_id

AUTHORS_SHOWN = 3
AFFILIATIONS_SHOWN = 3
SNIPPET_CHARS = 600
SUMMARY_CHARS_SHARED = 600
SUMMARY_SECTIONS_MAX = 4


# -- text helpers ----------------------------------------------------------------------


def short_authors(authors: list[str], lang: str, shown: int = AUTHORS_SHOWN) -> str:
    """ "A, B, C +12": the first few authors and how many more there are.

    Only the names shown are escaped: a paper may list thousands (or one crafted to be
    slow to escape), and every card of every view renders this line.
    """
    names = [a for a in authors if a]
    if len(names) <= shown + 1:
        return ", ".join(escape(n) for n in names)
    # English counts the rest ("+12"); Chinese counts everyone ("等 15 人").
    count = len(names) if lang == "zh" else len(names) - shown
    return ", ".join(escape(n) for n in names[:shown]) + " " + t("card.authors_more", lang, count=count)


def short_affiliations(paper: Paper, lang: str, shown: int = AFFILIATIONS_SHOWN) -> str:
    names = _unique(a.name(lang) for a in paper.affiliations)
    separator = "；" if lang == "zh" else "; "  # Chinese text takes full-width punctuation
    if len(names) <= shown + 1:
        return separator.join(escape(n) for n in names)
    count = len(names) if lang == "zh" else len(names) - shown
    rest = t("card.affiliations_more", lang, count=count)
    return separator.join(escape(n) for n in names[:shown]) + " " + rest


def _unique(values) -> list[str]:
    seen: dict[str, None] = {}
    for value in values:
        if value and value not in seen:
            seen[value] = None
    return list(seen)


def paper_url(paper: Paper) -> str:
    """Where a paper's title links: its arXiv page, else nowhere (a code repository is a
    button of its own, not the paper)."""
    return next((x.url for x in paper_links(paper) if x.kind == "arxiv"), "")


LINKS_SHOWN = 6
LINK_LABELS = {
    "arxiv": "button.link_arxiv",
    "pdf": "button.link_pdf",
    "code": "button.link_code",
    "project": "button.link_project",
}
"""A link button's label, by the kind of link (models.paper_links)."""
ABSTRACT_LEAD_CHARS = 320
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")


def link_buttons(paper: Paper, lang: str) -> list[dict]:
    """URL buttons arXiv / PDF / Code / Project, each URL once (see models.paper_links).

    Slack still sends a click on a URL button to the app, so actions.py acks `link_*` and
    counts the opened link as a weak positive for the clicker's for-you (the value names the paper).
    """
    elements: list[dict] = []
    counts: dict[str, int] = {}
    for item in paper_links(paper):
        if not is_linkable(item.url) or len(elements) >= LINKS_SHOWN:
            continue
        counts[item.kind] = counts.get(item.kind, 0) + 1
        label = t(LINK_LABELS[item.kind], lang)
        if counts[item.kind] > 1:
            label = f"{label} {counts[item.kind]}"
        elements.append(
            {
                "type": "button",
                "text": plain_text(label, LIMITS["button_text"]),
                "action_id": link_action_id(item.kind, counts[item.kind]),
                "url": item.url,
                # Slack tells the app about the click: the paper it names is a weak positive.
                "value": encode_value(ButtonValue(id=paper.id)),
            }
        )
    return elements


def abstract_lead(abstract: str, limit: int = ABSTRACT_LEAD_CHARS) -> str:
    """The abstract's first sentence or two (two when the first is short), within `limit`."""
    sentences = _SENTENCE_END.split(" ".join((abstract or "").split()))
    lead = sentences[0] if sentences else ""
    if len(sentences) > 1 and len(lead) + 1 + len(sentences[1]) <= limit:
        lead = f"{lead} {sentences[1]}"
    return truncate(lead, limit)


def _title_line(paper: Paper, lang: str, prefix: str = "") -> str:
    title = escape_label(truncate(paper.title(lang), 280))
    return f"{prefix}*{link(paper_url(paper), title)}*"


def _other_title(paper: Paper, lang: str) -> str:
    other = paper.title(other_lang(lang))
    if not other or other == paper.title(lang):
        return ""
    return f"_{escape(truncate(other, 280))}_"


def render_snippet(fragments: list[Fragment], limit: int = SNIPPET_CHARS) -> str:
    """Fragments -> mrkdwn with matched text in *bold*, at most `limit` visible characters."""
    parts: list[str] = []
    used = 0
    for fragment in fragments:
        text = " ".join(fragment.text.split()) if "\n" in fragment.text else fragment.text
        room = limit - used
        if room <= 0:
            break
        if len(text) > room:
            text = truncate(text, room)
        used += len(text)
        if fragment.hit and text.strip():
            cleaned = escape(text.strip())
            lead = " " if text[:1].isspace() else ""
            trail = " " if text[-1:].isspace() else ""
            parts.append(f"{lead}{ZWSP}*{cleaned}*{ZWSP}{trail}")
        else:
            parts.append(escape(text))
    return "".join(parts).strip()


AFFILIATION_FIELDS = ("affil_en", "affil_zh")


def _matched_affiliations(hit: Hit) -> list[Affiliation]:
    """The affiliations a search matched in (`affil:哈佛`), so the row shows them first."""
    if hit.snippet_field not in AFFILIATION_FIELDS:
        return []
    marked = [f.text.strip().casefold() for f in hit.snippet if f.hit and f.text.strip()]
    return [a for a in hit.paper.affiliations if any(m in f"{a.en}\n{a.zh}".casefold() for m in marked)]


def _meta_line(paper: Paper, lang: str, first: list[Affiliation] | None = None) -> str:
    """Short authors, the compact affiliations (`first` leading) and the venue."""
    compact = compact_paper(paper, first)
    bits = [short_authors(paper.authors, lang), short_affiliations(compact, lang)]
    if paper.venue:
        bits.append(f"*{escape(paper.venue)}*")
    return " · ".join(b for b in bits if b)


# -- messages --------------------------------------------------------------------------


def render_hit(
    hit: Hit,
    lang: str,
    number: int,
    *,
    shareable: bool = True,
    saved: bool = False,
    save_state: ButtonValue | None = None,
    buttons: bool = True,
) -> list[dict]:
    """One result: a section (title, other title, authors, venue, snippet) and its buttons.

    `saved` shows the reader that they saved it; `save_state` is what the Save button
    needs to redraw this message after a click (see `save_button`). `buttons=False` (the
    store away: none of them could answer) leaves them out.
    """
    paper = hit.paper
    matched = _matched_affiliations(hit)
    lines = [_title_line(paper, lang, prefix=f"{number}. "), _other_title(paper, lang), _meta_line(paper, lang, matched)]
    # The quote shows only a match outside the titles (Hit.shows_snippet), and outside the
    # affiliations the line above already shows, the matched ones first.
    snippet = render_snippet(hit.snippet) if hit.shows_snippet() and not matched else ""
    # An English reader gets the abstract's lead rather than a Chinese summary's snippet;
    # a match in the abstract itself shows as the snippet, highlighted.
    # So does a Chinese reader of a paper that only arXiv knows (no Chinese summary).
    wants_lead = lang != "zh" or not paper.summary_zh
    lead = abstract_lead(paper.abstract_en) if wants_lead and paper.abstract_en and hit.snippet_field != "abstract" else ""
    if lead and hit.snippet_field in ("summary", "title_en", "title_zh", ""):
        snippet = ""
    if snippet:
        lines.append("> " + snippet.replace("\n", " "))
    if lead:
        lines.append("> " + escape(lead))
    if hit.by_meaning:  # no word of the query matched: say why it is here
        lines.append(f"_{t('search.by_meaning', lang)}_")
    text = "\n".join(line for line in lines if line)
    key = f"{number}:{paper.id}"
    card = section(text, block_id=f"hit:{key}"[: LIMITS["block_id"]])
    if not buttons:
        return [card]
    return [card, paper_buttons(paper, lang, shareable=shareable, key=key, saved=saved, save_state=save_state)]


def paper_buttons(
    paper: Paper,
    lang: str,
    *,
    shareable: bool = True,
    details: bool = True,
    key: str = "",
    saved: bool = False,
    save_state: ButtonValue | None = None,
) -> dict:
    value = ButtonValue(id=paper.id, lang=lang)
    elements = []
    if shareable:
        # Not primary: a page of results has one Share per paper, and a message gets at
        # most one primary button (the suggested search, when there is one).
        elements.append(button(t("button.share", lang), Action.SHARE, value))
    if details:
        elements.append(button(t("button.details", lang), Action.DETAILS, value))
    elements.append(button(t("button.more", lang), Action.MORE, value))
    elements.append(save_button(paper, lang, saved=saved, state=save_state))
    elements += feedback_buttons(paper, lang)
    elements += link_buttons(paper, lang)
    return actions(*elements, block_id=f"buttons:{key or paper.id}")


def feedback_buttons(paper: Paper, lang: str) -> list[dict]:
    """👍 / 👎: the clicker's own signal for their for-you (bot/library/learning.py).

    The buttons look the same to everyone (a channel's card can't show one person's vote);
    the answer, private, says what was chosen and offers Undo.
    """
    value = ButtonValue(id=paper.id, lang=lang)
    return [
        button(t("foryou.button_like", lang), Action.LIKE, value),
        button(t("foryou.button_dislike", lang), Action.DISLIKE, value),
    ]


def save_button(paper: Paper, lang: str, *, saved: bool = False, state: ButtonValue | None = None) -> dict:
    """Save (收藏), or "Saved ✓" when the reader has it: a click toggles the clicker's own save.

    The value names the paper and, in `state`, the view to redraw (a results page, a
    card); never a user: whose save it is comes from Slack's signed payload.
    """
    value = (state or ButtonValue()).but(id=paper.id, lang=lang)
    if saved:
        return button(t("button.saved", lang), Action.SAVE, value)  # no style: one primary a message at most
    return button(t("button.save", lang), Action.SAVE, value)


def render_card(
    paper: Paper, lang: str, *, full: bool = True, shared_by: str | None = None, saved: bool = False, shareable: bool = True
) -> Message:
    """A paper's card. `full`: both titles, all authors and affiliations, summary, links.
    `shareable=False` where a Share would reach nobody (App Home, a DM).

    Shared cards (full=False, `shared_by` set) are shorter: they land in a channel, so
    they never show anyone's saved state. `saved` marks a private card's Save button.
    """
    other = other_lang(lang)
    blocks: list[dict] = []
    if shared_by:
        blocks.append(context(t("card.shared_by", lang, user_id=shared_by)))
    if full:
        blocks.append(header(paper.title(lang)))
        if _other_title(paper, lang):
            blocks.append(section(_other_title(paper, lang)))
    else:
        blocks.append(section("\n".join(x for x in (_title_line(paper, lang), _other_title(paper, lang)) if x)))

    if full:
        authors = ", ".join(escape(a) for a in paper.authors)
        if authors:
            blocks.append(section(f"*{t('card.label_authors', lang)}*\n{authors}"))
        affiliations = _affiliation_lines(paper, lang, other)
        if affiliations:
            blocks.append(section(f"*{t('card.label_affiliations', lang)}*\n{affiliations}"))
        fields = []
        if paper.venue:
            fields.append(f"*{t('card.label_venue', lang)}*\n{escape(paper.venue)}")
        if paper.journal_ref:
            fields.append(f"*{t('card.label_journal_ref', lang)}*\n{escape(paper.journal_ref)}")
        fields.append(f"*{t('card.label_id', lang)}*\n`{escape_code(paper.id)}`")
        blocks.append(
            {"type": "section", "fields": [mrkdwn_text(f, LIMITS["field_text"]) for f in fields[: LIMITS["section_fields"]]]}
        )
    else:
        meta = _meta_line(paper, lang)
        if meta:
            blocks.append(context(meta))

    summary: list[dict] = []
    # An English reader's shared card has no Chinese paragraph: Details has it, labelled.
    if paper.summary_zh and (full or lang == "zh"):
        label = f"*{t('card.label_summary', lang)}*"
        if lang != "zh":
            label += " " + t("card.summary_language_note", lang)
        if full:
            chunks = split_text(escape(paper.summary_zh), LIMITS["section_text"] - len(label) - 2, SUMMARY_SECTIONS_MAX)
            summary.append(section(f"{label}\n{chunks[0]}"))
            summary.extend(section(chunk) for chunk in chunks[1:])
        else:
            summary.append(section(f"{label}\n{escape(truncate(paper.summary_zh, SUMMARY_CHARS_SHARED))}"))
    abstract: list[dict] = []
    if paper.abstract_en and (full or lang != "zh" or not paper.summary_zh):
        label = f"*{t('card.label_abstract', lang)}*"
        if full:
            chunks = split_text(escape(paper.abstract_en), LIMITS["section_text"] - len(label) - 2, SUMMARY_SECTIONS_MAX)
            abstract.append(section(f"{label}\n{chunks[0]}"))
            abstract.extend(section(chunk) for chunk in chunks[1:])
        else:
            abstract.append(section(f"{label}\n{escape(abstract_lead(paper.abstract_en))}"))
    # Each reader's own language first: the English abstract, or the Chinese AI summary.
    blocks.extend(summary + abstract if lang == "zh" else abstract + summary)
    if full and paper.comments:
        blocks.append(section(f"*{t('card.label_comments', lang)}*\n{escape(paper.comments)}"))
    if full and paper.arxiv:
        facts = [paper.arxiv.arxiv_id + f"v{paper.arxiv.version}", ", ".join(paper.arxiv.categories)]
        if paper.arxiv.published:
            facts.append(t("card.arxiv_published", lang, date=paper.arxiv.published[:10]))
        if paper.arxiv.doi:
            facts.append(f"DOI {paper.arxiv.doi}")
        blocks.append(context("arXiv " + " · ".join(escape(f) for f in facts if f)))
    state = ButtonValue(mode="details") if full and not shared_by else None
    blocks.append(
        paper_buttons(
            paper, lang, shareable=shareable and not shared_by, details=not full, saved=saved and not shared_by, save_state=state
        )
    )
    text = escape(truncate(paper.title(lang), 280))
    if shared_by:
        text = t("card.shared_notification", lang, shared_by=t("card.shared_by", lang, user_id=shared_by), title=text)
    return Message(text=notification_text(text), blocks=blocks[: LIMITS["message_blocks"]])


def _affiliation_lines(paper: Paper, lang: str, other: str) -> str:
    lines = []
    for affiliation in paper.affiliations:
        first, second = affiliation.name(lang), affiliation.name(other)
        other_name = t("card.affiliation_other_name", lang, name=escape(second)) if second and second != first else ""
        line = escape(first) + other_name
        lines.append(f"• {line}")
    return "\n".join(lines)


# -- validation ------------------------------------------------------------------------


# -- plain text, for the offline console -------------------------------------------------
