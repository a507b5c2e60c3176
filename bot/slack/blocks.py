"""Pure renderers: Paper/Hit/SearchResult -> Message(text, blocks) within Block Kit limits.

Blocks are plain dicts, so tests compare dicts and the offline console prints them with
`blocks_to_text`. Nothing here imports slack_sdk or talks to Slack. Every renderer keeps
within the limits in `LIMITS`, truncating with an ellipsis; `check_blocks` verifies that.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from bot.i18n import format_estimate, other_lang, problem_text, t
from bot.models import Fragment, Hit, Paper, SearchResult, paper_links

# Block Kit's limits (https://api.slack.com/reference/block-kit/blocks).
LIMITS = {
    "message_blocks": 50,
    "home_blocks": 100,
    "section_text": 3000,
    "section_fields": 10,
    "field_text": 2000,
    "header_text": 150,
    "context_elements": 10,
    "context_text": 3000,
    "actions_elements": 25,
    "button_text": 75,
    "button_value": 2000,
    "action_id": 255,
    "block_id": 255,
    "url": 3000,
    "option_text": 75,
    "option_value": 150,
    "select_options": 100,
    "overflow_options": 5,
    "message_text": 3000,  # our own cap on the notification fallback text
    "private_metadata": 3000,
}

ELLIPSIS = "…"
AUTHORS_SHOWN = 3
AFFILIATIONS_SHOWN = 3
SNIPPET_CHARS = 600
SUMMARY_CHARS_SHARED = 600
SUMMARY_SECTIONS_MAX = 4
QUERY_CHARS_IN_VALUE = 1500  # leaves room for the rest of a button's JSON value (2,000)
ZWSP = "\u200b"  # lets *bold* render next to CJK text, which Slack won't bold without a word boundary


@dataclass
class Message:
    """What Slack shows: `text` is the notification/fallback, `blocks` the layout."""

    text: str
    blocks: list[dict] = field(default_factory=list)


# -- text helpers ----------------------------------------------------------------------


def truncate(text: str, limit: int) -> str:
    """Cut `text` to at most `limit` characters, ending in an ellipsis when cut."""
    text = text or ""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)].rstrip() + ELLIPSIS


# mrkdwn's formatting characters, mapped to look-alikes that format nothing: ∗ (U+2217),
# ˍ (U+02CD), ∼ (U+223C), ˋ (U+02CB). A look-alike keeps "A* search" and "x_1" readable,
# where a backslash would show (mrkdwn has no escape) and a zero-width space would not stop
# `_` from closing an italic run. ˍ is a letter, so it also can't make a word boundary.
_INERT = str.maketrans({"*": "\u2217", "_": "\u02cd", "~": "\u223c", "`": "\u02cb"})
# A bare URL in paper text, up to whitespace, Slack's markup characters, quotes, or CJK text
# and punctuation ("代码见https://x.org/a，以及").
_BARE_URL = re.compile(r"https?://[^\s<>|\"“”‘’\u3000-\u9fff\uff00-\uffef]+")
_URL_TRAIL = ".,;:!?'…"
_OPENER = {")": "(", "]": "[", "}": "{"}


def escape_code(text: str) -> str:
    """Escape text for inside `code` or a ```block```: Slack's `& < >`, and no stray backtick."""
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("`", "\u02cb")


def escape_label(text: str) -> str:
    """Make untrusted text inert in mrkdwn: no markup, no bold/italic/strike/code.

    For a link's label (`<url|label>`), where a nested link can't go; elsewhere use `escape`.
    """
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").translate(_INERT)


def escape(text: str) -> str:
    """Make untrusted text inert in mrkdwn, with its bare URLs as explicit, byte-exact links.

    Slack links bare URLs itself, but it would link the look-alike `ˍ` of `my_repo`;
    inside `<url>` nothing is formatted, so the URL goes out exactly as written.
    """
    text = text or ""
    parts, pos = [], 0
    for match in _BARE_URL.finditer(text):
        url = _trim_url(match.group())
        if len(url) <= len("https://"):
            continue
        parts.append(escape_label(text[pos : match.start()]))
        parts.append(f"<{url}>")
        pos = match.start() + len(url)
    parts.append(escape_label(text[pos:]))
    return "".join(parts)


