"""Private uploads (issue 25 point 2): a listing workspace T1 uploads in Slack is T1's alone.

T1 finds it by every path; T2 by none (search, identifiers, details, more like this, share,
save, top, export, for you, Home, the digest preview), and nothing T2 types expands, corrects
or suggests through what T1's listing would have taught the lexicon. With T1 sharing its
uploads, T2 finds it; a shared source listing the same papers makes them shared for good.
Everything over real HTTP: Slack-signed requests in, the fake Slack Web API out.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from digest_support import FakeClock, ingest, listing_text, open_corpus
from fake_slack import FilesFakeSlack
from postgres_support import database_location  # noqa: F401 (a fixture)
from slack_helpers import BOT_TOKEN, SIGNING_SECRET, SlackSender, all_text
from test_cli import run
from test_digest_slack import ack_text, file_share_event
from test_semantic import _open as semantic_open
from test_semantic import encoder  # noqa: F401 (a fixture)

from bot.config import ALL_NETWORKS, Settings
from bot.digests.scheduler import ManualScheduler
from bot.feeds.sources import SourceStore
from bot.ingest.listing import parse_bytes
from bot.services import start_services
from bot.slack.app import build_app, slack_services
from bot.slack.http import start_http_server
from bot.slack.values import Action, ButtonValue, encode_value
from bot.store import tenancy
from bot.store.database import open_store
from bot.store.visibility import Visibility

ADMIN = "UADMIN"  # T1's admin, who uploads
ADMIN2 = "UADMIN2"  # T2's
T1, T2 = "T0001", "T0002"
TITLE = "Quorvex Lattice Networks"  # in every private title, with the acronym it defines: (QLNs)


def private_listing(count: int = 3) -> str:
    """Papers with a word no shared paper has (Quorvex), an acronym they define (QLNs), a
    Chinese title pair and an institution the lexicon would learn from."""
    lines = ["Quorvex Lab（夸沃克斯实验室）", ""]
    for n in range(1, count + 1):
        lines += [
            f"{TITLE} (QLNs) for Zymurgic Retrieval, Part {n}", "",
            f"夸沃克斯格网络用于酿造检索（第{n}部分）", "",
            f"Ada Quill{n}, Ben Rook", "",
            "机构 * Quorvex Institute of Technology（夸沃克斯理工学院）", "",
            f"AI总结 本文提出夸沃克斯格网络，第{n}部分研究酿造检索中的格结构与检索效率。", "",
        ]  # fmt: skip
    return "\n".join(lines) + "\n"


@pytest.fixture
def w(tmp_path):
    """paperbot over HTTP with shared seeds, and T1's admin's private upload already in."""
    fake = FilesFakeSlack().start()
    corpus = open_corpus(tmp_path / "data")
    ingest(corpus, tmp_path, "seed.txt", listing_text("Seed Feed（种子）", 1000, 12, topic="Speculative Decoding"))
    corpus.prepare()  # the dictionaries, as the server loads them before it is ready (once a process)
    settings = Settings(
        data_dir=tmp_path / "data", slack_bot_token=BOT_TOKEN, slack_signing_secret=SIGNING_SECRET,
        slack_api_base_url=fake.api_url.rstrip("/"), admins=frozenset({ADMIN, ADMIN2}), timezone="UTC",
        ack_budget_ms=10_000, feeds_allow_private=ALL_NETWORKS,  # the feed server below is on 127.0.0.1
    )  # fmt: skip
    clock = FakeClock(datetime(2026, 12, 1, 8, 0, tzinfo=UTC))
    services = slack_services(settings, corpus, clock=clock, scheduler=ManualScheduler(clock))
    services.workspaces.update(T1, by=ADMIN, admins=(ADMIN,))
    services.workspaces.update(T2, by=ADMIN2, admins=(ADMIN2,))
    start_services(services)
    services.library.foryou("U_WARM")  # its model's imports (scikit-learn) take seconds, once a process
    server = start_http_server(build_app(settings, services), corpus.is_ready)
    sender = SlackSender(server.url, fake)
    world = dataclasses.make_dataclass("World", ["fake", "corpus", "services", "slack", "ids"])(
        fake, corpus, services, sender, []
    )
    # T2 subscribes before the upload, so its digest preview would list the upload if it could.
    status, _ = sender.command("subscribe daily 9am", user_id="U_T2", channel_id="C_T2", team_id=T2)
    assert status == 200
    fake.wait_for("chat.postMessage")  # its announcement in the channel
    fake.reset()
    url = fake.file_url("quorvex.txt", private_listing().encode())
    sender.event(file_share_event(ADMIN, "quorvex.txt", url), team_id=T1)
    (reply,) = fake.wait_for("chat.postMessage")
    assert "*3* new" in reply.args["text"]
    world.ids = sorted(
        p.id for p in corpus.store.get_many([r.id for _, r in parse_bytes("q", private_listing().encode()).records])
    )
    assert [corpus.store.get(pid).teams for pid in world.ids] == [[T1]] * 3
    fake.reset()
    yield world
    sender.close()
    server.shutdown()
    services.scheduler.shutdown()
    corpus.close()
    fake.stop()


def search_text(w, query: str, team: str, user: str = "U_READER", channel: str = "C_READ") -> str:
    status, body = w.slack.command(query, user_id=user, channel_id=channel, team_id=team)
    assert status == 200
    return ack_text(body)


def click(w, action: str, value: ButtonValue, team: str, user: str = "U_READER", channel: str = "C_READ") -> str:
    w.fake.reset()
    status, _ = w.slack.click(action, encode_value(value), user_id=user, channel_id=channel, team_id=team)
    assert status == 200
    (answer,) = w.fake.wait_for("response")
    return all_text(answer.args.get("blocks") or []) + answer.args.get("text", "")


def home_text(w, user: str, team: str) -> str:
    w.fake.reset()
    w.slack.event({"type": "app_home_opened", "user": user, "channel": f"D{user}", "tab": "home"}, team_id=team)
    return all_text(w.fake.wait_for("views.publish")[-1].args["view"]["blocks"])


def test_the_uploading_workspace_finds_its_listing_by_every_path(w):
    private = w.ids[0]
    assert TITLE in search_text(w, "Quorvex", T1)
    assert TITLE in search_text(w, "QLN", T1)
    assert TITLE in search_text(w, private, T1)  # the id Details shows
    assert TITLE in click(w, Action.DETAILS, ButtonValue(id=private), T1)
    assert TITLE in click(w, Action.MORE, ButtonValue(id=private), T1)  # its siblings are like it
    assert TITLE in home_text(w, "U_READER", T1)  # what's new
    assert TITLE in search_text(w, "digest", T1, channel="C_T1")  # no subscription: the newest, as a sample
    assert "Saved" in search_text(w, f"save {private}", T1)
    w.fake.reset()
    search_text(w, "export bibtex", T1)
    w.fake.wait_for("files.completeUploadExternal")
    assert "Quorvex" in "".join(w.fake.uploaded().values())


def test_another_workspace_finds_it_by_no_path(w):
    private = w.ids[0]
    seed = w.corpus.search("speculative decoding", team=T2).hits[0].paper
    for query in ("Quorvex", "QLN", "QLNs", "Zymurgic Retrieval", "夸沃克斯", private, private[:8], f'"{TITLE}"'):
        text = search_text(w, query, T2)
        assert "No papers found" in text or not any(f"Part {n}" in text for n in (1, 2, 3)), query
        assert not any(f"Part {n}" in text for n in (1, 2, 3)), query
    # A typo of the private word is never corrected into it, nor is anything suggested through it.
    text = search_text(w, "Quorvx Lattice", T2)
    assert "quorvex" not in text.casefold().replace("quorvx", "") and "Showing results for" not in text
    for action in (Action.DETAILS, Action.MORE, Action.SAVE):
        assert "no longer in the library" in click(w, action, ButtonValue(id=private, mode="search"), T2)
    assert TITLE not in click(w, Action.MORE, ButtonValue(id=seed.id), T2)  # a shared paper's neighbours
    assert "so I shared nothing" in search_text(w, f"share {private}", T2)
    assert "so nothing was saved" in search_text(w, f"save {private}", T2)
    assert not w.services.library.saved_ids("U_READER")
    assert TITLE not in home_text(w, "U_T2", T2)
    preview = search_text(w, "digest", T2, user="U_T2", channel="C_T2")  # T2's subscription, made before the upload
    assert TITLE not in preview
    assert TITLE not in search_text(w, "digest", T2, channel="C_T2_OTHER")  # no subscription: the newest
    assert TITLE not in search_text(w, "foryou", T2)
    # The corpus API says the same for the digest composer and the CLI's callers.
    corpus = w.corpus
    assert corpus.get(private, team=T2) is None and corpus.get(private, team=T1) is not None
    assert not corpus.new_papers(after_seq=0, filter_text="Quorvex", team=T2)
    assert {p.id for p in corpus.new_papers(after_seq=0, team=T2)}.isdisjoint(w.ids)
    assert len(corpus.new_papers(after_seq=0, filter_text="Quorvex", team=T1)) == 3
    # Nothing was learned from the private titles: no expansion of QLN, no Quorvex translation.
    assert corpus.alternatives("QLN") == () and corpus.alternatives("Quorvex") == ()


def share(w, paper_id: str, *, user: str, channel: str, team: str) -> None:
    """Click Share on a search result, as `user` of `team` in `channel`, and wait for the post."""
    w.fake.reset()
    status, _ = w.slack.click(
        Action.SHARE_POST, encode_value(ButtonValue(id=paper_id)), user_id=user, channel_id=channel, team_id=team
    )
    assert status == 200
    w.fake.wait_for("chat.postMessage")


def test_top_in_a_channel_hides_what_another_workspace_shared_privately(w):
    private = w.ids[0]
    share(w, private, user="U_SHARER", channel="C_SHARED", team=T1)
    assert TITLE in search_text(w, "top", T1, channel="C_SHARED")
    assert TITLE not in search_text(w, "top", T2, channel="C_SHARED")


def test_a_workspace_that_shares_its_uploads_is_read_by_others_until_it_stops(w):
    private = w.ids[0]
    w.services.workspaces.update(T1, by=ADMIN, share_uploads=True)
    assert TITLE in search_text(w, "Quorvex", T2)
    assert TITLE in click(w, Action.DETAILS, ButtonValue(id=private), T2)
    assert "Saved" in search_text(w, f"save {private}", T2, user="U_T2")
    w.services.workspaces.update(T1, by=ADMIN, share_uploads=False)
    assert TITLE not in search_text(w, "Quorvex", T2)
    # Saved while it was shared, it leaves T2's export with the sharing.
    assert "no saved papers to export" in search_text(w, "export bibtex", T2, user="U_T2")
    # Sharing never taught the lexicon: the papers are still uploads.
    assert w.corpus.alternatives("QLN") == ()


def test_a_shared_source_listing_the_same_papers_makes_them_shared(w, tmp_path):
    ingest(w.corpus, tmp_path, "quorvex-feed.txt", private_listing())  # the CLI / the inbox: a shared source
    assert [w.corpus.store.get(pid).teams for pid in w.ids] == [[]] * 3
    assert TITLE in search_text(w, "Quorvex", T2)
    # Now shared, the papers teach the lexicon and the typo vocabulary like any other.
    assert {"quorvex", "lattic"} <= set(w.corpus.alternatives("QLN"))
    assert "quorvex" in search_text(w, "Quorvx Lattice", T2).casefold().replace("quorvx", "")


def test_an_upload_of_a_paper_already_shared_stays_shared(w):
    seed = w.corpus.search("speculative decoding", team=T2).hits[0].paper
    data = listing_text("Seed Feed（种子）", 1000, 1, topic="Speculative Decoding").encode()
    w.corpus.ingest_bytes("again.txt", data, team=T1)
    assert w.corpus.store.get(seed.id).teams == []
    assert w.corpus.get(seed.id, team=T2) is not None


def test_visibility_on_both_backends_and_a_store_from_before_it(database_location):  # noqa: F811
    store = open_store(database_location)
    try:
        listing = parse_bytes("up.txt", private_listing(2).encode())
        store.ingest_listing(parse_bytes("seed.txt", listing_text("Seed（种子）", 1, 2).encode()))
        store.ingest_listing(listing, team=T1)
        ids = [paper.id for _, paper in listing.records]
        visibility = Visibility(store)
        assert visibility.hidden(T2) == frozenset(ids) and visibility.hidden(T1) == frozenset()
        assert visibility.hidden(None) == frozenset()
        store.ingest_listing(listing, team=T2)  # T2 uploads the same papers: now both see them
        assert visibility.hidden(T2) == frozenset() and visibility.hidden("T3") == frozenset(ids)
        assert store.get(ids[0]).teams == [T1, T2]
        rev = store.get(ids[0]).rev
        store.ingest_listing(listing)  # a shared source: shared from now on, with a new rev to index
        assert visibility.hidden("T3") == frozenset() and store.get(ids[0]).teams == []
        assert store.get(ids[0]).rev > rev
        assert store.remove_papers(ids[:1])
    finally:
        store.close()


def test_a_store_from_before_private_uploads_opens_with_everything_shared(tmp_path):
    path = tmp_path / "paperbot.sqlite3"
    store = open_store(path)
    store.ingest_listing(parse_bytes("up.txt", private_listing(2).encode()))
    store.close()
    db = sqlite3.connect(path)
    db.executescript("DROP INDEX paper_teams_paper; DROP TABLE paper_teams;")  # as a store made before it
    db.close()
    store = open_store(path)
    try:
        assert store.state()[0] == 2 and all(not p.teams for p in store.iter_papers())
        assert Visibility(store).hidden(T2) == frozenset()
    finally:
        store.close()


@pytest.fixture
def feed_server():
    """A listing feed on 127.0.0.1 serving the same papers T1 uploaded: `url`, `gets` (paths asked)."""
    gets: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            gets.append(self.path)
            body = private_listing().encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield dataclasses.make_dataclass("Feed", ["url", "gets"])(f"http://127.0.0.1:{server.server_port}/quorvex.txt", gets)
    server.shutdown()


def sources_text(w, rest: str, team: str, user: str) -> str:
    return search_text(w, f"sources {rest}".strip(), team, user=user)


def test_a_workspaces_feeds_are_its_own_and_one_url_is_polled_once(w, feed_server):
    url, service = feed_server.url, w.services.sources
    assert "Added" in sources_text(w, f"add {url}", T1, ADMIN)
    assert url in sources_text(w, "", T1, ADMIN) and url not in sources_text(w, "", T2, ADMIN2)
    assert "no source" in sources_text(w, f"remove {url}", T2, ADMIN2)  # not T2's to remove
    assert "There is no source" in sources_text(w, f"remove-papers {url}", T2, ADMIN2)
    assert "Added" in sources_text(w, f"add {url}", T2, ADMIN2)  # the same feed: one row, two workspaces
    assert "already a source" in sources_text(w, f"add {url}", T2, ADMIN2)
    assert [s.target for s in service.list_sources()] == [url]
    assert url in sources_text(w, "", T2, ADMIN2)
    wait_until(lambda: service.list_sources()[0].last_success)  # the adds' own polls, in the background
    feed_server.gets.clear()
    results = service.poll_all(force=True)  # the scheduler's poll: every feed once, whoever added it
    assert [r.source.target for r in results] == [url] and feed_server.gets == ["/quorvex.txt"]
    # A feed is a shared source: the papers T1 had uploaded privately are everyone's now.
    assert [w.corpus.store.get(pid).teams for pid in w.ids] == [[]] * 3
    assert TITLE in search_text(w, "Quorvex", T2)
    # Its papers are T1's too: T2 may not empty it, only stop following it.
    assert "Another workspace also follows" in sources_text(w, f"remove-papers {url} confirm", T2, ADMIN2)
    assert w.corpus.store.state()[0] == 12 + 3
    assert "Removed" in sources_text(w, f"remove {url}", T2, ADMIN2)
    assert url not in sources_text(w, "", T2, ADMIN2) and url in sources_text(w, "", T1, ADMIN)
    assert "Removed" in sources_text(w, f"remove {url}", T1, ADMIN)
    assert service.list_sources() == []  # nobody has it: gone, never polled again


def test_feeds_from_before_workspaces_stay_the_single_workspaces(tmp_path):
    store = open_store(tmp_path / "paperbot.sqlite3")
    try:
        SourceStore(store)
        with store.transaction() as db:  # the sources table as it was, with a feed in it
            db.execute("DROP TABLE source_teams")
            db.execute(
                "INSERT INTO sources (kind, target, added_at, added_by) VALUES ('arxiv', 'arxiv:cs.CL', '2026-11-01', 'U1')"
            )
        sources = SourceStore(store)
        assert [s.target for s in sources.all("T0001")] == ["arxiv:cs.CL"]  # no home workspace yet: it is LOCAL's
        tenancy.adopt(store, "T0001")
        assert [s.target for s in sources.all("T0001")] == ["arxiv:cs.CL"] and sources.all("T0002") == []
    finally:
        store.close()


def wait_until(check, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_the_cli_reads_as_a_workspace_when_told(tmp_path):
    corpus = open_corpus(tmp_path / "data")
    ingest(corpus, tmp_path, "seed.txt", listing_text("Seed（种子）", 1, 3))
    corpus.ingest_bytes("quorvex.txt", private_listing().encode(), team=T1)
    private = corpus.search("Quorvex").hits[0].paper.id
    corpus.close()

    def total(*team: str) -> int:
        return json.loads(run(tmp_path / "data", "search", "Quorvex", "--json", *team).stdout)["total"]

    assert total() == 3 and total("--team", T1) == 3 and total("--team", T2) == 0
    assert run(tmp_path / "data", "show", private, "--team", T1).returncode == 0
    shown = run(tmp_path / "data", "show", private, "--team", T2, check=None)
    assert shown.returncode != 0 and "no paper with id" in shown.stderr


def test_by_meaning_another_workspace_gets_no_private_neighbours(tmp_path, encoder):  # noqa: F811
    corpus = semantic_open(tmp_path / "data", encoder[0])
    try:
        corpus.ingest_bytes("quorvex.txt", private_listing().encode(), team=T1)
        corpus.meaning.builder.run()
        assert corpus.meaning.has_vectors()
        query = "酿造检索的格网络"  # by meaning: the private papers' topic in other words
        mine = [h.paper.title_en for h in corpus.search(query, team=T1, per_page=10).hits]
        theirs = corpus.search(query, team=T2, per_page=10)
        assert any(TITLE in title for title in mine)
        assert not any(TITLE in h.paper.title_en for h in theirs.hits)
        seed = next(p for p in corpus.newest(50, team=T2) if not p.teams)
        like = corpus.more_like(seed.id, team=T2, per_page=20)
        assert not any(TITLE in h.paper.title_en for h in like.hits)
        assert corpus.more_like(corpus.search("Quorvex", team=T1).hits[0].paper.id, team=T2).hits == []
    finally:
        corpus.close()
