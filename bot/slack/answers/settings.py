"""/papers settings: a workspace's own settings (issue 25 point 3), shown to anyone, changed by its admins.

    /papers settings                      the settings, and how to change them (or whom to ask)
    /papers settings lang zh|en           the default language of new digests (and of people
                                          with no language of their own and no Slack locale)
    /papers settings zone Asia/Shanghai   the default zone of new digests (read as `tz:` is)
    /papers settings admins add|remove @x who administers paperbot here
    /papers settings uploads shared|private  whether listings uploaded here reach other workspaces

Chinese works too (`/papers 设置 时区 北京`): the words are bot/slack/words.py's. The
workspace is the one in Slack's signed payload, never one a person names. App Home's
section changes the same settings through the functions here (bot/slack/listeners/settings.py).
"""

from __future__ import annotations

from bot.digests.times import parse_zone
from bot.errors import WorkspaceError, ZoneRefusal
from bot.i18n import is_lang, lang_name, normalize_lang, t
from bot.services import Services
from bot.slack.render.mrkdwn import escape
from bot.slack.render.settings import mentions, render_settings
from bot.slack.render.when import zone_label
from bot.slack.reply import Reply
from bot.slack.words import ADMINS_ACTIONS, SETTINGS_NAMES, UPLOADS_CHOICES
from bot.store.workspaces import WorkspaceSettings


def answer_settings_command(
    services: Services, *, team_id: str, user_id: str, rest: str, lang: str, people: tuple[str, ...] = ()
) -> Reply:
    """Answer `/papers settings ...` from `user_id` of workspace `team_id`.

    `rest` is what follows `settings`, as plain text; `people` are the users the line
    mentions (Slack's `<@U…>`, gone from the plain text), for `admins add|remove`. A
    non-admin asking for a change sees the settings read-only, with whom to ask.
    """
    word, _, arg = rest.strip().partition(" ")
    name = SETTINGS_NAMES.get(word.lower()) if word else None
    arg = arg.strip()
    if name is None or not arg:
        notice = t("settings.unknown", lang, word=escape(word[:40])) if word and name is None else ""
        return settings_reply(services, team_id, user_id, lang, notice=notice)
    if not services.is_admin(team_id, user_id):
        return settings_reply(services, team_id, user_id, lang, notice=t("settings.admins_only", lang))
    if name == "lang":
        notice = change_lang(services, team_id, user_id, arg, lang)
    elif name == "zone":
        notice = change_zone(services, team_id, user_id, arg, lang)[1]
    elif name == "admins":
        notice = change_admins_by_line(services, team_id, user_id, people, arg, lang)
    else:
        notice = change_uploads(services, team_id, user_id, arg, lang)
    return settings_reply(services, team_id, user_id, lang, notice=notice)


def settings_reply(services: Services, team_id: str, user_id: str, lang: str, *, notice: str = "") -> Reply:
    ws = services.workspaces.get(team_id)
    message = render_settings(
        ws, services.admins_of(team_id), lang, server_zone=services.settings.timezone,
        can_change=services.is_admin(team_id, user_id), notice=notice,
    )  # fmt: skip
    return Reply(message, lang=lang)


def change_lang(services: Services, team_id: str, user_id: str, arg: str, lang: str) -> str:
    """Set the default language of new digests; the sentence that says so (or why not)."""
    if not is_lang(arg):
        return t("settings.lang_bad", lang, value=escape(arg[:40]))
    chosen = normalize_lang(arg)
    services.workspaces.update(team_id, by=user_id, lang=chosen)
    return t("settings.lang_set", lang, name=lang_name(chosen, lang))


def change_zone(services: Services, team_id: str, user_id: str, arg: str, lang: str) -> tuple[bool, str]:
    """Set the default zone of new digests; (done, the sentence that says so or why not)."""
    if not arg:
        return False, t("settings.zone_usage", lang)
    try:
        zone = parse_zone(arg.removeprefix("tz:"))
    except ZoneRefusal as refusal:
        return False, zone_refusal_text(refusal, lang)
    services.workspaces.update(team_id, by=user_id, timezone=zone)
    return True, t("settings.zone_set", lang, zone=zone_label(zone, lang))


def zone_refusal_text(refusal: ZoneRefusal, lang: str) -> str:
    value = escape(refusal.value[:60])
    if refusal.key == "ambiguous":
        options = " / ".join(f"`{option}`" for option in refusal.options)
        return t("settings.zone_ambiguous", lang, value=value, options=options)
    if refusal.key == "offset":
        return t("settings.zone_offset", lang, value=value)
    return t("settings.zone_bad", lang, value=value)


def change_admins_by_line(services: Services, team_id: str, user_id: str, people: tuple[str, ...], arg: str, lang: str) -> str:
    """`admins add|remove @x @y`: the people are the line's mentions (or user ids typed out)."""
    action = ADMINS_ACTIONS.get(arg.split()[0].lower())
    if action is None or not people:
        return t("settings.admins_usage", lang)
    if action == "add":
        return change_admins(services, team_id, user_id, lang, add=people)
    return change_admins(services, team_id, user_id, lang, remove=people)


def change_admins(
    services: Services, team_id: str, user_id: str, lang: str, *, add: tuple[str, ...] = (), remove: tuple[str, ...] = ()
) -> str:
    """Add and remove admins; the sentence that says what changed (or why nothing did)."""
    before = set(services.workspaces.get(team_id).admins)
    try:
        after = set(services.workspaces.change_admins(team_id, by=user_id, add=add, remove=remove).admins)
    except WorkspaceError as error:
        return error.text(lang)
    added, removed = sorted(after - before), sorted(before - after)
    lines = []
    if added:
        lines.append(t("settings.admins_added", lang, users=mentions(added, lang)))
    if removed:
        lines.append(t("settings.admins_removed", lang, users=mentions(removed, lang)))
    return "\n".join(lines) or t("settings.admins_unchanged", lang)


def change_uploads(services: Services, team_id: str, user_id: str, arg: str, lang: str) -> str:
    shared = UPLOADS_CHOICES.get(arg.lower())
    if shared is None:
        return t("settings.uploads_usage", lang)
    return set_uploads(services, team_id, user_id, shared, lang)


def set_uploads(services: Services, team_id: str, user_id: str, shared: bool, lang: str) -> str:
    services.workspaces.update(team_id, by=user_id, share_uploads=shared)
    return t("settings.uploads_now_shared" if shared else "settings.uploads_now_private", lang)


def workspace_defaults(services: Services, team_id: str) -> WorkspaceSettings:
    """The workspace's settings, for the defaults of a new digest (bot/slack/answers/subscribe.py)."""
    return services.workspaces.get(team_id)


def change_admins_in_modal(services: Services, team_id: str, user_id: str, chosen: tuple[str, ...], lang: str) -> str:
    """App Home's admins modal: the people picked become the workspace's own admins; '' when
    done, else why not (said under the picker)."""
    current = set(services.workspaces.get(team_id).admins)
    wanted = set(chosen)
    try:
        services.workspaces.change_admins(
            team_id, by=user_id, add=tuple(sorted(wanted - current)), remove=tuple(sorted(current - wanted))
        )
    except WorkspaceError as error:
        return error.text(lang)
    return ""
