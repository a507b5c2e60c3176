"""People's records per workspace (issue 25, point 2): one workspace sees none of another's.

Languages, saves, shares, cards, reactions, 👍 / 👎, interests and the Slack events a
workspace's app acted on are keyed by the team Slack signed for. Over real HTTP: signed
requests in, the fake Slack's calls out (tests/slack_helpers.py, tests/fake_slack.py);
the store's migration on SQLite and PostgreSQL (`database_location`).
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlencode

from conftest import REPO
from slack_helpers import BOT_TOKEN, SIGNING_SECRET, SlackSender, all_text, button_values, slash_command_fields

from bot.cli import main
from bot.config import Settings
from bot.i18n import t
from bot.ingest.listing import parse_path
from bot.library.readinglist import Library
from bot.slack.app import learn_home_workspace
from bot.slack.values import decode_value
from bot.store import tenancy
from bot.store.database import apply_schema, open_store
from bot.store.feedback import FeedbackStore

T1, T2 = "T_REC1", "T_REC2"
CHANNEL = "C_REC"


def eventually(check, timeout: float = 15.0):
    """Events are handled after the ack: wait until `check()` is truthy."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.02)


def command(slack: SlackSender, text: str, *, team: str, user: str, channel: str = CHANNEL):
    """`/papers TEXT` as Slack sends it from workspace `team`."""
    fields = slash_command_fields(text, slack.fake.response_url(), user_id=user, channel_id=channel)
    fields["team_id"] = team
    status, body = slack.post(urlencode(fields), "application/x-www-form-urlencoded")
    assert status == 200
    return body


def event(slack: SlackSender, payload: dict, *, team: str, event_id: str | None = None):
    """An Events API callback from workspace `team`."""
    body = {
        "token": "legacy-verification-token", "team_id": team, "api_app_id": "A0001", "event": payload,
        "type": "event_callback", "event_id": event_id or f"Ev{time.time_ns()}", "event_time": int(time.time()),
        "authorizations": [{"team_id": team, "user_id": "UBOT", "is_bot": True}],
    }  # fmt: skip
    status, _ = slack.post(json.dumps(body), "application/json")
    assert status == 200


def save_labels(blocks: list[dict]) -> list[str]:
    return [
        e["text"]["text"] for b in blocks if b.get("type") == "actions" for e in b["elements"] if e["action_id"] == "paper_save"
    ]


def home_of(slack: SlackSender, fake_slack, *, team: str, user: str) -> tuple[str, list[str]]:
    """Open App Home as `user` of `team`: the text of the view paperbot published, and the
    interests it lists (their Remove buttons)."""
    before = len(fake_slack.calls_to("views.publish"))
    event(slack, {"type": "app_home_opened", "user": user, "channel": f"D{user}", "tab": "home"}, team=team)
    blocks = fake_slack.wait_for("views.publish", before + 1)[-1].args["view"]["blocks"]
    removes = [
        e
        for b in blocks
        for e in [b.get("accessory") or {}, *b.get("elements", [])]
        if e.get("action_id") == "home_interest_remove"
    ]
    return all_text(blocks), [decode_value(e["value"]).query for e in removes]


