"""/papers subscribe, subscriptions, unsubscribe and digest: the answers, and App Home's list.

Pure answers over the services (bot/services.py): they read and change subscriptions in
the store and return what to show; the scheduler hears of every change through
`services.reschedule(sub_id)`. Replies follow the person typing, whatever the digest's
language.
"""

from __future__ import annotations

import logging
from datetime import datetime

from bot.digests.compose import Digest
from bot.digests.places import Profile
from bot.digests.requests import (
    BAD_FILTER_PROBLEMS,
    SubscribeRequest,
    check_zone,
    filter_problem_text,
    parse_subscribe,
)
from bot.digests.runs import next_run
from bot.digests.subscriptions import (
    DEFAULT_DAYS,
    DEFAULT_HOUR,
    DEFAULT_MINUTE,
    DEFAULT_TOP,
    Subscription,
)
from bot.errors import SubscribeError
from bot.i18n import format_estimate, is_lang, lang_name, normalize_lang, t
from bot.library.readinglist import digest_order
from bot.services import Services
from bot.slack.answers.settings import workspace_defaults
from bot.slack.render.blocks import Message, actions, button, context, header, notification_text, section, truncate
from bot.slack.render.digest import digest_name, paused_reason, render_preview, resume_hint
from bot.slack.render.mrkdwn import escape, escape_code
from bot.slack.render.when import format_when, next_run_text, schedule_label, zone_label
from bot.slack.reply import Reply, is_dm, not_ready_notice, notice, notice_lines
from bot.slack.values import Action, ButtonValue, numbered_id
from bot.slack.words import SUBSCRIBE_HELP_WORDS, Command
from bot.store.tenancy import LOCAL

logger = logging.getLogger(__name__)

SAMPLE_PAPERS = 5
ORDER_NOTES = {
    ("new", "user"): "library.order_new_user",
    ("new", "channel"): "library.order_new_channel",
    ("foryou", "user"): "library.order_foryou_user",
    ("foryou", "channel"): "library.order_foryou_channel",
    ("popular", "user"): "library.order_popular_user",
    ("popular", "channel"): "library.order_popular_channel",
}
"""How a digest's papers are ordered, by (order, kind of place), for the subscribe answer."""


def _place_kind(user_id: str, channel_id: str, channel_name: str) -> tuple[str, str]:
    return ("user", user_id) if is_dm(channel_id, channel_name) else ("channel", channel_id)


def place_label(sub: Subscription, lang: str) -> str:
    if sub.kind == "channel":
        return t("subscribe.place_channel", lang, channel_id=sub.place_id)
    return t("subscribe.place_your_dm", lang)


def profile_of(services: Services, user_id: str, team_id: str = LOCAL) -> Profile:
    return services.directory.profile(user_id, team_id=team_id)


def answer_digest_command(
    services: Services,
    *,
    team_id: str,
    command: Command,
    user_id: str,
    channel_id: str,
    channel_name: str,
    rest: str,
    lang: str,
    confirmed: bool = False,
) -> Reply:
    """Answer `/papers subscribe|subscriptions|unsubscribe|digest ...`; `lang` is the person's
    (the command word counts: `/papers 订阅列表` is Chinese). `confirmed`: the person
    already said yes to the filter as typed (a button of `ask_about_filter`). `team_id`: the
    workspace of Slack's signed payload (tenancy.LOCAL in the console): every subscription
    read or changed here is that workspace's."""
    if command is Command.SUBSCRIBE:
        return answer_subscribe(
            services, team_id=team_id, user_id=user_id, channel_id=channel_id, channel_name=channel_name, rest=rest,
            lang=lang, confirmed=confirmed,
        )  # fmt: skip
    if command is Command.SUBSCRIPTIONS:
        return Reply(render_subscription_list(services, team_id, user_id, channel_id, channel_name, lang), lang=lang)
    if command is Command.UNSUBSCRIBE:
        return answer_unsubscribe(
            services, team_id=team_id, user_id=user_id, channel_id=channel_id, channel_name=channel_name, rest=rest, lang=lang
        )
    return answer_preview(
        services, team_id=team_id, user_id=user_id, channel_id=channel_id, channel_name=channel_name, rest=rest, lang=lang
    )


