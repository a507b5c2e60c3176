"""Plain data passed between layers: no Slack types, no Whoosh types, no SQL."""

from __future__ import annotations

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

    def title(self, lang: str) -> str:
        """Return the title in `lang`, falling back to the other language."""
        first, second = (self.title_zh, self.title_en) if lang == "zh" else (self.title_en, self.title_zh)
        return first or second

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Paper:
        data = dict(data)
        data["affiliations"] = [Affiliation(**a) for a in data.get("affiliations", [])]
        return cls(**data)


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

    def to_dict(self) -> dict:
        """Flatten for `--json`: the paper's fields plus score, snippet and `expanded`, the
        lexicon's alternatives ("kv cache → KV缓存") it matched through (empty: literal)."""
        data = self.paper.to_dict()
        data["score"] = round(self.score, 4)
        data["snippet"] = "".join(f"[{f.text}]" if f.hit else f.text for f in self.snippet)
        data["snippet_field"] = self.snippet_field
        data["expanded"] = list(self.expanded)
        return data

    def shows_snippet(self) -> bool:
        """A quote only says something when the match is outside the titles (shown anyway)."""
        return bool(self.snippet) and self.snippet_field not in ("title_en", "title_zh")


@dataclass
class SearchResult:
    """One page of results and what the search had to do to find them.

    `mode` is "all" (every term matched), "any" (fell back to any term) or "none".
    `suggestion` is a corrected query from the index's vocabulary, when one exists.
    `problem` names input the parser had to ignore or repair (an i18n message key).
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

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    @property
    def has_next(self) -> bool:
        return self.page < self.pages