def test_a_second_workspace_sees_nothing_of_the_firsts_records(slack, fake_slack, seed_corpus, seed_services):
    library, feedback = seed_services.library, seed_services.library.feedback
    pariskv = seed_corpus.resolve("ParisKV")
    me = "U_REC"  # the same user id in both workspaces, as on Enterprise Grid

    # -- workspace 1: a language, a save, a 👍, an interest, a share, and a reaction on it ------
    assert "好的" in command(slack, "lang zh", team=T1, user=me)["text"]
    assert pariskv.title_zh in command(slack, "save ParisKV", team=T1, user=me)["text"]
    results = command(slack, "ParisKV", team=T1, user=me)
    assert save_labels(results["blocks"])[0] == t("button.saved", "zh")
    like = button_values(results["blocks"], "paper_like")[0]
    slack.click("paper_like", like, user_id=me, team_id=T1)
    fake_slack.wait_for("response")
    command(slack, "interests add KV cache", team=T1, user=me)
    preview = command(slack, "share ParisKV", team=T1, user=me)
    slack.click("share_post", button_values(preview["blocks"], "share_post")[0], user_id=me, channel_id=CHANNEL, team_id=T1)
    (post,) = fake_slack.wait_for("chat.postMessage")
    card_ts = post.response["ts"]
    assert eventually(lambda: library.papers_on(CHANNEL, card_ts, team_id=T1)) == [pariskv.id]
    reaction = {"type": "reaction_added", "user": "U_REC_VOTER", "reaction": "thumbsup", "item_user": "UBOT",
                "event_ts": "20.1", "item": {"type": "message", "channel": CHANNEL, "ts": card_ts}}  # fmt: skip
    event(slack, reaction, team=T1)
    assert eventually(lambda: library.votes(CHANNEL, team_id=T1).get(pariskv.id, (0, 0))[1] == 1)

    # -- workspace 2: the same user id and another person go through everything -------------
    # A reaction from workspace 2 on the same channel and ts is no card of its own.
    event(slack, {**reaction, "user": "U_REC_B", "event_ts": "20.2"}, team=T2)
    for user in (me, "U_REC_B"):
        fake_slack.reset()
        assert "You haven't picked a language" in command(slack, "lang", team=T2, user=user)["text"]
        found = command(slack, "ParisKV", team=T2, user=user)
        assert "ParisKV" in all_text(found["blocks"]) and save_labels(found["blocks"])[0] == "Save"  # English, not saved
        assert "You haven't saved any papers yet" in all_text(command(slack, "saved", team=T2, user=user)["blocks"])
        foryou = all_text(command(slack, "foryou", team=T2, user=user)["blocks"])
        assert foryou.split("\n")[0] == t("library.foryou_nothing_saved", "en")  # nothing learned, no interests
        assert "You follow no topics yet" in command(slack, "interests", team=T2, user=user)["text"]
        assert t("library.export_empty", "en") in command(slack, "export bibtex", team=T2, user=user)["text"]
        assert "Nothing was shared, saved or reacted to" in command(slack, "top", team=T2, user=user)["text"]
        details = button_values(found["blocks"], "paper_details")[0]
        slack.click("paper_details", details, user_id=user, team_id=T2)
        (card,) = fake_slack.wait_for("response")
        assert save_labels(card.args["blocks"]) == ["Save"]
        home, interests = home_of(slack, fake_slack, team=T2, user=user)
        assert "Nothing saved yet" in home and t("home.interests_none", "en") in home and interests == []
        event(slack, {"type": "message", "channel_type": "im", "user": user, "channel": f"D{user}", "text": "saved"}, team=T2)
        (dm,) = fake_slack.wait_for("chat.postMessage")
        assert "You haven't saved any papers yet" in all_text(dm.args["blocks"])
        assert not fake_slack.calls_to("files.completeUploadExternal")
        assert library.saved_ids(user, team_id=T2) == set() and feedback.vote_of(T2, user, pariskv.id) == 0

    # A click on Save in workspace 2 saves for workspace 2, and its undo takes nothing from workspace 1.
    fake_slack.reset()
    found = command(slack, "ParisKV", team=T2, user=me)
    save = next(e for b in found["blocks"] if b.get("type") == "actions" for e in b["elements"] if e["action_id"] == "paper_save")
    assert decode_value(save["value"]).id == pariskv.id
    slack.click("paper_save", save["value"], user_id=me, team_id=T2)
    assert save_labels(fake_slack.wait_for("response")[0].args["blocks"])[0] == "Saved ✓"
    slack.click("paper_save", save["value"], user_id=me, team_id=T2)
    assert save_labels(fake_slack.wait_for("response", 2)[1].args["blocks"])[0] == "Save"
    slack.click("paper_unvote", like, user_id=me, team_id=T2)  # nothing of theirs to undo
    fake_slack.wait_for("response", 3)

    # -- workspace 1 still has everything ------------------------------------------------------
    assert library.votes(CHANNEL, team_id=T1)[pariskv.id][1] == 1  # workspace 2's reaction counted nowhere
    assert library.votes(CHANNEL, team_id=T2) == {}
    assert feedback.vote_of(T1, me, pariskv.id) == 1
    assert "中文" in command(slack, "lang", team=T1, user=me)["text"]
    assert pariskv.title_zh in all_text(command(slack, "saved", team=T1, user=me)["blocks"])
    top = all_text(command(slack, "top", team=T1, user=me)["blocks"])
    assert t("library.top_shares", "zh", count=1) in top and t("library.top_voters", "zh", count=1) in top
    home, interests = home_of(slack, fake_slack, team=T1, user=me)
    assert interests == ["KV cache"] and pariskv.title_zh in home and t("library.home_saved_title", "zh") in home