def _trim_url(url: str) -> str:
    """Drop what ends a sentence rather than the URL: "see https://a.org/x." or "(https://a.org)"."""
    while url and (url[-1] in _URL_TRAIL or (url[-1] in _OPENER and url.count(url[-1]) > url.count(_OPENER[url[-1]]))):
        url = url[:-1]
    return url


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


# Slack's markup in what people type: <https://a.org|label>, <https://a.org>, <@U123>,
# <@U123|name>, <#C123|general>, <!here>, <!subteam^S1|@team>, <mailto:a@b.org|a@b.org>.
_SLACK_TOKEN = re.compile(r"<([^<>|]*)(?:\|([^<>]*))?>")


def unescape_slack_text(text: str) -> str:
    """Read what a user typed in Slack back as plain text.

    Slack sends `&`, `<` and `>` as entities and wraps links, mentions and channels in
    `<...>`. Links become their label (or the URL when there is none), channels `#name`;
    user and special mentions (`<@U123>`, `<!here>`) are dropped, since they say nothing
    about papers. `&amp;lt;` (a typed `&lt;`) stays `&lt;`: entities are read once.
    """

    def token(match: re.Match) -> str:
        target, label = match.group(1), match.group(2)
        if target.startswith(("@", "!")):
            return " "
        if target.startswith("#"):
            return f"#{label}" if label else " "
        return label if label else target

    text = _SLACK_TOKEN.sub(token, text or "")
    return re.sub(r"&(lt|gt|amp);", lambda m: {"lt": "<", "gt": ">", "amp": "&"}[m.group(1)], text)


def _plain(text: str, limit: int) -> dict:
    return {"type": "plain_text", "text": truncate(text, limit) or " ", "emoji": True}


def _mrkdwn(text: str, limit: int = LIMITS["section_text"]) -> dict:
    return {"type": "mrkdwn", "text": truncate(text, limit) or " "}


def section(text: str, **extra) -> dict:
    return {"type": "section", "text": _mrkdwn(text), **extra}


def context(*texts: str) -> dict:
    elements = [_mrkdwn(x, LIMITS["context_text"]) for x in texts if x][: LIMITS["context_elements"]]
    return {"type": "context", "elements": elements or [_mrkdwn(" ")]}


def header(text: str) -> dict:
    return {"type": "header", "text": _plain(text, LIMITS["header_text"])}


def divider() -> dict:
    return {"type": "divider"}


def button(text: str, action_id: str, value: dict | str, *, style: str | None = None) -> dict:
    """A button whose `value` (a dict becomes compact JSON) fits Slack's 2,000 characters."""
    raw = value if isinstance(value, str) else encode_value(value)
    element = {
        "type": "button",
        "text": _plain(text, LIMITS["button_text"]),
        "action_id": action_id,
        "value": raw[: LIMITS["button_value"]],
    }
    if style:
        element["style"] = style
    return element


def menu_option(text: str, value: dict | None = None, *, url: str = "") -> dict:
    """One option of an overflow menu: an action (`value`, at most 150 characters) or a link."""
    option: dict = {"text": _plain(text, LIMITS["option_text"])}
    raw = encode_value(value or {})
    option["value"] = raw[: LIMITS["option_value"]]
    if url:
        option["url"] = url[: LIMITS["url"]]
    return option


def overflow(action_id: str, options: list[dict]) -> dict:
    """An overflow ("⋯") menu; Slack shows 1 to 5 options, so the first five are kept."""
    return {"type": "overflow", "action_id": action_id, "options": options[: LIMITS["overflow_options"]]}


def actions(*elements: dict, block_id: str | None = None) -> dict:
    block = {"type": "actions", "elements": list(elements)[: LIMITS["actions_elements"]]}
    if block_id:
        block["block_id"] = block_id[: LIMITS["block_id"]]
    return block


