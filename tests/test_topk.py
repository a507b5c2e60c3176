"""bot/search/topk.py ranks exactly as Whoosh's exhaustive search does, on real indexes.

Two corpora: the seed papers, and a generated one (bench/corpus.py's generator, 2,000
papers in several segments, some replaced so segments carry deletions). For every query
of the benchmark mix and of the judged relevance set, literal and widened, the top 10
(documents and scores) and the count must equal what Whoosh's searcher returns when it
scores every match. Phrases are checked against positions only down the ranking, so
their count may be an estimate: it is flagged, and close to the truth.
"""

from __future__ import annotations

import math
import os
import pickle
import sys
from pathlib import Path

import pytest
from bench_modules import bench_module
from whoosh import query as wq

from bot.config import Settings
from bot.corpus import Corpus
from bot.search import topk
from bot.search.query import build_query
from bot.search.readers import segment_id
from bot.search.writers import TINY_SEGMENT_DOCS

ROOT = Path(__file__).resolve().parent.parent


QUERIES = [text for _, text in bench_module("queries").QUERIES]
JUDGED = [case[1] for case in bench_module("relevance_set").CASES]
# Shapes the two sets lack: an exclusion inside the any-word fallback's coordinated Or.
SHAPES = ["model (learn -framework)", "大学 (模型 -方法)", "model (learn -研究) 方法"]


def _corpus(data_dir: Path, seeds: Path, batch: int) -> Corpus:
    corpus = Corpus.open(Settings(data_dir=data_dir, seeds_dir=seeds))
    corpus.index.batch_size = corpus.index.commit_docs = batch  # small segments: several per corpus
    return corpus


@pytest.fixture(scope="module")
def seed_index(tmp_path_factory):
    corpus = _corpus(tmp_path_factory.mktemp("topk-seeds"), ROOT / "seeds", 40)
    corpus.ingest_seeds_if_empty()
    yield corpus
    corpus.close()


@pytest.fixture(scope="module")
def generated_index(tmp_path_factory):
    generator = bench_module("corpus")
    listings = tmp_path_factory.mktemp("topk-listings")
    generator.generate(2000, listings)
    corpus = _corpus(tmp_path_factory.mktemp("topk-generated"), ROOT / "seeds", TINY_SEGMENT_DOCS)  # never merged again
    files = sorted(listings.glob("*.txt"))
    corpus.ingest_paths(files)
    # Listed again: every paper of the first file is replaced, so older segments carry deletions.
    corpus.index.upsert(list(corpus.store.iter_papers())[:400])
    yield corpus
    corpus.close()


def _queries(corpus: Corpus) -> list[wq.Query]:
    index = corpus.index
    built = []
    with index._searcher() as searcher:
        reader = searcher.reader()
        lexicon = index._lexicon_for(reader)
        for text in QUERIES + JUDGED + SHAPES:
            for mode in ("all", "any"):
                for expand in (False, True):
                    b = build_query(
                        text,
                        mode=mode,
                        lexicon=lexicon,
                        expand=expand,
                        is_known=lambda t: ("text", t) in reader,
                    )
                    if b.query is not None:
                        built.append(b.query)
    # Modes often build the same query: each is compared once. By its pickle, not Whoosh's
    # equality, which ignores an Or's scale (a coordinated Or would pass for a plain one).
    return list({pickle.dumps(q): q for q in built}.values())


def _whoosh(searcher, q, limit, filter=None, mask=None):
    """Whoosh's exhaustive top `limit` (ties as bot/search/topk.py breaks them), and the true count (Whoosh's own count drops
    documents its matcher tree prunes once they cannot reach the top)."""
    collector = searcher.collector(limit=limit + 20, optimize=False, filter=filter, mask=mask)
    collector.replace = 0  # Whoosh prunes its matcher tree as it goes, which changes coordinated scores
    searcher.search_with_collector(q, collector)
    results = collector.results()
    matching = set(searcher.docs_for_query(q))
    if filter is not None:
        matching &= filter if isinstance(filter, set) else set(searcher.docs_for_query(filter))
    if mask is not None:
        matching -= set(searcher.docs_for_query(mask))
    # Scores equal but for the order their parts were summed in are a tie, by document number.
    ranked = sorted(((hit.docnum, hit.score) for hit in results), key=lambda h: (-round(h[1], 9), h[0]))
    return ranked[:limit], len(matching)


def _same(ours: topk.TopK, theirs: list[tuple[int, float]]) -> bool:
    return (
        ours.docnums == [d for d, _ in theirs]
        and len(ours.scores) == len(theirs)
        and all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) for a, (_, b) in zip(ours.scores, theirs, strict=True))
    )


def _compare(corpus: Corpus, limit: int = 10) -> tuple[int, int]:
    index = corpus.index
    evaluated = fallback = 0
    with index._searcher() as searcher:
        for q in _queries(corpus):
            ours = topk.search(searcher, q, limit=limit, cache=index._segment_cache(), segment_key=segment_id)
            if ours is None:
                fallback += 1
                continue
            evaluated += 1
            theirs, total = _whoosh(searcher, q, limit)
            assert _same(ours, theirs), f"{q}: {ours.docnums[:5]} vs {[d for d, _ in theirs][:5]}"
            if ours.estimated:
                assert abs(ours.total - total) <= max(10, 0.25 * total), f"{q}: estimated {ours.total}, truth {total}"
            else:
                assert ours.total == total, f"{q}: {ours.total} matches, Whoosh {total}"
    return evaluated, fallback


def test_topk_equals_exhaustive_on_the_seeds(seed_index):
    evaluated, fallback = _compare(seed_index)
    assert evaluated > 400 and fallback < evaluated / 4


