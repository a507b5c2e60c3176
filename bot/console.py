"""The offline console: `/papers ...` lines run through the same answers Slack gets.

Each reply is printed as the plain text Slack would show (bot/slack/render/plain.py).
The services are built as `serve` builds them (bot/services.py), with a poster and a
directory of the console's own; the answers (bot/slack/answers/) and renderers
(bot/slack/render/) are the ones Slack gets. Reads stdin line by line; prompts only when
stdin is a terminal.

Digests work against a simulated channel, #papers: `/papers subscribe ...` subscribes
it (its announcement is "posted" there), `/papers digest` previews the next digest,
and `post digest` shows the messages the digest would post now, thread included,
without using up its papers.

The console is no Slack workspace: what its person saves, votes and sets is kept under
`tenancy.LOCAL` (''), apart from every workspace's (bot/store/tenancy.py).
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import TextIO

from bot.corpus import Corpus
from bot.digests.compose import Digest
from bot.digests.places import PostedCallback, Profile
from bot.digests.subscriptions import Subscription
from bot.i18n import detect_lang, t
from bot.services import Services, build_services
from bot.slack.answers.commands import answer_command
from bot.slack.render.blocks import section
from bot.slack.render.digest import render_digest, render_empty
from bot.slack.render.plain import blocks_to_text
from bot.slack.reply import Reply, error_reply
from bot.store import tenancy

logger = logging.getLogger(__name__)

PROMPT = "papers> "
QUIT_WORDS = {"quit", "exit", "q", ":q", "/quit", "退出"}
CONSOLE_USER_ID = "UCONSOLE"
CONSOLE_CHANNEL_ID = "CCONSOLE"
CONSOLE_CHANNEL_NAME = "papers"
POST_WORDS = {"post digest", "发送日报"}
SAMPLE_PAPERS = 30


class SimulatedChannel:
    """#papers for the console: what the bot would post there is printed, tagged."""

    def __init__(self, stdout: TextIO):
        self.stdout = stdout
        self.posts: list[str] = []

    def post(self, blocks: list[dict], lang: str, *, in_thread: bool = False) -> None:
        tag = t("console.channel_post", lang, channel=CONSOLE_CHANNEL_NAME)
        if in_thread:
            tag += " " + t("console.thread_post", lang)
        text = f"{tag}\n{plain(blocks_to_text(blocks))}"
        self.posts.append(text)
        print(text, file=self.stdout, end="\n\n", flush=True)


class ConsoleDirectory:
    """What the console knows of people and places: no Slack profile; the bot is in #papers."""

    def __init__(self, channel: SimulatedChannel):
        self.channel = channel

    def profile(self, user_id: str, *, team_id: str = "") -> Profile:
        return Profile()

    def cannot_post(self, channel_id: str, *, team_id: str = "") -> str:
        return ""

    def announce(self, channel_id: str, text: str, *, team_id: str = "") -> bool:
        self.channel.post([section(text)], detect_lang(text))
        return True


class ConsolePoster:
    """Posts a digest into the simulated channel: the first message, then its thread."""

    def __init__(self, channel: SimulatedChannel):
        self.channel = channel

    def post_digest(self, sub: Subscription, digest: Digest, *, thread_ts: str, on_posted: PostedCallback) -> None:
        if not digest.papers:
            self.channel.post(render_empty(digest).blocks, digest.lang)
            on_posted([], CONSOLE_CHANNEL_ID, "console")
            return
        for number, message in enumerate(render_digest(digest)):
            self.channel.post(message.blocks, digest.lang, in_thread=bool(thread_ts) or number > 0)
            on_posted(message.paper_ids, CONSOLE_CHANNEL_ID, f"console.{number}")

    def notify_paused(self, sub: Subscription, code: str) -> None:
        pass  # the simulated channel never refuses posts


def console_services(corpus: Corpus, stdout: TextIO) -> Services:
    """The services for the console: the store's subscriptions, posting into the simulated channel."""
    channel = SimulatedChannel(stdout)
    return build_services(corpus.settings, corpus, poster=ConsolePoster(channel), directory=ConsoleDirectory(channel))


