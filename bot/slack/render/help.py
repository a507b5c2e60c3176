"""`/papers help`, in the reader's language: five lines to start with, and a page per topic.

The short help says what people do first, one line each, and where the rest is
(`/papers help search`, `help digests`, `help library`). It is true to where it is
shown: in a DM with the bot there is no channel to share into, and a digest there is
the person's own.
"""

from __future__ import annotations

from bot.i18n import t
from bot.slack.render.blocks import Message, context, notification_text, section
from bot.slack.render.mrkdwn import escape

HELP_TOPICS = {
    "search": "search",
    "搜索": "search",
    "digests": "digests",
    "digest": "digests",
    "subscribe": "digests",
    "日报": "digests",
    "订阅": "digests",
    "library": "library",
    "saved": "library",
    "save": "library",
    "收藏": "library",
    "我的收藏": "library",
    "收藏夹": "library",
    "foryou": "library",
    "推荐": "library",
    "interests": "library",
    "兴趣": "library",
}
"""What `/papers help` takes: a topic, in either language."""


def render_help(lang: str, *, in_dm: bool = False, topic: str = "") -> Message:
    """The short help, or the search or library topic's page (digests have their own:
    `/papers subscribe help`, which knows the reader's zone)."""
    chosen = HELP_TOPICS.get(topic.strip().lower(), "")
    if chosen == "search":
        blocks = [
            section(t("help.search", lang)),
            section(t("help.search_syntax", lang)),
            context(t("help.buttons_dm" if in_dm else "help.buttons", lang)),
        ]
        return Message(text=notification_text(t("help.search_title", lang)), blocks=blocks)
    if chosen == "library":
        return Message(text=notification_text(t("help.library_title", lang)), blocks=[section(t("library.help", lang))])
    lines = [
        t("help.line_search", lang),
        t("help.line_share_dm" if in_dm else "help.line_share", lang),
        t("help.line_save", lang),
        t("help.line_subscribe_dm" if in_dm else "help.line_subscribe", lang),
        t("help.line_lang", lang),
    ]
    blocks = [section(t("help.title", lang)), section("\n".join(lines)), context(t("help.more", lang))]
    if topic.strip() and not chosen:  # `help foo`: say there is no such page, then the short help
        blocks.insert(0, section(t("help.unknown_topic", lang, topic=escape(topic.strip()[:60]))))
    return Message(text=notification_text(t("help.title", lang)), blocks=blocks)
