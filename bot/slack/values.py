"""The wire formats of paperbot's Slack messages: action ids, and what a button carries.

Slack hands a click back with the button's `action_id` and its `value` (at most 2,000
characters; an overflow option's, 150). Messages stay in channels for years, so these
formats are a contract with every message already posted: a key is never renamed or
given a new meaning, only added.

A value is compact JSON with one-letter keys (`ButtonValue` names them):

    id   the paper the button acts on (a subscription's id, for Unsubscribe in App Home and its Undo)
    l    the language the message was rendered in (the reader's saved language wins)
    q    the query of a results page, or of a suggested search; a `/papers` line (papers_command)
    p    the page number a paging button asks for
    m    which view a click redraws: search | more | saved | details | foryou | home | note
    k    the paper a More-like-this page is like (`id` is then the paper a Save saves)
    x    1: search the text as typed, without spelling correction (a subscribe: take its filter as typed)
    a    an overflow option's action (a digest row's menu)

A value never carries a user id: whose save or setting a click changes comes from
Slack's signed payload.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from enum import StrEnum

__all__ = [
    "BUTTON_ACTIONS",
    "HOME_EXAMPLE",
    "INTERESTS_VIEW",
    "LINK",
    "MENU_ACTIONS",
    "NUMBERED",
    "QUERY_CHARS_IN_VALUE",
    "SETTINGS_ADMINS_VIEW",
    "SETTINGS_ZONE_VIEW",
    "Action",
    "ButtonValue",
    "base_action",
    "decode_value",
    "encode_value",
    "home_example_id",
    "link_action_id",
    "numbered_id",
]


class Action(StrEnum):
    """Every `action_id` paperbot renders (a StrEnum: equal to the string Slack sends back)."""

    SHARE = "paper_share"  # Share, on a result or a card: post it in the channel
    DETAILS = "paper_details"  # Details: the whole card, privately
    MORE = "paper_more"  # More like this
    SAVE = "paper_save"  # Save / Saved ✓ / Remove: toggles the clicker's own save
    NEXT = "results_next"  # paging, for results, More like this and saved papers
    PREV = "results_prev"
    SEARCH = "search_run"  # a suggested search, or "search instead for" the text as typed
    SHARE_POST = "share_post"  # the preview of `/papers share`: post it...
    SHARE_CANCEL = "share_cancel"  # ...or not
    MENU = "paper_menu"  # a digest row's overflow menu; the option's value names the action (`a`)
    MENU_LINK = "link"  # a menu option that is a link (Slack opens it; nothing to answer)
    HOME_EXAMPLE = "home_example"  # an example search in App Home (rendered as home_example_<n>)
    HOME_LANG = "home_lang"  # the language picker in App Home
    HOME_UNSUBSCRIBE = "home_unsubscribe"  # a digest's Unsubscribe button in App Home
    COMMAND = "papers_command"  # a next step: runs the `/papers` line `q` for the clicker, in a new private answer
    CONFIRM = "papers_confirm"  # answers a question (which filter?): runs `q` in its place; `x`: the filter as typed
    CANCEL = "papers_cancel"  # ...or leaves it; `m` names what was not done ("subscribe")
    UNSUBSCRIBE_UNDO = "unsubscribe_undo"  # restores the digest `id` that /papers unsubscribe just stopped
    LIKE = "paper_like"  # 👍: more like this, for the clicker (and, on a channel's card, one vote of the channel's)
    DISLIKE = "paper_dislike"  # 👎: not for me; never again in the clicker's for-you
    UNVOTE = "paper_unvote"  # Undo, on the private note a 👍 / 👎 answers with
    HOME_INTEREST_REMOVE = "home_interest_remove"  # App Home: removes the interest `q` (the clicker's own)
    HOME_INTERESTS_ADD = "home_interests_add"  # App Home: opens the modal that adds interests (INTERESTS_VIEW)
    INTERESTS_INPUT = "interests_text"  # the modal's text input
    HOME_SETTINGS_LANG = "home_settings_lang"  # App Home, admins: the workspace's default digest language (a select)
    HOME_SETTINGS_UPLOADS = "home_settings_uploads"  # App Home, admins: uploads shared or private (a select)
    HOME_SETTINGS_ZONE = "home_settings_zone"  # App Home, admins: opens the time-zone modal (SETTINGS_ZONE_VIEW)
    HOME_SETTINGS_ADMINS = "home_settings_admins"  # App Home, admins: opens the admins modal (SETTINGS_ADMINS_VIEW)
    SETTINGS_ZONE_INPUT = "settings_zone"  # the time-zone modal's text input
    SETTINGS_ADMINS_INPUT = "settings_admins"  # the admins modal's people picker


BUTTON_ACTIONS = frozenset(
    {
        Action.SHARE,
        Action.DETAILS,
        Action.MORE,
        Action.SAVE,
        Action.NEXT,
        Action.PREV,
        Action.SEARCH,
        Action.SHARE_POST,
        Action.SHARE_CANCEL,
        Action.COMMAND,
        Action.CONFIRM,
        Action.CANCEL,
        Action.UNSUBSCRIBE_UNDO,
        Action.LIKE,
        Action.DISLIKE,
        Action.UNVOTE,
    }
)
"""The buttons answered by bot/slack/listeners/actions.py."""
MENU_ACTIONS = frozenset({Action.DETAILS, Action.MORE, Action.SAVE, Action.LIKE, Action.DISLIKE})
"""What a digest row's menu may ask for; a link option, or a forged one, gets no answer."""

