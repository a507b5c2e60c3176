"""An index written before the search room existed opens as it is: no rebuild, same answers.

tests/data/index-before-rooms/ is a data folder written by paperbot at 7cca50e (two seed
papers), when the analyzers lived in bot/analysis.py and the codec in bot/codec.py: its
TOC pickles those paths. bot/search/legacy.py keeps them importable.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import Settings
from bot.corpus import Corpus

DATA = Path(__file__).parent / "data" / "index-before-rooms"
REPO = Path(__file__).resolve().parent.parent


def _toc(index_dir: Path) -> bytes:
    (toc,) = sorted(index_dir.glob("_papers_v*_*.toc"), key=lambda p: int(p.stem.rsplit("_", 1)[1]))[-1:]
    return toc.read_bytes()


@pytest.fixture
def old_data(tmp_path) -> Path:
    folder = tmp_path / "data"
    shutil.copytree(DATA, folder)
    return folder


def test_the_test_data_names_the_old_module_paths(old_data):
    toc = _toc(old_data / "index")
    assert b"bot.analysis" in toc and b"bot.codec" in toc
    assert b"bot.search" not in toc


def test_an_index_from_before_the_move_opens_without_a_rebuild(old_data, caplog):
    caplog.set_level(logging.INFO, logger="bot.corpus")
    corpus = Corpus.open(Settings(data_dir=old_data, seeds_dir=old_data / "no-seeds"))
    try:
        result = corpus.search("grokking")
        assert [hit.paper.title_en for hit in result.hits] == ["To Grok Grokking: Provable Grokking in Ridge Regression"]
        assert corpus.search("低秩").total == 1  # the Chinese analyzer, unpickled from the old path, still segments
    finally:
        corpus.close()
    assert not [r for r in caplog.records if "rebuil" in r.getMessage()], [r.getMessage() for r in caplog.records]


def test_the_next_commit_writes_the_new_paths_and_the_index_still_opens(old_data, tmp_path):
    listing = tmp_path / "more.txt"
    listing.write_text(
        "ICML\n\nA Third Paper About Caches\n\n关于缓存的第三篇论文\n\nAda Lovelace\n\nAI总结 本文研究缓存。\n",
        encoding="utf-8",
    )
    settings = Settings(data_dir=old_data, seeds_dir=old_data / "no-seeds")
    corpus = Corpus.open(settings)
    try:
        (report,) = corpus.ingest_paths([listing])
        assert report.new == 1
    finally:
        corpus.close()
    toc = _toc(old_data / "index")
    assert b"bot.search.analysis" in toc and b"bot.analysis\n" not in toc
    # A fresh process, which never registered anything by hand, reads the rewritten index.
    code = (
        "from pathlib import Path; from bot.config import Settings; from bot.corpus import Corpus\n"
        f"c = Corpus.open(Settings(data_dir=Path({str(old_data)!r}), seeds_dir=Path({str(old_data / 'x')!r})))\n"
        "print(c.search('caches').total, c.search('grokking').total)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "1"]
