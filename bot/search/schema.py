"""The index's schema: the fields a paper becomes, how each is analysed, and how much it counts.

A paper is one Whoosh document (`paper_document`). Free text searches a single catch-all
field, `text`, whose sections (titles, authors, affiliations, summary, ...) carry their
field's weight as a token boost (SECTION_WEIGHTS, bot/search/analysis.py's join_sections);
the other indexed fields serve prefixed searches (author:, affil:, venue:, feed:), and
`spell` the English typo vocabulary (bot/search/spelling.py). The STORED fields are what
snippets are cut from (bot/search/snippets.py) and what a hit shows.

Whoosh quirks this works around: a NUMERIC field indexes 16 terms a value by default
(shift_step=0 makes it one, and `seq`/`rev` none: they are columns only); and its field
and column objects compare by identity, so whether an index on disk has this schema is
told by `schema_key`, not by ==.
"""

from __future__ import annotations

from whoosh.fields import ID, NUMERIC, STORED, TEXT, Schema

from bot.models import Paper
from bot.search.analysis import bilingual_analyzer, join_sections, spelling_analyzer

# Bump when the schema or the analyzer changes: an index under another name is "missing",
# so the corpus rebuilds it instead of searching it with mismatched analysis.
# v3: arXiv abstracts (issue 9); v4: bilingual analysis (issue 8); v5: array postings, numeric columns (issue 12).
# Since 2026-12 v5 writes seq and rev as columns only; a v5 index with them as terms opens
# as it is (build_schema(indexed_numbers=True), is_paper_schema): no rebuild to upgrade.
INDEX_NAME = "papers_v5"

# Where a snippet may come from, best first when two fields match equally well.
SNIPPET_FIELDS = ("title_en", "title_zh", "summary", "abstract", "authors", "affil_en", "affil_zh", "comments")
TITLE_FIELDS = ("title_en", "title_zh")
# The language each snippet field is written in: a tie goes to the reader's language.
PAIRED_FIELDS = {"title_en": "title_zh", "title_zh": "title_en", "affil_en": "affil_zh", "affil_zh": "affil_en"}
FIELD_LANG = {
    "title_en": "en", "title_zh": "zh", "summary": "zh", "abstract": "en", "affil_en": "en", "affil_zh": "zh", "comments": "en",
}  # fmt: skip
# How much a word counts in each part of the catch-all `text` field: titles > authors,
# affiliations > summary, comments (the order of importance).
SECTION_WEIGHTS = (
    ("title_en", 4.0),
    ("title_zh", 4.0),
    ("authors", 2.5),
    ("affil_en", 2.0),
    ("affil_zh", 2.0),
    ("summary", 1.2),
    ("abstract", 1.0),  # arXiv's English abstract: English queries reach papers through it
    ("venue", 1.0),
    ("comments", 0.8),
    ("feed", 0.5),
)


def build_schema(*, indexed_numbers: bool = False) -> Schema:
    """Return the index schema.

    Free text searches one catch-all field, `text`, whose sections carry their field's
    weight as a token boost (see `paper_document`): one term lookup per query word
    instead of one per field keeps searches ~2.5x faster at 20k papers. `authors`,
    `affil`, `venue` and `feed` exist for prefixed searches; `spell` holds whole unstemmed
    English words, the vocabulary typo suggestions come from. The STORED fields are what
    snippets are cut from. `seq` and `rev` are numbers per document (stored, and in a
    column that ranges and a segment's highest rev are read from), not terms: as terms they
    were 2 of every 3 terms in a bulk segment (one each per paper), a tenth of its writing
    time. `indexed_numbers=True` gives the schema indexes were built with before
    (2026-12), which open as they are (see is_paper_schema).
    """
    text = bilingual_analyzer()
    return Schema(
        id=ID(unique=True, stored=True),
        text=TEXT(analyzer=text),
        authors=TEXT(analyzer=text, stored=True),
        affil=TEXT(analyzer=text),
        venue=TEXT(analyzer=text),
        feed=TEXT(analyzer=text),
        # shift_step=0: one term per value instead of 16; ranges are read from the columns
        # (sortable=True: one number a document) by bot/search/topk.py, never from the terms.
        year=NUMERIC(int, bits=32, shift_step=0, sortable=True),
        seq=_number_column(indexed_numbers),
        rev=_number_column(indexed_numbers),
        spell=TEXT(analyzer=spelling_analyzer(), phrase=False),
        **{name: STORED() for name in SNIPPET_FIELDS if name != "authors"},
    )


def _number_column(indexed: bool) -> NUMERIC:
    field = NUMERIC(int, bits=64, stored=True, shift_step=0, sortable=True)
    if not indexed:
        field.indexed = False  # Whoosh's writers and ours skip a field that is not indexed
    return field


def paper_document(paper: Paper) -> dict:
    """Return the Whoosh document for `paper` (the index's whole view of it)."""
    parts = {
        "title_en": paper.title_en,
        "title_zh": paper.title_zh,
        "authors": ", ".join(paper.authors),
        "affil_en": "; ".join(a.en for a in paper.affiliations if a.en),
        "affil_zh": "；".join(a.zh for a in paper.affiliations if a.zh),
        "summary": paper.summary_zh,
        "abstract": paper.abstract_en,
        "comments": " ".join(x for x in (paper.comments, paper.journal_ref) if x),
        "venue": " ".join(x for x in (paper.venue, paper.venue_name, paper.track) if x),
        "feed": "\n".join(paper.feeds),
    }
    doc: dict[str, object] = {name: parts[name] for name in SNIPPET_FIELDS}
    doc.update(
        id=paper.id,
        text=join_sections((weight, parts[name]) for name, weight in SECTION_WEIGHTS),
        affil=join_sections([(1.0, parts["affil_en"]), (1.0, parts["affil_zh"])]),
        venue=parts["venue"],
        feed=parts["feed"],
        seq=paper.seq,
        rev=paper.rev,
        # Sections only so their analysis is shared with `text` (bot/search/analysis.py caches them):
        # `spell` keeps no positions or boosts, so its terms are what "\n".join would give.
        # A private upload's words (paper.teams) correct no typos: the vocabulary is every
        # workspace's, and a word only it holds would show another workspace it exists.
        spell=""
        if paper.teams
        else join_sections((1.0, parts[name]) for name in ("title_en", "authors", "affil_en", "summary", "abstract", "comments")),
    )
    if paper.year is not None:
        doc["year"] = paper.year
    return doc


def schema_key(schema: Schema) -> list:
    """What makes two schemas the same (Whoosh's column objects compare by identity)."""

    def field_key(fieldtype) -> dict:
        state = dict(vars(fieldtype))
        column = state.pop("column_type", None)
        state["column_type"] = (type(column).__name__, sorted(vars(column).items())) if column is not None else None
        state.pop("_struct", None)
        return state

    return [(name, type(fieldtype).__name__, field_key(fieldtype)) for name, fieldtype in schema.items()]


def is_paper_schema(schema: Schema) -> bool:
    """Whether an index on disk was built with this schema, or with the one indexes were
    built with before 2026-12 (seq and rev as terms too), which opens as it is."""
    return schema_key(schema) in (schema_key(build_schema()), schema_key(build_schema(indexed_numbers=True)))