LINK = re.compile(r"^link_(arxiv|pdf|code|project)_\d+$")
"""URL buttons (arXiv, PDF, Code, Project): Slack opens the page and still tells the app."""
INTERESTS_VIEW = "interests_add"
"""The callback_id of App Home's Add interests modal: its view_submission adds them."""
SETTINGS_ZONE_VIEW = "settings_zone"
"""The callback_id of App Home's time-zone modal (workspace settings): its submission sets the zone."""
SETTINGS_ADMINS_VIEW = "settings_admins"
"""The callback_id of App Home's admins modal (workspace settings): its submission sets who they are."""
HOME_EXAMPLE = re.compile(rf"^{Action.HOME_EXAMPLE}_\d+$")
"""App Home's example searches: action ids must be unique within a block, so each is numbered."""


def link_action_id(kind: str, number: int) -> str:
    """The action id of the `number`th link button of `kind` (arxiv, pdf, code, project)."""
    return f"link_{kind}_{number}"


def home_example_id(number: int) -> str:
    return f"{Action.HOME_EXAMPLE}_{number}"


NUMBERED = re.compile(rf"^({Action.COMMAND}|{Action.CONFIRM})_\d+$")
"""Buttons that run a `/papers` line come several to a block, and action ids must be unique
within one: each is numbered (`papers_command_2`) and read back as its action (`base_action`)."""


def numbered_id(action: Action, number: int) -> str:
    return f"{action}_{number}"


def base_action(action_id: str) -> str:
    """`papers_command_2` -> `papers_command`; any other id as it is."""
    match = NUMBERED.match(action_id)
    return match.group(1) if match else action_id


QUERY_CHARS_IN_VALUE = 1500  # leaves room for the rest of a button's JSON value (2,000)


@dataclass(frozen=True)
class ButtonValue:
    """What a button or menu option carries, by name; `encode_value` writes the one-letter keys."""

    id: str = ""
    lang: str = ""
    query: str = ""
    page: int = 0  # 0: not given (a paging button always gives one; readers use `page_or(1)`)
    mode: str = ""
    like_id: str = ""
    exact: bool = False
    action: str = ""

    def page_or(self, default: int = 1) -> int:
        return self.page if self.page >= 1 else default

    def but(self, **changes: object) -> ButtonValue:
        """This value with some fields changed (`value.but(page=2)`)."""
        return replace(self, **changes)  # type: ignore[arg-type]


_WIRE = (
    ("mode", "m"),
    ("action", "a"),
    ("id", "id"),
    ("like_id", "k"),
    ("query", "q"),
    ("lang", "l"),
    ("page", "p"),
    ("exact", "x"),
)
"""Field name -> key on the wire, in the order keys are written."""


def encode_value(value: ButtonValue) -> str:
    """Pack a button's value as compact JSON, only the fields it sets; a long query is cut
    so the value stays within Slack's limit."""
    data: dict[str, object] = {}
    for name, key in _WIRE:
        field_value = getattr(value, name)
        if not field_value:
            continue
        if name == "query":
            field_value = str(field_value)[:QUERY_CHARS_IN_VALUE]
        elif name == "exact":
            field_value = 1
        data[key] = field_value
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def decode_value(raw: str | None) -> ButtonValue:
    """Unpack a button's value; anything unreadable becomes an empty value (a stale or forged click)."""
    try:
        data = json.loads(raw or "{}")
    except ValueError:
        return ButtonValue()
    if not isinstance(data, dict):
        return ButtonValue()
    return ButtonValue(
        id=_text(data.get("id")),
        lang=_text(data.get("l")),
        query=_text(data.get("q")),
        page=_page(data.get("p")),
        mode=_text(data.get("m")),
        like_id=_text(data.get("k")),
        exact=bool(data.get("x")),
        action=_text(data.get("a")),
    )


def _text(raw: object) -> str:
    return str(raw) if isinstance(raw, str | int) and not isinstance(raw, bool) else ""


def _page(raw: object) -> int:
    try:
        return max(1, int(raw))  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return 0
