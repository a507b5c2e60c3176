"""Plain data passed between layers: no Slack types, no Whoosh types, no SQL."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Affiliation:
    """One affiliation as written in a listing: `English（中文）`; either side may be empty."""

    en: str
    zh: str

    def name(self, lang: str) -> str:
        """Return the name in `lang`, falling back to the other language."""
        first, second = (self.zh, self.en) if lang == "zh" else (self.en, self.zh)
        return first or second


ARXIV_ABS = "https://arxiv.org/abs/"
ARXIV_PDF = "https://arxiv.org/pdf/"


@dataclass
class ArxivRecord:
    """A paper's record on arXiv: the latest version's metadata, as the Atom API gives it.

    `arxiv_id` has no version ("2401.12345", "hep-th/9901001"); `version` is the latest.
    Dates are ISO 8601 UTC: `published` is the first submission, `updated` the latest.
    """

    arxiv_id: str
    version: int = 1
    title: str = ""
    abstract: str = ""
    authors: list[str] = field(default_factory=list)
    primary_category: str = ""
    categories: list[str] = field(default_factory=list)
    published: str = ""
    updated: str = ""
    doi: str = ""
    comment: str = ""
    journal_ref: str = ""

    @property
    def abs_url(self) -> str:
        return ARXIV_ABS + self.arxiv_id

    @property
    def pdf_url(self) -> str:
        """The latest version's PDF (arXiv serves the newest when no version is given)."""
        return ARXIV_PDF + self.arxiv_id


@dataclass
class Paper:
    """A paper, merged across every feed that listed it.

    `seq` is the ingest sequence at which the paper was first stored (digests use it to
    say what is new); `rev` is the sequence of its latest change (the index uses it to
    know whether it is up to date). Both are 0 until the store assigns them.
    """

    id: str
    title_en: str
    title_zh: str
    authors: list[str] = field(default_factory=list)
    affiliations: list[Affiliation] = field(default_factory=list)
    summary_zh: str = ""
    comments: str = ""
    journal_ref: str = ""
    venue: str = ""  # "ICML 2026", "ICML 2026 Workshop", "" when unknown
    venue_name: str = ""  # "ICML"
    year: int | None = None
    track: str = ""  # "main" | "workshop" | ""
    urls: list[str] = field(default_factory=list)
    feeds: list[str] = field(default_factory=list)
    first_seen: str = ""  # ISO 8601 UTC, set by the store
    seq: int = 0
    rev: int = 0
    arxiv: ArxivRecord | None = None  # found by bot/feeds/arxiv.py, kept in the store's arxiv table
    # The workspaces an upload is private to (the store's paper_teams); [] = shared, seen by
    # every workspace: what a shared source (seeds, inbox, CLI, feeds) lists always is.
    teams: list[str] = field(default_factory=list)

    def title(self, lang: str) -> str:
        """Return the title in `lang`, falling back to the other language."""
        first, second = (self.title_zh, self.title_en) if lang == "zh" else (self.title_en, self.title_zh)
        return first or second

    @property
    def abstract_en(self) -> str:
        """The English abstract from arXiv ("" until the paper is matched)."""
        return self.arxiv.abstract if self.arxiv else ""

    def to_dict(self) -> dict:
        """Every field, plus the arXiv fields flat (`arxiv_id`, `abs_url`, ...) for `--json`.

        What `dataclasses.asdict` gives, field by field: asdict's deep copy took 80% of
        storing a bulk ingest (tests/test_ingest_reference.py compares the two).
        """
        record = self.arxiv
        data = {
            "id": self.id,
            "title_en": self.title_en,
            "title_zh": self.title_zh,
            "authors": list(self.authors),
            "affiliations": [{"en": a.en, "zh": a.zh} for a in self.affiliations],
            "summary_zh": self.summary_zh,
            "comments": self.comments,
            "journal_ref": self.journal_ref,
            "venue": self.venue,
            "venue_name": self.venue_name,
            "year": self.year,
            "track": self.track,
            "urls": list(self.urls),
            "feeds": list(self.feeds),
            "first_seen": self.first_seen,
            "seq": self.seq,
            "rev": self.rev,
            "arxiv": asdict(record) if record else None,  # few papers have one
            "teams": list(self.teams),
        }
        data.update(
            arxiv_id=record.arxiv_id if record else "",
            abs_url=record.abs_url if record else "",
            pdf_url=record.pdf_url if record else "",
            abstract_en=self.abstract_en,
            categories=list(record.categories) if record else [],
            published=record.published if record else "",
        )
        return data

    @classmethod
    def from_dict(cls, data: dict) -> Paper:
        data = {k: v for k, v in data.items() if k not in _FLAT_ARXIV}
        data["affiliations"] = [Affiliation(**a) for a in data.get("affiliations", [])]
        if data.get("arxiv"):
            data["arxiv"] = ArxivRecord(**data["arxiv"])
        return cls(**data)


