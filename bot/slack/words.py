"""The `/papers` vocabulary: which first words are commands, in English and Chinese.

Every other first word starts a search: `/papers diffusion models` must search, so an
unknown word is a query, not an error. Some command words are also ordinary words in
paper titles, so they are commands only when what follows fits:

    language / 语言            alone or before a language name (`/papers language models` searches)
    top / 热门                 alone or before a period, or a word meant as one (`/papers top year` is
                               told what top takes; `/papers top-k sampling` searches)
    export / 导出              alone, before a format, or a word or two (a format mistyped)
    sources / feeds / 订阅源   alone or before an action (`/papers sources of bias` searches)
    settings / 设置            alone or before a setting's name (`/papers settings for RL` searches)

`lang` is always the command (a bad argument gets its usage); `digest` / 日报 is always
the preview. Adding a subcommand: a `Command`, its words here, its answer in
bot/slack/answers/, one line in answers/commands.py's table, and its strings in bot/i18n.py.
"""

from __future__ import annotations

from enum import StrEnum

from bot.i18n import is_lang
from bot.library.export import normalize_format


class Command(StrEnum):
    HELP = "help"
    LANG = "lang"
    SHARE = "share"
    SUBSCRIBE = "subscribe"
    UNSUBSCRIBE = "unsubscribe"
    SUBSCRIPTIONS = "subscriptions"
    DIGEST = "digest"
    SOURCES = "sources"
    SAVE = "save"
    SAVED = "saved"
    FORYOU = "foryou"
    TOP = "top"
    EXPORT = "export"
    INTERESTS = "interests"
    SETTINGS = "settings"
    SEARCH = "search"  # not a word: what every other line is


WORDS: dict[str, Command] = {
    **dict.fromkeys(("help", "-h", "--help", "?", "？", "帮助"), Command.HELP),
    "lang": Command.LANG,
    **dict.fromkeys(("share", "分享"), Command.SHARE),
    **dict.fromkeys(("subscribe", "订阅"), Command.SUBSCRIBE),
    **dict.fromkeys(("unsubscribe", "取消订阅", "退订"), Command.UNSUBSCRIBE),
    **dict.fromkeys(("subscriptions", "订阅列表"), Command.SUBSCRIPTIONS),
    **dict.fromkeys(("digest", "日报"), Command.DIGEST),
    **dict.fromkeys(("save", "收藏"), Command.SAVE),
    **dict.fromkeys(("saved", "收藏夹", "我的收藏"), Command.SAVED),
    **dict.fromkeys(("foryou", "为你推荐", "推荐"), Command.FORYOU),
    **dict.fromkeys(("interests", "interest", "兴趣", "我的兴趣"), Command.INTERESTS),
}
"""First words that are always commands."""

WORDS_IF_ARGUMENT_FITS: dict[str, Command] = {
    **dict.fromkeys(("language", "语言"), Command.LANG),
    **dict.fromkeys(("top", "热门"), Command.TOP),
    **dict.fromkeys(("export", "导出"), Command.EXPORT),
    **dict.fromkeys(("sources", "feeds", "订阅源"), Command.SOURCES),
    **dict.fromkeys(("settings", "设置", "工作区设置"), Command.SETTINGS),
}
"""First words that are commands only when what follows fits (see the module docstring)."""

DIGEST_COMMANDS = frozenset({Command.SUBSCRIBE, Command.UNSUBSCRIBE, Command.SUBSCRIPTIONS, Command.DIGEST})
LIBRARY_COMMANDS = frozenset({Command.SAVE, Command.SAVED, Command.FORYOU, Command.TOP, Command.EXPORT})

PERIOD_WORDS = {"week": "week", "本周": "week", "周": "week", "month": "month", "本月": "month", "月": "month"}
"""What `/papers top` takes."""
PERIOD_ATTEMPTS = frozenset(
    {"year", "years", "yearly", "annual", "day", "days", "daily", "today", "all", "alltime", "all-time", "ever", "quarter",
     "weekly", "monthly", "weeks", "months", "今年", "年", "本年", "全年", "年度", "今天", "今日", "全部", "所有", "季度", "每周", "每月"}
)  # fmt: skip
"""Periods `/papers top` doesn't take, but that are plainly meant as one: answered with what it takes, not searched."""
SOURCES_ACTIONS = {
    "list": "list",
    "add": "add",
    "remove": "remove",
    "poll": "poll",
    "remove-papers": "remove_papers",
    "添加": "add",
    "删除": "remove",
    "抓取": "poll",
    "列表": "list",
    "删除论文": "remove_papers",
}
"""What `/papers sources` takes."""
INTERESTS_ACTIONS = {"add": "add", "list": "list", "remove": "remove", "添加": "add", "列表": "list", "删除": "remove"}
"""What `/papers interests` takes (nothing: list)."""
SETTINGS_NAMES = {
    **dict.fromkeys(("lang", "language", "语言"), "lang"),
    **dict.fromkeys(("zone", "tz", "timezone", "时区"), "zone"),
    **dict.fromkeys(("admins", "admin", "管理员"), "admins"),
    **dict.fromkeys(("uploads", "upload", "上传"), "uploads"),
}
"""What `/papers settings` takes first: the setting to change (nothing: show them all)."""
ADMINS_ACTIONS = {**dict.fromkeys(("add", "添加", "增加"), "add"), **dict.fromkeys(("remove", "删除", "移除"), "remove")}
"""What `/papers settings admins` takes, before the people it names."""
UPLOADS_CHOICES = {
    **dict.fromkeys(("shared", "share", "public", "共享", "公开"), True),
    **dict.fromkeys(("private", "私有", "私密", "不共享"), False),
}
"""What `/papers settings uploads` takes: shared with every workspace (True) or not."""
CONFIRM_WORDS = ("confirm", "确认")
"""The last word of `/papers sources remove-papers SOURCE confirm`: go ahead."""
SUBSCRIBE_HELP_WORDS = ("help", "帮助", "?")
"""`/papers subscribe help` explains the options instead of subscribing."""

DID_YOU_MEAN = (
    "subscribe",
    "unsubscribe",
    "subscriptions",
    "digest",
    "share",
    "save",
    "saved",
    "foryou",
    "interests",
    "export",
    "sources",
    "help",
    "lang",
    "settings",
)
"""Commands a mistyped first word is compared with (`subscibe 9am` -> subscribe)."""


def read_command(text: str) -> tuple[Command, str, str]:
    """Split a `/papers` line (already plain text) into (command, its first word, the rest).

    An empty line is help. A line that is not a command is `Command.SEARCH`, whole.
    """
    word, _, rest = " ".join(text.split()).partition(" ")
    word = word.lower()
    if not word:
        return Command.HELP, "", ""
    if word in WORDS:
        return WORDS[word], word, rest
    command = WORDS_IF_ARGUMENT_FITS.get(word)
    if command is not None and _argument_fits(command, rest):
        return command, word, rest
    return Command.SEARCH, word, rest


def _argument_fits(command: Command, rest: str) -> bool:
    rest = rest.strip()
    if not rest:
        return True
    if command is Command.LANG:
        return is_lang(rest)
    if command is Command.TOP:
        return rest.lower() in PERIOD_WORDS or rest.lower() in PERIOD_ATTEMPTS
    if command is Command.EXPORT:  # `export foo` is a format mistyped (usage), not a search for foo
        return normalize_format(rest.lower()) is not None or len(rest.split()) <= 2
    if command is Command.SETTINGS:
        return rest.split()[0].lower() in SETTINGS_NAMES
    return rest.split()[0].lower() in SOURCES_ACTIONS  # Command.SOURCES