def test_topk_equals_exhaustive_on_a_generated_corpus_with_deletions(generated_index):
    with generated_index.index._searcher() as searcher:
        reader = searcher.reader()
        assert len(list(reader.leaf_readers())) >= 3 and reader.has_deletions()
    evaluated, fallback = _compare(generated_index)
    assert evaluated > 400 and fallback < evaluated / 4


def test_filters_and_masks_match_whoosh(generated_index):
    index = generated_index.index
    with index._searcher() as searcher:
        newest = searcher.doc_count()
        only = wq.NumericRange("seq", newest - 900, None)
        # seq is a column, not terms: Whoosh is given the range as the documents whose stored seq is in it.
        in_range = {d for d in range(searcher.doc_count_all()) if searcher.stored_fields(d)["seq"] >= newest - 900}
        assert 800 < len(in_range) < searcher.doc_count_all()
        mask = wq.Term("text", "model")
        for text in ("reinforcement learning", "推理", "diffusion OR flow", "year:2025 reasoning"):
            q = build_query(text, mode="all").query
            ours = topk.search(
                searcher,
                q,
                limit=10,
                cache=index._segment_cache(),
                segment_key=segment_id,
                filter=only,
                mask=mask,
            )
            theirs, total = _whoosh(searcher, q, 10, filter=in_range, mask=mask)
            assert ours is not None and _same(ours, theirs) and ours.total == total and total > 0


def test_a_common_phrase_has_an_estimated_count_flagged_and_exact_top_results(generated_index, monkeypatch):
    monkeypatch.setattr(topk, "EXACT_CHECKS", 60)  # this corpus is small: count from a sample sooner
    monkeypatch.setattr(topk, "SAMPLE_CHECKS", 80)
    index = generated_index.index
    q = build_query('"language models"', mode="all").query
    with index._searcher() as searcher:
        ours = topk.search(searcher, q, limit=10, cache=index._segment_cache(), segment_key=segment_id)
        theirs, total = _whoosh(searcher, q, 10)
    assert total > topk.EXACT_CHECKS + 10  # enough matches that checking them all would cost
    assert ours.estimated and _same(ours, theirs)
    assert abs(ours.total - total) <= 0.25 * total
    page = index.search('"language models"', per_page=5)
    assert page.estimated and len(page.hits) == 5 and abs(page.total - total) <= 0.25 * total
    assert index.search('"language models"', page=2, per_page=5).total == page.total  # stable while paging
    assert not index.search("language models", per_page=5).estimated


def test_pages_of_a_phrase_continue_the_exhaustive_ranking(generated_index):
    index = generated_index.index
    q = build_query('"reinforcement learning"', mode="all").query
    with index._searcher() as searcher:
        theirs, _ = _whoosh(searcher, q, 15)
    pages = [index.search('"reinforcement learning"', page=p, per_page=5, expand=False) for p in (1, 2, 3)]
    with index._searcher() as searcher:
        ids = [searcher.stored_fields(d)["id"] for d, _ in theirs]
    assert [h.id for p in pages for h in p.hits] == ids


def test_an_estimated_phrase_count_reaches_the_reader_as_an_estimate(generated_index, monkeypatch, capsys):
    """From the engine through Corpus.search to Slack's blocks and `search --json`."""
    import json

    from slack_helpers import all_text

    from bot.cli import main
    from bot.slack.render.results import render_results

    monkeypatch.setattr(topk, "EXACT_CHECKS", 60)
    monkeypatch.setattr(topk, "SAMPLE_CHECKS", 80)
    result = generated_index.search('"language models"')
    assert result.estimated and result.hits
    english, chinese = (all_text(render_results(result, lang).blocks) for lang in ("en", "zh"))
    assert "About" in english and "约" in chinese
    assert "“language models”" in english and '“"' not in english  # the phrase, not its quotes, is quoted

    monkeypatch.setenv("PAPERBOT_DATA_DIR", str(generated_index.settings.data_dir))
    assert main(["search", '"language models"', "--json"]) == 0
    page = json.loads(capsys.readouterr().out)
    assert page["estimated"] is True and page["total"] > len(page["hits"]) > 0
    assert main(["search", "language models", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["estimated"] is False


def test_scratch_folders_of_dead_processes_are_swept_at_open(tmp_path):
    import subprocess

    from bot.search.index import PaperIndex

    index = PaperIndex(tmp_path / "index")
    index.rebuild([])
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    gone = tmp_path / f".index.aside-{int(dead.stdout)}-abcd1234"
    live = tmp_path / f".index.new-{os.getppid()}-abcd1234"  # a process that is still running
    for folder in (gone, live):
        folder.mkdir()
        (folder / "segment.pst").write_bytes(b"x")
    index.open()
    assert not gone.exists() and live.exists()


def test_a_phrase_minus_a_word_excludes_the_word(seed_index):
    """Whoosh's own AndNot over a phrase lets through a paper with the excluded word
    (IDLM: Inverse-distilled Diffusion Language Models); ours does not."""
    index = seed_index.index
    q = build_query('"language model" -diffusion', mode="all").query
    with index._searcher() as searcher:
        ours = topk.search(searcher, q, limit=10, cache=index._segment_cache(), segment_key=segment_id)
        phrase = topk.search(
            searcher,
            build_query('"language model"', mode="all").query,
            limit=10,
            cache=index._segment_cache(),
            segment_key=segment_id,
        )
        with_word = set(searcher.docs_for_query(wq.Term("text", "diffus")))
        assert ours.docnums and not with_word & set(ours.docnums)
        assert [d for d in phrase.docnums if d not in with_word] == ours.docnums
