"""Parse the bilingual listing format into Papers, reporting bad records by file and line.

A listing file names its feed on its first line, then holds records whose fields stand on
their own lines (usually with blank lines between them):

    English title
    Chinese title
    Author One, Author Two
    机构 * Univ A（甲大学） ； Univ B（乙大学） 纠错      (optional)
    AI总结 中文摘要……
    Comments Accepted at ICML 2026                    (optional)
    Journal ref Proceedings of ... (ICML), 2026       (optional)

Blank lines carry no meaning, so a record ends where its `AI总结`/`Comments`/`Journal ref`
lines end and the next plain line begins the next record.

Field limits (FIELD_LIMITS, in characters): titles 1,000, authors 50,000, affiliations
20,000, the summary 10,000, comments and journal ref 5,000 each. A record with a field
past its limit is rejected, with file, line and reason, like any other malformed record;
the rest of the file still goes in. Rejected rather than truncated, because the store is
the source of truth and should hold what the source said: a field that long is nearly
always a broken record (two records run together, a pasted paper), and cutting it would
store and index half of a mistake under a real title. The limits are ~100x the longest
real values (seed summaries: median 75 characters), and keep every later step bounded:
indexing, snippets, Block Kit.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import re
import unicodedata
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from itertools import islice
from pathlib import Path

from bot.child import die_with_parent
from bot.i18n import t
from bot.models import Affiliation, Listing, ListingError, Paper

_SUMMARY = re.compile(r"^AI\s*总结\s*[:：]?\s*")
_AFFILIATIONS = re.compile(r"^机构\s*[*＊]?\s*[:：]?\s*")
_COMMENTS = re.compile(r"^Comments?\s*[:：]\s*|^Comments?\s+", re.IGNORECASE)
_JOURNAL = re.compile(r"^Journal[\s-]*ref(?![A-Za-z])\s*[:：]?\s*", re.IGNORECASE)
# `\s*[,，、;；]\s*|\s+and\s+`, spelled so that a match must begin with a separator or a
# space: a leading `\s*` made SRE try the whole pattern at every character (split 1.7x faster).
# A space run is tried from its first space only (`(?<!\s)`), and read once (`++`: what
# follows it is never a space, so giving spaces back can't help): tried from every space
# of a run, a run of 50,000 took 22 s, quadratic.
_AUTHOR_SEP = re.compile(r"[,，、;；]\s*+|(?<!\s)\s++(?:[,，、;；]\s*+|and\s++)")
_URL = re.compile(r"https?://[^\s<>\"'（）()，,；;]+", re.IGNORECASE)
# Unicode category Cf (Unicode 14), spelled out: a per-character category() call made
# parsing 100k records 2x slower. In two classes: SRE tests a class with characters past
# U+FFFF range by range, one within it by a table (3.5x faster over a listing), and text
# rarely holds any character past U+FFFF. With them, the control characters (Cc) but tab,
# line feed and carriage return: an ESC or BEL in a title reached terminals through the
# CLI as live escape sequences (issue 29). NUL never gets here (decode_listing: binary).
_FORMAT_CHARS = re.compile(
    "[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]"
)
_FORMAT_CHARS_ASTRAL = re.compile(
    "[\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f]"
)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")
_WORD = re.compile(r"\w")
# An unknown acronym followed by a year ("ICMLCN 2025") or closing parentheses ("(ICMLCN)"):
# a whole run of letters (`*+`; nothing after it may be a letter) that begins with a
# capital and has two capitals in a row after it (the lookahead), tried only where a run
# begins. Spelled `[A-Z][A-Za-z]*[A-Z]{2,}[A-Za-z]*`, SRE tried every way to cut a run in
# three: 2,000 capitals took 166 s. `\s*+` for the same reason: what follows is no space.
_OTHER_VENUE = re.compile(
    r"(?<![A-Za-z])(?=[A-Z][A-Za-z]*?[A-Z]{2})([A-Z][A-Za-z]*+)(?:\s*+['’]?\s*+((?:19|20)\d\d)(?![\d.])|\))"
)
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
FIELD_NAMES = {
    "title_en": "listing.field_title_en",
    "title_zh": "listing.field_title_zh",
    "authors": "listing.field_authors",
    "affiliations": "listing.field_affiliations",
    "summary": "listing.field_summary",
    "comments": "listing.field_comments",
    "journal": "listing.field_journal",
}
"""Each field's name, as a message key, for the reason a record is rejected."""
_SMALLEST_LIMIT = min(FIELD_LIMITS.values())  # a record whose fields are all shorter needs no check one by one
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
_LONG_NAME_GOES_ON = re.compile(r"\s++(?:for|and|in|on)\s")  # `++`: a word never begins with a space
_WORKSHOP = re.compile(r"workshop", re.IGNORECASE)
_SPLIT_MARKS = re.compile("[（()）；;]")
_SEPARATORS = re.compile("[；;]")
_WORDS = re.compile(r"\w+")
_ASCII_WORD_BYTES = bytes(c if _WORD.match(chr(c)) else 0x20 for c in range(256))  # \w kept, the rest a space


