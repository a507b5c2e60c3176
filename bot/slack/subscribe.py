"""/papers subscribe, subscriptions, unsubscribe and digest: the answers, and App Home's list.

Pure answers over `Digests` (bot/slack/digest.py): they read and change subscriptions in
SQLite and return what to show; the scheduler hears of every change through
`digests.changed(sub_id)`.
"""

from __future__ import annotations

import logging
from datetime import datetime

from bot.digest import Digest, next_run
from bot.i18n import choose_lang, is_lang, normalize_lang, t
from bot.slack.blocks import (
    Message,
    button,
    context,
    escape,
    escape_code,
    header,
    section,
    truncate,
)
from bot.slack.commands import LIST_WORDS, PREVIEW_WORDS, SUBSCRIBE_WORDS, UNSUBSCRIBE_WORDS, is_dm
from bot.slack.digest import (
    BAD_FILTER_PROBLEMS,
    Digests,
    filter_problem_text,
    format_when,
    paused_reason,
    render_preview,
    resume_hint,
)
from bot.subscriptions import (
    SubscribeError,
    Subscription,
    parse_subscribe,
)

logger = logging.getLogger(__name__)

SAMPLE_PAPERS = 5


def _place_kind(user_id: str, channel_id: str, channel_name: str) -> tuple[str, str]:
    return ("user", user_id) if is_dm(channel_id, channel_name) else ("channel", channel_id)


def place_label(sub: Subscription, lang: str) -> str:
    if sub.kind == "channel":
        return t("subscribe.place_channel", lang, channel_id=sub.place_id)
    return t("subscribe.place_your_dm", lang)


def _lang_name(lang: str, shown_in: str) -> str:
    return t(f"lang.name_{lang}", shown_in)


def answer_digest_command(
    digests: Digests, *, user_id: str, channel_id: str, text: str, channel_name: str = "", stored_lang: str | None = None
):
    """Answer `/papers subscribe|subscriptions|unsubscribe|digest ...` with a Reply."""
    from bot.slack.commands import Reply, notice

    text = " ".join((text or "").split())
    word, _, rest = text.partition(" ")
    word = word.lower()
    lang = choose_lang(stored_lang, text)  # the command word counts: `/papers 订阅列表` is Chinese
    if word in SUBSCRIBE_WORDS:
        return answer_subscribe(digests, user_id=user_id, channel_id=channel_id, channel_name=channel_name, rest=rest, lang=lang)
    if word in LIST_WORDS:
        return Reply(render_subscription_list(digests, user_id, channel_id, channel_name, lang), lang=lang)
    if word in UNSUBSCRIBE_WORDS:
        return answer_unsubscribe(digests, user_id=user_id, channel_id=channel_id, channel_name=channel_name, rest=rest, lang=lang)
    if word in PREVIEW_WORDS:
        return answer_preview(digests, user_id=user_id, channel_id=channel_id, channel_name=channel_name, rest=rest, lang=lang)
    return notice("error.generic", lang)


