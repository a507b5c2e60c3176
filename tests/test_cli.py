"""The command line, run as a user runs it: `python -m bot ...` in a fresh data folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"


def run(data_dir: Path, *args: str, env: dict | None = None, check: int | None = 0) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    full_env.update({"PAPERBOT_DATA_DIR": str(data_dir), "PAPERBOT_SEEDS_DIR": str(SEEDS)}, **(env or {}))
    proc = subprocess.run(
        [sys.executable, "-m", "bot", *args], cwd=data_dir, env=full_env, capture_output=True, text=True, timeout=120
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    if check is not None:
        assert proc.returncode == check, (proc.stdout, proc.stderr)
    return proc


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("cli")
    proc = run(data, "ingest", str(SEEDS))
    assert "97 papers in the store" in proc.stdout
    return data


def test_ingest_reports_each_file(seeded):
    proc = run(seeded, "ingest", str(SEEDS / "001_1514d829497ec89b.txt"))
    assert proc.stdout.splitlines()[0].endswith("[ICML]: 0 new, 0 updated, 30 unchanged, 0 rejected")


def test_search_json_has_the_documented_fields(seeded):
    page = json.loads(run(seeded, "search", "speculative", "decoding", "--json").stdout)
    assert page["total"] == len(page["hits"]) and page["estimated"] is False  # the seed corpus is counted exactly
    assert (page["page"], page["pages"]) == (1, 1)
    hits = page["hits"]
    assert hits, "expected hits"
    for key in ("id", "title_en", "title_zh", "authors", "affiliations", "venue", "score"):
        assert key in hits[0]
    assert any(h["title_en"].startswith("MineDraft") for h in hits)


def test_search_json_lists_what_a_hit_matched_through(seeded):
    hits = json.loads(run(seeded, "search", "differential", "privacy", "--json").stdout)["hits"]
    assert hits[0]["title_en"].startswith("Plausible Deniability")
    assert any("隐私" in label for label in hits[0]["expanded"])  # privacy → 隐私, from the dictionary
    literal = json.loads(run(seeded, "search", "steganography", "--json").stdout)["hits"]
    assert literal[0]["expanded"] == []  # a literal match needs no explanation


def test_search_pages_and_limits(seeded):
    first = json.loads(run(seeded, "search", "learning", "--limit", "3", "--json").stdout)["hits"]
    second = json.loads(run(seeded, "search", "learning", "--limit", "3", "--page", "2", "--json").stdout)["hits"]
    assert len(first) == len(second) == 3
    assert not {h["id"] for h in first} & {h["id"] for h in second}


def test_search_text_output_in_chinese(seeded):
    out = run(seeded, "search", "推测解码").stdout
    assert "MineDraft: 批量并行推测解码框架" in out
    assert "共找到" in out


def test_search_with_nothing_to_find_is_not_an_error(seeded):
    out = run(seeded, "search", '"(((').stdout
    assert out.strip()


def test_show_and_stats(seeded):
    [hit] = json.loads(run(seeded, "search", "MineDraft", "--limit", "1", "--json").stdout)["hits"]
    shown = json.loads(run(seeded, "show", hit["id"], "--json").stdout)
    assert shown["title_zh"] == "MineDraft: 批量并行推测解码框架"
    assert "Massachusetts Institute of Technology" in run(seeded, "show", hit["id"][:6]).stdout
    stats = json.loads(run(seeded, "stats", "--json").stdout)
    assert stats["papers"] == 97 and stats["index"]["documents"] == 97


def test_show_unknown_id_is_one_clear_line(seeded):
    proc = run(seeded, "show", "nope", check=1)
    assert proc.stderr.strip().count("\n") == 0
    assert "no paper with id 'nope'" in proc.stderr


def test_reindex(seeded):
    assert "index rebuilt: 97 papers" in run(seeded, "reindex").stdout


def test_bad_setting_is_one_clear_line(tmp_path):
    proc = run(tmp_path, "stats", env={"PAPERBOT_TIMEZONE": "Mars/Olympus"}, check=1)
    assert "PAPERBOT_TIMEZONE" in proc.stderr and ".env" in proc.stderr


def test_no_command_prints_usage(tmp_path):
    proc = run(tmp_path, check=2)
    assert "ingest" in proc.stdout and "search" in proc.stdout


def test_rejections_exit_nonzero_after_storing_the_valid_records(tmp_path):
    good = (SEEDS / "000_77b51c8c496a7281.txt").read_text(encoding="utf-8")
    broken = good.replace("AI总结 针对有限和优化", "摘要丢失 针对有限和优化", 1)  # Cost-Aware Learning loses its summary
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a_broken.txt").write_text(broken, encoding="utf-8")
    (tmp_path / "in" / "b_gbk.txt").write_bytes("ICML\n快速部件\n".encode("gbk"))
    (tmp_path / "in" / "c_binary.txt").write_bytes(b"\x00\x01\x02binary")
    proc = run(tmp_path, "ingest", str(tmp_path / "in"), check=1)
    assert "a_broken.txt:" in proc.stdout and "record has no 'AI总结' line" in proc.stdout
    assert "b_gbk.txt: the file is not UTF-8 text (it looks like GBK/GB18030" in proc.stdout
    assert "c_binary.txt: this is a binary file" in proc.stdout
    stats = json.loads(run(tmp_path, "stats", "--json").stdout)
    assert stats["papers"] == 6  # every record of the 7 but the one that lost its summary
    hits = json.loads(run(tmp_path, "search", "World", "Action", "Verifier", "--json").stdout)["hits"]
    assert hits[0]["title_en"].startswith("World Action Verifier")  # the record it ran into survived


def test_one_hit_is_one_paper_and_an_empty_query_says_so_once(seeded):
    assert "1 paper for “author:Finn”" in run(seeded, "search", "author:Finn").stdout
    out = run(seeded, "search", "   ").stdout
    assert "nothing to search for" in out
    assert "No papers found" not in out


def test_a_very_long_query_is_searched_by_its_beginning(seeded):
    proc = run(seeded, "search", "speculative decoding " * 60)
    assert "searched only its beginning" in proc.stdout