def paper_id(title_en: str) -> str:
    """Derive a stable id from the English title, ignoring case, width and punctuation.

    "MineDraft: A Framework…" and "minedraft — a framework…" get the same id, so the same
    paper listed by two feeds (or re-ingested after a typo fix in spacing) merges.
    """
    if title_en.isascii():
        # NFKC leaves ASCII as it is and casefold is lower there; the words are the runs
        # the table keeps (the findall took most of the id).
        normal_bytes = b" ".join(title_en.lower().encode("ascii").translate(_ASCII_WORD_BYTES).split())
        return hashlib.sha1(normal_bytes).hexdigest()[:12]
    normal = unicodedata.normalize("NFKC", title_en).casefold()
    normal = " ".join(_WORDS.findall(normal))
    return hashlib.sha1(normal.encode("utf-8")).hexdigest()[:12]


def decode_listing(name: str, data: bytes) -> tuple[str | None, ListingError | None]:
    """Decode listing bytes as UTF-8 (BOM or not), naming the likely encoding when they are
    not; refuse binary data with a reason.

    Binary is a NUL anywhere: text in UTF-8 (or GBK) never holds one, and UTF-8 decoding
    would let it through. The whole file is looked at, not its first 8 KB (a text head
    on a binary body passed); `in` over bytes is a C scan, ~1 ms for 10 MB.
    """
    if b"\x00" in data:
        return None, listing_error(name, 0, "listing.file_binary")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        try:
            data.decode("gb18030")
            guess = "GBK/GB18030"
        except UnicodeDecodeError:
            guess = ""
        key = "listing.file_not_utf8_gbk" if guess else "listing.file_not_utf8"
        return None, listing_error(name, 0, key, offset=exc.start)
    return text.replace("\r\n", "\n").replace("\r", "\n"), None


