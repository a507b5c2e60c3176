"""Exports: BibTeX that a standard parser reads back, RIS per the spec, CSL-JSON's shape."""

from __future__ import annotations

import json
import re

import bibtexparser
import pytest

from bot.cli import main
from bot.library.export import citation_keys, export_papers, to_bibtex, to_csl_json, to_ris
from bot.models import Paper


def paper(pid: str, seq: int, **kw) -> Paper:
    base = {
        "id": pid,
        "title_en": "ParisKV: Fast {KV} Cache & 100% Retrieval_x",
        "title_zh": "ParisKV：快速的KV缓存检索",
        "authors": ["Zoë Müller", "张三", "Jean-Luc de la Tour"],
        "summary_zh": "提出一种KV缓存检索方法。",
        "venue": "ICML 2026",
        "venue_name": "ICML",
        "year": 2026,
        "urls": ["https://arxiv.org/abs/2601.00001v2", "https://github.com/x/pariskv"],
        "seq": seq,
    }
    base.update(kw)
    return Paper(**base)


PAPERS = [
    paper("a1", 1),
    paper(
        "b2", 2, title_en="The Art of Speculative Decoding", authors=["Ölçer Ayşe"], venue="", venue_name="", year=None, urls=[]
    ),
    paper("c3", 3, venue="TMLR", venue_name="TMLR"),  # same first author, year and word as a1
]


def test_bibtex_parses_back_with_names_titles_and_eprints():
    library = bibtexparser.parse_string(to_bibtex(PAPERS))
    assert library.failed_blocks == []
    entries = {e.key: e for e in library.entries}
    assert list(entries) == ["muller2026pariskv", "aysendart", "muller2026pariskvb"]
    first = entries["muller2026pariskv"]
    assert first.entry_type == "inproceedings" and first["booktitle"] == "ICML 2026"
    assert first["author"] == "Müller, Zoë and {张三} and {de la Tour}, Jean-Luc"
    assert first["title"] == r"{ParisKV}: Fast \textbraceleft{}{KV}\textbraceright{} Cache \& 100\% Retrieval\_x"
    assert (first["year"], first["eprint"], first["archiveprefix"]) == ("2026", "2601.00001", "arXiv")
    assert first["url"] == "https://arxiv.org/abs/2601.00001v2"
    assert entries["muller2026pariskvb"].entry_type == "article" and entries["muller2026pariskvb"]["journal"] == "TMLR"
    assert entries["aysendart"].entry_type == "misc"


def test_keys_are_stable_whatever_else_is_exported():
    assert citation_keys(PAPERS[::-1]) == citation_keys(PAPERS)
    assert citation_keys([PAPERS[2]]) == {"c3": "muller2026pariskv"}  # alone, nothing to tell apart
    assert citation_keys(PAPERS)["a1"] == "muller2026pariskv"  # the first stored keeps the bare key


def test_ris_records_follow_the_spec():
    text = to_ris(PAPERS)
    records = [r for r in text.split("ER  - ") if r.strip()]
    assert len(records) == 3
    for line in text.split("\r\n"):
        assert line == "" or re.match(r"^[A-Z][A-Z0-9]  - ", line), line
    first = records[0].strip("\r\n").split("\r\n")
    assert first[0] == "TY  - CONF"
    assert "AU  - Müller, Zoë" in first and "AU  - 张三" in first and "PY  - 2026" in first
    assert "AN  - arXiv:2601.00001" in first and "T2  - ICML 2026" in first
    assert "TY  - UNPB" in records[1] and "TY  - JOUR" in records[2]


def test_csl_json_has_the_schema_shape():
    items = json.loads(to_csl_json(PAPERS))
    assert [i["id"] for i in items] == ["muller2026pariskv", "aysendart", "muller2026pariskvb"]
    for item in items:
        assert set(item) <= {"id", "type", "title", "author", "issued", "container-title", "event-title", "URL",
                             "number", "publisher", "abstract", "note", "original-title"}  # fmt: skip
        assert item["type"] in {"paper-conference", "article", "article-journal"}
        for name in item.get("author", []):
            assert set(name) in ({"family", "given"}, {"literal"})
        if "issued" in item:
            assert all(isinstance(n, int) for n in item["issued"]["date-parts"][0])
    assert items[0]["author"][1] == {"literal": "张三"} and items[0]["issued"] == {"date-parts": [[2026]]}
    assert items[0]["number"] == "arXiv:2601.00001"


def test_an_arxiv_id_field_wins_when_the_store_has_one():
    class WithArxiv(Paper):
        arxiv_id = "2602.12345"

    p = WithArxiv(**{**PAPERS[1].__dict__})
    assert "eprint = {2602.12345}" in to_bibtex([p]) and "https://arxiv.org/abs/2602.12345" in to_bibtex([p])


def test_unknown_format_is_an_error():
    with pytest.raises(ValueError):
        export_papers(PAPERS, "endnote")


def test_cli_export_writes_saves_and_ids_to_stdout(tmp_path, monkeypatch, capsys):
    from conftest import REPO

    from bot.config import Settings
    from bot.corpus import Corpus
    from bot.library.readinglist import Library

    monkeypatch.setenv("PAPERBOT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PAPERBOT_SEEDS_DIR", str(REPO / "seeds"))
    corpus = Corpus.open(Settings(data_dir=tmp_path / "data", seeds_dir=REPO / "seeds"))
    corpus.ingest_seeds_if_empty()
    pariskv = corpus.resolve("ParisKV")
    other = corpus.resolve("speculative decoding")
    Library(corpus.store).save("U_CLI", pariskv.id)
    corpus.close()

    assert main(["export", "--format", "bibtex", "--user", "U_CLI", "--ids", other.id[:8]]) == 0
    entries = bibtexparser.parse_string(capsys.readouterr().out).entries
    assert sorted(e["title"] for e in entries) == sorted(bib_title_of(p) for p in (pariskv, other))
    assert main(["export", "--format", "ris", "--user", "U_CLI", "--lang", "zh"]) == 0
    assert "N1  - paperbot 生成的 AI 总结（并非作者摘要）：" in capsys.readouterr().out
    assert main(["export", "--format", "csl-json", "--user", "U_NOBODY"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["export", "--format", "endnote", "--user", "U_CLI"]) != 0
    assert "unknown format" in capsys.readouterr().err
    assert main(["export", "--format", "ris", "--ids", "ffffffffffff"]) != 0
    assert "no paper with id" in capsys.readouterr().err


def bib_title_of(p: Paper) -> str:
    from bot.library.export import bib_title

    return bib_title(p.title_en)
