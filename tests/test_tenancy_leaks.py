"""The last tenancy leaks (issue 25 point 2), each read as a foreign workspace.

- A save, share or vote of a paper the workspace can no longer see (another workspace's
  upload, saved while it shared its uploads) is kept but shown nowhere: `/papers saved`,
  App Home's Saved section, export, `/papers top` and a channel digest's popular line all
  read through the one rule in Library; shared again, it is back.
- The pinyin typo vocabulary learns only from shared papers: a Chinese slip in one
  workspace is never corrected into a word only another's private upload has.
- People are looked up with their own workspace's token and cached per (team, user): one
  user id in two installed workspaces is two people, each with their own locale.
- Language settings read for a workspace's admins and uploaders are that workspace's.
"""

from __future__ import annotations

import pytest
from digest_support import ingest, listing_text, open_corpus
from slack_helpers import SlackSender, all_text
from test_digest_slack import ack_text, file_share_event
from test_oauth import authorizations, command_from, install, oauth_server  # noqa: F401 (a fixture)
from test_tenancy_papers import ADMIN, T1, T2, TITLE, home_text, search_text, share, w  # noqa: F401 (a fixture)

from bot.i18n import t
from bot.library.readinglist import Library
from bot.search import writers

# -- the reading list ------------------------------------------------------------------------------


def test_a_paper_saved_while_shared_leaves_every_list_when_sharing_stops(w):  # noqa: F811
    private = w.ids[0]
    library: Library = w.services.library
    w.services.workspaces.update(T1, by=ADMIN, share_uploads=True)
    assert "Saved" in search_text(w, f"save {private}", T2, user="U_T2")
    share(w, private, user="U_T2", channel="C_T2", team=T2)
    assert TITLE in search_text(w, "saved", T2, user="U_T2")
    assert TITLE in home_text(w, "U_T2", T2)
    assert TITLE in search_text(w, "top", T2, user="U_T2", channel="C_T2")
    assert [p.paper.id for p in library.top("C_T2", team_id=T2)] == [private]

    w.services.workspaces.update(T1, by=ADMIN, share_uploads=False)
    saved = search_text(w, "saved", T2, user="U_T2")
    assert TITLE not in saved and "haven't saved" in saved
    assert TITLE not in search_text(w, "saved Quorvex", T2, user="U_T2")
    assert TITLE not in home_text(w, "U_T2", T2)
    assert TITLE not in search_text(w, "top", T2, user="U_T2", channel="C_T2")
    assert library.saved_count("U_T2", team_id=T2) == 0 and library.saved_papers("U_T2", 1, team_id=T2) == []
    # A channel digest's popular line and its channel profile come from the same rule.
    assert library.top("C_T2", team_id=T2) == []
    profile, weights = library.channel_profile("C_T2", team_id=T2)
    assert profile == [] and private not in weights
    # The save itself is kept: shared again, the paper is back where it was.
    assert library.is_saved("U_T2", private, team_id=T2)
    w.services.workspaces.update(T1, by=ADMIN, share_uploads=True)
    assert TITLE in search_text(w, "saved", T2, user="U_T2")
    assert [p.id for p in library.saved_papers("U_T2", team_id=T2)] == [private]


def test_the_uploading_workspace_keeps_seeing_its_own_saves_and_shares(w):  # noqa: F811
    private = w.ids[0]
    assert "Saved" in search_text(w, f"save {private}", T1, user="U_T1")
    assert TITLE in search_text(w, "saved", T1, user="U_T1")
    assert TITLE in home_text(w, "U_T1", T1)
    assert w.services.library.saved_count("U_T1", team_id=T1) == 1


