"""`/papers TEXT`: read the line, pick the subcommand, answer it.

Answers take the services and what the user typed and return a `Reply`; they never touch
Slack, so the Bolt listener (bot/slack/listeners/commands.py) and the offline console
(bot/console.py) share them. Which first words are commands is bot/slack/words.py;
every other line is a search.

Slack escapes what people type (`&amp;`, `&lt;`, `<https://…|label>`, `<@U123>`);
`answer_command` reads it back as plain text first (`unescape_slack_text`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from bot.i18n import is_lang, lang_name, normalize_lang, t
from bot.search.spelling import edit_distance
from bot.services import Services
from bot.slack.answers.interests import answer_interests
from bot.slack.answers.library import answer_library_command
from bot.slack.answers.search import answer_search
from bot.slack.answers.settings import answer_settings_command
from bot.slack.answers.share import answer_share, channel_lang
from bot.slack.answers.sources import answer_sources_command
from bot.slack.answers.subscribe import answer_digest_command
from bot.slack.render.blocks import context
from bot.slack.render.help import HELP_TOPICS, render_help
from bot.slack.render.mrkdwn import escape_code, mentioned_users, unescape_slack_text
from bot.slack.reply import Reply, is_dm, not_ready_notice, notice, person_lang, stored_lang
from bot.slack.words import DID_YOU_MEAN, DIGEST_COMMANDS, LIBRARY_COMMANDS, Command, read_command
from bot.store.database import is_store_unavailable


@dataclass
class Asked:
    """One `/papers` line, read: who, where, which command, and in which language to answer."""

    user_id: str
    channel_id: str
    channel_name: str
    text: str  # the whole line, as plain text
    command: Command
    word: str  # its first word, as typed (lower case)
    rest: str  # what follows the first word
    lang: str  # the language of the answer
    stored_lang: str | None  # the person's `/papers lang`, if they set one
    confirmed: bool = False  # a button's answer to a question: take the filter as typed
    team_id: str = ""  # the person's workspace (Slack's signed `team_id`): it keys everything of theirs
    people: tuple[str, ...] = ()  # the users the line mentions (`<@U…>`), gone from `text`

    @property
    def in_dm(self) -> bool:
        return is_dm(self.channel_id, self.channel_name)

    @property
    def share_channel_id(self) -> str:
        """The channel a share would go to: none in a DM with the bot."""
        return "" if self.in_dm else self.channel_id


def answer_command(
    services: Services,
    user_id: str,
    channel_id: str,
    text: str,
    *,
    channel_name: str = "",
    confirmed: bool = False,
    team_id: str = "",
) -> Reply:
    """Answer `/papers TEXT` from `user_id` of workspace `team_id` in `channel_id`.

    `team_id` comes from Slack's signed payload (the console's is tenancy.LOCAL, ''): the
    person's language, saves, votes and interests are read and written under it only.

    The reply is in the user's saved language, else their Slack locale (zh-* is Chinese),
    else the language of the whole line, command word included (`/papers 分享 ParisKV`
    answers in Chinese). `confirmed`: the line comes from a button that answered a
    question about it (a filter that matches nothing, subscribed as typed).
    """
    corpus = services.corpus
    people = tuple(mentioned_users(text or ""))
    text = " ".join(unescape_slack_text(text or "").split())
    stored = stored_lang(corpus, user_id, team_id)
    command, word, rest = read_command(text)
    asked = Asked(
        user_id=user_id, channel_id=channel_id, channel_name=channel_name, text=text, command=command, word=word, rest=rest,
        lang=person_lang(services, user_id, stored, text, team_id=team_id), stored_lang=stored, confirmed=confirmed,
        team_id=team_id, people=people,
    )  # fmt: skip
    if command in NEEDS_NO_INDEX:
        return NEEDS_NO_INDEX[command](services, asked)
    if not corpus.is_ready():
        return not_ready_notice(corpus, asked.lang)
    return NEEDS_THE_INDEX.get(command, answer_search_line)(services, asked)


def answer_help(services: Services, asked: Asked) -> Reply:
    """`/papers help [search|digests|library]`: the short help, or one topic."""
    if HELP_TOPICS.get(asked.rest.strip().lower()) == "digests":
        return answer_digest_command(
            services, command=Command.SUBSCRIBE, user_id=asked.user_id, channel_id=asked.channel_id,
            channel_name=asked.channel_name, rest="help", lang=asked.lang, team_id=asked.team_id,
        )  # fmt: skip
    return Reply(render_help(asked.lang, in_dm=asked.in_dm, topic=asked.rest), lang=asked.lang)


def answer_lang(services: Services, asked: Asked) -> Reply:
    """`/papers lang` shows the setting; `/papers lang en|zh` changes and remembers it.

    The usage and "not set" answers are in the setting's language, else the language the
    command was typed in (`/papers 语言` answers in Chinese).
    """
    arg, lang = asked.rest.strip(), asked.lang
    if not arg:
        if asked.stored_lang:
            lang = normalize_lang(asked.stored_lang)
            return notice("lang.current", lang, name=lang_name(lang, lang))
        return notice("lang.unset", lang)
    if not is_lang(arg):
        return notice("lang.bad_value", lang, value=arg)
    lang = normalize_lang(arg)
    services.corpus.set_user_lang(asked.user_id, lang, asked.team_id)
    return notice("lang.set", lang)


def answer_digests(services: Services, asked: Asked) -> Reply:
    return answer_digest_command(
        services, command=asked.command, user_id=asked.user_id, channel_id=asked.channel_id,
        channel_name=asked.channel_name, rest=asked.rest, lang=asked.lang, confirmed=asked.confirmed, team_id=asked.team_id,
    )  # fmt: skip


def answer_sources(services: Services, asked: Asked) -> Reply:
    return answer_sources_command(services, user_id=asked.user_id, rest=asked.rest, lang=asked.lang, team_id=asked.team_id)


def answer_settings(services: Services, asked: Asked) -> Reply:
    return answer_settings_command(
        services, team_id=asked.team_id, user_id=asked.user_id, rest=asked.rest, lang=asked.lang, people=asked.people
    )


def answer_share_line(services: Services, asked: Asked) -> Reply:
    card_lang = channel_lang(services, asked.share_channel_id, asked.lang, asked.team_id)
    return answer_share(
        services.corpus, asked.user_id, asked.share_channel_id, asked.rest, asked.lang, card_lang=card_lang,
        team_id=asked.team_id,
    )  # fmt: skip


def answer_library(services: Services, asked: Asked) -> Reply:
    return answer_library_command(
        services, asked.user_id, asked.share_channel_id, asked.command, asked.rest, asked.lang, team_id=asked.team_id
    )


def answer_interests_line(services: Services, asked: Asked) -> Reply:
    return answer_interests(services, asked.team_id, asked.user_id, asked.rest, asked.lang)


def answer_search_line(services: Services, asked: Asked) -> Reply:
    """Any line that is not a command: a search; a first word that reads like a mistyped
    command (`subscibe 9am`) is named, when the search found little."""
    try:
        saved = services.library.saved_ids(asked.user_id, team_id=asked.team_id)
    except sqlite3.OperationalError as error:  # the store away: the index answers (Corpus.search), saves unknown
        if not is_store_unavailable(error):
            raise
        saved = set()
    reply = answer_search(services.corpus, asked.text, asked.lang, shareable=not asked.in_dm, saved=saved, team_id=asked.team_id)
    meant = meant_command(asked.word)
    result = reply.result
    if meant and result is not None and (result.mode != "all" or result.suggestion or not result.total):
        command = escape_code(" ".join(x for x in (meant, asked.rest) if x)[:100])
        reply.message.blocks.insert(
            1 if reply.message.blocks else 0, context(t("search.command_did_you_mean", asked.lang, command=command))
        )
    return reply


def meant_command(word: str) -> str | None:
    """The command a first word of 4+ letters is one or two typos away from, else None."""
    if len(word) < 4 or not word.isascii() or not word.isalpha():
        return None
    near = [(edit_distance(word, command, 3), command) for command in DID_YOU_MEAN if command != word]
    distance, command = min(near)
    return command if distance <= (1 if len(word) <= 5 else 2) else None


Answer = Callable[[Services, Asked], Reply]

NEEDS_NO_INDEX: dict[Command, Answer] = {
    Command.HELP: answer_help,
    Command.LANG: answer_lang,
    **dict.fromkeys(DIGEST_COMMANDS, answer_digests),
    Command.SOURCES: answer_sources,
    Command.INTERESTS: answer_interests_line,
    Command.SETTINGS: answer_settings,
}
"""Commands answered while the index is still loading (the store is readable)."""

NEEDS_THE_INDEX: dict[Command, Answer] = {
    Command.SHARE: answer_share_line,
    **dict.fromkeys(LIBRARY_COMMANDS, answer_library),
}
"""Commands that search; any other line is `answer_search_line`."""
