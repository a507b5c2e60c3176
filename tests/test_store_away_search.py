"""Searching while PostgreSQL is away (issue 24): a real server stopped mid-test.

`/papers` answers from the instance's own index: the papers as the index holds them, no
Saved state, a note in the reader's language that the results may be incomplete. Who may
see what is the last hidden set read for the workspace, and every paper indexed since is
left out too (it may be another workspace's private upload); a workspace whose hidden set
was never read here gets "can't reach the database", as before.
"""

from __future__ import annotations

import sqlite3

import pytest
from digest_support import QuietDirectory, RecordingPoster, ingest, listing_text

from bot.config import Settings
from bot.corpus import Corpus
from bot.i18n import t
from bot.ingest.listing import parse_text
from bot.services import build_services
from bot.slack.answers.commands import answer_command
from bot.slack.answers.search import answer_search
from bot.slack.reply import failure_reply
from bot.store.database import is_store_unavailable

OURS, OTHER, NEVER, LATE = "T_OURS", "T_OTHER", "T_NEVER", "T_LATE"


def private_upload(corpus: Corpus, name: str, start: int, team: str) -> set[str]:
    """A listing uploaded by `team` alone (its papers private to it), stored and indexed."""
    report = corpus.store.ingest_listing(
        parse_text(listing_text(name, start, 1, topic="Quantum Widgets"), f"{name}.txt"), team=team
    )
    corpus.index_stored(report)
    return {p.id for p in corpus.store.iter_papers() if p.teams == [team]}


def found(corpus: Corpus, team: str | None) -> set[str]:
    return {h.paper.id for h in corpus.search("quantum widgets", per_page=20, team=team).hits}


def test_a_search_with_postgresql_stopped_answers_from_the_index_and_never_shows_a_private_paper(
    postgres_url, postgres_server, tmp_path
):
    settings = Settings(data_dir=tmp_path / "a", seeds_dir=tmp_path / "no-seeds", database_url=postgres_url)
    corpus = Corpus.open(settings)
    services = build_services(settings, corpus, poster=RecordingPoster(), directory=QuietDirectory())
    try:
        ingest(corpus, tmp_path, "a.txt", listing_text("Feed A", 0, 3, topic="Quantum Widgets"))
        shared = {p.id for p in corpus.store.iter_papers()}
        first_private = private_upload(corpus, "Upload One", 20, OTHER)
        assert found(corpus, OURS) == shared  # read, and remembered for OURS
        later_private = private_upload(corpus, "Upload Two", 30, OTHER) - first_private  # indexed after that read
        assert found(corpus, OURS) == shared and found(corpus, OTHER) == shared | first_private | later_private
        # OTHER shares its uploads, LATE searches and sees them, then OTHER stops sharing and LATE
        # does not search again before the outage: while the store is away, LATE must not see
        # them (a stop changes no paper's rev; what is remembered ignores sharing).
        services.workspaces.update(OTHER, by="U9", share_uploads=True)
        assert found(corpus, LATE) == shared | first_private | later_private
        services.workspaces.update(OTHER, by="U9", share_uploads=False)
        saved = sorted(shared)[0]
        services.library.save("U1", saved, team_id=OURS)
        assert t("button.saved", "en") in str(answer_command(services, "U1", "C1", "quantum widgets", team_id=OURS).blocks)

        postgres_server.stop("fast")
        try:
            away = corpus.search("quantum widgets", per_page=20, team=OURS)
            assert away.store_away and {h.paper.id for h in away.hits} == shared  # neither private upload
            assert found(corpus, LATE) == shared  # OTHER's uploads, no longer shared, stay hidden
            from bot.cli import format_result

            assert t("search.store_away", "zh") in format_result(away, "zh") and away.to_dict()["store_away"]
            assert all(h.paper.title_en.startswith("Quantum Widgets Study") and h.paper.authors for h in away.hits)
            assert found(corpus, None) == shared | first_private | later_private  # (the CLI's: every paper)
            with pytest.raises(sqlite3.OperationalError) as never:  # never read for it here: fail closed
                corpus.search("quantum widgets", team=NEVER)
            assert is_store_unavailable(never.value)
            assert t("error.store_unavailable", "zh") in failure_reply(never.value, "zh").text

            reply = answer_command(services, "U1", "C1", "quantum widgets", team_id=OURS)  # the listener's answer
            shown = str(reply.blocks)
            assert t("search.store_away", "en") in shown and t("button.saved", "en") not in shown
            assert "'actions'" not in shown  # no button: none could answer until the store is back
            assert not any(pid in shown for pid in first_private | later_private)
            zh = str(answer_search(corpus, "quantum widgets", "zh", team_id=OURS).message.blocks)
            assert t("search.store_away", "zh") in zh
            with pytest.raises(sqlite3.OperationalError):
                answer_command(services, "U2", "C1", "quantum widgets", team_id=NEVER)
        finally:
            postgres_server.start()
        back = corpus.search("quantum widgets", per_page=20, team=OURS)
        assert not back.store_away and {h.paper.id for h in back.hits} == shared
        assert t("search.store_away", "en") not in str(
            answer_command(services, "U1", "C1", "quantum widgets", team_id=OURS).blocks
        )
    finally:
        corpus.close()
