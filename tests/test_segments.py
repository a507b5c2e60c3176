"""The bulk writer (bot/search/segments.py) writes the segment Whoosh's own writer writes, byte for byte."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import whoosh.index
from whoosh.writing import SegmentWriter

from bot.ingest.listing import parse_path
from bot.search.codec import ArrayCodec
from bot.search.schema import INDEX_NAME, build_schema, paper_document
from bot.search.segments import PaperWriter
from bot.search.writers import merge_tiny_segments

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def seed_papers():
    papers = {}
    for path in sorted((REPO / "seeds").iterdir()):
        for _, paper in parse_path(path).records:
            papers[paper.id] = paper
    for n, paper in enumerate(papers.values(), start=1):
        paper.seq = paper.rev = n
    return list(papers.values())


def segment_files(folder: Path) -> dict[str, str]:
    """{file name without the random segment id: sha256} of every file of the index's segments
    (not of those merged away, which stay a while: bot/search/segments.py commit_toc)."""
    ix = whoosh.index.open_dir(str(folder), indexname=INDEX_NAME)
    live = {segment.segment_id() for segment in ix._segments()}
    ix.close()
    files = {}
    for path in folder.iterdir():
        if path.name.split(".", 1)[0] in live:
            files[path.name.split(".", 1)[1]] = hashlib.sha256(path.read_bytes()).hexdigest()
    return files


def build(folder: Path, writer_class, papers, **kwargs) -> dict[str, str]:
    folder.mkdir()
    ix = whoosh.index.create_in(str(folder), build_schema(), indexname=INDEX_NAME)
    writer = writer_class(ix, compound=False, **kwargs)
    for paper in papers:
        writer.add_document(**paper_document(paper))
    writer.commit(merge=False)
    ix.close()
    return segment_files(folder)


@pytest.mark.parametrize("limitmb", [512, 1])  # 1 MB: the pool spills sorted runs to disk
@pytest.mark.parametrize("blocklimit", [1024, 8])  # 8: most terms span several blocks
def test_paper_writer_writes_whooshs_segment(tmp_path: Path, seed_papers, limitmb: int, blocklimit: int) -> None:
    # Ours takes each document's terms from index_terms and, when the pool never
    # spilled, writes each term's postings a block at a time; Whoosh's writer goes
    # token by token and posting by posting, through the same codec.
    codec = ArrayCodec(blocklimit=blocklimit)
    expected = build(tmp_path / "whoosh", SegmentWriter, seed_papers, limitmb=512, codec=codec)
    assert {"pst", "trm", "_stored.col", "_text_len.col"} <= set(expected)
    assert build(tmp_path / "ours", PaperWriter, seed_papers, limitmb=limitmb, codec=codec) == expected


def test_merging_segments_through_the_pool_keeps_every_posting(tmp_path: Path, seed_papers) -> None:
    # Two small segments, then a third commit folds them in (merge_tiny_segments): the
    # merged segments' postings reach the pool after the new documents' ones.
    results = {}
    for name, writer_class in (("whoosh", SegmentWriter), ("ours", PaperWriter)):
        folder = tmp_path / name
        folder.mkdir()
        ix = whoosh.index.create_in(str(folder), build_schema(), indexname=INDEX_NAME)
        for part in (seed_papers[:40], seed_papers[40:80], seed_papers[80:]):
            writer = writer_class(ix, compound=False, codec=ArrayCodec(blocklimit=8))
            for paper in part:
                writer.add_document(**paper_document(paper))
            writer.commit(mergetype=merge_tiny_segments)
        assert len(ix._segments()) == 1
        ix.close()
        results[name] = segment_files(folder)
    assert results["ours"] == results["whoosh"]
