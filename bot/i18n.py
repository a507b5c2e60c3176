"""Every user-facing string, English and Chinese side by side.

`t(key, lang, **fmt)` looks a message up and formats it. Keys are grouped by prefix
(`listing.`, `cli.`, `search.`, ...); every key has both languages with the same
placeholders (tests/test_i18n.py checks this), so the two never drift apart.
"""

from __future__ import annotations

LANGS = ("en", "zh")

MESSAGES: dict[str, dict[str, str]] = {
    # -- listing: why a file or record was rejected (file:line is added by the caller) --
    "listing.file_binary": {
        "en": "this is a binary file, not a text listing; export the listing as UTF-8 text and try again",
        "zh": "这是二进制文件，不是文本列表；请将列表导出为 UTF-8 文本后重试",
    },
    "listing.file_not_utf8": {
        "en": "the file is not UTF-8 text (invalid byte at offset {offset}); re-save it as UTF-8 and try again",
        "zh": "文件不是 UTF-8 文本（第 {offset} 字节无效）；请另存为 UTF-8 后重试",
    },
    "listing.file_not_utf8_gbk": {
        "en": "the file is not UTF-8 text (it looks like GBK/GB18030, invalid byte at offset {offset}); re-save it as UTF-8 and try again",
        "zh": "文件不是 UTF-8 文本（看起来是 GBK/GB18030 编码，第 {offset} 字节无效）；请另存为 UTF-8 后重试",
    },
    "listing.file_unreadable": {
        "en": "the file cannot be read ({detail})",
        "zh": "无法读取文件（{detail}）",
    },
    "listing.file_empty": {
        "en": "the file is empty; its first line must name the feed (e.g. ICML), followed by records",
        "zh": "文件为空；第一行应写明来源（如 ICML），之后是论文记录",
    },
    "listing.feed_missing": {
        "en": "the first line must name the feed (e.g. ICML), but it is a record field; add the feed name as the first line",
        "zh": "第一行应写明来源（如 ICML），但这里是记录字段；请在首行加上来源名称",
    },
    "listing.record_no_summary": {
        "en": "record has no 'AI总结' line, so it cannot be told apart from the next one; add the summary line after the authors",
        "zh": "记录缺少“AI总结”行，无法与下一条记录区分；请在作者行之后补上摘要行",
    },
    "listing.record_short": {
        "en": "record needs an English title, a Chinese title and an author line before 'AI总结', but has {found} line(s); add the missing line",
        "zh": "“AI总结”之前应有英文标题、中文标题和作者三行，但只有 {found} 行；请补上缺少的行",
    },
    "listing.record_two_affiliations": {
        "en": "record has two '机构' lines; join the affiliations into one line separated by '；'",
        "zh": "记录有两行“机构”；请合并为一行，用“；”分隔",
    },
    "listing.record_title_not_english": {
        "en": "the first line of a record must be the English title, but this one has only Chinese; put the English title first",
        "zh": "记录第一行应为英文标题，但这一行只有中文；请把英文标题放在第一行",
    },
    "listing.record_misplaced_line": {
        "en": "a second 'AI总结' or a '机构' line comes after the summary; each record has one of each, before 'Comments'",
        "zh": "摘要之后又出现“AI总结”或“机构”行；每条记录各只有一行，且位于 Comments 之前",
    },
}


def t(key: str, lang: str = "en", /, **fmt: object) -> str:
    """Return message `key` in `lang` (falling back to English), formatted with `fmt`."""
    entry = MESSAGES[key]
    text = entry.get(lang) or entry["en"]
    return text.format(**fmt) if fmt else text