def test_a_shared_copy_of_another_workspaces_private_paper_stays_itself_there(w, tmp_path):  # noqa: F811
    """A duplicate shows as its canonical paper, but never as one the workspace may not see:
    a shared copy of T1's private upload stays the copy in T2, its saves and shares its own."""
    private = w.ids[0]
    part = w.corpus.get(private).title_en.rsplit(" ", 1)[1]  # a duplicate's title names the same numbers
    copy_listing = f"Shared Feed\n\nWombat Copy of the Networks, Part {part}\n\n袋熊副本（第{part}部分）\n\nAda Quill1, Ben Rook\n\nAI总结 副本。\n\n"
    ingest(w.corpus, tmp_path, "copy.txt", copy_listing)
    (copy,) = [p.id for p in w.corpus.newest(1)]
    with w.corpus.store.transaction() as db:  # what the builder records once vectors and authors agree
        db.execute(
            "INSERT INTO duplicates (id, canonical, cosine, found_at) VALUES (?, ?, 0.99, '2026-12-01T08:00:00Z')",
            (copy, private),
        )
    w.corpus.meaning.duplicates._canonical = None  # read the table again now, as find() leaves it
    library: Library = w.services.library
    assert "Saved" in search_text(w, f"save {copy}", T2, user="U_T2")
    share(w, copy, user="U_T2", channel="C_T2", team=T2)
    saved = search_text(w, "saved", T2, user="U_T2")
    assert "Wombat Copy" in saved and TITLE not in saved
    assert [p.id for p in library.saved_papers("U_T2", team_id=T2)] == [copy]
    assert library.saved_count("U_T2", team_id=T2) == 1
    assert [p.paper.id for p in library.top("C_T2", team_id=T2)] == [copy]
    profile, weights = library.channel_profile("C_T2", team_id=T2)
    assert [p.id for p in profile] == [copy] and private not in weights
    assert TITLE not in home_text(w, "U_T2", T2) and "Wombat Copy" in home_text(w, "U_T2", T2)
    # A save of the hidden paper itself is T2's to keep, but no Saved state on the copy's card.
    library.save("U_T2_OTHER", private, team_id=T2)
    assert not library.is_saved("U_T2_OTHER", copy, team_id=T2)
    assert not library.unsave("U_T2_OTHER", copy, team_id=T2) and library.is_saved("U_T2_OTHER", private, team_id=T2)
    # In T1, which may see both, the copy is its paper: one paper, the canonical.
    assert "Saved" in search_text(w, f"save {copy}", T1, user="U_T1")
    assert [p.id for p in library.saved_papers("U_T1", team_id=T1)] == [private]


# -- the pinyin typo vocabulary --------------------------------------------------------------------

SHARED_ZH = "Shared Feed\n\nNotice Rules for Grants\n\n科研经费的公示规则\n\nAda One\n\nAI总结 本文研究科研经费的公示规则。\n\n"