def _default_zone(services: Services, user_id: str, team_id: str = "", kind: str = "dm") -> tuple[str, str]:
    """The zone a subscription gets when none is typed, and why: a channel's, the
    workspace's zone (`/papers settings zone`) if it has one; else the subscriber's Slack
    zone (a personal digest, and a channel's: the person setting it up); else the
    workspace's; else the server's."""
    workspace_zone = workspace_defaults(services, team_id).timezone
    if kind == "channel" and workspace_zone:
        return workspace_zone, "zone.from_workspace"
    zone = profile_of(services, user_id, team_id).tz
    if zone and check_zone(zone):
        return zone, "zone.from_slack"
    if workspace_zone:
        return workspace_zone, "zone.from_workspace"
    return services.settings.timezone, "zone.from_default"


def answer_subscribe(
    services: Services,
    *,
    team_id: str,
    user_id: str,
    channel_id: str,
    channel_name: str,
    rest: str,
    lang: str,
    confirmed: bool = False,
) -> Reply:
    """Create or update this place's subscription.

    With options, the line describes the whole subscription (omitted ones take their
    defaults: the digest's language is the reader's, a channel's the workspace's when it
    set one; weekdays at 09:00 in the zone `_default_zone` picks; the top 10 first; no
    filter). `/papers subscribe` alone keeps an existing subscription's settings, which is how a paused one resumes.
    A channel the bot can't post in yet gets a paused subscription and the way to invite
    it; a channel it can post in hears who set up what. Replies are in the language of
    the person typing, whatever the digest's language.

    A filter that matches nothing as typed (most often a typo) is asked about first,
    with one click to use the correction: nothing is made or announced until then
    (`confirmed`: the person chose the filter as typed).
    """
    reader = lang
    if rest.strip().lower() in SUBSCRIBE_HELP_WORDS:
        help_text = t("subscribe.help", lang, zone=zone_label(_default_zone(services, user_id, team_id)[0], lang))
        return notice_lines([help_text], lang)
    try:
        request = parse_subscribe(rest)
    except SubscribeError as error:
        return notice(error.key, lang, **_escaped(error.fields))
    kind, place_id = _place_kind(user_id, channel_id, channel_name)
    existing = services.subscriptions.for_place(team_id, kind, place_id)
    zone_why = ""
    zone: str | None
    if existing and not request.has_options:
        sub_lang, hour, minute, zone, filter_text, notify = (
            existing.lang, existing.hour, existing.minute, existing.timezone, existing.filter_text, existing.notify_empty
        )  # fmt: skip
        days, top = existing.days, existing.top
    else:
        sub_lang = request.lang or (workspace_defaults(services, team_id).lang if kind == "channel" else "") or lang
        hour = request.hour if request.hour is not None else DEFAULT_HOUR
        minute = request.minute if request.minute is not None else DEFAULT_MINUTE
        zone = request.timezone
        if zone is None:
            zone, zone_why = _default_zone(services, user_id, team_id, kind)
        filter_text, notify = request.filter_text, bool(request.notify_empty)
        days = request.days or DEFAULT_DAYS
        top = request.top or (existing.top if existing else DEFAULT_TOP)
    matches, suggestion, estimated = 0, None, False
    if filter_text:
        corpus = services.corpus
        if not corpus.is_ready():
            return not_ready_notice(corpus, reader)
        result = corpus.search(filter_text, per_page=1, expand=False)
        if result.problem in BAD_FILTER_PROBLEMS:
            return notice(
                "subscribe.bad_filter",
                reader,
                filter=escape(truncate(filter_text, 200)),
                problem=filter_problem_text(result.problem, reader),
            )
        # Digests take a filter literally (Corpus.new_papers): a count found through a
        # spelling correction or the any-word fallback would promise papers never sent.
        literal = result.mode == "all" and result.suggestion is None
        matches = result.total if literal else 0
        estimated = literal and result.estimated
        suggestion = result.suggestion
        if request.filter_text and not matches and not confirmed:
            place = (
                t("subscribe.place_channel", reader, channel_id=channel_id)
                if kind == "channel"
                else t("subscribe.place_dm", reader)
            )
            not_done = t("subscribe.not_changed_yet" if existing else "subscribe.not_subscribed_yet", reader, place=place)
            return ask_about_filter(services, request, suggestion, not_done, reader)
    blocked = services.directory.cannot_post(place_id, team_id=team_id) if kind == "channel" else ""
    sub, created = services.subscriptions.save(
        team_id=team_id, kind=kind, place_id=place_id, user_id=user_id, lang=sub_lang, hour=hour, minute=minute,
        timezone=zone, filter_text=filter_text, notify_empty=notify, days=days, top=top,
        status="paused" if blocked else "active", paused_reason=blocked,
    )  # fmt: skip
    if rest.strip():  # a line with options describes the whole subscription, its order too
        services.subscriptions.set_ranking(sub.id, request.order or "")
        sub.ranking = request.order or ""
    services.reschedule(sub.id)
    now = services.clock()
    place = t("subscribe.place_channel", reader, channel_id=channel_id) if kind == "channel" else t("subscribe.place_dm", reader)
    filter_note = render_filter_note(filter_text, matches, reader, estimated=estimated)
    key = "subscribe.created" if created else "subscribe.updated"
    lines = [
        t(key, reader, place=place, schedule=schedule_label(sub.days, reader), time=sub.time_label, zone=zone_label(sub.timezone, reader),
          lang_name=lang_name(sub.lang, reader), filter_note=filter_note, digest=digest_name(sub.days, reader))
    ]  # fmt: skip
    if zone_why:
        lines.append(t("subscribe.zone_note", reader, zone=zone_label(sub.timezone, reader), why=t(zone_why, reader)))
    if blocked:
        lines.append(
            t("subscribe.cannot_post", reader, channel_id=place_id)
            if blocked != "is_archived"
            else paused_reason(blocked, reader)
        )
    else:
        reader_zone = profile_of(services, user_id, team_id).tz
        lines.append(t("subscribe.next_run", reader, next_run=next_run_text(next_run(sub, now), reader, reader_zone)))
    if existing and not existing.is_active and sub.is_active:
        lines.append(t("subscribe.resumed", reader, reason=paused_reason(existing.paused_reason, reader)))
    if sub.notify_empty:
        lines.append(t("subscribe.notify_empty_note", reader))
    if sub.ranking:
        order = digest_order(sub)
        lines.append(t("library.order_note", reader, order=t(ORDER_NOTES[(order, sub.kind)], reader)))
    if created or top != (existing.top if existing else DEFAULT_TOP):
        lines.append(top_note(sub, reader, has_saves=services.library.saved_count(user_id, team_id=team_id) > 0))
    if kind == "channel" and not blocked:
        announce(services, sub, "subscribe.announce_created" if created else "subscribe.announce_updated", user_id)
    reply = notice_lines(lines, reader)
    reply.message.blocks.append(next_steps(reader, preview=not blocked))
    return reply