def parse_path(path: str | Path) -> Listing:
    """Parse one listing file; unreadable files come back as a Listing with one error."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        return Listing(
            path=str(path),
            feed="",
            errors=[listing_error(str(path), 0, "listing.file_unreadable", detail=exc.strerror or str(exc))],
        )
    return parse_bytes(str(path), data)


def parse_bytes(name: str, data: bytes) -> Listing:
    """Parse a listing that arrived as bytes, named `name`; bytes that are not UTF-8 text
    come back as a Listing with one error (and no feed: nothing to store)."""
    text, error = decode_listing(name, data)
    if text is None:
        return Listing(path=name, feed="", errors=[error] if error else [])
    return parse_text(text, name)


PARSE_POOL_MIN_FILES = 4
"""Fewer files than this are parsed in this process: starting workers costs more."""


@contextmanager
def parse_paths(files: list[Path], procs: int) -> Iterator[Iterator[Listing]]:
    """Yield the files' parsed listings in order: parsed by `procs` forked workers when
    `procs` > 1 and there are enough files, else here, each as it is asked for.

    Forking is only safe in a process without other threads: `procs` > 1 only comes from
    the CLI (`writer_procs`), never from the threaded server. The workers keep at most
    two files each parsed ahead of the caller, so memory stays bounded; leaving the block
    early (an error storing) stops them.
    """
    if procs <= 1 or len(files) < PARSE_POOL_MIN_FILES or "fork" not in multiprocessing.get_all_start_methods():
        yield (parse_path(path) for path in files)
        return
    workers = min(procs, len(files))
    # concurrent.futures, not multiprocessing.Pool: a worker killed mid-file (out of
    # memory) raises BrokenProcessPool here instead of leaving .get() waiting for good.
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"), initializer=die_with_parent)
    try:

        def in_order() -> Iterator[Listing]:
            waiting = iter(files)
            pending = deque(pool.submit(parse_path, path) for path in islice(waiting, 2 * workers))
            while pending:
                listing = pending.popleft().result()  # a worker's exception is raised here, as if parsed here
                for path in islice(waiting, 1):
                    pending.append(pool.submit(parse_path, path))
                yield listing

        yield in_order()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def parse_text(text: str, path: str = "<text>") -> Listing:
    """Parse the text of one listing; bad records become errors, good ones still count."""
    # Format characters (zero-width spaces and joiners, BOMs) are invisible page debris:
    # left in, "\u200bAI总结" is not a summary line and "\u200b" passes for a title.
    # Control characters are removed with them (a terminal would act on ESC and BEL).
    # Removed from the whole text at once (none of the substitutions touches "\n").
    cleaned = _FORMAT_CHARS.sub("", text)
    if _has_astral(cleaned):
        cleaned = _FORMAT_CHARS_ASTRAL.sub("", cleaned)
    cleaned = cleaned.replace("\u00a0", " ").replace("\u3000", " ")
    lines = [(n, line) for n, line in enumerate(map(str.strip, cleaned.split("\n")), start=1) if line]
    if not lines:
        return Listing(path=path, feed="", errors=[listing_error(path, 0, "listing.file_empty")])
    feed_line, feed = lines[0]
    if _kind(feed) != "plain":
        return Listing(path=path, feed="", errors=[listing_error(path, feed_line, "listing.feed_missing")])
    listing = Listing(path=path, feed=feed)
    venues: dict[str, tuple[str, int | None, str, tuple[str, ...]]] = {}
    affiliations: dict[str, Affiliation] = {}
    for chunk in _chunks(lines[1:]):
        _parse_chunk(chunk, listing, venues, affiliations)
    if not listing.records and not listing.errors:
        listing.errors.append(listing_error(path, feed_line, "listing.file_no_records"))
    return listing


def _has_astral(text: str) -> bool:
    """Tell whether `text` holds a character past U+FFFF: each takes two UTF-16 units.

    Encoding is a copy loop; searching for the range made SRE test every character
    (4.1 -> 0.7 ms over a 1,000-record listing). Lone surrogates take one unit.
    """
    return len(text.encode("utf-16-le", "surrogatepass")) != 2 * len(text)


def parse_affiliations(text: str, known: dict[str, Affiliation] | None = None) -> list[Affiliation]:
    """Split `A（甲） ； B（乙） 纠错` into pairs; either language may be missing.

    The Chinese name is the trailing full-width (or CJK-holding half-width) parenthesised
    group, matched from the end so that nested parentheses stay inside the name. `known`
    remembers the pair each name gave (Affiliation is frozen, so papers can share one).
    """
    # What re.sub(r"\s*纠错\s*$", "", text) gives (its \s is str.isspace), without trying
    # the pattern at every character of the line (2.7 µs a line).
    stripped = text.rstrip()
    if stripped.endswith("纠错"):
        text = stripped[:-2].rstrip()
    pairs = []
    for part in _split_outside_parentheses(text):
        part = part.strip(" ，,")
        if not part:
            continue
        if known is None:
            pairs.append(_split_pair(part))
        elif (pair := known.get(part)) is not None:
            pairs.append(pair)
        else:
            pairs.append(known.setdefault(part, _split_pair(part)))
    return pairs


def _split_outside_parentheses(text: str) -> list[str]:
    """Split on `；`/`;` except inside parentheses: `化学（物理；化学系）` is one name."""
    if "（" not in text and "(" not in text:  # most lines: no depth to keep
        return _SEPARATORS.split(text)
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
    return [a for a in map(str.strip, _AUTHOR_SEP.split(text)) if a]


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
    # The clause is found once: looking for ";" between the venue and each year was
    # quadratic in a text of many years.
    others = [at for at, other in known if other != name]
    clause_start = text.rfind(";", 0, start) + 1
    clause_end = text.find(";", start) % (len(text) + 1)  # -1 (no ";" after it): the text's end
    years = [
        (abs(m.start() - start), int(m.group(1)))
        for m in _YEAR4.finditer(text, clause_start, clause_end)
        if not any(min(start, m.start()) < at < max(start, m.start()) for at in others)
    ]
    if years:
        year = min(years)[1]
    elif short := re.search(r"(?<![A-Za-z])" + re.escape(name) + r"\s*+['’‘]?\s*+(\d\d)(?!\d)", text, re.IGNORECASE):
        year = 2000 + int(short.group(1))
    track = "workshop" if _WORKSHOP.search(text) else "main"
    return name, year, track


def _known_venues(text: str) -> list[tuple[int, str]]:
    """(position, name) of the first mention of each known venue in `text`."""
    found: list[tuple[int, str]] = []
    if text.isascii():  # IGNORECASE also matches a few non-ASCII letters (the Kelvin sign for k)
        by_letters = _VENUES_BY_FIRST_LETTERS
        leads = by_letters.keys() & set(_LETTERS.findall(text.lower()))
        if not leads and not _VENUES_ALWAYS_TRIED:
            return found
        maybe = _VENUES_ALWAYS_TRIED.union(*(by_letters[w] for w in leads))
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
    # Each pattern can begin with one letter only (IGNORECASE gives J and C no other
    # forms), so a line needs at most one match: an author "Chen" tried four.
    first = line[0]
    if first == "A":
        return "summary" if _SUMMARY.match(line) else "plain"
    if first == "机":
        return "affiliations" if _AFFILIATIONS.match(line) else "plain"
    if first in "Jj":
        return "journal" if _JOURNAL.match(line) else "plain"
    if first in "Cc":
        return "comments" if _COMMENTS.match(line) else "plain"
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
        if kind == "plain":
            if seen_summary:
                chunks.append(chunk)
                chunk, seen_summary = [], False
        elif kind == "summary":
            seen_summary = True
        elif not seen_summary and kind != "affiliations":  # comments, journal
            kind = "plain"
        chunk.append((number, kind, line))
    if chunk:
        chunks.append(chunk)
    for previous, current in zip(chunks, chunks[1:], strict=False):
        # The cheap tests first: most records end in their summary, not a comment.
        if previous[-1][1] in ("comments", "journal") and len(previous) > 2:
            plain_in_head = 0
            for _, kind, _ in current:
                if kind == "summary":
                    break
                plain_in_head += kind == "plain"
            if plain_in_head == 2:
                number, _, line = previous.pop()
                current.insert(0, (number, "plain", line))
    yield from chunks


def _parse_chunk(
    chunk: list[tuple[int, str, str]], listing: Listing, venues: dict | None = None, known_affiliations: dict | None = None
) -> None:
    """Parse one record into `listing`; `venues` remembers what each comment text gave,
    `known_affiliations` what each affiliation name gave, over one listing.

    A listing repeats its comments ("Accepted at ICML 2026", a paper listed twice) and
    its institutions: the seeds hold 62 distinct comment texts in 110 records and 138
    affiliations in 199; a generated file 1 text in 3 (and its 138 seed affiliations over
    and over). Finding the venue and URLs of a text was a fifth of parsing a record.
    """
    # One pass over the head (plain and 机构 lines, up to the summary) and one over the
    # trailer, and each label cut where its pattern matched: this ran once per record,
    # and its many small list comprehensions were an eighth of parsing.
    path = listing.path
    first_line = chunk[0][0]
    plain: list[tuple[int, str]] = []
    head_affiliations: list[tuple[int, str]] = []
    summary_at = len(chunk)
    for at, (number, kind, line) in enumerate(chunk):
        if kind == "plain":
            plain.append((number, line))
        elif kind == "summary":
            summary_at = at
            break
        elif kind == "affiliations":
            head_affiliations.append((number, line))
    if summary_at == len(chunk):
        listing.errors.append(listing_error(path, first_line, "listing.record_no_summary"))
        return
    affiliations = head_affiliations
    if len(plain) == 4 and not _CJK.search(plain[0][1] + plain[1][1]) and _CJK.search(plain[2][1]):
        # An English title wrapped onto two lines, then the Chinese title: join them.
        plain = [(plain[0][0], f"{plain[0][1]} {plain[1][1]}"), *plain[2:]]
    if len(plain) > 3:
        # The record before this one lost its AI总结 line and ran into this one.
        listing.errors.append(listing_error(path, plain[0][0], "listing.record_no_summary"))
        cut = plain[-3][0]
        plain = plain[-3:]
        affiliations = [(n, line) for n, line in head_affiliations if n > cut]
        first_line = cut
    if len(plain) < 3:
        listing.errors.append(listing_error(path, first_line, "listing.record_short", found=len(plain)))
        return
    if len(affiliations) > 1:
        listing.errors.append(listing_error(path, first_line, "listing.record_two_affiliations"))
        return
    (title_en_at, title_en), (title_zh_at, title_zh), (authors_at, authors) = plain
    if not _LATIN.search(title_en) and _CJK.search(title_en):
        listing.errors.append(listing_error(path, first_line, "listing.record_title_not_english"))
        return
    if not _WORD.search(title_en):
        listing.errors.append(listing_error(path, first_line, "listing.record_title_empty"))
        return
    summary_line_at, _, summary_line = chunk[summary_at]
    summary = _after(_SUMMARY, summary_line).strip()
    comment_parts: list[str] = []
    journal_parts: list[str] = []
    comments_at = journal_at = misplaced_at = None
    for number, kind, line in chunk[summary_at + 1 :]:
        if kind == "comments":
            comment_parts.append(_after(_COMMENTS, line).strip())
            comments_at = comments_at or number
        elif kind == "journal":
            journal_parts.append(_after(_JOURNAL, line).strip())
            journal_at = journal_at or number
        elif misplaced_at is None:  # a second summary, or 机构 after it
            misplaced_at = number
    comments = " ".join(comment_parts)
    journal = " ".join(journal_parts)
    if misplaced_at is not None:
        listing.errors.append(listing_error(path, misplaced_at, "listing.record_misplaced_line"))
        return
    affiliation_line = affiliations[0][1] if affiliations else ""
    longest = max(len(title_en), len(title_zh), len(authors), len(affiliation_line), len(summary), len(comments), len(journal))
    if longest > _SMALLEST_LIMIT:  # else no field can be past its limit
        # The first 机构 line of the head that reads the same (before a cut, too).
        affiliations_at = next((n for n, line in head_affiliations if line == affiliation_line), first_line)
        for name, line_number, value in (
            ("title_en", title_en_at, title_en),
            ("title_zh", title_zh_at, title_zh),
            ("authors", authors_at, authors),
            ("affiliations", affiliations_at, affiliation_line),
            ("summary", summary_line_at, summary),
            ("comments", comments_at or first_line, comments),
            ("journal", journal_at or first_line, journal),
        ):
            if len(value) > FIELD_LIMITS[name]:
                listing.errors.append(field_too_long(path, line_number, name, len(value)))
                return
    venue_text = f"{comments} {journal}"
    venues = {} if venues is None else venues
    if (found := venues.get(venue_text)) is None:
        found = venues[venue_text] = (*find_venue(venue_text), tuple(find_urls(venue_text)))
    venue_name, year, track, urls = found
    paper = Paper(
        id=paper_id(title_en),
        title_en=title_en,
        title_zh=title_zh,
        authors=parse_authors(authors),
        affiliations=parse_affiliations(_after(_AFFILIATIONS, affiliation_line), known_affiliations) if affiliations else [],
        summary_zh=summary,
        comments=comments,
        journal_ref=journal,
        venue=venue_label(venue_name, year, track),
        venue_name=venue_name,
        year=year,
        track=track,
        urls=list(urls),  # each paper its own list (the memory keeps a tuple)
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


def _after(pattern: re.Pattern[str], line: str) -> str:
    """What follows a line's label (`AI总结`, `Comments`, `机构 *`); the line's kind says it has one."""
    match = pattern.match(line)
    return line[match.end() :] if match else line


def listing_error(path: str, line: int, key: str, **fields: object) -> ListingError:
    """Build a ListingError with the reason for message `key` in both languages."""
    return ListingError(path=path, line=line, reason=t(key, "en", **fields), reason_zh=t(key, "zh", **fields))


def field_too_long(path: str, line: int, name: str, length: int) -> ListingError:
    """A record's field is past FIELD_LIMITS: say which, how long, and the limit, in both languages."""
    shown = {"limit": f"{FIELD_LIMITS[name]:,}", "length": f"{length:,}"}  # 10,000: the same in both languages
    return ListingError(
        path=path,
        line=line,
        reason=t("listing.record_field_too_long", "en", field=t(FIELD_NAMES[name], "en"), **shown),
        reason_zh=t("listing.record_field_too_long", "zh", field=t(FIELD_NAMES[name], "zh"), **shown),
    )