def plain(text: str) -> str:
    """The simulated channel by name: `#CCONSOLE` reads as `#papers`."""
    return text.replace(f"#{CONSOLE_CHANNEL_ID}", f"#{CONSOLE_CHANNEL_NAME}")


def post_digest_now(services: Services, lang: str) -> str:
    """Show what the simulated channel's digest would post now (nothing is used up)."""
    sub = services.subscriptions.for_place(tenancy.LOCAL, "channel", CONSOLE_CHANNEL_ID)
    if sub is None:
        return t("console.no_digest_due", lang)
    digest = services.digests.preview(sub)
    note = ""
    if not digest.papers:  # a new subscription waits for new papers: show the newest instead
        newest = sorted(services.corpus.newest(SAMPLE_PAPERS), key=lambda p: p.seq)
        digest = dataclasses.replace(digest, papers=newest)
        note = t("console.sample_note", digest.lang, count=len(newest))
    services.digests.poster.post_digest(sub, digest, thread_ts="", on_posted=lambda *_: None)
    return note


def reply_to_text(reply: Reply) -> str:
    """What Slack would show for `reply`, with a note saying who can see it."""
    tag = "console.posted" if reply.visibility == "in_channel" else "console.ephemeral"
    body = blocks_to_text(reply.blocks) if reply.blocks else reply.text
    return plain(f"{t(tag, reply.lang)}\n{body}")


def answer_line(
    services: Services, line: str, *, user_id: str = CONSOLE_USER_ID, channel_id: str = CONSOLE_CHANNEL_ID
) -> str | None:
    """Answer one console line; None means the user asked to quit."""
    line = line.strip()
    if line.lower() in QUIT_WORDS:
        return None
    if not line:
        return ""
    if " ".join(line.lower().split()) in POST_WORDS:
        return post_digest_now(services, services.corpus.get_user_lang(user_id, tenancy.LOCAL) or detect_lang(line))
    if not line.lower().startswith("/papers"):
        return t("console.hint", detect_lang(line))
    text = line[len("/papers") :]
    if text and not text[0].isspace():
        return t("console.hint", detect_lang(line))
    try:
        reply = answer_command(services, user_id, channel_id, text, channel_name=CONSOLE_CHANNEL_NAME, team_id=tenancy.LOCAL)
    except Exception:
        logger.exception("console command failed: %r", line)
        reply = error_reply(detect_lang(text))
    if reply.upload is not None:  # an export: no Slack to DM it, so it goes to a file
        return reply_to_text(reply) + "\n" + write_upload(services.settings.data_dir, reply)
    return reply_to_text(reply)


def write_upload(data_dir: Path, reply: Reply) -> str:
    """Write an export under the data folder (`exports/`); say where, or why not."""
    folder = data_dir / "exports"
    upload = reply.upload
    if upload is None:
        return ""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / upload.filename
        path.write_text(upload.content, encoding="utf-8")
    except OSError as exc:
        return t("library.export_write_failed", reply.lang, error=str(exc))
    return t("library.export_written", reply.lang, path=str(path))


def run_console(corpus: Corpus, *, stdin: TextIO, stdout: TextIO, user_id: str = CONSOLE_USER_ID) -> int:
    """Read `/papers` lines until `quit` or end of input; return 0."""
    interactive = hasattr(stdin, "isatty") and stdin.isatty()
    print(t("console.intro", "en"), file=stdout, flush=True)
    services = console_services(corpus, stdout)
    while True:
        if interactive:
            stdout.write(PROMPT)
            stdout.flush()
        try:
            line = stdin.readline()
        except KeyboardInterrupt:
            print(file=stdout)
            return 0
        if not line:  # end of input
            return 0
        answer = answer_line(services, line, user_id=user_id)
        if answer is None:
            return 0
        if answer:
            print(answer, file=stdout, end="\n\n", flush=True)