TOP_NOTES = {
    "filter": "subscribe.top_note_filter",
    "saved": "subscribe.top_note_saved",
    "channel": "subscribe.top_note_channel",
    "plain": "subscribe.top_note_plain",
}
"""What the first message's papers are the top of, by how the digest ranks them (see top_reason)."""


def top_reason(sub: Subscription, *, has_saves: bool = True) -> str:
    """How a subscription's highlights are chosen: by its filter, the person's saves, the
    channel's signals, or (none of those) main-track venues first."""
    if sub.filter_text:
        return "filter"
    if digest_order(sub) == "new" or (sub.kind == "user" and not has_saves):
        return "plain"
    return "saved" if sub.kind == "user" else "channel"


def top_note(sub: Subscription, lang: str, *, has_saves: bool = True) -> str:
    return t(TOP_NOTES[top_reason(sub, has_saves=has_saves)], lang, top=sub.top)


def next_steps(lang: str, *, preview: bool = True) -> dict:
    """What a person usually does after subscribing: look at the next digest, or change it."""
    elements = []
    if preview:
        elements.append(command_button(t("button.preview_digest", lang), "digest", lang, 1))
    elements.append(command_button(t("button.digest_options", lang), "subscribe help", lang, 2))
    return actions(*elements, block_id="next_steps")