def private_zh() -> bytes:
    """Three private papers with 公式 (gong shi), a more common homophone of the shared 公示."""
    lines = ["Formula Lab", ""]
    for n in range(1, 4):
        lines += [
            f"Formula Study {n}",
            "",
            f"科研经费的公式推导第{n}部分",
            "",
            "Ben Two",
            "",
            f"AI总结 本文研究科研经费的公式推导，第{n}部分。",
            "",
        ]
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture(scope="module")
def zh_corpus(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pinyin")
    corpus = open_corpus(tmp / "data")
    ingest(corpus, tmp, "seed.txt", listing_text("Seed Feed（种子）", 1000, 5, topic="Speculative Decoding"))
    ingest(corpus, tmp, "shared.txt", SHARED_ZH)
    corpus.ingest_bytes("formula.txt", private_zh(), team=T1)
    yield corpus
    corpus.close()


@pytest.mark.parametrize("team", [T2, T1, None])
def test_a_chinese_slip_is_never_corrected_into_a_word_only_a_private_upload_has(zh_corpus, team):
    # 公事 is no word of the index; it sounds like 公式 (three private papers) and 公示 (one
    # shared). Corrected through the private word, workspace T2 found nothing and lost the
    # correction; now every workspace gets the shared one, as if the upload were not there.
    found = zh_corpus.search("经费公事", team=team)
    assert found.suggestion == "经费公示"
    assert [h.paper.title_en for h in found.hits] == ["Notice Rules for Grants"]


def test_a_word_only_another_workspaces_upload_has_is_no_known_word_here(zh_corpus):
    # Typed exactly, 公式 is corrected as a word the index does not have would be (T2 finds
    # nothing by it), never taken for known.
    assert zh_corpus.search("经费公式", team=T2).suggestion == "经费公示"
    assert zh_corpus.search("经费公式", team=T1).total == 3  # its own workspace finds it as typed


def test_a_shared_listing_of_the_same_papers_teaches_the_vocabulary(tmp_path):
    corpus = open_corpus(tmp_path / "data")
    try:
        ingest(corpus, tmp_path, "shared.txt", SHARED_ZH)
        corpus.ingest_bytes("formula.txt", private_zh(), team=T1)
        assert corpus.search("经费公事", team=T2).suggestion == "经费公示"
        ingest(corpus, tmp_path, "formula-feed.txt", private_zh().decode())  # a shared source: shared for good
        found = corpus.search("经费公事", team=T2)
        assert found.suggestion == "经费公式" and found.total == 3
    finally:
        corpus.close()


def test_a_private_paper_indexed_again_leaves_no_word_behind_in_its_old_segment(tmp_path, monkeypatch):
    # Updating a paper deletes its old document, which its segment's doc_frequency still
    # counts: 公式 would then pass for a shared word, a correction in every workspace. Small
    # segments are folded into the next (deletions and all); a large one keeps its deleted
    # documents, as every segment here does with the fold turned off.
    monkeypatch.setattr(writers, "TINY_SEGMENT_DOCS", 0)
    corpus = open_corpus(tmp_path / "data")
    try:
        ingest(corpus, tmp_path, "shared.txt", SHARED_ZH)
        corpus.ingest_bytes("formula.txt", private_zh(), team=T1)
        revised = private_zh().decode().replace("部分。", "部分，并给出修订。").encode()
        corpus.ingest_bytes("formula-v2.txt", revised, team=T1)  # the same papers, a new summary each
        assert corpus.search("修订", team=T1).total == 3  # indexed again
        assert corpus.search("经费公事", team=T2).suggestion == "经费公示"
        assert corpus.search("经费公式", team=T2).suggestion == "经费公示"
    finally:
        corpus.close()


# -- people, per workspace -------------------------------------------------------------------------

TOKEN_A, TOKEN_B = "xoxb-lab-a", "xoxb-lab-b"
TEAM_A, TEAM_B = "T0A01", "T0B02"
EN_HELP, ZH_HELP = t("help.title", "en"), t("help.title", "zh")


def test_a_person_is_looked_up_with_their_workspaces_token_and_cached_per_workspace(oauth_server, fake_slack):  # noqa: F811
    install(oauth_server.url, fake_slack, "code-a", TEAM_A, "Lab A", TOKEN_A)
    install(oauth_server.url, fake_slack, "code-b", TEAM_B, "Lab B", TOKEN_B)
    # One user id, two people: Chinese in workspace A, English in B (Enterprise Grid, or chance).
    fake_slack.users_by_token = {TOKEN_A: {"U_SAME": {"locale": "zh-CN"}}, TOKEN_B: {"U_SAME": {"locale": "en-US"}}}
    sender = SlackSender(oauth_server.url, fake_slack)
    try:
        status, body = command_from(sender, TEAM_A, "help", "U_SAME")
        assert status == 200
        in_a = ack_text(body)
        status, body = command_from(sender, TEAM_B, "help", "U_SAME")
        assert status == 200
        in_b = ack_text(body)
        assert ZH_HELP in in_a and EN_HELP not in in_a
        assert EN_HELP in in_b and ZH_HELP not in in_b
        asked = [(c.args.get("user"), c.headers.get("Authorization", "")) for c in fake_slack.calls_to("users.info")]
        assert ("U_SAME", f"Bearer {TOKEN_A}") in asked and ("U_SAME", f"Bearer {TOKEN_B}") in asked
        # Cached per (team, user): asked again, neither workspace calls Slack or takes the other's.
        before = len(fake_slack.calls_to("users.info"))
        assert ZH_HELP in ack_text(command_from(sender, TEAM_A, "help", "U_SAME")[1])
        assert EN_HELP in ack_text(command_from(sender, TEAM_B, "help", "U_SAME")[1])
        assert len(fake_slack.calls_to("users.info")) == before
        # A reaction in B asks whether its reactor is a bot with B's token.
        fake_slack.users_by_token[TOKEN_B]["U_REACTOR"] = {"is_bot": False}
        sender.event(
            {"type": "reaction_added", "user": "U_REACTOR", "reaction": "+1", "item": {"type": "message", "channel": "C1", "ts": "1.2"},
             "event_ts": "1.3"},
            team_id=TEAM_B,
        )  # fmt: skip
        (looked_up,) = [c for c in fake_slack.wait_for("users.info", before + 1) if c.args.get("user") == "U_REACTOR"]
        assert looked_up.headers["Authorization"] == f"Bearer {TOKEN_B}"
    finally:
        sender.close()


def test_an_uploaders_language_is_read_in_their_workspace(w):  # noqa: F811
    # The admin set Chinese in T2 only; uploading there, the reply is Chinese, and T1's is not.
    w.corpus.set_user_lang(ADMIN, "zh", T2)
    w.services.workspaces.update(T2, by="UADMIN2", admins=("UADMIN2", ADMIN))
    w.fake.reset()
    url = w.fake.file_url("again.txt", listing_text("Upload Feed", 5000, 1).encode())
    w.slack.event(file_share_event(ADMIN, "again.txt", url), team_id=T2)
    (reply,) = w.fake.wait_for("chat.postMessage")
    assert any("\u4e00" <= c <= "\u9fff" for c in all_text(reply.args.get("blocks") or []) + reply.args["text"])
