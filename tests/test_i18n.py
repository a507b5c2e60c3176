"""Every user-facing string exists in English and Chinese with the same placeholders."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from bot import i18n
from bot.i18n import MESSAGES, choose_lang, detect_lang, normalize_lang, t


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("key", sorted(MESSAGES))
def test_every_key_has_both_languages_and_the_same_placeholders(key):
    entry = MESSAGES[key]
    assert set(entry) == set(i18n.LANGS)
    assert entry["en"].strip() and entry["zh"].strip()
    assert fields(entry["en"]) == fields(entry["zh"])


@pytest.mark.parametrize("key", sorted(MESSAGES))
def test_every_message_formats(key):
    dummy = {name: "1" for name in fields(MESSAGES[key]["en"])}
    for lang in i18n.LANGS:
        assert t(key, lang, **dummy)


def test_chinese_messages_are_chinese():
    # Command examples and names may be Latin, but each Chinese message has some Chinese in it
    # (one made only of placeholders and punctuation, such as a date and time, has no words).
    def wordless(text: str) -> bool:
        return not re.search(r"[A-Za-z]", re.sub(r"{\w+}", "", text))

    latin_only = [k for k, v in MESSAGES.items() if not re.search(r"[\u4e00-\u9fff]", v["zh"]) and not wordless(v["zh"])]
    assert latin_only == []


def test_every_key_the_slack_layer_uses_exists():
    used: set[str] = set()
    for path in [*Path("bot/slack").glob("*.py"), Path("bot/console.py")]:
        used |= set(
            re.findall(
                r"""["']((?:help|search|button|card|share|slack|error|lang|home|console|setup)\.[a-z_]+)["']""", path.read_text()
            )
        )
    assert used and used <= set(MESSAGES), used - set(MESSAGES)


@pytest.mark.parametrize(
    ("text", "lang"),
    [("speculative decoding", "en"), ("推测解码", "zh"), ("KV缓存", "zh"), ("", "en"), ("ÉCOLE", "en"), ("㐀", "zh")],
)
def test_detect_lang(text, lang):
    assert detect_lang(text) == lang


@pytest.mark.parametrize(
    ("stored", "text", "lang"), [(None, "推测", "zh"), (None, "kv", "en"), ("en", "推测", "en"), ("zh", "kv", "zh")]
)
def test_choose_lang_prefers_the_setting(stored, text, lang):
    assert choose_lang(stored, text) == lang


@pytest.mark.parametrize(("raw", "lang"), [("zh-CN", "zh"), ("EN", "en"), ("fr", "en"), (None, "en"), ("中文", "zh")])
def test_normalize_lang(raw, lang):
    assert normalize_lang(raw) == lang


def test_t_falls_back_to_english_and_fails_loudly_on_unknown_keys():
    assert t("button.share", "fr") == "Share"
    assert t("button.share", "zh") == "分享"
    with pytest.raises(KeyError):
        t("no.such.key", "en")


@pytest.mark.parametrize(
    ("key", "fmt", "en"),
    [
        ("digest.count", {"count": 1}, "*1* new paper"),
        ("digest.count", {"count": 2}, "*2* new papers"),
        ("digest.notification", {"count": 1, "date": "d", "digest": "Paper digest"}, "Paper digest for d: 1 new paper"),
        ("digest.held_back", {"count": 1}, "1 more new paper didn't fit today; it leads the next digest."),
        ("search.more_like_header", {"total": 1, "title": "T", "page": 1, "pages": 1}, "*1* paper like “T” · page 1 of 1"),
        ("search.header", {"total": 1, "query": "q", "page": 1, "pages": 1}, "*1* paper for “q” · page 1 of 1"),
        ("search.header", {"total": 11, "query": "q", "page": 1, "pages": 3}, "*11* papers for “q” · page 1 of 3"),
        ("subscribe.filter_note", {"count": 1, "filter": "f"}, ", for papers matching “f” (1 in the library matches today)"),
        ("home.intro", {"count": 1}, "Find papers in English and Chinese. *1* paper in the library."),
    ],
)
def test_one_takes_the_singular(key, fmt, en):
    assert t(key, "en", **fmt) == en
    assert t(key, "zh", **fmt)  # Chinese has no plural; the same sentence either way