def command_button(label: str, line: str, lang: str, number: int, *, style: str | None = None) -> dict:
    """A button that runs `/papers LINE` for whoever clicks it, answered in a new private message."""
    return button(label, numbered_id(Action.COMMAND, number), ButtonValue(query=line, lang=lang), style=style)


def ask_about_filter(services: Services, request: SubscribeRequest, suggestion: str | None, not_done: str, lang: str) -> Reply:
    """A filter that matches nothing as typed: ask before subscribing, offering the correction.

    Digests take filters literally, so a typo would make a digest that never posts; the
    buttons carry the whole line again (`SubscribeRequest.line`), the correction's or the
    filter as typed (`x`: don't ask again).
    """
    typed = escape(truncate(request.filter_text, 200))
    fixed_count = 0
    if suggestion:
        found = services.corpus.search(suggestion, per_page=1, expand=False, correct=False)
        fixed_count = found.total if found.mode == "all" else 0
    value = ButtonValue(lang=lang, mode="subscribe")
    cancel = button(t("button.cancel", lang), Action.CANCEL, value)
    if suggestion and fixed_count:
        keep_label = t("button.keep_filter", lang, filter=truncate(request.filter_text, 30))
        keep = button(keep_label, numbered_id(Action.CONFIRM, 2), value.but(query=f"subscribe {request.line()}", exact=True))
        text = t(
            "subscribe.ask_typo",
            lang,
            filter=typed,
            suggestion=escape(truncate(suggestion, 200)),
            count=fixed_count,
            not_done=not_done,
        )
        use = button(
            t("button.use_filter", lang, filter=truncate(suggestion, 30)),
            numbered_id(Action.CONFIRM, 1),
            value.but(query=f"subscribe {request.line(filter_text=suggestion)}"),
            style="primary",
        )
        elements = [use, keep, cancel]
    else:
        text = t(
            "subscribe.ask_no_match",
            lang,
            filter=typed,
            not_done=not_done,
            search=escape_code(truncate(request.filter_text, 200)),
        )
        anyway = button(
            t("button.subscribe_anyway", lang),
            numbered_id(Action.CONFIRM, 1),
            value.but(query=f"subscribe {request.line()}", exact=True),
        )
        elements = [anyway, cancel]
    return Reply(
        Message(text=notification_text(text), blocks=[section(text), actions(*elements, block_id="ask_filter")]), lang=lang
    )


def render_filter_note(filter_text: str, matches: int, lang: str, *, estimated: bool = False) -> str:
    """The filter's clause of a subscribe answer: "(12 in the library match today)", or "about 36,000"."""
    if not filter_text:
        return ""
    label = escape(truncate(filter_text, 200))
    if estimated:
        return t("subscribe.filter_note_estimated", lang, filter=label, count=format_estimate(matches, lang))
    return t("subscribe.filter_note", lang, filter=label, count=matches)