def answer_subscribe(digests: Digests, *, user_id: str, channel_id: str, channel_name: str, rest: str, lang: str):
    """Create or update this place's subscription.

    With options, the line describes the whole subscription (omitted ones take their
    defaults: `lang`, i.e. the reader's `/papers lang`, else the language the command was
    typed in; 09:00, PAPERBOT_TIMEZONE, no filter). `/papers subscribe` alone keeps an
    existing subscription's settings, which is how a paused one resumes.
    """
    from bot.slack.commands import Reply, notice

    if rest.strip().lower() in ("help", "帮助", "?"):
        return Reply(Message(text=t("subscribe.help", lang, zone=digests.default_timezone).split("\n")[0],
                             blocks=[section(t("subscribe.help", lang, zone=digests.default_timezone))]), lang=lang)  # fmt: skip
    try:
        request = parse_subscribe(rest)
    except SubscribeError as error:
        return notice(f"subscribe.{error.key}", lang, **error.fmt)
    kind, place_id = _place_kind(user_id, channel_id, channel_name)
    existing = digests.subscriptions.for_place(kind, place_id)
    if existing and not rest.strip():
        sub_lang, hour, minute, zone, filter_text, notify = (
            existing.lang, existing.hour, existing.minute, existing.timezone, existing.filter_text, existing.notify_empty
        )  # fmt: skip
    else:
        sub_lang = request.lang or lang
        hour = request.hour if request.hour is not None else 9
        minute = request.minute if request.minute is not None else 0
        zone = request.timezone or digests.default_timezone
        filter_text, notify = request.filter_text, bool(request.notify_empty)
    lang = sub_lang
    matches, suggestion = 0, None
    if filter_text:
        corpus = digests.corpus
        if not corpus.is_ready():
            return notice("error.not_ready", lang)
        result = corpus.search(filter_text, per_page=1, expand=False)
        if result.problem in BAD_FILTER_PROBLEMS:
            return notice("subscribe.bad_filter", lang, filter=escape(truncate(filter_text, 200)), problem=filter_problem_text(result.problem, lang))
        # Digests take a filter literally (Corpus.new_papers): a count found through a
        # spelling correction or the any-word fallback would promise papers never sent.
        literal = result.mode == "all" and result.suggestion is None
        matches = result.total if literal else 0
        suggestion = result.suggestion
    sub, created = digests.subscriptions.save(
        kind=kind, place_id=place_id, user_id=user_id, lang=sub_lang, hour=hour, minute=minute,
        timezone=zone, filter_text=filter_text, notify_empty=notify,
    )  # fmt: skip
    digests.changed(sub.id)
    now = digests.clock()
    place = t("subscribe.place_channel", lang, channel_id=channel_id) if kind == "channel" else t("subscribe.place_dm", lang)
    filter_note = t("subscribe.filter_note", lang, filter=escape(truncate(filter_text, 200)), count=matches) if filter_text else ""
    key = "subscribe.created" if created else "subscribe.updated"
    lines = [
        t(key, lang, place=place, time=sub.time_label, zone=sub.timezone, lang_name=_lang_name(sub.lang, lang),
          filter_note=filter_note, next_run=format_when(next_run(sub, now), lang))
    ]  # fmt: skip
    if filter_text and not matches and suggestion:  # a typo the search would have forgiven
        lines.append(t("subscribe.filter_did_you_mean", lang, suggestion=escape_code(truncate(suggestion, 200))))
    elif filter_text and not matches:  # most likely a typo; say so while it is easy to fix
        lines.append(t("subscribe.filter_no_match", lang, filter=escape_code(truncate(filter_text, 200))))
    if existing and not existing.is_active:
        lines.append(t("subscribe.resumed", lang, reason=paused_reason(existing.paused_reason, lang)))
    if sub.notify_empty:
        lines.append(t("subscribe.notify_empty_note", lang))
    return notice_lines(lines, lang)


def notice_lines(lines: list[str], lang: str):
    from bot.slack.blocks import render_notice
    from bot.slack.commands import Reply

    return Reply(render_notice("\n".join(lines)), lang=lang)


def subscriptions_here(digests: Digests, user_id: str, channel_id: str, channel_name: str) -> list[Subscription]:
    """In a channel: its digest. In a DM: the person's own, then the channels they set up."""
    if is_dm(channel_id, channel_name):
        return digests.subscriptions.for_user(user_id)
    sub = digests.subscriptions.for_place("channel", channel_id)
    return [sub] if sub else []


def subscription_lines(subs: list[Subscription], lang: str, now: datetime) -> list[str]:
    lines = []
    for number, sub in enumerate(subs, start=1):
        place = place_label(sub, lang)
        if not sub.is_active:
            lines.append(t("subscribe.list_paused", lang, number=number, place=place, reason=paused_reason(sub.paused_reason, lang)))
            continue
        filter_bit = t("subscribe.list_filter", lang, filter=escape(truncate(sub.filter_text, 200))) if sub.filter_text else ""
        lines.append(
            t("subscribe.list_item", lang, number=number, place=place, time=sub.time_label, zone=sub.timezone,
              lang_name=_lang_name(sub.lang, lang), filter=filter_bit, next_run=format_when(next_run(sub, now), lang))
        )  # fmt: skip
    return lines


def render_subscription_list(digests: Digests, user_id: str, channel_id: str, channel_name: str, lang: str) -> Message:
    subs = subscriptions_here(digests, user_id, channel_id, channel_name)
    if not subs:
        text = t("subscribe.list_none", lang)
        return Message(text=text, blocks=[section(text)])
    where = t("subscribe.place_you", lang) if is_dm(channel_id, channel_name) else t("subscribe.place_channel", lang, channel_id=channel_id)
    head = t("subscribe.list_header", lang, place=where)
    body = "\n".join(subscription_lines(subs, lang, digests.clock()))
    return Message(text=head.replace("*", ""), blocks=[section(f"{head}\n{body}"), context(t("subscribe.list_footer", lang))])


