"""A workspace's settings as Block Kit: `/papers settings`, App Home's section, its two modals.

Pure: the settings and who administers the workspace come in, blocks go out. Admins get
controls (App Home: two selects and two buttons that open a modal); everyone else the same
lines read-only, with whom to ask. Whose settings a click changes is never in a value: it
comes from the signed payload's team and user (bot/slack/listeners/settings.py).
"""

from __future__ import annotations

from bot.i18n import lang_name, t
from bot.slack.render.blocks import Message, button, context, header, notification_text, plain_text, section
from bot.slack.render.when import zone_label
from bot.slack.values import SETTINGS_ADMINS_VIEW, SETTINGS_ZONE_VIEW, Action, ButtonValue
from bot.store.workspaces import WorkspaceSettings

MENTIONS_SHOWN = 20  # admins named in one line; a workspace with more is unusual
MODAL_TITLE_CHARS = 24  # a modal's title, submit and close texts (Block Kit)
ADMINS_PICKABLE = 50  # multi_users_select's max_selected_items


def mentions(users: frozenset[str] | tuple[str, ...] | list[str], lang: str) -> str:
    """People as Slack mentions, joined the reader's way; 'nobody yet' for none."""
    ordered = sorted(users)
    if not ordered:
        return t("settings.nobody", lang)
    return t("sources.list_separator", lang).join(f"<@{user}>" for user in ordered[:MENTIONS_SHOWN])


def lang_value(ws: WorkspaceSettings, lang: str) -> str:
    if ws.lang:
        return lang_name(ws.lang, lang)
    return t("settings.server_default", lang, value=lang_name("en", lang))


def zone_value(ws: WorkspaceSettings, server_zone: str, lang: str) -> str:
    if ws.timezone:
        return zone_label(ws.timezone, lang)
    return t("settings.server_default", lang, value=zone_label(server_zone, lang))


def uploads_value(ws: WorkspaceSettings, lang: str) -> str:
    return t("settings.uploads_shared" if ws.share_uploads else "settings.uploads_private", lang)


def settings_lines(ws: WorkspaceSettings, admins: frozenset[str], lang: str, *, server_zone: str) -> list[str]:
    """The four settings, one line each."""
    return [
        t("settings.lang_line", lang, value=lang_value(ws, lang)),
        t("settings.zone_line", lang, value=zone_value(ws, server_zone, lang)),
        t("settings.admins_line", lang, admins=mentions(admins, lang)),
        t("settings.uploads_line", lang, value=uploads_value(ws, lang)),
    ]


def who_changes(admins: frozenset[str], lang: str, *, can_change: bool) -> str:
    """How to change them (admins), or whom to ask (everyone else)."""
    if can_change:
        return t("settings.how_to_change", lang)
    if not admins:
        return t("settings.read_only_nobody", lang)
    return t("settings.read_only", lang, admins=mentions(admins, lang))


def changed_by(ws: WorkspaceSettings, lang: str) -> str:
    if not ws.updated_by or not ws.updated_at:
        return ""
    return t("settings.changed_by", lang, user_id=ws.updated_by, date=ws.updated_at[:10])


def render_settings(
    ws: WorkspaceSettings,
    admins: frozenset[str],
    lang: str,
    *,
    server_zone: str,
    can_change: bool,
    notice: str = "",
) -> Message:
    """`/papers settings`: `notice` (what was just changed, or why not) above the settings."""
    blocks: list[dict] = []
    if notice:
        blocks.append(section(notice))
    blocks.append(header(t("settings.title", lang)))
    blocks.append(section("\n".join(settings_lines(ws, admins, lang, server_zone=server_zone))))
    blocks.append(context(who_changes(admins, lang, can_change=can_change), changed_by(ws, lang)))
    return Message(text=notification_text(notice or t("settings.title", lang)), blocks=blocks)


def _option(text: str, value: str) -> dict:
    return {"text": plain_text(text, 75), "value": value}


