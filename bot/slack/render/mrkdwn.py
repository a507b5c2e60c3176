"""Untrusted text made safe for Slack's mrkdwn, and what people typed read back as plain text.

Papers come from listings and feeds anyone can write, and queries from anyone in the
workspace: every such string goes through `escape` (or `escape_label` inside a link,
`escape_code` inside code) before it is sent, so no mention, link or formatting in it
ever takes effect.
"""

from __future__ import annotations

import re

# mrkdwn's formatting characters, mapped to look-alikes that format nothing: ∗ (U+2217),
# ˍ (U+02CD), ∼ (U+223C), ˋ (U+02CB). A look-alike keeps "A* search" and "x_1" readable,
# where a backslash would show (mrkdwn has no escape) and a zero-width space would not stop
# `_` from closing an italic run. ˍ is a letter, so it also can't make a word boundary.
_INERT = str.maketrans({"*": "\u2217", "_": "\u02cd", "~": "\u223c", "`": "\u02cb"})


# A bare URL in paper text, up to whitespace, Slack's markup characters, quotes, or CJK text
# and punctuation ("代码见https://x.org/a，以及").
_BARE_URL = re.compile(r"https?://[^\s<>|\"“”‘’\u3000-\u9fff\uff00-\uffef]+")


_URL_TRAIL = ".,;:!?'…"


_OPENER = {")": "(", "]": "[", "}": "{"}


def escape_code(text: str) -> str:
    """Escape text for inside `code` or a ```block```: Slack's `& < >`, and no stray backtick."""
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("`", "\u02cb")


def escape_label(text: str) -> str:
    """Make untrusted text inert in mrkdwn: no markup, no bold/italic/strike/code.

    For a link's label (`<url|label>`), where a nested link can't go; elsewhere use `escape`.
    """
    return (text or "").replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").translate(_INERT)


def escape(text: str) -> str:
    """Make untrusted text inert in mrkdwn, with its bare URLs as explicit, byte-exact links.

    Slack links bare URLs itself, but it would link the look-alike `ˍ` of `my_repo`;
    inside `<url>` nothing is formatted, so the URL goes out exactly as written.
    """
    text = text or ""
    parts, pos = [], 0
    for match in _BARE_URL.finditer(text):
        url = _trim_url(match.group())
        if len(url) <= len("https://"):
            continue
        parts.append(escape_label(text[pos : match.start()]))
        parts.append(f"<{url}>")
        pos = match.start() + len(url)
    parts.append(escape_label(text[pos:]))
    return "".join(parts)


def _trim_url(url: str) -> str:
    """Drop what ends a sentence rather than the URL: "see https://a.org/x." or "(https://a.org)".

    A closing bracket goes while the URL holds more of it than of its opener. The counts
    are taken once and kept as the end moves: counted again for each character dropped,
    a URL ending in 50,000 `)` took seconds (quadratic), in every view that showed it.
    """
    counts = {bracket: url.count(bracket) for bracket in "()[]{}"}
    end = len(url)
    while end:
        last = url[end - 1]
        if last in _URL_TRAIL:
            end -= 1
        elif last in _OPENER and counts[last] > counts[_OPENER[last]]:
            counts[last] -= 1
            end -= 1
        else:
            break
    return url[:end]


def unescape_entities(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


# Slack's markup in what people type: <https://a.org|label>, <https://a.org>, <@U123>,
# <@U123|name>, <#C123|general>, <!here>, <!subteam^S1|@team>, <mailto:a@b.org|a@b.org>.
_SLACK_TOKEN = re.compile(r"<([^<>|]*)(?:\|([^<>]*))?>")


def unescape_slack_text(text: str) -> str:
    """Read what a user typed in Slack back as plain text.

    Slack sends `&`, `<` and `>` as entities and wraps links, mentions and channels in
    `<...>`. Links become their label (or the URL when there is none), channels `#name`;
    user and special mentions (`<@U123>`, `<!here>`) are dropped, since they say nothing
    about papers. `&amp;lt;` (a typed `&lt;`) stays `&lt;`: entities are read once.
    """

    def token(match: re.Match) -> str:
        target, label = match.group(1), match.group(2)
        if target.startswith(("@", "!")):
            return " "
        if target.startswith("#"):
            return f"#{label}" if label else " "
        return label if label else target

    text = _SLACK_TOKEN.sub(token, text or "")
    return re.sub(r"&(lt|gt|amp);", lambda m: {"lt": "<", "gt": ">", "amp": "&"}[m.group(1)], text)


_MENTION = re.compile(r"<@([UW][A-Z0-9_]{2,})(?:\|[^>]*)?>")
_USER_ID = re.compile(r"^[UW](?=[A-Z0-9_]*\d)[A-Z0-9_]{6,}$")  # a digit: not a word in capitals


def mentioned_users(text: str) -> list[str]:
    """The people a line names, in order, once each: Slack's mentions (`<@U123|ann>`, sent
    when the command escapes them), and user ids typed out (`U0123ABCD`)."""
    found = [m.group(1) for m in _MENTION.finditer(text or "")]
    found += [word for word in _MENTION.sub(" ", text or "").split() if _USER_ID.match(word)]
    return list(dict.fromkeys(found))


def is_linkable(url: str) -> bool:
    return bool(url) and len(url) <= 1000 and not any(c in url for c in "<>| ")


def link(url: str, label: str) -> str:
    """`<url|label>`, the URL byte-exact; just the (escaped) label when the URL can't be a link."""
    return f"<{url}|{label}>" if is_linkable(url) else label
