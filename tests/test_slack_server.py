"""Request verification, health, start-up checks, secret redaction and failing handlers."""

from __future__ import annotations

import io
import json
import logging
import time

import pytest
from slack_helpers import BOT_TOKEN, SIGNING_SECRET, SlackSender, sign

from bot.cli import serve
from bot.config import Settings
from bot.logs import RedactSecrets, install_secret_filter
from bot.slack.answers.home import build_home
from bot.slack.server import start_app_server

# -- Slack's request signing ---------------------------------------------------------------


@pytest.mark.parametrize(
    "forgery",
    ["bad-signature", "wrong-secret", "old-timestamp", "no-headers", "tampered-body"],
)
def test_unsigned_or_stale_requests_get_401_and_reach_no_handler(slack, fake_slack, seed_corpus, forgery):
    user_id = f"U_FORGED_{forgery}"
    body = slack.command_body("lang zh", user_id=user_id)
    content_type = "application/x-www-form-urlencoded"
    if forgery == "bad-signature":
        status, _ = slack.post(body, content_type, signature="v0=" + "0" * 64)
    elif forgery == "wrong-secret":
        now = int(time.time())
        status, _ = slack.post(body, content_type, timestamp=now, signature=sign(body, now, "not-the-secret"))
    elif forgery == "old-timestamp":
        status, _ = slack.post(body, content_type, timestamp=int(time.time()) - 6 * 60)
    elif forgery == "no-headers":
        status, _ = slack.request("POST", "/slack/events", body, {"Content-Type": content_type})
    else:
        now = int(time.time())
        signature = sign(body, now)
        status, _ = slack.post(body.replace("lang+zh", "lang+en"), content_type, timestamp=now, signature=signature)
    assert status == 401
    time.sleep(0.05)
    assert fake_slack.calls == []
    assert seed_corpus.get_user_lang(user_id) is None  # the lang handler never ran


def test_unknown_paths_are_404(slack):
    assert slack.request("GET", "/slack/events")[0] == 404
    assert slack.request("POST", "/other", "{}", {"Content-Type": "application/json"})[0] == 404


# -- health ------------------------------------------------------------------------------


class NotReadyCorpus:
    def is_ready(self):
        return False

    def rebuilding(self):
        return None  # loading, not rebuilding

    def get_user_lang(self, user_id):
        return None


def test_healthz_is_503_until_the_corpus_is_ready(slack_settings, fake_slack, tmp_path):
    from dataclasses import replace

    from bot.corpus import Corpus

    loading = Corpus.load(replace(slack_settings, data_dir=tmp_path / "data"))  # opened, not yet prepared
    running = start_app_server(slack_settings, loading)
    sender = SlackSender(running.url, fake_slack)
    try:
        status, body = sender.request("GET", "/healthz")
        assert status == 503 and body["ok"] is False
        _, answer = sender.command("speculative decoding", user_id="U_NOT_READY")
        assert "still loading" in answer["text"]
    finally:
        sender.close()
        running.shutdown()
        loading.close()


def test_while_the_index_is_rebuilt_a_search_is_told_how_far_it_has_got(slack_settings, fake_slack, tmp_path):
    # A store with papers and no index (an upgrade's new schema, or a damaged index): the
    # server comes up, and the rebuild in prepare() is held halfway.
    import threading
    from dataclasses import replace

    from conftest import REPO

    from bot.corpus import Corpus
    from bot.ingest.listing import parse_path

    settings = replace(slack_settings, data_dir=tmp_path / "data", seeds_dir=REPO / "seeds")
    corpus = Corpus.load(settings)
    for path in sorted((REPO / "seeds").iterdir()):
        corpus.store.ingest_listing(parse_path(path))
    halfway, go_on = threading.Event(), threading.Event()
    every_paper = corpus.store.iter_papers

    def held_halfway(*args, **kwargs):
        for n, paper in enumerate(every_paper(*args, **kwargs)):
            if n == 40:
                halfway.set()
                go_on.wait(30)
            yield paper

    corpus.store.iter_papers = held_halfway
    running = start_app_server(settings, corpus)
    sender = SlackSender(running.url, fake_slack)
    preparing = threading.Thread(target=corpus.prepare)
    preparing.start()
    try:
        assert halfway.wait(30)
        status, _ = sender.request("GET", "/healthz")
        assert status == 503
        _, answer = sender.command("speculative decoding", user_id="U_REBUILD")
        assert "rebuilding the search index: 40 of 97 papers done (41%)" in answer["text"]
        assert "No papers have been lost" in answer["text"]
        _, answer = sender.command("推测解码", user_id="U_REBUILD_ZH")
        assert "正在重建搜索索引：已处理 40 / 97 篇（41%）" in answer["text"]
        # App Home reads the store meanwhile: the count, the newest papers, and the notice.
        home = json.dumps(build_home(running.services, "U_REBUILD")["blocks"])
        assert "*97*" in home and "40 of 97 papers done" in home and "The library is empty" not in home
        # A listing that arrives meanwhile is stored at once (the rebuild holds the index).
        arrived = [False]
        upload = threading.Thread(
            target=lambda: arrived.__setitem__(0, corpus.ingest_bytes("late.txt", LATE_LISTING.encode()).new == 1)
        )
        upload.start()
        upload.join(10)
        assert arrived == [True]
    finally:
        go_on.set()
        preparing.join(30)
        sender.close()
        running.shutdown()
    assert corpus.is_ready() and corpus.rebuilding() is None
    assert corpus.search("speculative decoding").total > 0
    assert corpus.index.state() == corpus.store.state()  # the late paper is indexed too
    assert corpus.search("Late Arrival During Rebuild").total == 1
    corpus.close()