def render_home_settings(
    ws: WorkspaceSettings, admins: frozenset[str], lang: str, *, server_zone: str, can_change: bool
) -> list[dict]:
    """App Home's "Workspace settings": controls for its admins, one read-only line for others."""
    blocks: list[dict] = [header(t("settings.title", lang))]
    if not can_change:
        lines = settings_lines(ws, admins, lang, server_zone=server_zone)
        blocks.append(context("  ·  ".join(lines), who_changes(admins, lang, can_change=False)))
        return blocks
    langs = [_option(lang_name("en", lang), "en"), _option(lang_name("zh", lang), "zh")]
    lang_select: dict = {"type": "static_select", "action_id": Action.HOME_SETTINGS_LANG, "options": langs}
    if ws.lang:
        lang_select["initial_option"] = langs[0] if ws.lang == "en" else langs[1]
    else:
        lang_select["placeholder"] = plain_text(lang_value(ws, lang), 150)
    uploads = [_option(t("settings.uploads_private", lang), "private"), _option(t("settings.uploads_shared", lang), "shared")]
    uploads_select = {
        "type": "static_select",
        "action_id": Action.HOME_SETTINGS_UPLOADS,
        "options": uploads,
        "initial_option": uploads[1] if ws.share_uploads else uploads[0],
    }
    change = t("settings.change", lang)
    value = ButtonValue(lang=lang)
    zone_button = button(change, Action.HOME_SETTINGS_ZONE, value)
    admins_button = button(change, Action.HOME_SETTINGS_ADMINS, value)
    blocks += [
        section(t("settings.lang_line", lang, value=""), block_id="settings_lang", accessory=lang_select),
        section(
            t("settings.zone_line", lang, value=zone_value(ws, server_zone, lang)),
            block_id="settings_zone",
            accessory=zone_button,
        ),
        section(
            t("settings.admins_line", lang, admins=mentions(admins, lang)), block_id="settings_admins", accessory=admins_button
        ),
        section(t("settings.uploads_line", lang, value=""), block_id="settings_uploads", accessory=uploads_select),
    ]
    note = changed_by(ws, lang)
    if note:
        blocks.append(context(note))
    return blocks


def zone_modal(ws: WorkspaceSettings, lang: str) -> dict:
    """The time-zone modal: one text input, read as `/papers subscribe tz:` reads a zone;
    its submission (SETTINGS_ZONE_VIEW) sets it, or says under the input what is wrong."""
    element: dict = {
        "type": "plain_text_input",
        "action_id": Action.SETTINGS_ZONE_INPUT,
        "max_length": 100,
        "placeholder": plain_text("Asia/Shanghai", 150),
    }
    if ws.timezone:
        element["initial_value"] = ws.timezone
    return _modal(
        SETTINGS_ZONE_VIEW,
        lang,
        title=t("settings.zone_modal_title", lang),
        block_id=Action.SETTINGS_ZONE_INPUT,
        label=t("settings.zone_modal_label", lang),
        hint=t("settings.zone_modal_hint", lang),
        element=element,
    )


def admins_modal(ws: WorkspaceSettings, lang: str) -> dict:
    """The admins modal: Slack's people picker holding the workspace's own admins (the
    server's, PAPERBOT_ADMINS, are not in it: they are set where paperbot runs)."""
    element: dict = {
        "type": "multi_users_select",
        "action_id": Action.SETTINGS_ADMINS_INPUT,
        "max_selected_items": ADMINS_PICKABLE,
        "placeholder": plain_text(t("settings.admins_modal_label", lang), 150),
    }
    if ws.admins:
        element["initial_users"] = list(ws.admins)[:ADMINS_PICKABLE]
    return _modal(
        SETTINGS_ADMINS_VIEW,
        lang,
        title=t("settings.admins_modal_title", lang),
        block_id=Action.SETTINGS_ADMINS_INPUT,
        label=t("settings.admins_modal_label", lang),
        hint=t("settings.admins_modal_hint", lang),
        element=element,
        optional=True,  # an empty picker is answered with why not, under it, rather than Slack's "required"
    )


def _modal(
    callback_id: str, lang: str, *, title: str, block_id: str, label: str, hint: str, element: dict, optional: bool = False
) -> dict:
    block: dict = {
        "type": "input",
        "block_id": block_id,
        "label": plain_text(label, 2000),
        "hint": plain_text(hint, 2000),
        "element": element,
    }
    if optional:
        block["optional"] = True
    return {
        "type": "modal",
        "callback_id": callback_id,
        "private_metadata": lang,
        "title": plain_text(title, MODAL_TITLE_CHARS),
        "submit": plain_text(t("settings.modal_submit", lang), MODAL_TITLE_CHARS),
        "close": plain_text(t("settings.modal_cancel", lang), MODAL_TITLE_CHARS),
        "blocks": [block],
    }