def _escaped(fmt: dict) -> dict:
    """What a person typed, made inert before it is echoed in an error."""
    return {k: escape(truncate(str(v), 100)) if k in ("value", "second") else v for k, v in fmt.items()}


def announce(services: Services, sub: Subscription, key: str, user_id: str) -> None:
    """Tell a channel, in its digest's language, who set up, changed or stopped its digest."""
    directory = services.directory
    if directory is None or sub.kind != "channel":
        return
    lang = sub.lang
    filter_bit = t("subscribe.announce_filter", lang, filter=escape(truncate(sub.filter_text, 200))) if sub.filter_text else ""
    text = t(key, lang, user_id=user_id, schedule=schedule_label(sub.days, lang), time=sub.time_label,
             zone=zone_label(sub.timezone, lang), lang_name=lang_name(sub.lang, lang), filter=filter_bit,
             digest=digest_name(sub.days, lang))  # fmt: skip
    directory.announce(sub.place_id, text, team_id=sub.team_id)


def subscriptions_here(services: Services, team_id: str, user_id: str, channel_id: str, channel_name: str) -> list[Subscription]:
    """In a channel: its digest. In a DM: the person's own, then the channels they set up (in their workspace)."""
    if is_dm(channel_id, channel_name):
        return services.subscriptions.for_user(team_id, user_id)
    sub = services.subscriptions.for_place(team_id, "channel", channel_id)
    return [sub] if sub else []


def subscription_lines(subs: list[Subscription], lang: str, now: datetime, reader_zone: str | None = None) -> list[str]:
    """One line a digest: where, when (in its own zone), language, filter, and the next
    run's date in that zone too, with the reader's own time when their zone differs."""
    lines = []
    for number, sub in enumerate(subs, start=1):
        place = place_label(sub, lang)
        if not sub.is_active:
            lines.append(
                t("subscribe.list_paused", lang, number=number, place=place, reason=paused_reason(sub.paused_reason, lang))
            )
            continue
        filter_bit = t("subscribe.list_filter", lang, filter=escape(truncate(sub.filter_text, 200))) if sub.filter_text else ""
        lines.append(
            t("subscribe.list_item", lang, number=number, place=place, schedule=schedule_label(sub.days, lang), time=sub.time_label,
              zone=zone_label(sub.timezone, lang), lang_name=lang_name(sub.lang, lang), filter=filter_bit,
              next_run=next_run_text(next_run(sub, now), lang, reader_zone))
        )  # fmt: skip
    return lines


def render_subscription_list(
    services: Services, team_id: str, user_id: str, channel_id: str, channel_name: str, lang: str
) -> Message:
    subs = subscriptions_here(services, team_id, user_id, channel_id, channel_name)
    if not subs:
        text = t("subscribe.list_none", lang)
        return Message(text=text, blocks=[section(text)])
    where = (
        t("subscribe.place_you", lang)
        if is_dm(channel_id, channel_name)
        else t("subscribe.place_channel", lang, channel_id=channel_id)
    )
    head = t("subscribe.list_header", lang, place=where)
    body = "\n".join(subscription_lines(subs, lang, services.clock(), profile_of(services, user_id, team_id).tz))
    return Message(text=head.replace("*", ""), blocks=[section(f"{head}\n{body}"), context(t("subscribe.list_footer", lang))])


