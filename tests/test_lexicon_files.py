"""What the index learned, on disk: the counts (lexicon.json) and the terms a search needs.

A search reads only the small terms file; the counts are parsed by writers, and by a
reader only when the terms file is missing or was derived from other counts.
"""

from __future__ import annotations

import json
import multiprocessing

import pytest
from bench_modules import bench_module

from bot.models import Affiliation, Paper
from bot.search.index import LEXICON_FILE, PaperIndex
from bot.search.lexicon import (
    Lexicon,
    TermLearner,
    learn_more,
    load_alias_groups,
    load_terms,
    terms_path,
)

relevance = bench_module("relevance")


@pytest.fixture(scope="module")
def seeds() -> list[Paper]:
    return relevance.read_seed_papers()


def learner_of(papers) -> TermLearner:
    learner = TermLearner()
    for paper in papers:
        learner.observe(paper)
    return learner


def save_counts_only(learner: TermLearner, path) -> None:
    """Write lexicon.json as a paperbot from before terms files did: version 1, `co` as triples."""
    data = learner.to_json()
    data["version"], data["co"] = 1, [[e, flat[i], flat[i + 1]] for e, flat in data["co"].items() for i in range(0, len(flat), 2)]
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def same_lexicon(a: Lexicon, b: Lexicon) -> bool:
    return (a._aliases, a._learned, a._alias_words) == (b._aliases, b._learned, b._alias_words)


def test_a_lexicon_saved_before_terms_files_is_upgraded_on_first_load(tmp_path, seeds) -> None:
    path = tmp_path / LEXICON_FILE
    save_counts_only(learner_of(seeds), path)
    reloaded = TermLearner.load(path)
    terms = load_terms(path)
    assert terms == reloaded.terms() and terms.pairs and terms.institutions
    assert terms_path(path).exists()  # the next start reads the small file
    assert load_terms(path) == terms
    assert same_lexicon(Lexicon(load_alias_groups(), terms), Lexicon(load_alias_groups(), reloaded))
    assert reloaded.to_json() == learner_of(seeds).to_json()  # version 1 read whole


def test_an_upsert_rewrites_a_version_1_file_as_version_2_keeping_its_counts(tmp_path, seeds) -> None:
    path = tmp_path / LEXICON_FILE
    save_counts_only(learner_of(seeds[:50]), path)
    learn_more(path, seeds[50:])
    assert json.loads(path.read_text(encoding="utf-8"))["version"] == 2
    expected = TermLearner.from_json(learner_of(seeds[:50]).to_json())  # pruned when first saved, as before
    for paper in seeds[50:]:
        expected.observe(paper)
    assert TermLearner.load(path).to_json() == expected.to_json()
    assert TermLearner.load(path).df_en == learner_of(seeds).df_en
    assert load_terms(path) == expected.terms()


def test_saved_terms_are_those_of_the_saved_counts(tmp_path, seeds) -> None:
    path = tmp_path / LEXICON_FILE
    learner = learner_of(seeds)
    learner.save(path)
    # The counts are pruned when saved: the terms must be what a reader of them derives.
    assert load_terms(path) == TermLearner.load(path).terms()


def test_terms_of_other_counts_or_damaged_ones_are_derived_again(tmp_path, seeds) -> None:
    path = tmp_path / LEXICON_FILE
    learner_of(seeds[:30]).save(path)
    later = learner_of(seeds)
    save_counts_only(later, path)  # an older paperbot wrote the counts and left the terms
    assert load_terms(path) == later.terms() != learner_of(seeds[:30]).terms()
    terms_path(path).write_text("{not json", encoding="utf-8")
    assert load_terms(path) == later.terms()
    assert json.loads(terms_path(path).read_text(encoding="utf-8"))["pairs"]  # repaired


def test_a_failed_save_leaves_the_old_files_and_no_temporary_ones(tmp_path, seeds) -> None:
    path = tmp_path / LEXICON_FILE
    learner_of(seeds[:30]).save(path)
    before = path.read_bytes()
    terms_path(path).unlink()
    terms_path(path).mkdir()  # the terms cannot be renamed into place
    with pytest.raises(OSError):
        learner_of(seeds).save(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([LEXICON_FILE, terms_path(path).name])


def _learn_in_turn(path, worker: int, rounds: int, start) -> None:
    start.wait()
    for n in range(rounds):
        name = f"Institute {worker}-{n} of Testing"
        paper = Paper(id=f"w{worker}-{n}", title_en="Speculative Decoding", title_zh="推测解码", authors=["A. Author"],
                      affiliations=[Affiliation(name, f"测试研究所{worker}{n}")], seq=1, rev=1)  # fmt: skip
        learn_more(path, [paper])


def test_processes_learning_at_once_keep_each_others_papers(tmp_path) -> None:
    path = tmp_path / LEXICON_FILE
    context = multiprocessing.get_context("fork")
    start = context.Barrier(3)
    workers = [context.Process(target=_learn_in_turn, args=(path, w, 6, start)) for w in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
        assert worker.exitcode == 0
    learned = TermLearner.load(path)
    assert len(learned.affiliations) == 18  # a load-modify-save race drops another writer's papers
    assert learned.df_en["decod"] == 18
    assert load_terms(path) == learned.terms()


@pytest.mark.parametrize("batch_size", [5000, 10])  # 10: a large batch (the bulk path)
def test_the_index_serves_the_terms_of_its_counts_after_rebuild_and_upsert(tmp_path, seeds, batch_size) -> None:
    index = PaperIndex(tmp_path / "index", batch_size=batch_size)
    try:
        index.rebuild(seeds[:60])
        index.upsert(seeds[60:])
        path = tmp_path / "index" / LEXICON_FILE
        counts = TermLearner.load(path)
        assert sum(counts.df_en.values()) == sum(learner_of(seeds).df_en.values())
        assert same_lexicon(index.lexicon(), Lexicon(load_alias_groups(), counts))
    finally:
        index.close()
