"""The offline console: `/papers ...` lines run through the same answers Slack gets.

Each reply is printed as the plain text Slack would show (blocks_to_text). No Slack
library is imported: the answers (bot.slack.commands) and renderers (bot.slack.blocks)
are pure. Reads stdin line by line; prompts only when stdin is a terminal.
"""

from __future__ import annotations

import logging
from typing import TextIO

from bot.i18n import detect_lang, t
from bot.slack.blocks import blocks_to_text
from bot.slack.commands import Reply, answer_command, error_reply

logger = logging.getLogger(__name__)

PROMPT = "papers> "
QUIT_WORDS = {"quit", "exit", "q", ":q", "/quit", "退出"}
CONSOLE_USER_ID = "UCONSOLE"
CONSOLE_CHANNEL_ID = "CCONSOLE"


def reply_to_text(reply: Reply) -> str:
    """What Slack would show for `reply`, with a note saying who can see it."""
    tag = "console.posted" if reply.visibility == "in_channel" else "console.ephemeral"
    body = blocks_to_text(reply.blocks) if reply.blocks else reply.text
    return f"{t(tag, reply.lang)}\n{body}"


def answer_line(corpus, line: str, *, user_id: str = CONSOLE_USER_ID, channel_id: str = CONSOLE_CHANNEL_ID) -> str | None:
    """Answer one console line; None means the user asked to quit."""
    line = line.strip()
    if line.lower() in QUIT_WORDS:
        return None
    if not line:
        return ""
    if not line.lower().startswith("/papers"):
        return t("console.hint", detect_lang(line))
    text = line[len("/papers") :]
    if text and not text[0].isspace():
        return t("console.hint", detect_lang(line))
    try:
        reply = answer_command(corpus, user_id, channel_id, text)
    except Exception:
        logger.exception("console command failed: %r", line)
        reply = error_reply(detect_lang(text))
    if reply.upload is not None:  # an export: no Slack to DM it, so it goes to a file
        return reply_to_text(reply) + "\n" + write_upload(corpus, reply)
    return reply_to_text(reply)


def write_upload(corpus, reply: Reply) -> str:
    """Write an export under the data folder (`exports/`); say where, or why not."""
    folder = corpus.settings.data_dir / "exports"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / reply.upload["filename"]
        path.write_text(reply.upload["content"], encoding="utf-8")
    except OSError as exc:
        return t("library.export_write_failed", reply.lang, error=str(exc))
    return t("library.export_written", reply.lang, path=str(path))


def run_console(corpus, *, stdin: TextIO, stdout: TextIO, user_id: str = CONSOLE_USER_ID) -> int:
    """Read `/papers` lines until `quit` or end of input; return 0."""
    interactive = hasattr(stdin, "isatty") and stdin.isatty()
    print(t("console.intro", "en"), file=stdout, flush=True)
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
        answer = answer_line(corpus, line, user_id=user_id)
        if answer is None:
            return 0
        if answer:
            print(answer, file=stdout, end="\n\n", flush=True)