def test_each_workspace_claims_its_own_events(slack, fake_slack, seed_services):
    """The retry check is per workspace: one's event id never silences another's."""
    fake_slack.reset()
    message = {"type": "message", "channel_type": "im", "user": "U_REC_EV", "channel": "DU_REC_EV", "text": "lang"}
    for team in (T1, T2, T1):  # the last one is workspace 1's retry
        event(slack, message, team=team, event_id="EvRecShared")
    fake_slack.wait_for("chat.postMessage", 2)
    time.sleep(0.3)  # a third answer (the retry acted on) would have come by now
    assert len(fake_slack.calls_to("chat.postMessage")) == 2


def test_the_console_is_a_workspace_of_its_own(slack, fake_slack, seed_corpus, seed_services):
    import io

    from bot.console import answer_line, console_services

    user = "U_REC_CONSOLE"
    command(slack, "help", team="T0001", user="U_REC_FIRST")  # the bot has learned its workspace (adopted)
    assert tenancy.home_team(seed_corpus.store) == "T0001"
    console = console_services(seed_corpus, io.StringIO())
    assert "ParisKV" in answer_line(console, "/papers save ParisKV", user_id=user)
    assert t("lang.set", "zh") in answer_line(console, "/papers lang zh", user_id=user)
    assert seed_services.library.saved_ids(user, team_id=tenancy.LOCAL) == {seed_corpus.resolve("ParisKV").id}
    # The same user id in a Slack workspace (the bot's own included) has none of it.
    assert "You haven't picked a language" in command(slack, "lang", team="T0001", user=user)["text"]
    assert "You haven't saved any papers yet" in all_text(command(slack, "saved", team="T0001", user=user)["blocks"])
    command(slack, "save speculative decoding", team="T0001", user=user)
    assert "ParisKV" in answer_line(console, "/papers saved", user_id=user)
    assert "Speculative" not in answer_line(console, "/papers saved", user_id=user)


# -- the migration in place ------------------------------------------------------------------

OLD_STORE = """
CREATE TABLE user_prefs (
    user_id TEXT PRIMARY KEY,
    lang    TEXT NOT NULL
);
CREATE TABLE slack_events (
    event_id TEXT PRIMARY KEY,
    seen_at  TEXT NOT NULL
);
CREATE INDEX slack_events_seen ON slack_events (seen_at);
"""
OLD_LIBRARY = """
CREATE TABLE saves (
    user_id    TEXT NOT NULL,
    paper_id   TEXT NOT NULL,
    saved_at   TEXT NOT NULL,
    channel_id TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (user_id, paper_id)
);
CREATE INDEX saves_channel ON saves (channel_id, saved_at);
CREATE TABLE cards (
    channel_id TEXT NOT NULL,
    message_ts TEXT NOT NULL,
    paper_id   TEXT NOT NULL,
    kind       TEXT NOT NULL,
    papers     INTEGER NOT NULL DEFAULT 1,
    posted_at  TEXT NOT NULL,
    PRIMARY KEY (channel_id, message_ts, paper_id)
);
CREATE TABLE shares (
    id         INTEGER PRIMARY KEY,
    channel_id TEXT NOT NULL,
    paper_id   TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    message_ts TEXT NOT NULL DEFAULT '',
    shared_at  TEXT NOT NULL
);
CREATE INDEX shares_channel ON shares (channel_id, shared_at);
CREATE TABLE reactions (
    channel_id TEXT NOT NULL,
    message_ts TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    reaction   TEXT NOT NULL,
    present    INTEGER NOT NULL,
    event_ts   TEXT NOT NULL,
    at         TEXT NOT NULL,
    PRIMARY KEY (channel_id, message_ts, user_id, reaction)
);
"""
"""The pre-tenancy CREATE TABLEs, as the last single-workspace version shipped them
(bot/store/database.py and bot/library/readinglist.py before issue 25)."""
OLD_TABLES = ("user_prefs", "slack_events", "saves", "cards", "shares", "reactions")


