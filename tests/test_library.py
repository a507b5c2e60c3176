"""The reading list's domain: saves, votes, ranking for you, digest ordering.

Papers reach the store through the real listing parser and Corpus (SQLite + Whoosh in
tmp_path); the ranking corpus is built so the right order is known.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from digest_support import FakeClock, QuietDirectory, RecordingPoster, ingest, open_corpus

from bot.library.ranking import rank_by_profile, short_title
from bot.library.readinglist import Library
from bot.services import build_services
from bot.slack.render.digest import render_digest

# (key, English title, Chinese title, summary): three topics, told apart by their words.
TOPICS = [
    (
        "kv1",
        "ParisKV: Fast KV Cache Retrieval for Long Context Inference",
        "ParisKV：面向长上下文推理的快速KV缓存检索",
        "提出KV缓存检索方法，压缩长上下文推理的显存。",
    ),
    (
        "kv2",
        "KV Cache Eviction with Attention Sinks for Long Context Inference",
        "基于注意力汇聚的KV缓存淘汰",
        "通过注意力汇聚淘汰KV缓存，加速长上下文推理。",
    ),
    (
        "spec1",
        "Speculative Decoding with Draft Trees",
        "基于草稿树的推测解码",
        "用草稿模型构建候选树，推测解码加速大语言模型生成。",
    ),
    (
        "spec2",
        "Lossless Speculative Decoding via Draft Verification",
        "通过草稿验证实现无损推测解码",
        "草稿模型生成候选，目标模型验证，实现无损推测解码。",
    ),
    ("bio1", "Protein Folding with Equivariant Diffusion", "基于等变扩散的蛋白质折叠", "用等变扩散模型预测蛋白质结构与折叠。"),
    (
        "bio2",
        "Molecular Docking by Diffusion over Protein Pockets",
        "基于蛋白口袋扩散的分子对接",
        "在蛋白质口袋上做扩散生成，实现分子对接。",
    ),
]


def listing(records) -> str:
    lines = ["Test Feed（测试）", ""]
    for _, en, zh, summary in records:
        lines += [en, "", zh, "", "Zoë Müller, 张三, Bob Li", "", f"AI总结 {summary}", ""]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def topics(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("library")
    corpus = open_corpus(tmp / "data")
    ingest(corpus, tmp, "topics.txt", listing(TOPICS))
    by_key = {}
    for key, en, *_ in TOPICS:
        (hit,) = [p for p in corpus.store.newest(50) if p.title_en == en]
        by_key[key] = hit
    yield corpus, by_key
    corpus.close()


def test_ranking_puts_papers_like_the_saved_ones_first_with_the_reason(topics):
    _, papers = topics
    candidates = [papers[k] for k in ("bio1", "spec2", "kv2")]  # arrival order: unrelated first
    ranked = rank_by_profile(candidates, [papers["kv1"]])
    # The KV paper first; the two with nothing in common keep their arrival order.
    assert [r.paper.id for r in ranked] == [papers["kv2"].id, papers["bio1"].id, papers["spec2"].id]
    assert ranked[0].like == papers["kv1"] and ranked[0].score > 0
    assert [r.like for r in ranked[1:]] == [None, None]
    ranked = rank_by_profile(candidates, [papers["spec1"], papers["bio2"]])
    assert [r.paper.id for r in ranked][:2] in (
        [papers["spec2"].id, papers["bio1"].id],
        [papers["bio1"].id, papers["spec2"].id],
    )
    assert {r.paper.id: r.like.id for r in ranked if r.like} == {
        papers["spec2"].id: papers["spec1"].id,
        papers["bio1"].id: papers["bio2"].id,
    }
    assert ranked[-1].paper == papers["kv2"] and ranked[-1].like is None  # one shared word is no reason


def test_nothing_saved_keeps_the_order(topics):
    _, papers = topics
    candidates = [papers[k] for k in ("bio1", "spec2", "kv2")]
    assert [r.paper for r in rank_by_profile(candidates, [])] == candidates


def test_short_title_is_the_name_before_the_colon(topics):
    _, papers = topics
    assert short_title(papers["kv1"], "en") == "ParisKV"
    assert short_title(papers["kv1"], "zh") == "ParisKV"
    assert short_title(papers["spec1"], "en") == "Speculative Decoding with Draft Trees"


def test_saves_are_per_person_newest_first_and_searchable(topics):
    corpus, papers = topics
    clock = FakeClock(datetime(2026, 12, 1, 9, 0, tzinfo=UTC))
    library = Library(corpus.store, clock=clock)
    for key in ("kv1", "spec1", "bio1"):
        assert library.save("U_A", papers[key].id)
        clock.advance(minutes=1)
    assert not library.save("U_A", papers["kv1"].id)  # already saved
    assert [p.id for p in library.saved("U_A").papers] == [papers[k].id for k in ("bio1", "spec1", "kv1")]
    assert library.saved("U_B").total == 0
    assert [p.id for p in library.saved("U_A", "kv cache").papers] == [papers["kv1"].id]
    assert [p.id for p in library.saved("U_A", "推测解码").papers] == [papers["spec1"].id]
    assert [p.id for p in library.saved("U_A", "müller protein").papers] == [papers["bio1"].id]
    assert library.saved("U_A", "quantum").total == 0
    page = library.saved("U_A", per_page=2, page=2)
    assert (page.total, page.pages, [p.id for p in page.papers]) == (3, 2, [papers["kv1"].id])
    assert library.toggle("U_A", papers["kv1"].id) is False
    assert library.toggle("U_A", papers["kv1"].id) is True


def test_a_reaction_to_a_card_still_being_recorded_counts_once_it_is(topics):
    """The card check waits for a transaction recording the card (behind a day's file)
    instead of reading around it and losing the vote."""
    import threading

    corpus, papers = topics
    library = Library(corpus.store, clock=FakeClock(datetime(2026, 12, 1, 9, 0, tzinfo=UTC)))
    recording, done = threading.Event(), []

    def record() -> None:
        with corpus.store.transaction() as db:
            db.execute(
                "INSERT INTO cards (channel_id, message_ts, paper_id, kind, papers, posted_at) VALUES ('C_LATE', '300.1', ?, 'digest', 1, '')",
                (papers["kv2"].id,),
            )
            recording.set()
            threading.Event().wait(0.3)
        done.append(True)

    writer = threading.Thread(target=record)
    writer.start()
    assert recording.wait(5)
    assert library.react(channel_id="C_LATE", message_ts="300.1", user_id="U9", reaction="+1", added=True, event_ts="1.1")
    writer.join()
    assert done and not library.react(
        channel_id="C_LATE", message_ts="999.9", user_id="U9", reaction="+1", added=True, event_ts="1.2"
    )


def test_reactions_count_each_person_once_and_follow_the_latest_event(topics):
    corpus, papers = topics
    clock = FakeClock(datetime(2026, 12, 1, 9, 0, tzinfo=UTC))
    library = Library(corpus.store, clock=clock)
    kv, spec = papers["kv2"].id, papers["spec2"].id
    library.record_share("C_VOTE", kv, "U1", "100.1")
    library.record_card("C_VOTE", "200.1", [kv, spec], kind="digest")

    def react(user, added, event_ts, ts="100.1", reaction="+1"):
        return library.react(channel_id="C_VOTE", message_ts=ts, user_id=user, reaction=reaction, added=added, event_ts=event_ts)

    assert react("U2", True, "1.1")
    assert not react("U2", True, "1.1")  # Slack's retry of the same event
    assert react("U2", True, "1.2", reaction="tada")  # another emoji: still one person
    assert react("U3", True, "1.3")
    assert react("U3", True, "1.4", ts="200.1")  # the digest message too: still one person for kv
    assert not react("U4", True, "1.5", ts="999.9")  # not a paper card
    votes = library.votes("C_VOTE")
    assert votes[kv] == (2.0, 2) and votes[spec] == (0.5, 1)
    assert react("U3", False, "1.6")
    assert not react("U3", True, "1.4")  # a late retry of the add, older than the removal
    assert library.votes("C_VOTE")[kv] == (1.5, 2)  # U3 still reacts on the digest message
    top = library.top("C_VOTE", "week")
    assert [(t.paper.id, t.shares, t.voters) for t in top] == [(kv, 1, 2), (spec, 0, 1)]
    clock.advance(days=8)
    assert library.top("C_VOTE", "week") == [] and len(library.top("C_VOTE", "month")) == 2


def test_one_person_sharing_ten_times_is_one_vote_and_three_reactors_outrank_it(topics):
    """Issue 29, point 10: a share counted per share let one person outrank three people."""
    corpus, papers = topics
    library = Library(corpus.store, clock=FakeClock(datetime(2026, 12, 1, 9, 0, tzinfo=UTC)))
    spammed, liked = papers["bio1"].id, papers["bio2"].id
    for n in range(10):
        library.record_share("C_INFLATE", spammed, "U_SPAM", f"300.{n}")
    library.record_share("C_INFLATE", liked, "U_A", "400.1")
    for n, user in enumerate(("U_A", "U_B", "U_C")):
        library.react(channel_id="C_INFLATE", message_ts="400.1", user_id=user, reaction="+1", added=True, event_ts=f"9.{n}")
    top = library.top("C_INFLATE", "week")
    assert [(t.paper.id, t.shares, t.voters) for t in top] == [(liked, 1, 3), (spammed, 1, 0)]
    _, weights = library.channel_profile("C_INFLATE")
    assert weights[spammed] == 1.0 and weights[liked] == 4.0  # one share, three reactions
    library.record_share("C_INFLATE", spammed, "U_OTHER", "300.9")  # another person: another vote
    assert [t.shares for t in library.top("C_INFLATE", "week") if t.paper.id == spammed] == [2]


def test_personal_digest_is_ordered_by_saves_and_channel_digest_messages_are_cards(tmp_path):
    corpus = open_corpus(tmp_path / "data")
    ingest(corpus, tmp_path, "saved.txt", listing([TOPICS[0], TOPICS[2]]))
    saved = {p.title_en: p for p in corpus.store.newest(10)}
    clock = FakeClock(datetime(2026, 12, 1, 8, 0, tzinfo=UTC))
    poster = RecordingPoster()
    services = build_services(corpus.settings, corpus, poster=poster, directory=QuietDirectory(), clock=clock)
    service, library = services.digests, services.library
    mine, _ = service.subscriptions.save(
        team_id="", kind="user", place_id="U_DIGEST", user_id="U_DIGEST", lang="en", hour=9, minute=0, timezone="UTC"
    )
    channel, _ = service.subscriptions.save(
        team_id="", kind="channel", place_id="C_DIGEST", user_id="U_DIGEST", lang="en", hour=9, minute=0, timezone="UTC"
    )
    library.save("U_DIGEST", saved[TOPICS[0][1]].id)
    ingest(corpus, tmp_path, "new.txt", listing([TOPICS[4], TOPICS[3], TOPICS[1]]))  # arrival: bio, spec, kv
    new = {p.title_en: p.id for p in corpus.store.newest(3)}

    preview = service.preview(service.subscriptions.get(mine.id))
    assert [p.id for p in preview.papers][0] == new[TOPICS[1][1]]  # the KV paper, like the saved ParisKV
    reason = preview.reasons[new[TOPICS[1][1]]]
    assert reason.kind == "saved" and reason.paper is not None and reason.paper.title_en == TOPICS[0][1]
    text = str(render_digest(preview)[0].blocks)
    assert "like *ParisKV*, which you saved" in text
    assert service.preview(service.subscriptions.get(channel.id)).order == "new"  # a channel's default
    arrived = corpus.store.get_many([new[TOPICS[i][1]] for i in (4, 3, 1)])
    plain = library.order_papers(arrived, order="foryou", kind="user", place_id="U_NOSAVES")
    assert (plain.order, plain.papers) == ("new", arrived)  # nothing saved: exactly today's digest

    clock.set(datetime(2026, 12, 1, 9, 1, tzinfo=UTC))
    assert service.run(channel.id).status == "sent"
    (post,) = [p for p in poster.posts if p.sub_id == channel.id]
    assert sorted(library.papers_on("C1", post.ts)) == sorted(new.values())
    assert service.run(mine.id).status == "sent"
    assert not [p for p in poster.posts if p.sub_id == mine.id and library.papers_on("C1", p.ts)]  # a DM is no channel
    corpus.close()


def test_channel_popular_order_follows_its_votes(tmp_path):
    corpus = open_corpus(tmp_path / "data")
    ingest(corpus, tmp_path, "all.txt", listing(TOPICS))
    by_title = {p.title_en: p for p in corpus.store.newest(10)}
    library = Library(corpus.store)
    library.record_share("C_POP", by_title[TOPICS[4][1]].id, "U1", "1.1")  # the channel shares biology
    candidates = [by_title[TOPICS[i][1]] for i in (1, 3, 5)]  # kv2, spec2, bio2
    ordering = library.order_papers(candidates, order="foryou", kind="channel", place_id="C_POP")
    assert ordering.papers[0] == by_title[TOPICS[5][1]] and ordering.why == "channel"
    library.record_share("C_POP", by_title[TOPICS[3][1]].id, "U2", "2.1")  # spec2 itself is shared
    for user in ("U3", "U4"):
        library.react(channel_id="C_POP", message_ts="2.1", user_id=user, reaction="+1", added=True, event_ts="5.0")
    ordering = library.order_papers(candidates, order="popular", kind="channel", place_id="C_POP")
    assert ordering.papers[0] == by_title[TOPICS[3][1]]
    assert library.order_papers(candidates, order="new", kind="channel", place_id="C_POP").papers == candidates
    corpus.close()


def test_a_paper_can_be_unsaved_and_others_keep_theirs(topics):
    corpus, papers = topics
    library = Library(corpus.store, clock=lambda: datetime(2026, 12, 1, tzinfo=UTC) + timedelta(0))
    library.save("U_P1", papers["bio2"].id)
    library.save("U_P2", papers["bio2"].id)
    assert library.unsave("U_P1", papers["bio2"].id) and not library.unsave("U_P1", papers["bio2"].id)
    assert library.saved_ids("U_P1") == set() and library.saved_ids("U_P2") == {papers["bio2"].id}