def answer_unsubscribe(digests: Digests, *, user_id: str, channel_id: str, channel_name: str, rest: str, lang: str):
    from bot.slack.commands import notice

    subs = subscriptions_here(digests, user_id, channel_id, channel_name)
    arg = rest.strip().lstrip("#")
    if not subs:
        return notice("subscribe.nothing_to_remove", lang)
    if not arg:
        if len(subs) > 1:
            reply = notice("subscribe.which", lang, count=len(subs))
            reply.message.blocks.insert(1, section("\n".join(subscription_lines(subs, lang, digests.clock()))))
            return reply
        chosen = subs[0]
    else:
        if not arg.isdigit() or not 1 <= int(arg) <= len(subs):
            return notice("subscribe.bad_number", lang, value=escape(truncate(arg, 20)))
        chosen = subs[int(arg) - 1]
    digests.subscriptions.delete(chosen.id)
    digests.changed(chosen.id)
    return notice("subscribe.removed", lang, place=place_label(chosen, lang))


def answer_preview(digests: Digests, *, user_id: str, channel_id: str, channel_name: str, rest: str, lang: str):
    """`/papers digest [en|zh]`: privately, what this place's next digest would hold now."""
    from bot.slack.commands import Reply, notice

    kind, place_id = _place_kind(user_id, channel_id, channel_name)
    sub = digests.subscriptions.for_place(kind, place_id)
    arg = rest.strip()
    asked = normalize_lang(arg) if is_lang(arg) else None
    corpus = digests.corpus
    lang = asked or (sub.lang if sub else lang)
    if not corpus.is_ready():
        return notice("error.not_ready", lang)
    notes = [t("digest.preview_ignored", lang, ignored=escape(truncate(arg, 100)))] if arg and not asked else []
    now = digests.clock()
    if sub is None:
        newest = sorted(corpus.newest(SAMPLE_PAPERS), key=lambda p: p.seq)
        sample = Digest(lang=lang, local_date=now.date(), papers=newest)
        notes.append(t("digest.preview_no_subscription", lang))
        message = render_preview(sample, "", sample=True, note="\n".join(notes), shareable=kind == "channel")
        return Reply(message, lang=lang)
    digest = digests.service.preview(sub, lang)
    when = format_when(next_run(sub, now), lang)
    if not sub.is_active:  # no run is coming: say why, and how to resume it
        notes.append(t("digest.preview_paused", lang, reason=paused_reason(sub.paused_reason, lang), fix=resume_hint(sub.paused_reason, lang)))
        when = ""
    return Reply(render_preview(digest, when, note="\n".join(notes), shareable=kind == "channel"), lang=lang)


HOME_SUBSCRIPTIONS_SHOWN = 15


def render_home_subscriptions(digests: Digests, user_id: str, lang: str) -> list[dict]:
    """The App Home's digest section: the reader's own digest and the channels they set up.

    Each row has its own Unsubscribe button: `/papers unsubscribe N` numbers only work in
    a DM with the bot, and Home is not one.
    """
    subs = digests.subscriptions.for_user(user_id)[:HOME_SUBSCRIPTIONS_SHOWN]
    blocks: list[dict] = [header(t("home.subscriptions_title", lang))]
    if not subs:
        blocks.append(section(t("home.subscriptions_none", lang)))
        return blocks
    for sub, line in zip(subs, subscription_lines(subs, lang, digests.clock()), strict=True):
        blocks.append(section(line, block_id=f"home_sub:{sub.id}", accessory=unsubscribe_button(sub, lang)))
    blocks.append(context(t("home.subscriptions_footer", lang)))
    return blocks


def unsubscribe_button(sub: Subscription, lang: str) -> dict:
    element = button(t("button.unsubscribe", lang), "home_unsubscribe", {"id": sub.id, "l": lang})
    element["confirm"] = {
        "title": {"type": "plain_text", "text": t("home.unsubscribe_confirm_title", lang)},
        "text": {"type": "plain_text", "text": t("home.unsubscribe_confirm_text", lang)},
        "confirm": {"type": "plain_text", "text": t("button.unsubscribe", lang)},
        "deny": {"type": "plain_text", "text": t("button.keep", lang)},
        "style": "danger",
    }
    return element


def unsubscribe_from_home(digests: Digests, user_id: str, sub_id: object) -> bool:
    """Stop a digest from its Home button; only one Home lists for this user (a stale or
    forged id is ignored). Return whether one was removed."""
    chosen = next((s for s in digests.subscriptions.for_user(user_id) if str(s.id) == str(sub_id)), None)
    if chosen is None:
        return False
    digests.subscriptions.delete(chosen.id)
    digests.changed(chosen.id)
    return True