def make_old_store(location: str | Path) -> list[str]:
    """A store as the single-workspace version left it: papers, and each table of people's
    records in its old form with rows; return the ids of the papers saved (newest save first)."""
    store = open_store(location)
    FeedbackStore(store)  # its tables were keyed by team before the rest (issue 27)
    store.ingest_listing(parse_path(sorted((REPO / "seeds").iterdir())[0]))
    first, second, third = (p.id for p in store.newest(3))
    now = store.now()
    with store.transaction() as db:
        for table in OLD_TABLES:
            db.execute(f"DROP TABLE IF EXISTS {table}")
        apply_schema(db, OLD_STORE)
        apply_schema(db, OLD_LIBRARY, {"saves": {"position": "INTEGER NOT NULL DEFAULT 0"}})  # as the old version added it
        db.execute("INSERT INTO user_prefs (user_id, lang) VALUES ('U_OLD', 'zh')")
        db.execute("INSERT INTO slack_events (event_id, seen_at) VALUES ('EvOld', ?)", (now,))
        for position, paper_id in enumerate((third, second, first), start=1):  # one second: position orders them
            db.execute(
                "INSERT INTO saves (user_id, paper_id, saved_at, channel_id, position) VALUES ('U_OLD', ?, ?, 'C_OLD', ?)",
                (paper_id, now, position),
            )
        db.execute("INSERT INTO shares (id, channel_id, paper_id, user_id, message_ts, shared_at)"
                   " VALUES (7, 'C_OLD', ?, 'U_OLD', '5.5', ?)", (first, now))  # fmt: skip
        db.execute("INSERT INTO cards (channel_id, message_ts, paper_id, kind, papers, posted_at)"
                   " VALUES ('C_OLD', '5.5', ?, 'share', 1, ?)", (first, now))  # fmt: skip
        db.execute("INSERT INTO reactions (channel_id, message_ts, user_id, reaction, present, event_ts, at)"
                   " VALUES ('C_OLD', '5.5', 'U_VOTER', 'tada', 1, '5.6', ?)", (now,))  # fmt: skip
        # 👍 / 👎 were keyed by team already; the console's ('' team) are adopted with the rest.
        db.execute("INSERT INTO feedback (team_id, user_id, paper_id, place_id, kind, value, at)"
                   " VALUES ('', 'U_OLD', ?, '', 'vote', 1, ?)", (second, now))  # fmt: skip
        db.execute("DELETE FROM meta WHERE key = ?", (tenancy.HOME_TEAM_KEY,))
    if str(location).startswith("postgresql://"):
        from bot.store.postgres import forget_tables

        forget_tables(list(OLD_TABLES))  # the tables' keys changed behind the translator's back
    store.close()
    return [first, second, third]


def test_an_old_store_opens_with_its_rows_and_a_token_mode_start_adopts_them(database_location, fake_slack):
    saved = make_old_store(database_location)
    store = open_store(database_location)
    try:
        library = Library(store)  # the old tables rebuilt with the team in their key, rows kept with team ''
        for table in OLD_TABLES:
            teams = {r[0] for r in store.read(f"SELECT team_id FROM {table}")}
            assert teams == {tenancy.LOCAL}, table
        assert library.saved_papers("U_OLD", team_id=tenancy.LOCAL)[0].id == saved[0]

        settings = Settings(slack_bot_token=BOT_TOKEN, slack_api_base_url=fake_slack.api_url.rstrip("/"))
        assert learn_home_workspace(settings, store) == "T0001"  # auth.test: the bot's own workspace
        assert len(fake_slack.calls_to("auth.test")) == 1 and tenancy.home_team(store) == "T0001"
        assert [p.id for p in library.saved_papers("U_OLD", team_id="T0001")] == saved  # order kept
        assert store.get_user_lang("U_OLD", "T0001") == "zh"
        assert store.claim_event("EvOld", team_id="T0001") is False  # still remembered: a retry is not acted on
        assert library.feedback.vote_of("T0001", "U_OLD", saved[1]) == 1
        popular = library.top("C_OLD", team_id="T0001")  # the share, the saves from its card, the reaction
        assert [(p.paper.id, p.shares, p.saves, p.voters) for p in popular][0] == (saved[0], 1, 1, 1) and len(popular) == 3
        library.record_share("C_OLD", saved[1], "U_NEW", team_id="T0001")  # ids continue after the copied ones
        assert max(r[0] for r in store.read("SELECT id FROM shares")) > 7

        # Nothing of it reaches another workspace; a second start changes nothing.
        assert library.saved_ids("U_OLD", team_id="T_OTHER") == set() and store.get_user_lang("U_OLD", "T_OTHER") is None
        assert library.top("C_OLD", team_id="T_OTHER") == [] and store.claim_event("EvOld", team_id="T_OTHER") is True
        assert learn_home_workspace(settings, store) == "T0001"
        counts = {table: store.read(f"SELECT COUNT(*) FROM {table} WHERE team_id = 'T0001'")[0][0] for table in OLD_TABLES}
        assert counts == {"user_prefs": 1, "slack_events": 1, "saves": 3, "cards": 1, "shares": 2, "reactions": 1}
    finally:
        store.close()