def test_a_paper_stored_after_the_rebuilds_last_read_is_indexed_when_it_ends(slack_settings, tmp_path):
    from dataclasses import replace

    from conftest import REPO

    from bot.corpus import Corpus
    from bot.ingest.listing import parse_path, parse_text

    corpus = Corpus.load(replace(slack_settings, data_dir=tmp_path / "data", seeds_dir=REPO / "seeds"))
    for path in sorted((REPO / "seeds").iterdir()):
        corpus.store.ingest_listing(parse_path(path))
    every_paper = corpus.store.iter_papers

    def then_an_upload(*args, **kwargs):
        yield from every_paper(*args, **kwargs)
        if not args and not kwargs:  # the rebuild's read is done; an upload lands now
            corpus.store.ingest_listing(parse_text(LATE_LISTING, "late.txt"))

    corpus.store.iter_papers = then_an_upload
    try:
        corpus.prepare()
        assert corpus.index.state() == corpus.store.state()
        assert corpus.search("Late Arrival During Rebuild").total == 1
    finally:
        corpus.close()


LATE_LISTING = """ICML 2026

Late Arrival During Rebuild of the Index

重建索引期间到达的论文

Alice Late

AI总结 一篇在重建期间上传的论文。
"""


def test_a_rebuild_long_under_way_says_about_how_long_it_has_left():
    from bot.corpus import RebuildProgress
    from bot.slack.reply import not_ready_notice

    class Rebuilding:
        def __init__(self, progress):
            self.progress = progress

        def rebuilding(self):
            return self.progress

    early = RebuildProgress(total=1_000_000, started=100.0, done=500)
    assert early.seconds_left(now=130.0) is None  # too few papers to go on
    progress = RebuildProgress(total=1_000_000, started=100.0, done=250_000)
    assert progress.seconds_left(now=400.0) == pytest.approx(900.0)  # 300 s for a quarter
    progress.started = time.monotonic() - 300
    en = not_ready_notice(Rebuilding(progress), "en")
    zh = not_ready_notice(Rebuilding(progress), "zh")
    assert "250,000 of 1,000,000 papers done (25%), about 15 minutes to go" in json.dumps(en.message.blocks)
    assert "已处理 250,000 / 1,000,000 篇（25%），预计还需约 15 分钟" in json.dumps(zh.message.blocks, ensure_ascii=False)
    progress.started = time.monotonic() - 60  # a quarter in a minute: 3 more
    assert "about 3 minutes to go" in not_ready_notice(Rebuilding(progress), "en").message.text
    progress.started = time.monotonic() - 3600  # a quarter in an hour: 3 more
    assert "预计还需约 3 小时" in not_ready_notice(Rebuilding(progress), "zh").message.text
    progress.done = 999_990  # the last commit and the swap: no count that reads like more to come
    assert (
        "almost done rebuilding the search index (1,000,000 papers)" in not_ready_notice(Rebuilding(progress), "en").message.text
    )
    progress.done = 1_000_480  # papers stored meanwhile are read too
    assert "1,000,480" not in not_ready_notice(Rebuilding(progress), "en").message.text


# -- a handler that fails -------------------------------------------------------------------


class BrokenCorpus:
    """Every domain call fails, as a corrupt index or a locked database would."""

    def is_ready(self):
        return True

    def get_user_lang(self, user_id):
        return None

    def __getattr__(self, name):
        def fail(*args, **kwargs):
            raise RuntimeError(f"boom in {name} with {BOT_TOKEN}")

        return fail