def answer_unsubscribe(
    services: Services, *, team_id: str, user_id: str, channel_id: str, channel_name: str, rest: str, lang: str
) -> Reply:
    subs = subscriptions_here(services, team_id, user_id, channel_id, channel_name)
    arg = rest.strip().lstrip("#")
    if not subs:
        return notice("subscribe.nothing_to_remove", lang)
    if not arg:
        if len(subs) > 1:
            reply = notice("subscribe.which", lang, count=len(subs))
            lines = subscription_lines(subs, lang, services.clock(), profile_of(services, user_id, team_id).tz)
            reply.message.blocks.insert(1, section("\n".join(lines)))
            return reply
        chosen = subs[0]
    else:
        if not arg.isdigit() or not 1 <= int(arg) <= len(subs):
            return notice("subscribe.bad_number", lang, value=escape(truncate(arg, 20)))
        chosen = subs[int(arg) - 1]
    services.subscriptions.delete(chosen.id, removed_by=user_id)
    services.reschedule(chosen.id)
    if chosen.is_active:
        announce(services, chosen, "subscribe.announce_removed", user_id)
    reply = notice("subscribe.removed", lang, place=place_label(chosen, lang), digest=digest_name(chosen.days, lang))
    undo = button(t("button.undo", lang), Action.UNSUBSCRIBE_UNDO, ButtonValue(id=str(chosen.id), lang=lang))
    reply.message.blocks.append(actions(undo, block_id="unsubscribe_undo"))
    return reply


def answer_restore(services: Services, team_id: str, user_id: str, sub_id: str, lang: str) -> Reply:
    """The Undo of `/papers unsubscribe`: the same digest again, settings, cursor and all
    (only in the workspace it was removed from, by whoever removed it)."""
    sub = services.subscriptions.restore(team_id, int(sub_id), user_id) if sub_id.isdigit() else None
    if sub is None:
        remover = services.subscriptions.removed_by(team_id, int(sub_id)) if sub_id.isdigit() else None
        return notice("subscribe.restore_not_yours" if remover and remover != user_id else "subscribe.restore_none", lang)
    services.reschedule(sub.id)
    if sub.is_active:
        announce(services, sub, "subscribe.announce_restored", user_id)
    return notice(
        "subscribe.restored", lang, place=place_label(sub, lang), schedule=schedule_label(sub.days, lang), time=sub.time_label,
        zone=zone_label(sub.timezone, lang), digest=digest_name(sub.days, lang),
    )  # fmt: skip


def answer_preview(
    services: Services, *, team_id: str, user_id: str, channel_id: str, channel_name: str, rest: str, lang: str
) -> Reply:
    """`/papers digest [en|zh]`: privately, what this place's next digest would hold now,
    in the reader's language unless they name one; of the papers `team_id` (the place's
    workspace) may see."""
    kind, place_id = _place_kind(user_id, channel_id, channel_name)
    sub = services.subscriptions.for_place(team_id, kind, place_id)
    arg = rest.strip()
    asked = normalize_lang(arg) if is_lang(arg) else None
    corpus = services.corpus
    lang = asked or lang  # the person's language, not the digest's (`/papers digest zh` asks for one)
    if not corpus.is_ready():
        return not_ready_notice(corpus, lang)
    notes = [t("digest.preview_ignored", lang, ignored=escape(truncate(arg, 100)))] if arg and not asked else []
    now = services.clock()
    if sub is None:
        newest = sorted(corpus.newest(SAMPLE_PAPERS, team=team_id), key=lambda p: p.seq)
        sample = Digest(lang=lang, local_date=now.date(), papers=newest)
        notes.append(t("digest.preview_no_subscription", lang))
        message = render_preview(sample, "", sample=True, note="\n".join(notes))
        start = command_button(t("button.subscribe_here", lang), "subscribe", lang, 1, style="primary")
        options = command_button(t("button.digest_options", lang), "subscribe help", lang, 2)
        _add_actions(message, actions(start, options, block_id="next_steps"))
        return Reply(message, lang=lang)
    digest = services.digests.preview(sub, lang, team=team_id)
    when = format_when(next_run(sub, now), lang)
    if not sub.is_active:  # no run is coming: say why, and how to resume it
        notes.append(
            t(
                "digest.preview_paused",
                lang,
                reason=paused_reason(sub.paused_reason, lang),
                fix=resume_hint(sub.paused_reason, lang),
            )
        )
        when = ""
    message = render_preview(digest, when, note="\n".join(notes))
    here = subscriptions_here(services, team_id, user_id, channel_id, channel_name)
    number = next((i for i, other in enumerate(here, start=1) if other.id == sub.id), 1)
    change = command_button(t("button.digest_options", lang), "subscribe help", lang, 1)
    stop = confirmed_button(command_button(t("button.unsubscribe", lang), f"unsubscribe {number}", lang, 2), lang)
    _add_actions(message, actions(change, stop, block_id="next_steps"))
    return Reply(message, lang=lang)