def test_a_server_started_on_an_old_store_answers_its_first_request_from_the_adopted_rows(slack_settings, fake_slack, tmp_path):
    """Slack away at start (no auth.test then): the first request adopts, before any listener reads."""
    from bot.corpus import Corpus
    from bot.slack.server import start_app_server

    settings = replace(slack_settings, data_dir=tmp_path / "data")
    make_old_store(settings.db_path)
    corpus = Corpus.load(settings)  # opened, not prepared: `lang` needs no index
    running = start_app_server(settings, corpus)
    sender = SlackSender(running.url, fake_slack)
    try:
        assert tenancy.home_team(corpus.store) == tenancy.LOCAL
        answer = command(sender, "lang", team="T0001", user="U_OLD")
        assert answer["text"] == t("lang.current", "zh", name="中文")
        assert tenancy.home_team(corpus.store) == "T0001"
        other = command(sender, "lang", team="T_ELSEWHERE", user="U_OLD")
        assert "You haven't picked a language" in other["text"]
    finally:
        sender.close()
        running.shutdown()
        corpus.close()


def test_oauth_mode_without_a_bot_token_leaves_the_old_rows_to_the_console(tmp_path, fake_slack):
    saved = make_old_store(tmp_path / "paperbot.sqlite3")
    store = open_store(tmp_path / "paperbot.sqlite3")
    try:
        library = Library(store)
        settings = Settings(
            slack_client_id="1234.5678", slack_client_secret="secret", slack_signing_secret=SIGNING_SECRET,
            slack_api_base_url=fake_slack.api_url.rstrip("/"),
        )  # fmt: skip
        assert learn_home_workspace(settings, store) == ""
        assert not fake_slack.calls_to("auth.test") and tenancy.home_team(store) == tenancy.LOCAL
        assert [p.id for p in library.saved_papers("U_OLD", team_id=tenancy.LOCAL)] == saved
    finally:
        store.close()


def test_the_cli_exports_a_persons_saves_of_the_workspace_it_names(tmp_path, monkeypatch, capsys):
    from bot.corpus import Corpus

    monkeypatch.setenv("PAPERBOT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("PAPERBOT_SEEDS_DIR", str(REPO / "seeds"))
    corpus = Corpus.open(Settings(data_dir=tmp_path / "data", seeds_dir=REPO / "seeds"))
    corpus.ingest_seeds_if_empty()
    pariskv, other = corpus.resolve("ParisKV"), corpus.resolve("speculative decoding")
    tenancy.adopt(corpus.store, T1)  # the bot's own workspace
    library = Library(corpus.store)
    library.save("U_CLI_T", pariskv.id, team_id=T1)
    library.save("U_CLI_T", other.id, team_id=tenancy.LOCAL)  # the console's
    corpus.close()

    def exported(*team: str) -> list[str]:
        assert main(["export", "--format", "csl-json", "--user", "U_CLI_T", *team]) == 0
        return [item["title"] for item in json.loads(capsys.readouterr().out)]

    assert main(["export", "--format", "csl-json", "--user", "U_CLI_T", "--team", T2]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == [] and "U_CLI_T saved no papers yet" in err  # the same user id elsewhere: nothing
    assert exported() == [pariskv.title_en]  # by default the bot's own workspace
    assert exported("--team", T1) == [pariskv.title_en]
    assert exported("--team", "") == [other.title_en]


def test_the_rebuilt_tables_have_the_team_first_in_their_keys(tmp_path):
    """SQLite's own view of the tables an old store was rebuilt into."""
    make_old_store(tmp_path / "paperbot.sqlite3")
    Library(open_store(tmp_path / "paperbot.sqlite3")).store.close()
    db = sqlite3.connect(tmp_path / "paperbot.sqlite3")
    try:
        for table in OLD_TABLES:
            key = [name for _, name in sorted((row[5], row[1]) for row in db.execute(f"PRAGMA table_info({table})") if row[5])]
            assert key[0] == ("id" if table == "shares" else "team_id"), (table, key)
        for index, columns in {"saves_channel": ["team_id", "channel_id", "saved_at"],
                               "shares_channel": ["team_id", "channel_id", "shared_at"]}.items():  # fmt: skip
            assert [row[2] for row in db.execute(f"PRAGMA index_info({index})")] == columns
    finally:
        db.close()