_FLAT_ARXIV = {"arxiv_id", "abs_url", "pdf_url", "abstract_en", "categories", "published"}


@dataclass(frozen=True)
class Link:
    """A link a card offers as a button: `kind` is "arxiv", "pdf", "code" or "project"."""

    kind: str
    url: str


# Hosts whose pages are code, models or data rather than a project's own site.
CODE_HOSTS = (
    "github.com", "gitlab.com", "huggingface.co", "hf.co", "bitbucket.org", "gitee.com",
    "codeberg.org", "sourceforge.net", "paperswithcode.com", "kaggle.com", "colab.research.google.com",
)  # fmt: skip
_ARXIV_URL = re.compile(r"^https?://(?:www\.|export\.)?arxiv\.org/(abs|pdf)/([^?#]+?)(?:v\d+)?(?:\.pdf)?/?(?:[?#].*)?$", re.I)
_HOST = re.compile(r"^https?://([^/:?#]+)", re.I)


def paper_links(paper: Paper) -> list[Link]:
    """The links a card shows, each URL once, in the order arXiv, PDF, Code, Project.

    arXiv and PDF come from the paper's arXiv record, else from an arXiv URL in its
    Comments; Code is a repository or model host (GitHub, GitLab, Hugging Face, ...);
    every other URL is the Project's. Pure: renderers of results, cards and digests call it.
    """
    links: list[Link] = []
    seen: set[str] = set()

    def add(kind: str, url: str) -> None:
        key = url.rstrip("/").lower()
        if url and key not in seen:
            seen.add(key)
            links.append(Link(kind, url))

    arxiv_id = paper.arxiv.arxiv_id if paper.arxiv else ""
    others: list[str] = []
    for url in paper.urls:
        if not url.lower().startswith(("http://", "https://")):
            continue
        match = _ARXIV_URL.match(url)
        if match:
            arxiv_id = arxiv_id or match.group(2)  # the same paper again: the arXiv buttons stand for it
        else:
            others.append(url)
    if arxiv_id:
        add("arxiv", ARXIV_ABS + arxiv_id)
        add("pdf", ARXIV_PDF + arxiv_id)
    for url in others:
        add(link_kind(url, paper.comments), url)
    return links


_CODE_WORDS = re.compile(r"\b(?:code|codes|implementation|repo|repository|source|github|gitlab)\b|代码|源码|实现", re.I)
_PAGE_WORDS = re.compile(r"\b(?:project|website|homepage|home page|page|site|demo|blog)\b|项目|主页|网站|演示", re.I)


_URL_CHAR = re.compile(r"[^\s<>\"'（）()，,；;]")  # what a URL in a listing is made of (ingest.listing.find_urls)


def _url_at(text: str, url: str) -> int:
    """Where `url` stands whole in `text` (not as the start of a longer URL); -1 if nowhere."""
    at = text.find(url) if text and url else -1
    while at >= 0:
        rest = text[at + len(url) :].lstrip(".。:：!?")
        if not rest or not _URL_CHAR.match(rest[0]):
            return at
        at = text.find(url, at + 1)
    return -1