def test_every_singular_has_its_plural():
    assert [k for k in MESSAGES if k.endswith("_one") and k.removesuffix("_one") not in MESSAGES] == []


def test_chinese_calls_a_digest_ribao_not_a_summary():
    # 摘要 is a paper's summary; the daily digest is 日报 everywhere.
    assert [k for k, v in MESSAGES.items() if "每日摘要" in v["zh"] or "摘要内容" in v["zh"]] == []
    assert "日报" in t("subscribe.help", "zh", zone="北京时间")


@pytest.mark.parametrize(
    ("key", "place", "expected"),
    [
        ("subscribe.created", "频道 <#C1>", "已为频道 <#C1> 订阅论文日报"),
        ("subscribe.created", "你", "已为你订阅论文日报"),
        ("subscribe.updated", "频道 <#C1>", "已更新频道 <#C1> 的论文日报"),
        ("subscribe.list_header", "频道 <#C1>", "*频道 <#C1> 的论文日报*"),
        ("subscribe.removed", "频道 <#C1>", "已取消订阅：频道 <#C1> 不再收到论文日报。"),
        ("subscribe.removed", "你的私信", "已取消订阅：你的私信不再收到论文日报。"),
        ("digest.paused_dm", "你的私信", "你的私信的论文日报已暂停"),
    ],
)
def test_chinese_puts_a_space_between_a_mention_and_chinese(key, place, expected):
    fmt = {name: "x" for name in fields(MESSAGES[key]["zh"])} | {"digest": "论文日报"}
    assert expected in t(key, "zh", **{**fmt, "place": place})


def test_the_channel_place_has_no_stray_spaces():
    assert t("subscribe.place_channel", "zh", channel_id="C1") == "频道 <#C1>"
    assert t("card.shared_by", "zh", user_id="U1") == "<@U1> 分享了这篇论文"
    assert t("search.none", "zh", query="<https://a.org>") == "没有找到与“<https://a.org>”相关的论文。"  # links are not mentions


# Half-width punctuation that Chinese text writes full-width: ， ； ： （ ） ！ ？
_HALF_WIDTH = ",;:()!?"
_HAN = r"[\u3400-\u4dbf\u4e00-\u9fff]"
_CODE = re.compile(r"`[^`]*`|<[^<>]*>|{\w+}|https?://\S+")


_EMOJI = re.compile(r":[a-z0-9_+-]+:")


def half_width_between_chinese(text: str) -> list[str]:
    """Half-width punctuation touching a Chinese character, outside `code`, <links>, {fields}
    and Slack's :emoji: codes."""
    plain = _EMOJI.sub(" ", _CODE.sub(" ", text))
    found = re.findall(rf"{_HAN}\s*[{re.escape(_HALF_WIDTH)}]|[{re.escape(_HALF_WIDTH)}]\s*{_HAN}", plain)
    return found


@pytest.mark.parametrize(
    ("text", "bad"),
    [("麻省理工学院; 丰田研究院", True), ("分享了这篇论文: ", True), ("（中文）", False), ("用 `a:b` 试试", False),
     ("时间（UTC+8）", False), ("见 (附录)", True), ("点击 <https://a.org|这里>。", False), (":hourglass: 正在搜索", False)],
)  # fmt: skip
def test_the_punctuation_check_finds_half_width_marks_in_chinese(text, bad):
    assert bool(half_width_between_chinese(text)) is bad


def test_chinese_strings_use_full_width_punctuation():
    # Guards every Chinese string, including the ones other features add.
    bad = {key: half_width_between_chinese(v["zh"]) for key, v in MESSAGES.items() if half_width_between_chinese(v["zh"])}
    assert bad == {}


def test_chinese_counts_authors_the_chinese_way_and_calls_the_summary_ai_zongjie():
    assert t("card.authors_more", "zh", count=6) == "等 6 人"
    assert t("card.label_summary", "zh") == "AI 总结"
    assert not [k for k, v in MESSAGES.items() if "及另外" in v["zh"]]