def _add_actions(message: Message, block: dict) -> None:
    """Append a row of buttons, keeping within a message's 50 blocks."""
    del message.blocks[49:]
    message.blocks.append(block)


HOME_SUBSCRIPTIONS_SHOWN = 15


def render_home_subscriptions(services: Services, user_id: str, lang: str, team_id: str = LOCAL) -> list[dict]:
    """The App Home's digest section: the reader's own digest and the channels they set up,
    in the workspace whose Home this is (`team_id`, from Slack's signed payload).

    Each row has its own Unsubscribe button: `/papers unsubscribe N` numbers only work in
    a DM with the bot, and Home is not one.
    """
    subs = services.subscriptions.for_user(team_id, user_id)[:HOME_SUBSCRIPTIONS_SHOWN]
    blocks: list[dict] = [header(t("home.subscriptions_title", lang))]
    if not subs:
        blocks.append(section(t("home.subscriptions_none", lang)))
        return blocks
    lines = subscription_lines(subs, lang, services.clock(), profile_of(services, user_id, team_id).tz)
    for sub, line in zip(subs, lines, strict=True):
        blocks.append(section(line, block_id=f"home_sub:{sub.id}", accessory=unsubscribe_button(sub, lang)))
    blocks.append(context(t("home.subscriptions_footer", lang)))
    return blocks


def unsubscribe_button(sub: Subscription, lang: str) -> dict:
    return confirmed_button(
        button(t("button.unsubscribe", lang), Action.HOME_UNSUBSCRIBE, ButtonValue(id=str(sub.id), lang=lang)), lang
    )


def confirmed_button(element: dict, lang: str) -> dict:
    """A button that stops a digest asks first (Slack's confirm dialog)."""
    element["confirm"] = {
        "title": {"type": "plain_text", "text": t("home.unsubscribe_confirm_title", lang)},
        "text": {"type": "plain_text", "text": t("home.unsubscribe_confirm_text", lang)},
        "confirm": {"type": "plain_text", "text": t("button.unsubscribe", lang)},
        "deny": {"type": "plain_text", "text": t("button.keep", lang)},
        "style": "danger",
    }
    return element


def unsubscribe_from_home(services: Services, team_id: str, user_id: str, sub_id: object) -> bool:
    """Stop a digest from its Home button; only one Home lists for this user in this
    workspace (a stale, forged or another workspace's id is ignored). Return whether one was removed."""
    chosen = next((s for s in services.subscriptions.for_user(team_id, user_id) if str(s.id) == str(sub_id)), None)
    if chosen is None:
        return False
    services.subscriptions.delete(chosen.id, removed_by=user_id)
    services.reschedule(chosen.id)
    if chosen.is_active:
        announce(services, chosen, "subscribe.announce_removed", user_id)
    return True


def resume_after_invite(services: Services, team_id: str, channel_id: str) -> list[Subscription]:
    """The bot joined `channel_id` of `team_id`: resume its digest if it waited for that, and say so there."""
    sub = services.subscriptions.for_place(team_id, "channel", channel_id)
    if sub is None or sub.is_active or sub.paused_reason not in ("not_in_channel", "channel_not_found"):
        return []
    if not services.subscriptions.resume(sub.id):
        return []
    services.reschedule(sub.id)
    sub = services.subscriptions.get(sub.id) or sub
    announce(services, sub, "subscribe.announce_joined", sub.created_by)
    return [sub]