def link_kind(url: str, text: str = "") -> str:
    """ "code" or "project": what the words just before `url` in `text` call it, else its host.

    "We provide the code at: https://x.github.io/…" is code, though github.io hosts pages;
    "Project Website: https://y.github.io" is a project; a bare github.com link is code.
    """
    at = _url_at(text, url)
    if at > 0:
        before = re.split(r"[.;。；\n]\s", text[max(0, at - 60) : at])[-1]
        code, page = _CODE_WORDS.search(before), _PAGE_WORDS.search(before)
        if code and (not page or code.start() > page.start()):
            return "code"
        if page:
            return "project"
    return "code" if is_code_url(url) else "project"


def is_code_url(url: str) -> bool:
    """Tell whether `url` is on a code, model or data host (github.com, huggingface.co, ...)."""
    match = _HOST.match(url)
    host = match.group(1).lower() if match else ""
    return any(host == h or host.endswith("." + h) for h in CODE_HOSTS)


@dataclass(frozen=True)
class ListingError:
    """A record or file that could not be read: where, and why (a sentence for people)."""

    path: str
    line: int  # 1-based; 0 for a whole-file problem
    reason: str
    reason_zh: str = ""

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.reason}"


@dataclass
class Listing:
    """One parsed listing file: its feed, the papers it holds (with their line), its errors."""

    path: str
    feed: str
    records: list[tuple[int, Paper]] = field(default_factory=list)
    errors: list[ListingError] = field(default_factory=list)


@dataclass
class IngestReport:
    """What ingesting one file did."""

    path: str
    feed: str = ""
    new: int = 0
    updated: int = 0
    unchanged: int = 0
    errors: list[ListingError] = field(default_factory=list)

    @property
    def rejected(self) -> int:
        return len(self.errors)


@dataclass(frozen=True)
class Fragment:
    """A piece of a snippet; `hit` marks text that matched the query."""

    text: str
    hit: bool = False


@dataclass
class Hit:
    """A search result: the paper, its score and the snippet that shows why it matched."""

    paper: Paper
    score: float
    snippet: list[Fragment] = field(default_factory=list)
    snippet_field: str = ""
    expanded: list[str] = field(default_factory=list)
    # How it was found: "literal" (every word as typed), "expanded" (through translations,
    # aliases or a correction), "partial" (some of the words), "meaning" (by meaning only).
    found: str = "literal"

    @property
    def by_meaning(self) -> bool:
        """Found only by meaning: no word of the query matched (shown as "related in meaning")."""
        return self.found == "meaning"

    def to_dict(self) -> dict:
        """Flatten for `--json`: the paper's fields plus score, snippet and `expanded`, the
        lexicon's alternatives ("kv cache → KV缓存") it matched through (empty: literal),
        and `found`, how it was found (literal, expanded, partial, meaning)."""
        data = self.paper.to_dict()
        data["score"] = round(self.score, 4)
        data["snippet"] = "".join(f"[{f.text}]" if f.hit else f.text for f in self.snippet)
        data["snippet_field"] = self.snippet_field
        data["expanded"] = list(self.expanded)
        data["found"] = self.found
        return data

    def shows_snippet(self) -> bool:
        """A quote only says something when the match is outside the titles (shown anyway)."""
        return bool(self.snippet) and self.snippet_field not in ("title_en", "title_zh")


class Paged:
    """`pages` and `has_next` for anything with `total`, `page` and `per_page` (a result page)."""

    total: int
    page: int
    per_page: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    @property
    def has_next(self) -> bool:
        return self.page < self.pages