def encode_value(data: dict) -> str:
    """Pack a button's state as compact JSON; a long query is cut so the value stays valid."""
    data = dict(data)
    if isinstance(data.get("q"), str):
        data["q"] = data["q"][:QUERY_CHARS_IN_VALUE]
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def decode_value(raw: str | None) -> dict:
    """Unpack a button's value; anything unreadable becomes {} (a stale or forged click)."""
    try:
        data = json.loads(raw or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def short_authors(authors: list[str], lang: str, shown: int = AUTHORS_SHOWN) -> str:
    """"A, B, C +12": the first few authors and how many more there are."""
    names = [escape(a) for a in authors if a]
    if len(names) <= shown + 1:
        return ", ".join(names)
    # English counts the rest ("+12"); Chinese counts everyone ("等 15 人").
    count = len(names) if lang == "zh" else len(names) - shown
    return ", ".join(names[:shown]) + " " + t("card.authors_more", lang, count=count)


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
ABSTRACT_LEAD_CHARS = 320
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")


def link_buttons(paper: Paper, lang: str) -> list[dict]:
    """URL buttons arXiv / PDF / Code / Project, each URL once (see models.paper_links).

    Slack still sends a click on a URL button to the app, so actions.py acks `link_*`.
    """
    elements = []
    counts: dict[str, int] = {}
    for item in paper_links(paper):
        if not is_linkable(item.url) or len(elements) >= LINKS_SHOWN:
            continue
        counts[item.kind] = counts.get(item.kind, 0) + 1
        label = t(f"button.link_{item.kind}", lang)
        if counts[item.kind] > 1:
            label = f"{label} {counts[item.kind]}"
        elements.append(
            {
                "type": "button",
                "text": _plain(label, LIMITS["button_text"]),
                "action_id": f"link_{item.kind}_{counts[item.kind]}",
                "url": item.url,
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


def is_linkable(url: str) -> bool:
    return bool(url) and len(url) <= 1000 and not any(c in url for c in "<>| ")


def link(url: str, label: str) -> str:
    """`<url|label>`, the URL byte-exact; just the (escaped) label when the URL can't be a link."""
    return f"<{url}|{label}>" if is_linkable(url) else label


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


def _meta_line(paper: Paper, lang: str) -> str:
    bits = [short_authors(paper.authors, lang), short_affiliations(paper, lang)]
    if paper.venue:
        bits.append(f"*{escape(paper.venue)}*")
    return " · ".join(b for b in bits if b)


# -- messages --------------------------------------------------------------------------


def notification_text(mrkdwn: str) -> str:
    """A message's `text` (notifications, fallback): mrkdwn as sent, so mentions still
    mention and escaped `&lt;` stays escaped; only the zero-width spaces go."""
    return truncate(mrkdwn.replace(ZWSP, ""), LIMITS["message_text"])


def render_notice(text: str) -> Message:
    """A one-section message: confirmations, errors, usage."""
    return Message(text=notification_text(text), blocks=[section(text)])


def render_help(lang: str) -> Message:
    blocks = [
        section(t("help.title", lang)),
        section(t("help.body", lang)),
        section(t("help.search", lang)),
        section(t("subscribe.help_hint", lang)),
        section(t("library.help", lang)),
        context(t("help.buttons", lang)),
    ]
    return Message(text=notification_text(t("help.title", lang)), blocks=blocks)


def render_hit(
    hit: Hit, lang: str, number: int, *, shareable: bool = True, saved: bool = False, save_state: dict | None = None
) -> list[dict]:
    """One result: a section (title, other title, authors, venue, snippet) and its buttons.

    `saved` shows the reader that they saved it; `save_state` is what the Save button
    needs to redraw this message after a click (see `save_button`).
    """
    paper = hit.paper
    lines = [_title_line(paper, lang, prefix=f"{number}. "), _other_title(paper, lang), _meta_line(paper, lang)]
    # The quote shows only a match outside the titles (Hit.shows_snippet).
    snippet = render_snippet(hit.snippet) if hit.shows_snippet() else ""
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
    text = "\n".join(line for line in lines if line)
    key = f"{number}:{paper.id}"
    return [
        section(text, block_id=f"hit:{key}"[: LIMITS["block_id"]]),
        paper_buttons(paper, lang, shareable=shareable, key=key, saved=saved, save_state=save_state),
    ]


def paper_buttons(
    paper: Paper,
    lang: str,
    *,
    shareable: bool = True,
    details: bool = True,
    key: str = "",
    saved: bool = False,
    save_state: dict | None = None,
) -> dict:
    value = {"id": paper.id, "l": lang}
    elements = []
    if shareable:
        # Not primary: a page of results has one Share per paper, and a message gets at
        # most one primary button (the suggested search, when there is one).
        elements.append(button(t("button.share", lang), "paper_share", value))
    if details:
        elements.append(button(t("button.details", lang), "paper_details", value))
    elements.append(button(t("button.more", lang), "paper_more", value))
    elements.append(save_button(paper, lang, saved=saved, state=save_state))
    elements += link_buttons(paper, lang)
    return actions(*elements, block_id=f"buttons:{key or paper.id}")


def save_button(paper: Paper, lang: str, *, saved: bool = False, state: dict | None = None) -> dict:
    """Save (收藏), or "Saved ✓" when the reader has it: a click toggles the clicker's own save.

    The value names the paper and, in `state`, the view to redraw (a results page, a
    card); never a user: whose save it is comes from Slack's signed payload.
    """
    value = {**(state or {}), "id": paper.id, "l": lang}
    if saved:
        return button(t("button.saved", lang), "paper_save", value)  # no style: one primary a message at most
    return button(t("button.save", lang), "paper_save", value)


def render_results(
    result: SearchResult,
    lang: str,
    *,
    like: Paper | None = None,
    shareable: bool = True,
    note: str = "",
    saved: frozenset[str] | set[str] = frozenset(),
) -> Message:
    """A page of results: count, notes, the hits with buttons, and Previous/Next.

    `like` marks a "More like this" page (the header names that paper and paging keeps
    asking for papers like it). `shareable=False` drops Share (App Home has no channel).
    `saved`: the reader's saved paper ids, shown as "Saved" on their buttons.
    """
    query_label = escape(truncate(query_label_text(result.query), 200))
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
            return render_no_results(result, lang, notes)
        head = results_header(result, lang, query=query_label)
        if result.mode == "any":
            notes.append(t("search.any_terms", lang))
    blocks: list[dict] = [section(head)]
    suggestion = _suggestion_to_offer(result) if like is None else None
    if suggestion:
        # The hits are already the corrected query's: say so once, and offer the text as typed.
        notes.append(t("search.showing_for", lang, suggestion=escape(truncate(suggestion, 200)), query=query_label))
    if notes:
        blocks.append(context(*notes))
    state = {**page_state(result, lang, like=like), "p": result.page}
    state.pop("l", None)
    if like is not None:
        state["k"] = state.pop("id")  # "id" is the paper a Save button saves
    for number, hit in enumerate(result.hits, start=(result.page - 1) * result.per_page + 1):
        blocks.extend(render_hit(hit, lang, number, shareable=shareable, saved=hit.paper.id in saved, save_state=state))
    nav = page_buttons(result, lang, like=like)
    if suggestion:
        nav = nav or actions(block_id="pages")
        nav["elements"].append(search_instead_button(result.query, lang))
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


def results_header(result: SearchResult, lang: str, *, query: str = "", title: str | None = None) -> str:
    """The count line: "*7* papers for “q” · page 1 of 2", or "About *36,000* papers for “q”".

    `title` (already escaped) makes it a "More like this" header. An estimated total is
    rounded (`format_estimate`) and has no "of N pages": N would be an estimate too.
    """
    stem = "search.more_like_header" if title is not None else "search.header"
    if result.estimated:
        key = f"{stem}_estimated_page" if result.page > 1 else f"{stem}_estimated"
        shown = (result.page - 1) * result.per_page + len(result.hits)
        total: int | str = format_estimate(result.total, lang, at_least=shown)
    else:
        key = stem if result.pages > 1 else f"{stem}_single"  # no "page 1 of 1"
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
    blocks.append(actions(button(t("button.prev", lang), "results_prev", {**page_state(result, lang, like=like), "p": result.page - 1}), block_id="pages"))
    return Message(text=notification_text(text), blocks=blocks)


def page_state(result: SearchResult, lang: str, *, like: Paper | None = None) -> dict:
    """What a paging button needs to ask for another page of the same results."""
    if like is not None:
        return {"m": "more", "id": like.id, "l": lang}
    return {"m": "search", "q": result.query, "l": lang}


def page_buttons(result: SearchResult, lang: str, *, like: Paper | None = None) -> dict | None:
    state = page_state(result, lang, like=like)
    elements = []
    if result.page > 1:
        elements.append(button(t("button.prev", lang), "results_prev", {**state, "p": result.page - 1}))
    if result.has_next:
        elements.append(button(t("button.next", lang), "results_next", {**state, "p": result.page + 1}))
    return actions(*elements, block_id="pages") if elements else None


def render_no_results(result: SearchResult, lang: str, notes: list[str] | None = None) -> Message:
    """Say nothing matched; offer the index's suggestion as a button that runs it."""
    query_label = escape(truncate(result.query, 200))
    text = t("search.none", lang, query=query_label)
    blocks = [section(text)]
    if notes:
        blocks.append(context(*notes))
    if result.suggestion:
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
    return button(label, "search_run", {"q": query, "l": lang, "x": 1})


def suggestion_button(suggestion: str, lang: str) -> dict:
    """A button that runs the suggested query (replacing the message it sits in)."""
    label = t("button.search", lang, query=truncate(suggestion, 50))
    return button(label, "search_run", {"q": suggestion, "l": lang}, style="primary")


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
        blocks.append({"type": "section", "fields": [_mrkdwn(f, LIMITS["field_text"]) for f in fields[: LIMITS["section_fields"]]]})
    else:
        meta = _meta_line(paper, lang)
        if meta:
            blocks.append(context(meta))

    summary: list[dict] = []
    if paper.summary_zh and (full or lang == "zh" or not paper.abstract_en):
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
    state = {"m": "details"} if full and not shared_by else None
    blocks.append(
        paper_buttons(paper, lang, shareable=shareable and not shared_by, details=not full, saved=saved and not shared_by, save_state=state)
    )
    text = escape(truncate(paper.title(lang), 280))
    if shared_by:
        text = f"{t('card.shared_by', lang, user_id=shared_by)}: {text}"
    return Message(text=notification_text(text), blocks=blocks[: LIMITS["message_blocks"]])


def _affiliation_lines(paper: Paper, lang: str, other: str) -> str:
    lines = []
    for affiliation in paper.affiliations:
        first, second = affiliation.name(lang), affiliation.name(other)
        line = escape(first) + (f" ({escape(second)})" if second and second != first else "")
        lines.append(f"• {line}")
    return "\n".join(lines)


def split_text(text: str, limit: int, max_parts: int) -> list[str]:
    """Split text into at most `max_parts` pieces of at most `limit` characters.

    Cuts at a sentence end or space near the limit; the last piece is truncated with an
    ellipsis when the text is longer than `limit * max_parts`.
    """
    parts: list[str] = []
    rest = text
    while rest and len(parts) < max_parts - 1 and len(rest) > limit:
        cut = max(rest.rfind(mark, 0, limit) for mark in ("。", ". ", "；", "\n", " "))
        cut = cut + 1 if cut > limit // 2 else limit
        parts.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    parts.append(truncate(rest, limit))
    return parts or [""]


# -- validation ------------------------------------------------------------------------


def check_blocks(blocks: list[dict], surface: str = "message") -> list[str]:
    """List every way `blocks` breaks Block Kit's limits (empty when Slack will accept them).

    `surface` is "message" (50 blocks) or "home" (100 blocks).
    """
    problems: list[str] = []
    limit = LIMITS["home_blocks"] if surface == "home" else LIMITS["message_blocks"]
    if len(blocks) > limit:
        problems.append(f"{len(blocks)} blocks > {limit} on a {surface}")
    block_ids: set[str] = set()
    for index, block in enumerate(blocks):
        where = f"block {index} ({block.get('type')})"
        block_id = block.get("block_id")
        if block_id is not None:
            if len(block_id) > LIMITS["block_id"]:
                problems.append(f"{where}: block_id longer than {LIMITS['block_id']}")
            if block_id in block_ids:
                problems.append(f"{where}: duplicate block_id {block_id!r}")
            block_ids.add(block_id)
        kind = block.get("type")
        if kind == "section":
            problems += _check_section(block, where)
        elif kind == "header":
            problems += _check_text(block.get("text"), LIMITS["header_text"], f"{where} text", plain=True)
        elif kind == "context":
            elements = block.get("elements", [])
            if not 1 <= len(elements) <= LIMITS["context_elements"]:
                problems.append(f"{where}: {len(elements)} elements, allowed 1-{LIMITS['context_elements']}")
            for element in elements:
                if element.get("type") in ("mrkdwn", "plain_text"):
                    problems += _check_text(element, LIMITS["context_text"], f"{where} element")
        elif kind == "actions":
            elements = block.get("elements", [])
            if not 1 <= len(elements) <= LIMITS["actions_elements"]:
                problems.append(f"{where}: {len(elements)} elements, allowed 1-{LIMITS['actions_elements']}")
            action_ids = [e.get("action_id") for e in elements if e.get("action_id")]
            if len(action_ids) != len(set(action_ids)):
                problems.append(f"{where}: duplicate action_id")
            for element in elements:
                problems += _check_element(element, where)
        elif kind in ("divider", "image", "input", "rich_text"):
            pass
        else:
            problems.append(f"{where}: unknown block type")
    return problems


def _check_text(obj: dict | None, limit: int, where: str, *, plain: bool = False) -> list[str]:
    if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
        return [f"{where}: missing text object"]
    problems = []
    if plain and obj.get("type") != "plain_text":
        problems.append(f"{where}: must be plain_text")
    if not obj["text"]:
        problems.append(f"{where}: empty text")
    if len(obj["text"]) > limit:
        problems.append(f"{where}: {len(obj['text'])} characters > {limit}")
    return problems


def _check_section(block: dict, where: str) -> list[str]:
    problems = []
    if "text" not in block and "fields" not in block:
        problems.append(f"{where}: needs text or fields")
    if "text" in block:
        problems += _check_text(block["text"], LIMITS["section_text"], f"{where} text")
    fields = block.get("fields", [])
    if len(fields) > LIMITS["section_fields"]:
        problems.append(f"{where}: {len(fields)} fields > {LIMITS['section_fields']}")
    for field_obj in fields:
        problems += _check_text(field_obj, LIMITS["field_text"], f"{where} field")
    if "accessory" in block:
        problems += _check_element(block["accessory"], where)
    return problems


def _check_element(element: dict, where: str) -> list[str]:
    problems = []
    kind = element.get("type")
    if len(element.get("action_id", "")) > LIMITS["action_id"]:
        problems.append(f"{where}: action_id longer than {LIMITS['action_id']}")
    if kind == "button":
        problems += _check_text(element.get("text"), LIMITS["button_text"], f"{where} button", plain=True)
        if len(element.get("value", "")) > LIMITS["button_value"]:
            problems.append(f"{where}: button value longer than {LIMITS['button_value']}")
        if len(element.get("url", "")) > LIMITS["url"]:
            problems.append(f"{where}: button url longer than {LIMITS['url']}")
    elif kind == "overflow":
        options = element.get("options", [])
        if not 1 <= len(options) <= LIMITS["overflow_options"]:
            problems.append(f"{where}: {len(options)} overflow options, allowed 1-{LIMITS['overflow_options']}")
        for option in options:
            problems += _check_text(option.get("text"), LIMITS["option_text"], f"{where} option", plain=True)
            if len(option.get("value", "")) > LIMITS["option_value"]:
                problems.append(f"{where}: option value longer than {LIMITS['option_value']}")
    elif kind == "static_select":
        options = element.get("options", [])
        if not 1 <= len(options) <= LIMITS["select_options"]:
            problems.append(f"{where}: {len(options)} options, allowed 1-{LIMITS['select_options']}")
        for option in options + ([element["initial_option"]] if "initial_option" in element else []):
            problems += _check_text(option.get("text"), LIMITS["option_text"], f"{where} option", plain=True)
            if len(option.get("value", "")) > LIMITS["option_value"]:
                problems.append(f"{where}: option value longer than {LIMITS['option_value']}")
        if "placeholder" in element:
            problems += _check_text(element["placeholder"], LIMITS["header_text"], f"{where} placeholder", plain=True)
    return problems


def check_view(view: dict) -> list[str]:
    """Check a Home view: its blocks (100 max) and private_metadata."""
    problems = check_blocks(view.get("blocks", []), surface="home")
    if len(view.get("private_metadata", "")) > LIMITS["private_metadata"]:
        problems.append("private_metadata longer than 3,000 characters")
    return problems


# -- plain text, for the offline console -------------------------------------------------

_LINK = re.compile(r"<(https?://[^|>]+)\|([^>]+)>")
_BARE_LINK = re.compile(r"<(https?://[^|>]+)>")
_MENTION = re.compile(r"<@(\w+)>")
_CHANNEL = re.compile(r"<#(\w+)(?:\|([^>]*))?>")
_DATE = re.compile(r"<!date\^[^|>]*\|([^>]*)>")


def _to_plain(mrkdwn: str) -> str:
    """Flatten mrkdwn for terminals (the console): links become "label (url)".

    Not for what is sent to Slack: unescaped `<` and `&` there would be read as markup.
    """
    text = _LINK.sub(lambda m: f"{m.group(2)} ({m.group(1)})", mrkdwn)
    text = _BARE_LINK.sub(r"\1", text)
    text = _MENTION.sub(r"@\1", text)
    text = _CHANNEL.sub(lambda m: f"#{m.group(2) or m.group(1)}", text)
    text = _DATE.sub(r"\1", text)
    return _unescape(text.replace(ZWSP, ""))


def blocks_to_text(blocks: list[dict]) -> str:
    """Render blocks as the plain text a reader would see; buttons become [Label]."""
    lines: list[str] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "header":
            title = block["text"]["text"]
            lines += [title, "=" * min(len(title), 60)]
        elif kind == "section":
            if "text" in block:
                lines.append(_to_plain(block["text"]["text"]))
            if block.get("accessory", {}).get("type") == "overflow":
                lines.append("[⋯ " + " | ".join(o["text"]["text"] for o in block["accessory"]["options"]) + "]")
            if "fields" in block:
                lines.append("   ".join(_to_plain(f["text"]).replace("\n", ": ", 1) for f in block["fields"]))
        elif kind == "context":
            lines.append(" · ".join(_to_plain(e.get("text", "")) for e in block.get("elements", [])))
        elif kind == "actions":
            labels = []
            for element in block.get("elements", []):
                if element.get("type") == "button" and element.get("url"):
                    labels.append(f"[{element['text']['text']} {element['url']}]")  # a terminal can't click
                elif element.get("type") == "button":
                    labels.append(f"[{element['text']['text']}]")
                elif element.get("type") == "static_select":
                    chosen = element.get("initial_option", {}).get("text", {}).get("text", "")
                    labels.append(f"[{chosen} ▾]")
            lines.append(" ".join(labels))
        elif kind == "divider":
            lines.append("-" * 40)
    return "\n".join(lines)