def test_a_failing_handler_logs_and_answers_without_a_traceback(slack_settings, seed_corpus, fake_slack, caplog):
    from dataclasses import replace

    from bot.slack.app import slack_services

    broken = BrokenCorpus()
    services = replace(slack_services(slack_settings, seed_corpus), corpus=broken)  # the services of a corpus that fails
    running = start_app_server(slack_settings, broken, services=services)
    sender = SlackSender(running.url, fake_slack)
    try:
        with caplog.at_level(logging.ERROR):
            status, body = sender.command("推测解码", user_id="U_BROKEN")
            assert status == 200 and body["response_type"] == "ephemeral"
            assert "抱歉" in body["text"] and "boom" not in json.dumps(body)
            sender.click("paper_details", '{"id":"abc"}', user_id="U_BROKEN")
            (answer,) = fake_slack.wait_for("response")
            assert "something went wrong" in answer.args["text"]
        assert any("boom" in (r.exc_text or "") or r.exc_info for r in caplog.records)
    finally:
        sender.close()
        running.shutdown()


# -- secrets in logs ---------------------------------------------------------------------------


def test_secrets_are_redacted_from_log_messages_args_and_tracebacks():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(name)s %(message)s"))
    handler.addFilter(RedactSecrets((BOT_TOKEN, SIGNING_SECRET, "xapp-1-secret")))
    log = logging.getLogger("test.redaction")
    log.addHandler(handler)
    log.propagate = False
    try:
        log.warning("token %s secret %s", BOT_TOKEN, SIGNING_SECRET)
        log.warning("Authorization: Bearer " + BOT_TOKEN)
        try:
            raise ValueError(f"bad app token xapp-1-secret near {BOT_TOKEN}")
        except ValueError:
            log.exception("failed")
    finally:
        log.removeHandler(handler)
    output = stream.getvalue()
    assert BOT_TOKEN not in output and SIGNING_SECRET not in output and "xapp-1-secret" not in output
    assert output.count("[redacted]") >= 5
    assert "ValueError" in output  # the traceback itself survives


def test_slack_sdk_debug_logs_of_the_authorization_header_are_redacted(slack_settings, fake_slack):
    from bot.slack.client import build_client

    stream = io.StringIO()
    root = logging.getLogger()
    handler = logging.StreamHandler(stream)
    root.addHandler(handler)
    old_level = root.level
    root.setLevel(logging.DEBUG)
    try:
        install_secret_filter(slack_settings.secrets, root)
        build_client(slack_settings).chat_postMessage(channel="C1", text="hi")
    finally:
        root.setLevel(old_level)
        root.removeHandler(handler)
    output = stream.getvalue()
    assert "chat.postMessage" in output
    assert BOT_TOKEN not in output


# -- start-up --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "missing"),
    [
        (Settings(slack_bot_token="xoxb-1"), "SLACK_SIGNING_SECRET"),
        (Settings(slack_signing_secret="s"), "SLACK_BOT_TOKEN"),
        (Settings(slack_app_token="xapp-1"), "SLACK_BOT_TOKEN"),
    ],
)
def test_a_missing_setting_stops_start_up_naming_it(settings, missing, capsys):
    assert serve(settings, NotReadyCorpus(), stdout=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert missing in err and ".env" in err
    assert "xoxb-1" not in err and "xapp-1" not in err


def test_no_tokens_at_all_opens_the_console(seed_corpus):
    out = io.StringIO()
    code = serve(Settings(), seed_corpus, stdin=io.StringIO("/papers help\nquit\n/papers never\n"), stdout=out)
    text = out.getvalue()
    assert code == 0
    assert "From an app manifest" in text and "SLACK_BOT_TOKEN" in text
    assert "/papers speculative decoding" in text
    assert "never" not in text.split("quit")[-1]


def test_build_client_points_every_call_at_the_base_url(slack_settings, fake_slack):
    from bot.slack.client import build_client

    client = build_client(slack_settings)
    assert client.base_url == slack_settings.slack_api_base_url + "/"
    client.auth_test()
    assert fake_slack.calls_to("auth.test")


def test_a_users_info_answer_without_a_user_object_is_an_unknown_profile(slack_settings):
    """A Web API that answers users.info with `"user": "paperbot"` (an auth.test-shaped stub,
    a proxy) must not fail every command of a person who set no language."""
    import http.server
    import threading
    from dataclasses import replace

    from bot.digests.places import Profile
    from bot.slack.client import Patience, build_client
    from bot.slack.posting import SlackDirectory

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.dumps({"ok": True, "user": "paperbot"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        settings = replace(slack_settings, slack_api_base_url=f"http://127.0.0.1:{server.server_address[1]}/api")
        directory = SlackDirectory(build_client(settings, Patience.LOOKUP))
        assert directory.profile("U_ODD_ANSWER") == Profile()
    finally:
        server.shutdown()