@dataclass
class SearchResult(Paged):
    """One page of results and what the search had to do to find them.

    `mode` is "all" (every term matched), "any" (fell back to any term) or "none".
    `suggestion` is a corrected query from the index's vocabulary, when one exists.
    `problem` names input the parser had to ignore or repair (an i18n message key).
    `estimated`: `total` is an estimate (shown as "about N"; `pages` is then one too).
    `store_away`: answered from the index alone while the store could not be read (the
    results may be incomplete; papers as the index holds them).
    """

    query: str
    hits: list[Hit]
    total: int
    page: int = 1
    per_page: int = 5
    mode: str = "all"
    suggestion: str | None = None
    problem: str | None = None
    expanded: list[str] = field(default_factory=list)
    estimated: bool = False
    store_away: bool = False

    @property
    def has_next(self) -> bool:
        """A short page is the last one, whatever an estimated total says."""
        if self.estimated and len(self.hits) < self.per_page:
            return False
        return super().has_next

    @property
    def is_past_end(self) -> bool:
        """An empty page after the first under an estimated total: the estimate ran past the matches."""
        return self.estimated and not self.hits and self.page > 1

    def to_dict(self) -> dict:
        """The page for `search --json`: its counts (`estimated`: `total`, and so `pages`,
        are estimates), how it was found, and the hits."""
        return {
            "query": self.query,
            "total": self.total,
            "estimated": self.estimated,
            "page": self.page,
            "per_page": self.per_page,
            "pages": self.pages,
            "mode": self.mode,
            "suggestion": self.suggestion,
            "problem": self.problem,
            "expanded": list(self.expanded),
            "store_away": self.store_away,
            "hits": [hit.to_dict() for hit in self.hits],
        }


@dataclass(frozen=True)
class Identifier:
    """What a pasted line names exactly: an arXiv id, a DOI, a paper's own id, or a URL.

    `kind` is "arxiv" (`value` without version: 2507.07996, hep-th/9901001), "doi"
    (10.1145/3292500.3330701, as typed), "paper" (a paper's id as Details shows it) or
    "url" (any other link).
    """

    kind: str
    value: str


_ARXIV_NEW = r"\d{4}\.\d{4,5}"
_ARXIV_OLD = r"[a-z][a-z.-]*(?:\.[A-Z]{2})?/\d{7}"
_PASTED_ARXIV = re.compile(
    rf"^(?:https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html)/|arxiv:\s*|arxiv\s+)?({_ARXIV_NEW}|{_ARXIV_OLD})(?:v\d+)?(?:\.pdf)?/?$",
    re.IGNORECASE,
)
_PASTED_DOI = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)?(10\.\d{4,9}/\S+)$", re.IGNORECASE)
_PAPER_ID = re.compile(r"^(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,12}$")
_PASTED_URL = re.compile(r"^https?://\S+$", re.IGNORECASE)


def read_identifier(text: str) -> Identifier | None:
    """The identifier a whole line is, if it is one: a pasted arXiv URL or id, a DOI, a paper id, a URL.

    >>> read_identifier("https://arxiv.org/abs/2507.07996v2")
    Identifier(kind='arxiv', value='2507.07996')
    >>> read_identifier("speculative decoding") is None
    True

    A paper id must look like one (8 to 12 hex digits, letters and digits both), so a
    word such as `deadbeef` or `cafe` stays a search.
    """
    line = " ".join((text or "").split()).strip("<>()[]\"'“”")
    if not line:
        return None
    match = _PASTED_ARXIV.match(line)
    if match:
        return Identifier("arxiv", match.group(1).lower() if "/" not in match.group(1) else match.group(1))
    match = _PASTED_DOI.match(line)
    if match:
        return Identifier("doi", match.group(1).rstrip(".,;"))
    if _PAPER_ID.match(line.lower()):
        return Identifier("paper", line.lower())
    if _PASTED_URL.match(line):
        return Identifier("url", line.rstrip(".,;"))
    return None


def arxiv_id_of(paper: Paper) -> str:
    """The paper's own arXiv id: its arXiv record's, else an arXiv URL among its links."""
    link = next((x.url for x in paper_links(paper) if x.kind == "arxiv"), "")
    return link.removeprefix(ARXIV_ABS) if link else ""


@dataclass(frozen=True)
class Reason:
    """Why a for-you pick is where it is (bot/library/learning.py), said in the reader's language.

    `kind`: "saved" / "liked" (like `paper`, which you saved / 👍'd), "interest" (matches
    `interest`), "channel" (`count` people in `channel_id` 👍'd it), "channel_like" (like
    `paper`, which the channel valued), "new" (nothing to go on yet: among the newest).
    """

    kind: str
    paper: Paper | None = None
    interest: str = ""
    count: int = 0
    channel_id: str = ""
