"""`/papers help`, in the reader's language."""

from __future__ import annotations

from bot.i18n import t
from bot.slack.render.blocks import Message, context, notification_text, section


def render_help(lang: str) -> Message:
    blocks = [
        section(t("help.title", lang)),
        section(t("help.body", lang)),
        section(t("help.search", lang)),
        section(t("subscribe.help_hint", lang)),
        section(t("library.help", lang)),
        context(t("help.buttons", lang)),
    ]
    return Message(text=notification_text(t("help.title", lang)), blocks=blocks)
