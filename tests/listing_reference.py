"""The listing parser as it stood before issue 12 made it cheaper (main at 7b0f036), kept
verbatim (less the worker pool) so tests/test_listing_reference.py can show the faster
parser gives every Paper and every error exactly as this one did. Not used by the bot.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from pathlib import Path

from bot.i18n import t
from bot.models import Affiliation, Listing, ListingError, Paper

_SUMMARY = re.compile(r"^AI\s*总结\s*[:：]?\s*")
_AFFILIATIONS = re.compile(r"^机构\s*[*＊]?\s*[:：]?\s*")
_COMMENTS = re.compile(r"^Comments?\s*[:：]\s*|^Comments?\s+", re.IGNORECASE)
_JOURNAL = re.compile(r"^Journal[\s-]*ref(?![A-Za-z])\s*[:：]?\s*", re.IGNORECASE)
_DEBRIS = re.compile(r"\s*纠错\s*$")
_AUTHOR_SEP = re.compile(r"\s*[,，、;；]\s*|\s+and\s+")
_URL = re.compile(r"https?://[^\s<>\"'（）()，,；;]+", re.IGNORECASE)
# Unicode category Cf (Unicode 14), spelled out: a per-character category() call made
# parsing 100k records 2x slower. In two classes: SRE tests a class with characters past
# U+FFFF range by range, one within it by a table (3.5x faster over a listing), and text
# rarely holds any character past U+FFFF.
_FORMAT_CHARS = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]"
)
_FORMAT_CHARS_ASTRAL = re.compile(
    "[\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
_OTHER_VENUE = re.compile(
    r"(?<![A-Za-z])([A-Z][A-Za-z]*[A-Z]{2,}[A-Za-z]*)(?:\s*['’]?\s*((?:19|20)\d\d)(?![\d.])|\))"
)  # an unknown acronym followed by a year ("ICMLCN 2025") or closing parentheses ("(ICMLCN)")
_VENUE_WORDS = re.compile(r"conference|workshop|symposium|proceedings|journal|transactions", re.IGNORECASE)
FIELD_LIMITS = {
    "title_en": 1_000,
    "title_zh": 1_000,
    "authors": 50_000,
    "affiliations": 20_000,
    "summary": 10_000,
    "comments": 5_000,
    "journal": 5_000,
}
_YEAR4 = re.compile(r"(?<![\d.])(19[89]\d|20\d\d)(?![\d.]\d|\d)")  # not arXiv ids (2012.12345)

#: Venue acronyms and the long names that stand for them in comments and journal refs.
VENUES: dict[str, tuple[str, ...]] = {
    "ICML": ("International Conference on Machine Learning",),
    "NeurIPS": ("Neural Information Processing Systems", "NIPS"),
    "ICLR": ("International Conference on Learning Representations",),
    "AAAI": ("AAAI Conference on Artificial Intelligence",),
    "IJCAI": ("International Joint Conference on Artificial Intelligence",),
    "ACL": ("Annual Meeting of the Association for Computational Linguistics",),
    "EMNLP": ("Empirical Methods in Natural Language Processing",),
    "NAACL": (),
    "COLING": (),
    "CVPR": ("Computer Vision and Pattern Recognition",),
    "ICCV": ("International Conference on Computer Vision",),
    "ECCV": ("European Conference on Computer Vision",),
    "KDD": ("Knowledge Discovery and Data Mining",),
    "SIGIR": (),
    "WWW": ("The Web Conference",),
    "COLT": ("Conference on Learning Theory",),
    "AISTATS": ("Artificial Intelligence and Statistics",),
    "UAI": ("Uncertainty in Artificial Intelligence",),
    "COLM": ("Conference on Language Modeling",),
    "TMLR": ("Transactions on Machine Learning Research",),
    "JMLR": ("Journal of Machine Learning Research",),
    "ICRA": ("International Conference on Robotics and Automation",),
    "CoRL": ("Conference on Robot Learning",),
    "MLSys": (),
}
_VENUE_PATTERNS = [
    (name, re.compile(r"(?<![A-Za-z])(?:" + "|".join(re.escape(n) for n in (name, *aliases)) + r")(?![A-Za-z])", re.IGNORECASE))
    for name, aliases in VENUES.items()
]
_LETTERS = re.compile("[a-z]+")


def _venues_by_first_letters() -> tuple[dict[str, set[int]], set[int]]:
    """The venues (indexes into _VENUE_PATTERNS) each leading run of letters can begin, and
    those whose spelling begins otherwise (always tried).

    A pattern matches an ASCII text only where its spelling's leading letters stand as a
    whole run of letters (no letter before, the spelling's own non-letter or the pattern's
    end after), so `_known_venues` need not try a venue none of whose runs is in the text
    (20k records: 1.3 s -> 0.2 s).
    """
    by_letters: dict[str, set[int]] = {}
    always: set[int] = set()
    for at, (name, aliases) in enumerate(VENUES.items()):
        for spelling in (name, *aliases):
            lead = _LETTERS.match(spelling.lower())
            (by_letters.setdefault(lead.group(), set()) if lead else always).add(at)
    return by_letters, always


_VENUES_BY_FIRST_LETTERS, _VENUES_ALWAYS_TRIED = _venues_by_first_letters()
_LONG_NAME_GOES_ON = re.compile(r"\s+(?:for|and|in|on)\s")
_WORKSHOP = re.compile(r"workshop", re.IGNORECASE)
_SPLIT_MARKS = re.compile("[（()）；;]")


def paper_id(title_en: str) -> str:
    """Derive a stable id from the English title, ignoring case, width and punctuation.

    "MineDraft: A Framework…" and "minedraft — a framework…" get the same id, so the same
    paper listed by two feeds (or re-ingested after a typo fix in spacing) merges.
    """
    normal = unicodedata.normalize("NFKC", title_en).casefold()
    normal = " ".join(re.findall(r"\w+", normal))
    return hashlib.sha1(normal.encode("utf-8")).hexdigest()[:12]


def read_text(path: Path) -> tuple[str | None, ListingError | None]:
    """Read a listing as UTF-8 (BOM or not); refuse binary and non-UTF-8 files with a reason."""
    data = path.read_bytes()
    return decode_listing(str(path), data)


def decode_listing(name: str, data: bytes) -> tuple[str | None, ListingError | None]:
    """Decode listing bytes, naming the likely encoding when they are not UTF-8."""
    if b"\x00" in data[:8192]:
        return None, listing_error(name, 0, "file_binary")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        try:
            data.decode("gb18030")
            guess = "GBK/GB18030"
        except UnicodeDecodeError:
            guess = ""
        key = "file_not_utf8_gbk" if guess else "file_not_utf8"
        return None, listing_error(name, 0, key, offset=exc.start)
    return text.replace("\r\n", "\n").replace("\r", "\n"), None


def parse_path(path: str | Path) -> Listing:
    """Parse one listing file; unreadable files come back as a Listing with one error."""
    path = Path(path)
    try:
        text, error = read_text(path)
    except OSError as exc:
        return Listing(
            path=str(path), feed="", errors=[listing_error(str(path), 0, "file_unreadable", detail=exc.strerror or str(exc))]
        )
    if error:
        return Listing(path=str(path), feed="", errors=[error])
    return parse_text(text, str(path))


def parse_text(text: str, path: str = "<text>") -> Listing:
    """Parse the text of one listing; bad records become errors, good ones still count."""
    # Format characters (zero-width spaces and joiners, BOMs) are invisible page debris:
    # left in, "\u200bAI总结" is not a summary line and "\u200b" passes for a title.
    # Removed from the whole text at once (none of the substitutions touches "\n").
    cleaned = _FORMAT_CHARS.sub("", text)
    if _ASTRAL.search(cleaned):
        cleaned = _FORMAT_CHARS_ASTRAL.sub("", cleaned)
    cleaned = cleaned.replace("\u00a0", " ").replace("\u3000", " ")
    lines = [(n, line) for n, line in enumerate((line.strip() for line in cleaned.split("\n")), start=1) if line]
    if not lines:
        return Listing(path=path, feed="", errors=[listing_error(path, 0, "file_empty")])
    feed_line, feed = lines[0]
    if _kind(feed) != "plain":
        return Listing(path=path, feed="", errors=[listing_error(path, feed_line, "feed_missing")])
    listing = Listing(path=path, feed=feed)
    for chunk in _chunks(lines[1:]):
        _parse_chunk(chunk, listing)
    if not listing.records and not listing.errors:
        listing.errors.append(listing_error(path, feed_line, "file_no_records"))
    return listing


def parse_affiliations(text: str) -> list[Affiliation]:
    """Split `A（甲） ； B（乙） 纠错` into pairs; either language may be missing.

    The Chinese name is the trailing full-width (or CJK-holding half-width) parenthesised
    group, matched from the end so that nested parentheses stay inside the name.
    """
    text = _DEBRIS.sub("", text)
    pairs = []
    for part in _split_outside_parentheses(text):
        part = part.strip(" ，,")
        if part:
            pairs.append(_split_pair(part))
    return pairs


def _split_outside_parentheses(text: str) -> list[str]:
    """Split on `；`/`;` except inside parentheses: `化学（物理；化学系）` is one name."""
    parts, depth, start = [], 0, 0
    for match in _SPLIT_MARKS.finditer(text):  # only the characters that matter, not all of them
        i, ch = match.start(), match.group()
        if ch in "（(":
            depth += 1
        elif ch in "）)":
            depth = max(0, depth - 1)
        elif ch in "；;" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parse_authors(text: str) -> list[str]:
    """Split an author line on commas (either width), enumeration commas and ' and '."""
    return [a.strip() for a in _AUTHOR_SEP.split(text) if a.strip()]


def find_urls(text: str) -> list[str]:
    """Return the URLs in `text` without trailing sentence punctuation, in order, once each."""
    seen: dict[str, None] = {}
    for url in _URL.findall(text):
        seen.setdefault(url.rstrip(".。:：!?"), None)
    return list(seen)


def find_venue(text: str) -> tuple[str, int | None, str]:
    """Find (venue name, year, track) in comments or a journal ref; ("", None, "") if none.

    Track is "workshop" when the text names a workshop, else "main".
    """
    known = _known_venues(text)
    best = min(known, default=None)
    if best is None:
        other = _OTHER_VENUE.search(text)
        # An unknown "(ACRONYM)" only counts in a sentence about a venue, not "(PDF)".
        if other is None or (not other.group(2) and not _VENUE_WORDS.search(text)):
            return "", None, ""
        best = (other.start(), other.group(1))
    start, name = best
    year = None
    # The venue's year stands in the same clause (not across ";"), and no other venue
    # stands between them: "Submitted to NeurIPS; extends our AAAI 2024 paper".
    others = [at for at, other in known if other != name]
    years = [
        (abs(m.start() - start), int(m.group(1)))
        for m in _YEAR4.finditer(text)
        if ";" not in text[min(start, m.start()) : max(start, m.start())]
        and not any(min(start, m.start()) < at < max(start, m.start()) for at in others)
    ]
    if years:
        year = min(years)[1]
    elif short := re.search(r"(?<![A-Za-z])" + re.escape(name) + r"\s*['’‘]?\s*(\d\d)(?!\d)", text, re.IGNORECASE):
        year = 2000 + int(short.group(1))
    track = "workshop" if _WORKSHOP.search(text) else "main"
    return name, year, track


def _known_venues(text: str) -> list[tuple[int, str]]:
    """(position, name) of the first mention of each known venue in `text`."""
    found = []
    if text.isascii():  # IGNORECASE also matches a few non-ASCII letters (the Kelvin sign for k)
        by_letters = _VENUES_BY_FIRST_LETTERS
        maybe = _VENUES_ALWAYS_TRIED.union(*(by_letters[w] for w in set(_LETTERS.findall(text.lower())) if w in by_letters))
        patterns = [_VENUE_PATTERNS[at] for at in sorted(maybe)]
    else:
        patterns = _VENUE_PATTERNS
    for name, pattern in patterns:
        for match in pattern.finditer(text):
            # "International Conference on Machine Learning for Communication..." is another venue.
            if _LONG_NAME_GOES_ON.match(text, match.end()) and " " in match.group(0):
                continue
            found.append((match.start(), name))
            break
    return found


def venue_label(name: str, year: int | None, track: str) -> str:
    """Join venue parts: 'ICML 2026', 'ICML 2026 Workshop'."""
    if not name:
        return ""
    label = f"{name} {year}" if year else name
    return f"{label} Workshop" if track == "workshop" else label


# -- internals ---------------------------------------------------------------------------


def _kind(line: str) -> str:
    if line[0] not in "A机JjCc":  # what the patterns below can begin with: most lines are plain
        return "plain"
    if _SUMMARY.match(line):
        return "summary"
    if _AFFILIATIONS.match(line):
        return "affiliations"
    if _JOURNAL.match(line):
        return "journal"
    if _COMMENTS.match(line):
        return "comments"
    return "plain"


def _chunks(lines: list[tuple[int, str]]):
    """Group lines into records: a record closes when a plain line follows its trailer.

    Only a record's own `AI总结` opens its trailer, so a `Comments`/`Journal ref` line
    before it is an ordinary line. And a title that happens to start with "Comments"
    ("Comments on Peer Review") reads like the previous record's comments: when the next
    record is then one line short, that line is given back to it as its title.
    """
    chunks: list[list[tuple[int, str, str]]] = []
    chunk: list[tuple[int, str, str]] = []
    seen_summary = False
    for number, line in lines:
        kind = _kind(line)
        if not seen_summary and kind in ("comments", "journal"):
            kind = "plain"
        if kind == "plain" and seen_summary:
            chunks.append(chunk)
            chunk, seen_summary = [], False
        if kind == "summary":
            seen_summary = True
        chunk.append((number, kind, line))
    if chunk:
        chunks.append(chunk)
    for previous, current in zip(chunks, chunks[1:], strict=False):
        head = [kind for _, kind, _ in current[: _summary_index(current)]]
        if head.count("plain") == 2 and previous[-1][1] in ("comments", "journal") and len(previous) > 2:
            number, _, line = previous.pop()
            current.insert(0, (number, "plain", line))
    yield from chunks


def _summary_index(chunk: list[tuple[int, str, str]]) -> int:
    return next((i for i, (_, kind, _) in enumerate(chunk) if kind == "summary"), len(chunk))


def _parse_chunk(chunk: list[tuple[int, str, str]], listing: Listing) -> None:
    path = listing.path
    first_line = chunk[0][0]
    summary_at = _summary_index(chunk)
    if summary_at == len(chunk):
        listing.errors.append(listing_error(path, first_line, "record_no_summary"))
        return
    head = chunk[:summary_at]
    affiliation_lines = [line for _, kind, line in head if kind == "affiliations"]
    plain = [(n, line) for n, kind, line in head if kind == "plain"]
    if len(plain) == 4 and not _CJK.search(plain[0][1] + plain[1][1]) and _CJK.search(plain[2][1]):
        # An English title wrapped onto two lines, then the Chinese title: join them.
        plain = [(plain[0][0], f"{plain[0][1]} {plain[1][1]}"), *plain[2:]]
    if len(plain) > 3:
        # The record before this one lost its AI总结 line and ran into this one.
        listing.errors.append(listing_error(path, plain[0][0], "record_no_summary"))
        cut = plain[-3][0]
        plain = plain[-3:]
        affiliation_lines = [line for n, kind, line in head if kind == "affiliations" and n > cut]
        first_line = cut
    if len(plain) < 3:
        listing.errors.append(listing_error(path, first_line, "record_short", found=len(plain)))
        return
    if len(affiliation_lines) > 1:
        listing.errors.append(listing_error(path, first_line, "record_two_affiliations"))
        return
    (_, title_en), (_, title_zh), (_, authors) = plain
    if not _LATIN.search(title_en) and _CJK.search(title_en):
        listing.errors.append(listing_error(path, first_line, "record_title_not_english"))
        return
    if not re.search(r"\w", title_en):
        listing.errors.append(listing_error(path, first_line, "record_title_empty"))
        return
    trailer = chunk[summary_at:]
    summary = _SUMMARY.sub("", trailer[0][2]).strip()
    comments = " ".join(_COMMENTS.sub("", line).strip() for _, kind, line in trailer if kind == "comments")
    journal = " ".join(_JOURNAL.sub("", line).strip() for _, kind, line in trailer if kind == "journal")
    extra = [n for n, kind, _ in trailer[1:] if kind in ("summary", "affiliations")]
    if extra:
        listing.errors.append(listing_error(path, extra[0], "record_misplaced_line"))
        return
    affiliations_at = next((n for n, kind, line in head if kind == "affiliations" and line in affiliation_lines), first_line)
    fields = {
        "title_en": (plain[0][0], title_en),
        "title_zh": (plain[1][0], title_zh),
        "authors": (plain[2][0], authors),
        "affiliations": (affiliations_at, affiliation_lines[0] if affiliation_lines else ""),
        "summary": (trailer[0][0], summary),
        "comments": (next((n for n, kind, _ in trailer if kind == "comments"), first_line), comments),
        "journal": (next((n for n, kind, _ in trailer if kind == "journal"), first_line), journal),
    }
    for name, (line_number, value) in fields.items():
        if len(value) > FIELD_LIMITS[name]:
            listing.errors.append(field_too_long(path, line_number, name, len(value)))
            return
    venue_name, year, track = find_venue(f"{comments} {journal}")
    paper = Paper(
        id=paper_id(title_en),
        title_en=title_en,
        title_zh=title_zh,
        authors=parse_authors(authors),
        affiliations=parse_affiliations(_AFFILIATIONS.sub("", affiliation_lines[0])) if affiliation_lines else [],
        summary_zh=summary,
        comments=comments,
        journal_ref=journal,
        venue=venue_label(venue_name, year, track),
        venue_name=venue_name,
        year=year,
        track=track,
        urls=find_urls(f"{comments} {journal}"),
        feeds=[listing.feed],
    )
    listing.records.append((first_line, paper))


def _split_pair(part: str) -> Affiliation:
    for open_, close in (("（", "）"), ("(", ")")):
        if not part.endswith(close):
            continue
        depth = 0
        for i in range(len(part) - 1, -1, -1):
            ch = part[i]
            if ch in "）)":
                depth += 1
            elif ch in "（(":
                depth -= 1
                if depth == 0:
                    inner, outer = part[i + 1 : -1].strip(), part[:i].strip()
                    if open_ == "（" or _CJK.search(inner):
                        if not outer:
                            return Affiliation(en="", zh=inner) if _CJK.search(inner) else Affiliation(en=inner, zh="")
                        return Affiliation(en=outer, zh=inner)
                    break
    if _CJK.search(part) and not _LATIN.search(part):
        return Affiliation(en="", zh=part)
    return Affiliation(en=part, zh="")


def listing_error(path: str, line: int, key: str, **fmt) -> ListingError:
    """Build a ListingError with the reason for `listing.<key>` in both languages."""
    return ListingError(path=path, line=line, reason=t(f"listing.{key}", "en", **fmt), reason_zh=t(f"listing.{key}", "zh", **fmt))


def field_too_long(path: str, line: int, name: str, length: int) -> ListingError:
    """A record's field is past FIELD_LIMITS: say which, how long, and the limit, in both languages."""
    limit, length = f"{FIELD_LIMITS[name]:,}", f"{length:,}"  # 10,000: the same in both languages
    return ListingError(
        path=path,
        line=line,
        reason=t("listing.record_field_too_long", "en", field=t(f"listing.field_{name}", "en"), length=length, limit=limit),
        reason_zh=t("listing.record_field_too_long", "zh", field=t(f"listing.field_{name}", "zh"), length=length, limit=limit),
    )
