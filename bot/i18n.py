"""Every user-facing string, English and Chinese side by side.

`t(key, lang, **fmt)` looks a message up and formats it. Keys are grouped by prefix
(`listing.`, `search.`, `card.`, `slack.`, `home.`, ...); every key has both languages with
the same placeholders (tests/test_i18n.py checks this), so the two never drift apart.

Strings shown in Slack are mrkdwn: `*bold*`, `_italic_`, `` `code` ``, `<@U123>` mentions.

Chinese spacing: a Slack mention (`<#C1>`, `<@U1>`) next to a Chinese character gets a space
between them (频道 <#C1> 的日报), as Latin text does in Chinese typesetting. `t` adds it,
because a template can't: `{place}` may be a channel or 你, which takes no space.

Plurals: a key may have a `KEY_one` sibling, used when the `count` (else `total`) given to
`t` is 1 ("*1* new paper"). Chinese has no plural, so its `_one` text is usually the same.
"""

from __future__ import annotations

import re

LANGS = ("en", "zh")
DEFAULT_LANG = "en"

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
        "zh": "记录缺少“AI总结”行，无法与下一条记录区分；请在作者行之后补上“AI总结”行",
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
    "listing.file_no_records": {
        "en": "the file names a feed but holds no records; add records after the feed line (English title, Chinese title, authors, AI总结 …)",
        "zh": "文件只写了来源，没有任何记录；请在来源行之后添加记录（英文标题、中文标题、作者、AI总结……）",
    },
    "listing.record_title_empty": {
        "en": "the record's English title has no letters or digits; put the English title on the record's first line",
        "zh": "记录的英文标题中没有字母或数字；请把英文标题放在记录第一行",
    },
    "listing.record_misplaced_line": {
        "en": "a second 'AI总结' or a '机构' line comes after the summary; each record has one of each, before 'Comments'",
        "zh": "“AI总结”之后又出现“AI总结”或“机构”行；每条记录各只有一行，且位于 Comments 之前",
    },
    # --- /papers help -------------------------------------------------------------
    "help.title": {
        "en": "*paperbot* finds papers in English and Chinese. Only you see the results.",
        "zh": "*paperbot* 可以用中文或英文查找论文，结果仅你可见。",
    },
    "help.line_search": {
        "en": "`/papers speculative decoding` search papers, in English or Chinese (`/papers 推测解码`)",
        "zh": "`/papers 推测解码` 搜索论文，中英文均可（`/papers speculative decoding`）",
    },
    "help.line_share": {
        "en": "`/papers share ParisKV` preview the best match, then post it in this channel",
        "zh": "`/papers share ParisKV` 先预览最匹配的论文，确认后发到本频道",
    },
    "help.line_share_dm": {
        "en": "`/papers share ParisKV` in a channel: preview a paper, then post it there",
        "zh": "`/papers share ParisKV` 在频道中使用：先预览论文，确认后发到该频道",
    },
    "help.line_save": {
        "en": "`/papers save ParisKV` keep a paper; `/papers saved` lists what you kept",
        "zh": "`/papers save ParisKV` 收藏论文；`/papers saved` 查看你的收藏",
    },
    "help.line_subscribe": {
        "en": "`/papers subscribe` a digest of new papers in this channel, weekdays at 09:00",
        "zh": "`/papers subscribe` 在本频道订阅论文日报，每个工作日 09:00 发送",
    },
    "help.line_subscribe_dm": {
        "en": "`/papers subscribe` a digest of new papers just for you, weekdays at 09:00",
        "zh": "`/papers subscribe` 订阅只发给你的论文日报，每个工作日 09:00 发送",
    },
    "help.line_lang": {
        "en": "`/papers lang zh` show papers in Chinese first (`/papers lang en` for English)",
        "zh": "`/papers lang en` 优先显示英文（`/papers lang zh` 显示中文）",
    },
    "help.unknown_topic": {
        "en": "There's no help page “{topic}”; try `/papers help search`, `/papers help digests` or `/papers help library`.",
        "zh": "没有“{topic}”这个帮助主题，可以试试 `/papers help 搜索`、`/papers help 日报` 或 `/papers help 收藏`。",
    },
    "help.more": {
        "en": "More: `/papers help search` · `/papers help digests` · `/papers help library` · this workspace's `/papers settings`",
        "zh": "更多说明：`/papers help 搜索` · `/papers help 日报` · `/papers help 收藏` · 本工作区的 `/papers 设置`",
    },
    "help.search_title": {"en": "Searching with paperbot", "zh": "用 paperbot 搜索"},
    "help.library_title": {"en": "Your reading list", "zh": "我的收藏"},
    "help.search_syntax": {
        "en": (
            '*Narrow it down:* `"KV cache"` a phrase; `author:Chen`, `affil:哈佛` (= `affil:Harvard`), `venue:ICML`, `feed:ICML`, '
            "`year:2026` (or `year:2024-2026`) a field; `-word` leaves papers out; `KV缓存 OR speculative decoding` either topic. "
            "A pasted arXiv link or id, a DOI, or a paper id from *Details* finds that paper."
        ),
        "zh": (
            '*缩小范围：* `"KV cache"` 短语；`author:Chen`、`affil:哈佛`（同 `affil:Harvard`）、`venue:ICML`、`feed:ICML`、'
            "`year:2026`（或 `year:2024-2026`）按字段；`-词` 排除；`KV缓存 OR speculative decoding` 任一主题。"
            "粘贴 arXiv 链接或编号、DOI，或 *详情* 中的论文编号，可直接找到该论文。"
        ),
    },
    "help.buttons": {
        "en": "Results come with buttons: *Share* previews a paper for this channel, *Details* shows the full card, *More like this* finds similar papers, *Save* keeps it in your reading list, and *arXiv*, *PDF*, *Code* open the paper, its PDF and its code.",
        "zh": "每条结果都有按钮：*分享* 预览后把论文发到本频道，*详情* 显示完整信息，*相似论文* 查找类似的论文，*收藏* 把论文加入你的收藏，*arXiv 页面*、*PDF 全文*、*代码* 分别打开论文页面、PDF 和代码。",
    },
    "help.buttons_dm": {
        "en": "Results come with buttons: *Details* shows the full card, *More like this* finds similar papers, *Save* keeps it in your reading list, and *arXiv*, *PDF*, *Code* open the paper, its PDF and its code.",
        "zh": "每条结果都有按钮：*详情* 显示完整信息，*相似论文* 查找类似的论文，*收藏* 把论文加入你的收藏，*arXiv 页面*、*PDF 全文*、*代码* 分别打开论文页面、PDF 和代码。",
    },
    # --- search results -----------------------------------------------------------
    "search.header": {
        "en": "*{total}* papers for “{query}” · page {page} of {pages}",
        "zh": "“{query}”共找到 *{total}* 篇论文 · 第 {page}/{pages} 页",
    },
    "search.header_one": {
        "en": "*{total}* paper for “{query}” · page {page} of {pages}",
        "zh": "“{query}”共找到 *{total}* 篇论文 · 第 {page}/{pages} 页",
    },
    "search.any_terms": {
        "en": "No paper matched every word, so these match some of them.",
        "zh": "没有论文同时包含所有词，以下结果只匹配了部分词。",
    },
    "search.none": {
        "en": "No papers found for “{query}”.",
        "zh": "没有找到与“{query}”相关的论文。",
    },
    "search.none_hint": {
        "en": "Try fewer or different words, English or Chinese. `/papers help` shows examples.",
        "zh": "试试更少或不同的词，中英文均可。`/papers help` 查看示例。",
    },
    "search.suggestion_prompt": {
        "en": "Did you mean “{suggestion}”?",
        "zh": "你是不是要找“{suggestion}”？",
    },
    "search.more_like_header": {
        "en": "*{total}* papers like “{title}” · page {page} of {pages}",
        "zh": "与“{title}”相似的论文共 *{total}* 篇 · 第 {page}/{pages} 页",
    },
    "search.more_like_header_one": {
        "en": "*{total}* paper like “{title}” · page {page} of {pages}",
        "zh": "与“{title}”相似的论文共 *{total}* 篇 · 第 {page}/{pages} 页",
    },
    "search.more_like_none": {
        "en": "I found no papers like “{title}”.",
        "zh": "没有找到与“{title}”相似的论文。",
    },
    "search.arxiv_missing": {"en": "arXiv `{value}` isn't in the library", "zh": "库中没有 arXiv 编号为 `{value}` 的论文"},
    "search.doi_missing": {"en": "No paper in the library has the DOI `{value}`", "zh": "库中没有 DOI 为 `{value}` 的论文"},
    "search.url_missing": {"en": "No paper in the library links to `{value}`", "zh": "库中没有链接到 `{value}` 的论文"},
    "search.identifier_missing": {
        "en": "{missing}: paperbot only knows the papers from its listings and feeds. Search for the paper's title to find related ones.",
        "zh": "{missing}：paperbot 只收录论文列表和订阅源中的论文。可以搜索这篇论文的标题，看看有没有相关的论文。",
    },
    "search.identifier_mentioned": {
        "en": "{missing}; these papers mention it.",
        "zh": "{missing}；以下论文提到了它。",
    },
    "search.query_empty": {
        "en": "There was nothing to search for in that query.",
        "zh": "这个查询里没有可搜索的内容。",
    },
    "search.query_repaired": {
        "en": "I ignored parts of the query I couldn't read (such as an unclosed quote).",
        "zh": "查询中有无法识别的部分（例如未闭合的引号），已忽略。",
    },
    "search.query_problem": {
        "en": "Parts of the query were ignored.",
        "zh": "查询中的部分内容已被忽略。",
    },
    "search.query_truncated": {
        "en": "That query was long, so I searched only its beginning.",
        "zh": "查询过长，只搜索了开头部分。",
    },
    "search.query_too_long": {
        "en": "That query was long, so I searched its first {limit} characters.",
        "zh": "查询过长，只搜索了前 {limit} 个字符。",
    },
    # --- buttons (Slack allows 75 characters) ----------------------------------------
    "button.share": {"en": "Share", "zh": "分享"},
    "button.details": {"en": "Details", "zh": "详情"},
    "button.more": {"en": "More like this", "zh": "相似论文"},
    "button.next": {"en": "Next ›", "zh": "下一页 ›"},
    "button.prev": {"en": "‹ Previous", "zh": "‹ 上一页"},
    "button.search": {"en": "Search “{query}”", "zh": "搜索“{query}”"},
    "button.unsubscribe": {"en": "Unsubscribe", "zh": "取消订阅"},
    "button.undo": {"en": "Undo", "zh": "撤销"},
    "button.preview_digest": {"en": "Preview the next digest", "zh": "预览下一期"},
    "button.digest_options": {"en": "Digest settings", "zh": "订阅设置"},
    "button.subscribe_here": {"en": "Subscribe here", "zh": "在这里订阅"},
    "button.subscribe_anyway": {"en": "Subscribe anyway", "zh": "仍然订阅"},
    "button.use_filter": {"en": "Use “{filter}”", "zh": "改用“{filter}”"},
    "button.keep_filter": {"en": "Keep “{filter}”", "zh": "保留“{filter}”"},
    "button.keep": {"en": "Keep it", "zh": "保留"},
    # --- a paper's card -------------------------------------------------------------
    "card.label_authors": {"en": "Authors", "zh": "作者"},
    "card.label_affiliations": {"en": "Affiliations", "zh": "机构"},
    "card.label_venue": {"en": "Venue", "zh": "会议/期刊"},
    "card.label_summary": {"en": "AI summary", "zh": "AI 总结"},
    "card.label_comments": {"en": "Comments", "zh": "备注"},
    "card.label_journal_ref": {"en": "Journal reference", "zh": "期刊引用"},
    "card.label_id": {"en": "Paper id", "zh": "论文编号"},
    "card.authors_more": {"en": "+{count}", "zh": "等 {count} 人"},
    "card.affiliations_more": {"en": "+{count}", "zh": "等 {count} 个机构"},
    "card.summary_language_note": {
        "en": "(in Chinese)",
        "zh": "（中文）",
    },
    "card.shared_by": {
        "en": "<@{user_id}> shared this paper",
        "zh": "<@{user_id}> 分享了这篇论文",
    },
    "card.shared_notification": {"en": "{shared_by}: {title}", "zh": "{shared_by}：{title}"},
    "card.affiliation_other_name": {"en": " ({name})", "zh": "（{name}）"},
    "card.paper_not_found": {
        "en": "That paper is no longer in the library. Search again with `/papers QUERY`.",
        "zh": "这篇论文已不在库中。请用 `/papers 关键词` 重新搜索。",
    },
    # --- sharing ----------------------------------------------------------------------
    "share.usage": {
        "en": "Tell me what to share: `/papers share QUERY` or `/papers share PAPER-ID`.",
        "zh": "请告诉我要分享什么：`/papers share 关键词` 或 `/papers share 论文编号`。",
    },
    "share.not_found": {
        "en": "Nothing matched “{query}”, so I shared nothing. Try `/papers {query}` to look first.",
        "zh": "没有与“{query}”匹配的论文，未分享。可以先用 `/papers {query}` 搜索看看。",
    },
    "share.needs_channel": {
        "en": "There's no channel to share into here. Run `/papers share {query}` in a channel instead.",
        "zh": "这里没有可以分享的频道。请在频道中运行 `/papers share {query}`。",
    },
    # --- Slack API failures ----------------------------------------------------------
    "slack.not_in_channel": {
        "en": "I'm not a member of this channel, so I can't post here. Invite me with `/invite @paperbot` and try again.",
        "zh": "我还不是本频道的成员，无法发帖。请用 `/invite @paperbot` 邀请我后重试。",
    },
    "slack.channel_not_found": {
        "en": "I can't see this channel (it may be private). Invite me with `/invite @paperbot` and try again.",
        "zh": "我看不到这个频道（可能是私有频道）。请用 `/invite @paperbot` 邀请我后重试。",
    },
    "slack.is_archived": {
        "en": "This channel is archived, so nobody can post in it. Share into another channel.",
        "zh": "该频道已归档，无法发帖。请分享到其他频道。",
    },
    "slack.ratelimited": {
        "en": "Slack is limiting how fast I can post right now. Please try again in a minute.",
        "zh": "Slack 暂时限制了我的发帖频率，请一分钟后重试。",
    },
    "slack.error": {
        "en": "Slack refused that request (`{error}`). Please try again; if it keeps happening, tell whoever runs paperbot.",
        "zh": "Slack 拒绝了这次请求（`{error}`）。请重试；如果一直出现，请联系 paperbot 的管理员。",
    },
    "error.generic": {
        "en": "Sorry, something went wrong on my side. It has been logged; please try again in a moment.",
        "zh": "抱歉，我这边出了问题，已记录日志，请稍后重试。",
    },
    "error.not_ready": {
        "en": "I'm still loading the library. Please try again in a few seconds.",
        "zh": "论文库仍在加载，请几秒钟后重试。",
    },
    "error.rebuilding": {
        "en": "I'm rebuilding the search index: {done} of {total} papers done ({percent}%). No papers have been lost; please try again shortly.",
        "zh": "正在重建搜索索引：已处理 {done} / {total} 篇（{percent}%）。论文没有丢失，请稍后再试。",
    },
    "error.rebuilding_eta": {
        "en": "I'm rebuilding the search index: {done} of {total} papers done ({percent}%), about {minutes} minutes to go. No papers have been lost; please try again then.",
        "zh": "正在重建搜索索引：已处理 {done} / {total} 篇（{percent}%），预计还需约 {minutes} 分钟。论文没有丢失，请到时再试。",
    },
    "error.rebuilding_eta_hours": {
        "en": "I'm rebuilding the search index: {done} of {total} papers done ({percent}%), about {hours} hours to go. No papers have been lost; please try again then.",
        "zh": "正在重建搜索索引：已处理 {done} / {total} 篇（{percent}%），预计还需约 {hours} 小时。论文没有丢失，请到时再试。",
    },
    "inbox.stored_during_rebuild": {
        "en": "The search index is being rebuilt right now: these papers are stored, and become searchable when the rebuild finishes.",
        "zh": "搜索索引正在重建：这些论文已保存，重建完成后即可搜索。",
    },
    "error.rebuilding_almost": {
        "en": "I'm almost done rebuilding the search index ({total} papers). Please try again in a minute.",
        "zh": "搜索索引即将重建完成（共 {total} 篇），请一分钟后再试。",
    },
    # --- language -----------------------------------------------------------------------
    "lang.set": {
        "en": "Got it: I'll show papers in English first.",
        "zh": "好的，之后将优先以中文显示论文。",
    },
    "lang.current": {
        "en": "Papers are shown in {name} first. Change it with `/papers lang en` or `/papers lang zh`.",
        "zh": "当前优先显示{name}。可用 `/papers lang en` 或 `/papers lang zh` 更改。",
    },
    "lang.unset": {
        "en": "You haven't picked a language: a query with Chinese characters shows Chinese first, otherwise English. Pick one with `/papers lang en` or `/papers lang zh`.",
        "zh": "你还没有选择语言：含中文的查询优先显示中文，否则显示英文。可用 `/papers lang en` 或 `/papers lang zh` 选择。",
    },
    "lang.bad_value": {
        "en": "I can't show papers in “{value}”: use `/papers lang en` (English) or `/papers lang zh` (Chinese).",
        "zh": "不支持“{value}”：请用 `/papers lang en`（英文）或 `/papers lang zh`（中文）。",
    },
    "lang.name_en": {"en": "English", "zh": "英文"},
    "lang.name_zh": {"en": "Chinese", "zh": "中文"},
    # --- App Home ------------------------------------------------------------------------
    "home.title": {"en": "paperbot", "zh": "paperbot 论文助手"},
    "home.intro": {
        "en": "Find papers in English and Chinese. *{count}* papers in the library.",
        "zh": "用中文或英文查找论文。库中共有 *{count}* 篇论文。",
    },
    "home.intro_one": {
        "en": "Find papers in English and Chinese. *{count}* paper in the library.",
        "zh": "用中文或英文查找论文。库中共有 *{count}* 篇论文。",
    },
    "home.search_how": {
        "en": "Search from any channel with `/papers QUERY`; only you see the results. Or try one of these:",
        "zh": "在任意频道输入 `/papers 关键词` 搜索，结果仅你可见。也可以试试：",
    },
    "home.newest": {"en": "Newest papers", "zh": "最新论文"},
    "home.empty_library": {
        "en": "The library is empty. Whoever runs paperbot can add listings with `python -m bot ingest`.",
        "zh": "论文库还是空的。管理员可以用 `python -m bot ingest` 添加论文列表。",
    },
    "home.results": {"en": "Results for “{query}”", "zh": "“{query}”的搜索结果"},
    "home.lang_label": {"en": "Show papers in", "zh": "论文显示语言"},
    "home.lang_automatic": {"en": "{name} (automatic)", "zh": "{name}（自动）"},
    "home.subscriptions_title": {"en": "Subscriptions", "zh": "订阅"},
    "home.subscriptions_none": {
        "en": "You have no paper digests yet. Run `/papers subscribe` in a channel to get one there, or in a DM with me to get your own.",
        "zh": "你还没有订阅论文日报。在频道中运行 `/papers subscribe` 可订阅到该频道，在与我的私信中运行则订阅给自己。",
    },
    "home.subscriptions_footer": {
        "en": "Your own digest and the channel digests you set up. Running `/papers subscribe` again in the same place changes one; `/papers digest` there previews the next.",
        "zh": "这里列出你自己的日报和你在频道中设置的日报。在同一处再次运行 `/papers subscribe` 可修改设置；在该处运行 `/papers digest` 可预览下一期。",
    },
    "home.unsubscribe_confirm_title": {"en": "Stop this digest?", "zh": "取消这份日报？"},
    "home.unsubscribe_confirm_text": {
        "en": "No more digests will be posted there. You can subscribe again any time.",
        "zh": "之后不会再发送这份日报，随时可以重新订阅。",
    },
    # --- daily digests (bot/slack/render/digest.py, answers/subscribe.py) ---------------------
    "digest.header": {"en": "📚 {digest} · {date}", "zh": "📚 {digest} · {date}"},
    "digest.title_daily": {"en": "Paper digest", "zh": "论文日报"},
    "digest.title_weekly": {"en": "Weekly paper digest", "zh": "论文周报"},
    "digest.name_daily": {"en": "paper digest", "zh": "论文日报"},
    "digest.name_weekly": {"en": "weekly paper digest", "zh": "论文周报"},
    "digest.preview_header": {"en": "👀 Preview of the next {digest} · {date}", "zh": "👀 下一期{digest}预览 · {date}"},
    "digest.sample_header": {"en": "👀 What a digest looks like", "zh": "👀 日报示例"},
    "digest.count_one": {"en": "*{count}* new paper", "zh": "*{count}* 篇新论文"},
    "digest.count": {"en": "*{count}* new papers", "zh": "*{count}* 篇新论文"},
    "digest.filter": {"en": "filter: {filter}", "zh": "筛选：{filter}"},
    "digest.part": {"en": "{date} · part {part} of {parts}", "zh": "{date} · 第 {part}/{parts} 部分"},
    "digest.notification": {"en": "{digest} for {date}: {count} new papers", "zh": "{date}{digest}：{count} 篇新论文"},
    "digest.notification_one": {"en": "{digest} for {date}: {count} new paper", "zh": "{date}{digest}：{count} 篇新论文"},
    "digest.notification_part": {
        "en": "{digest} for {date}, part {part} of {parts}",
        "zh": "{date}{digest}，第 {part}/{parts} 部分",
    },
    "digest.group_continued": {"en": "{group} (continued)", "zh": "{group}（续）"},
    "digest.group_other": {"en": "Other", "zh": "其他"},
    "digest.held_back": {
        "en": "{count} more new papers didn't fit today; they lead the next digest.",
        "zh": "另有 {count} 篇新论文今天放不下，将在下一期中优先发送。",
    },
    "digest.held_back_one": {
        "en": "{count} more new paper didn't fit today; it leads the next digest.",
        "zh": "另有 {count} 篇新论文今天放不下，将在下一期中优先发送。",
    },
    "digest.left_out": {
        "en": "{count} more new papers from {feed} are not in this digest: one feed fills at most {most} of a digest. They are in the library; `/papers feed:…` finds them.",
        "zh": "另有 {count} 篇来自 {feed} 的新论文未收入本期：每期中同一来源最多 {most} 篇。这些论文仍在库中，可用 `/papers feed:…` 查找。",
    },
    "digest.footer": {
        "en": "`/papers subscriptions` shows this digest's settings · `/papers unsubscribe` stops it",
        "zh": "`/papers subscriptions` 查看订阅设置 · `/papers unsubscribe` 取消订阅",
    },
    "digest.empty": {
        "en": "📭 No new papers since the last digest{filter_note}.",
        "zh": "📭 自上一期以来没有新论文{filter_note}。",
    },
    "digest.empty_filter_note": {"en": " matching “{filter}”", "zh": "（筛选“{filter}”）"},
    "digest.preview_more": {
        "en": "…and {count} more. The digest posts every paper, continuing in a thread.",
        "zh": "……另有 {count} 篇。日报会发送全部论文，其余内容在消息串中继续。",
    },
    "digest.preview_none": {
        "en": "Nothing new yet for the next digest, due {when}. Papers added before then will be in it.",
        "zh": "下一期将于 {when} 发送，目前还没有新论文；在此之前新增的论文都会收录其中。",
    },
    "digest.preview_paused": {
        "en": "⏸ This digest is paused: {reason}. Nothing is posted until it is resumed. {fix}",
        "zh": "⏸ 这份日报已暂停：{reason}。恢复之前不会发送。{fix}",
    },
    "digest.preview_ignored": {
        "en": "I ignored “{ignored}”: `/papers digest` takes only a language (`en` or `zh`). To search, use `/papers QUERY`.",
        "zh": "已忽略“{ignored}”：`/papers digest` 后面只能跟语言（`en` 或 `zh`）。搜索请用 `/papers 关键词`。",
    },
    "digest.preview_no_subscription": {
        "en": "There's no digest here yet. Start one with `/papers subscribe` (`/papers subscribe help` explains the options). Here are the newest papers the way a digest shows them:",
        "zh": "这里还没有订阅日报。可用 `/papers subscribe` 订阅（`/papers subscribe help` 查看选项）。以下是以日报形式展示的最新论文：",
    },
    "digest.paused_dm": {
        "en": "I paused the paper digest for {place} because {reason}. {fix}",
        "zh": "{place}的论文日报已暂停，原因：{reason}。{fix}",
    },
    "digest.reason_not_in_channel": {"en": "I'm not a member of that channel", "zh": "我不是该频道的成员"},
    "digest.reason_channel_not_found": {
        "en": "I can't see that channel (it may be private, or deleted)",
        "zh": "我看不到该频道（可能是私有频道或已被删除）",
    },
    "digest.reason_is_archived": {"en": "the channel is archived", "zh": "该频道已归档"},
    "digest.reason_other": {"en": "Slack refused the post (`{error}`)", "zh": "Slack 拒绝了发帖（`{error}`）"},
    "digest.fix_invite": {
        "en": "To resume it, invite me there with `/invite @paperbot`, then run `/papers subscribe` in the channel again (your settings are kept).",
        "zh": "如需恢复，请在该频道用 `/invite @paperbot` 邀请我，然后在频道中再次运行 `/papers subscribe`（原有设置会保留）。",
    },
    "digest.fix_resume": {
        "en": "To resume it, run `/papers subscribe` here again (your settings are kept).",
        "zh": "如需恢复，请在这里再次运行 `/papers subscribe`（原有设置会保留）。",
    },
    "digest.fix_archived": {
        "en": "Unarchive it and run `/papers subscribe` there again, or subscribe another channel.",
        "zh": "请取消归档后在该频道再次运行 `/papers subscribe`，或订阅其他频道。",
    },
    "digest.weekdays": {"en": "Mon|Tue|Wed|Thu|Fri|Sat|Sun", "zh": "周一|周二|周三|周四|周五|周六|周日"},
    "digest.months": {
        "en": "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec",
        "zh": "1月|2月|3月|4月|5月|6月|7月|8月|9月|10月|11月|12月",
    },
    "digest.date": {"en": "{weekday} {day} {month} {year}", "zh": "{year}年{month}{day}日（{weekday}）"},
    "digest.when": {"en": "{date}, {time} ({zone})", "zh": "{date}{time}（{zone}）"},
    # --- /papers subscribe, subscriptions, unsubscribe ------------------------------------------
    "subscribe.help": {
        "en": (
            "*Paper digests* of new papers, in a channel or in a DM with me:\n"
            "`/papers subscribe` every weekday at 09:00 ({zone}), in your language\n"
            "`/papers subscribe zh 8:30am tz:Asia/Shanghai KV缓存 OR speculative decoding` language, time, zone and a filter (search syntax)\n"
            "`/papers subscribe weekly mon 9am` when it comes: `daily`, `weekdays`, `weekly mon` or days such as `mon wed fri`\n"
            "`/papers subscribe top:5 ...` how many highlights open the digest (the rest go in its thread; 10 unless you say)\n"
            "`/papers subscribe notify:empty ...` also post a short note on days without new papers (`notify:none` to stop)\n"
            "`/papers subscribe order:foryou ...` the order of the papers: `order:new` as they arrive, `order:foryou` by your saves (in a channel: by what it shared and saved), `order:popular` by the channel's reactions\n"
            "Times: `9`, `9am`, `09:30`, `9.30`, `0930`, `21:30`, `9:30pm`, `noon`, `早上8点`. Zones: `tz:Europe/Berlin`, `tz:UTC+8`, `tz:London`, `tz:北京`; without one, your Slack time zone.\n"
            "Subscribing again here changes the subscription. `/papers subscriptions` lists them, "
            "`/papers unsubscribe [N]` stops one, `/papers digest [en|zh]` previews the next digest (only you see it).\n"
            "A new digest starts with the papers added from now on."
        ),
        "zh": (
            "*论文日报*，可订阅到频道，或在与我的私信中订阅给自己：\n"
            "`/papers subscribe` 每个工作日 09:00（{zone}）发送，语言与你相同\n"
            "`/papers subscribe zh 早上8点半 tz:北京 KV缓存 OR speculative decoding` 指定语言、时间、时区和筛选条件（与搜索语法相同）\n"
            "`/papers subscribe 每周一 9点` 指定发送的日子：`daily`（每天）、`weekdays`（工作日）、`每周一` 或 `周一 周三 周五`\n"
            "`/papers subscribe top:5 ...` 日报开头列出几篇精选（其余在消息串中，默认 10 篇）\n"
            "`/papers subscribe notify:empty ...` 没有新论文时也发一条简短提示（`notify:none` 取消）\n"
            "`/papers subscribe order:foryou ...` 论文的排序：`order:new` 按收录时间，`order:foryou` 按你的收藏（频道中按本频道的分享与收藏），`order:popular` 按频道成员的回应\n"
            "时间写法：`9`、`9am`、`09:30`、`9.30`、`0930`、`21:30`、`9:30pm`、`早上8点`、`上午9:30`、`下午3点半`、`中午`。时区：`tz:Asia/Shanghai`、`tz:UTC+8`、`tz:东京`、`tz:London`；不写则用你在 Slack 中设置的时区。\n"
            "在同一处再次订阅会修改原订阅。`/papers subscriptions` 列出订阅，"
            "`/papers unsubscribe [编号]` 取消订阅，`/papers digest [en|zh]` 预览下一期日报（仅你可见）。\n"
            "新订阅从此刻之后新增的论文开始收录。"
        ),
    },
    "subscribe.created": {
        "en": "Subscribed {place} to a {digest} {schedule} at *{time}* ({zone}), in {lang_name}{filter_note}. It holds the papers added from now on.",
        "zh": "已为{place}订阅{digest}：{schedule} *{time}*（{zone}），{lang_name}{filter_note}。从现在起新增的论文都会收录。",
    },
    "subscribe.updated": {
        "en": "Updated the {digest} for {place}: {schedule} at *{time}* ({zone}), in {lang_name}{filter_note}.",
        "zh": "已更新{place}的{digest}：{schedule} *{time}*（{zone}），{lang_name}{filter_note}。",
    },
    "subscribe.resumed": {
        "en": "The digest was paused ({reason}); it is running again.",
        "zh": "该日报曾被暂停（{reason}），现已恢复。",
    },
    "subscribe.place_channel": {"en": "<#{channel_id}>", "zh": "频道 <#{channel_id}>"},
    "subscribe.place_dm": {"en": "you", "zh": "你"},
    "subscribe.filter_note": {
        "en": ", for papers matching “{filter}” ({count} in the library match today)",
        "zh": "，只收录匹配“{filter}”的论文（目前库中有 {count} 篇匹配）",
    },
    "subscribe.filter_note_one": {
        "en": ", for papers matching “{filter}” ({count} in the library matches today)",
        "zh": "，只收录匹配“{filter}”的论文（目前库中有 {count} 篇匹配）",
    },
    "subscribe.ask_typo": {
        "en": "⚠️ No paper in the library matches “{filter}” as typed, and digests take their filter literally, so {not_done} yet. Did you mean “{suggestion}”? ({count} papers match it today.)",
        "zh": "⚠️ 筛选条件按原样匹配，库中目前没有论文匹配“{filter}”，因此{not_done}。你是不是想输入“{suggestion}”？（目前有 {count} 篇匹配。）",
    },
    "subscribe.ask_typo_one": {
        "en": "⚠️ No paper in the library matches “{filter}” as typed, and digests take their filter literally, so {not_done} yet. Did you mean “{suggestion}”? (1 paper matches it today.)",
        "zh": "⚠️ 筛选条件按原样匹配，库中目前没有论文匹配“{filter}”，因此{not_done}。你是不是想输入“{suggestion}”？（目前有 1 篇匹配。）",
    },
    "subscribe.ask_no_match": {
        "en": "⚠️ No paper in the library matches “{filter}” yet, so this digest would stay empty until one arrives; {not_done}. Check the spelling (`/papers {search}` searches with it), or go ahead anyway.",
        "zh": "⚠️ 目前库中没有论文匹配“{filter}”，出现匹配的新论文之前，这份订阅都不会有内容，因此{not_done}。可以先检查拼写（用 `/papers {search}` 搜索试试），或者仍然继续。",
    },
    "subscribe.not_subscribed_yet": {"en": "I haven't subscribed {place}", "zh": "还没有为{place}订阅"},
    "subscribe.not_changed_yet": {"en": "I haven't changed the digest for {place}", "zh": "还没有修改{place}的订阅"},
    "subscribe.cancelled": {"en": "Cancelled; nothing was subscribed.", "zh": "已取消，没有订阅任何内容。"},
    "subscribe.notify_empty_note": {
        "en": "On days without new papers I'll post a short note.",
        "zh": "没有新论文的日子，我也会发一条简短提示。",
    },
    "subscribe.bad_time": {
        "en": "“{value}” isn't a time I can read. Use 24-hour `HH:MM` such as `08:30` or `21:00` (`9`, `9am`, `9.30`, `0930` and `9:30pm` work too).",
        "zh": "无法识别时间“{value}”。请使用 24 小时制 `HH:MM`，如 `08:30` 或 `21:00`（也可写 `9`、`9am`、`9:30pm`、`早上8点`、`下午3点半`）。",
    },
    "subscribe.bad_zone": {
        "en": "“{value}” isn't a time zone I know. Use an IANA name such as `tz:Asia/Shanghai` or `tz:America/New_York`, an offset such as `tz:UTC+8`, or a city such as `tz:London` or `tz:北京`.",
        "zh": "无法识别时区“{value}”。请使用 IANA 时区名（如 `tz:Asia/Shanghai`、`tz:America/New_York`）、偏移（如 `tz:UTC+8`）或城市名（如 `tz:北京`、`tz:London`）。",
    },
    "subscribe.bad_notify": {
        "en": "“{value}” isn't an option I know: use `notify:empty` (post a note on days without papers) or `notify:none`.",
        "zh": "无法识别选项“{value}”：请用 `notify:empty`（没有新论文时也发提示）或 `notify:none`。",
    },
    "subscribe.bad_filter": {
        "en": "I couldn't read the filter “{filter}”: {problem} Fix it and subscribe again; the filter uses the same syntax as `/papers QUERY`.",
        "zh": "无法识别筛选条件“{filter}”：{problem}请修改后重新订阅；筛选条件的写法与 `/papers 关键词` 相同。",
    },
    # Why a filter was refused (subscribe.bad_filter's {problem}); nothing was ignored, unlike a search.
    "subscribe.filter_problem_query_empty": {
        "en": "it has nothing to search for.",
        "zh": "其中没有可搜索的内容。",
    },
    "subscribe.filter_problem_query_repaired": {
        "en": "part of it can't be read, such as an unclosed quote or bracket, or an OR with nothing on one side.",
        "zh": "其中有无法识别的部分，例如未闭合的引号或括号，或一侧没有内容的 OR。",
    },
    "subscribe.filter_problem_query_truncated": {
        "en": "it is too long or has too many terms to read in full.",
        "zh": "内容太长或词太多，无法完整读取。",
    },
    "subscribe.filter_too_long": {
        "en": "That filter is too long; keep it under {limit} characters.",
        "zh": "筛选条件太长，请控制在 {limit} 个字符以内。",
    },
    "subscribe.list_header": {"en": "*Digests for {place}*", "zh": "*{place}的订阅*"},
    "subscribe.list_item": {
        "en": "{number}. {place} · {schedule} at *{time}* ({zone}) · {lang_name}{filter} · next: {next_run}",
        "zh": "{number}. {place} · {schedule} *{time}*（{zone}）· {lang_name}{filter} · 下一期：{next_run}",
    },
    "subscribe.list_filter": {"en": " · filter “{filter}”", "zh": " · 筛选“{filter}”"},
    "subscribe.list_paused": {
        "en": "{number}. {place} · ⏸ paused: {reason}. Run `/papers subscribe` there again to resume it.",
        "zh": "{number}. {place} · ⏸ 已暂停：{reason}。在该处再次运行 `/papers subscribe` 即可恢复。",
    },
    "subscribe.list_footer": {
        "en": "`/papers unsubscribe N` stops number N · `/papers digest` previews the next one",
        "zh": "`/papers unsubscribe 编号` 取消对应订阅 · `/papers digest` 预览下一期",
    },
    "subscribe.list_none": {
        "en": "No paper digests here yet. Start one with `/papers subscribe`; `/papers subscribe help` shows the options.",
        "zh": "这里还没有订阅论文日报。可用 `/papers subscribe` 订阅；`/papers subscribe help` 查看选项。",
    },
    "subscribe.place_you": {"en": "you", "zh": "你"},
    "subscribe.place_your_dm": {"en": "your DM", "zh": "你的私信"},
    "subscribe.removed": {
        "en": "Unsubscribed: the {digest} for {place} has stopped.",
        "zh": "已取消订阅：{place}不再收到{digest}。",
    },
    "subscribe.which": {
        "en": "There are {count} digests; say which one to stop: `/papers unsubscribe N`.",
        "zh": "共有 {count} 个日报订阅，请指明要取消哪一个：`/papers unsubscribe 编号`。",
    },
    "subscribe.bad_number": {
        "en": "There's no digest number “{value}” here. `/papers subscriptions` lists them with their numbers.",
        "zh": "这里没有编号为“{value}”的日报。`/papers subscriptions` 会列出订阅及其编号。",
    },
    "subscribe.nothing_to_remove": {
        "en": "There's no digest here to stop. `/papers subscriptions` lists yours; `/papers subscribe` starts one here.",
        "zh": "这里没有可以取消的订阅。`/papers subscriptions` 查看你的订阅；`/papers subscribe` 在这里订阅。",
    },
    # --- inbox and listing uploads (bot/feeds/inbox.py, bot/slack/listeners/uploads.py) ---------------------------
    "inbox.report": {
        "en": "`{name}`{feed}: *{new}* new, {updated} updated, {unchanged} unchanged, {rejected} rejected.",
        "zh": "`{name}`{feed}：新增 *{new}* 篇，更新 {updated} 篇，未变 {unchanged} 篇，拒收 {rejected} 条。",
    },
    "inbox.refused_symlink": {
        "en": "refused unread: it is a symbolic link; put the listing file itself in the inbox, not a link to it",
        "zh": "未读取即拒收：这是符号链接；请把列表文件本身放进收件箱，而不是指向它的链接",
    },
    "inbox.refused_special": {
        "en": "refused unread: it is not a regular file (a named pipe, socket or device); put a listing file in the inbox",
        "zh": "未读取即拒收：这不是普通文件（而是命名管道、套接字或设备）；请把列表文件放进收件箱",
    },
    "inbox.rejected_header": {"en": "Rejected records (file:line: reason):", "zh": "被拒收的记录（`文件:行号`：原因）："},
    "inbox.rejected_more": {"en": "…and {count} more.", "zh": "……另有 {count} 条。"},
    "inbox.nothing_added": {
        "en": "Nothing from `{name}` was added: {reason}",
        "zh": "`{name}` 中的内容均未添加：{reason}",
    },
    "inbox.admins_only": {
        "en": "Thanks for the file! Only paperbot admins can add papers, so I haven't read `{name}`. Please ask whoever runs paperbot to add it.",
        "zh": "谢谢你发来的文件！只有 paperbot 管理员可以添加论文，所以我没有读取 `{name}`。请联系 paperbot 的管理员添加。",
    },
    "inbox.download_failed": {
        "en": "I couldn't download `{name}` from Slack ({error}). Please send it again.",
        "zh": "无法从 Slack 下载 `{name}`（{error}），请重新发送。",
    },
    "inbox.detail_no_url": {"en": "Slack gave me no download link I can use", "zh": "Slack 没有提供可用的下载链接"},
    "inbox.detail_network": {"en": "a network error", "zh": "网络错误"},
    "inbox.detail_slack": {"en": "Slack answered `{error}`", "zh": "Slack 返回 `{error}`"},
    "inbox.too_large": {
        "en": "`{name}` is larger than {limit_mb} MB, so I didn't read it. Split it into smaller listing files.",
        "zh": "`{name}` 超过 {limit_mb} MB，未读取。请拆分成较小的列表文件。",
    },
    # --- offline console and start-up --------------------------------------------------
    "console.intro": {
        "en": "paperbot offline console: type `/papers QUERY`, `/papers help`, or `quit`. Replies show what Slack would show.",
        "zh": "paperbot 离线控制台：输入 `/papers 关键词`、`/papers help` 或 `quit`。回复内容与 Slack 中显示的一致。",
    },
    "console.hint": {
        "en": "Start a line with /papers, e.g. `/papers KV cache`. Type `quit` to leave.",
        "zh": "请以 /papers 开头，例如 `/papers KV缓存`。输入 `quit` 退出。",
    },
    "console.posted": {
        "en": "[posted in the channel, visible to everyone]",
        "zh": "[已发到频道，所有人可见]",
    },
    "console.ephemeral": {
        "en": "[only you can see this]",
        "zh": "[仅你可见]",
    },
    "setup.missing_all": {
        "en": (
            "No Slack tokens found ({names}), so paperbot starts its offline console instead.\n"
            "To connect it to Slack:\n"
            "  1. Open https://api.slack.com/apps, choose Create New App -> From an app manifest,\n"
            "     pick your workspace and paste manifest.yml from this repository.\n"
            "  2. Install the app to the workspace.\n"
            "  3. Copy the Bot User OAuth Token (xoxb-...) into .env as SLACK_BOT_TOKEN, and either\n"
            "     an app-level token with connections:write (xapp-...) as SLACK_APP_TOKEN (Socket Mode),\n"
            "     or the Signing Secret as SLACK_SIGNING_SECRET (HTTP mode, Request URL .../slack/events).\n"
            "  4. Run `python -m bot serve` again."
        ),
        "zh": (
            "没有找到 Slack 令牌（{names}），因此 paperbot 改为启动离线控制台。\n"
            "连接到 Slack 的步骤：\n"
            "  1. 打开 https://api.slack.com/apps，选择 Create New App -> From an app manifest，\n"
            "     选择工作区并粘贴本仓库中的 manifest.yml。\n"
            "  2. 将应用安装到工作区。\n"
            "  3. 把 Bot User OAuth Token（xoxb-...）写入 .env 的 SLACK_BOT_TOKEN，并且\n"
            "     填写带 connections:write 权限的应用级令牌（xapp-...）为 SLACK_APP_TOKEN（Socket 模式），\n"
            "     或者把 Signing Secret 写为 SLACK_SIGNING_SECRET（HTTP 模式，Request URL 为 .../slack/events）。\n"
            "  4. 重新运行 `python -m bot serve`。"
        ),
    },
    "setup.missing_some": {
        "en": "Cannot start: {names} is not set. Add it to .env (see .env.example) or the environment, then run `python -m bot serve` again.",
        "zh": "无法启动：未设置 {names}。请在 .env（参见 .env.example）或环境变量中设置后，重新运行 `python -m bot serve`。",
    },
    "setup.serving_http": {
        "en": "paperbot is listening on http://{host}:{port}/slack/events (health: /healthz)",
        "zh": "paperbot 正在监听 http://{host}:{port}/slack/events（健康检查：/healthz）",
    },
    # -- installs from a link (issue 25: bot/slack/oauth.py); each page in the browser's language --
    "oauth.install_title": {
        "en": "Add paperbot to Slack",
        "zh": "将 paperbot 添加到 Slack",
    },
    "oauth.install_intro": {
        "en": "paperbot finds research papers in English and Chinese with /papers, posts a daily digest of new ones, and keeps each workspace's saves and settings to itself.",
        "zh": "paperbot 用 /papers 以中英文搜索科研论文，每天推送新论文日报；各工作区的收藏和设置互不共享。",
    },
    "oauth.install_permissions": {
        "en": "It asks to add the /papers command; post in channels and direct messages; read what people send it in a direct message (questions, and paper lists from admins) and the reactions to its cards; send files (your exported saves); check whether it can post in a channel; and see people's time zone and language. It does not read channel messages and asks for no access to your own account.",
        "zh": "它需要的权限：添加 /papers 命令；在频道和私信中发消息；读取成员通过私信发给它的内容（问题，以及管理员发来的论文列表文件）和对其卡片的表情回应；发送文件（导出的收藏）；查看能否在某个频道发消息；查看成员的时区和语言。它不读取频道中的消息，也不需要你个人账号的权限。",
    },
    "oauth.install_org": {
        "en": "On an Enterprise Grid org, an org admin can install it once for the whole org and then choose the workspaces that get it.",
        "zh": "在 Enterprise Grid 组织中，组织管理员可以为整个组织安装一次，再选择要添加它的工作区。",
    },
    "oauth.install_button": {
        "en": "Add to Slack",
        "zh": "添加到 Slack",
    },
    "oauth.installed_title": {
        "en": "paperbot is installed",
        "zh": "paperbot 已安装",
    },
    "oauth.installed": {
        "en": "paperbot is now installed in {team}. Go back to Slack and type /papers in any channel to search papers.",
        "zh": "paperbot 已安装到 {team}。回到 Slack，在任意频道输入 /papers 即可搜索论文。",
    },
    "oauth.installed_org": {
        "en": "paperbot is now installed for the whole {team} org, but in no workspace yet. Add it to the workspaces that should have it from your org's admin dashboard (Installed apps), then type /papers in any channel there.",
        "zh": "paperbot 已为整个 {team} 组织安装，但尚未添加到任何工作区。请在组织管理后台（已安装的应用）中把它添加到需要的工作区，然后在这些工作区的任意频道输入 /papers。",
    },
    "oauth.failed_title": {
        "en": "paperbot was not installed",
        "zh": "paperbot 未能安装",
    },
    "oauth.failed_state": {
        "en": "This install link has expired, was already used, or was opened in another browser, so nothing was installed. Start again from {install_path} in this browser.",
        "zh": "这个安装链接已过期、已被使用过，或是在另一个浏览器中打开的，因此没有安装任何内容。请在当前浏览器中重新打开 {install_path}。",
    },
    "oauth.cancelled": {
        "en": "The install was cancelled in Slack, so nothing was installed. To install paperbot, start again from {install_path}.",
        "zh": "安装已在 Slack 中取消，没有安装任何内容。如需安装 paperbot，请重新打开 {install_path}。",
    },
    "oauth.failed": {
        "en": "Slack did not confirm the install, so nothing was installed. Try again from {install_path}; if it keeps failing, tell whoever runs this paperbot.",
        "zh": "Slack 未确认这次安装，因此没有安装任何内容。请重新打开 {install_path} 再试；如果仍然失败，请联系运行这个 paperbot 的管理员。",
    },
    "oauth.not_installed": {
        "en": "paperbot is no longer installed in this workspace. Ask a workspace or org admin to install it again from its install link.",
        "zh": "paperbot 已不在这个工作区中。请工作区或组织管理员通过安装链接重新安装。",
    },
    "setup.install_link": {
        "en": "Installs from a link are on: share https://YOUR-HOST/slack/install (here: http://{host}:{port}/slack/install)",
        "zh": "已开启链接安装：请分享 https://YOUR-HOST/slack/install（本机：http://{host}:{port}/slack/install）",
    },
    "setup.serving_socket": {
        "en": "paperbot is connecting to Slack in Socket Mode",
        "zh": "paperbot 正在以 Socket 模式连接 Slack",
    },
    "search.command_did_you_mean": {
        "en": "Searched for the words as typed. Did you mean `/papers {command}`?",
        "zh": "已按输入的关键词搜索。你是不是想用 `/papers {command}`？",
    },
    # -- moving a SQLite store into PostgreSQL (issue 24) --
    "migrate.no_url": {
        "en": "set PAPERBOT_DATABASE_URL=postgresql://… to the database to copy into, then run this again",
        "zh": "请先把 PAPERBOT_DATABASE_URL 设为要复制到的数据库（postgresql://…），再运行一次",
    },
    "migrate.no_source": {
        "en": "there is no SQLite store at {path}; name it with --from PATH",
        "zh": "{path} 没有 SQLite 数据库；请用 --from PATH 指定",
    },
    "migrate.not_postgres": {
        "en": "PAPERBOT_DATABASE_URL is not a postgresql:// URL: the copy goes into PostgreSQL only",
        "zh": "PAPERBOT_DATABASE_URL 不是 postgresql:// 地址：只能复制到 PostgreSQL",
    },
    "migrate.target_not_empty": {
        "en": "the PostgreSQL database already holds data ({tables}), so nothing was copied; copy only into an empty one",
        "zh": "这个 PostgreSQL 数据库中已有数据（{tables}），所以没有复制任何内容；只能复制到空数据库",
    },
    "migrate.failed": {
        "en": "the copy stopped and nothing was kept in PostgreSQL: {error}",
        "zh": "复制中途停止，PostgreSQL 中没有保留任何内容：{error}",
    },
    "migrate.done": {
        "en": "copied; {path} is unchanged (unset PAPERBOT_DATABASE_URL to go back to it)",
        "zh": "已复制；{path} 未改动（取消 PAPERBOT_DATABASE_URL 即可改回使用它）",
    },
    # -- serving (issue 12) --
    "search.searching": {
        "en": ":hourglass_flowing_sand: Searching… the results will appear here in a moment.",
        "zh": ":hourglass_flowing_sand: 正在搜索……结果稍后会显示在这里。",
    },
    "search.too_slow": {
        "en": "Sorry, that took too long, so I stopped waiting. Please try again in a moment.",
        "zh": "抱歉，处理时间过长，已停止等待。请稍后再试。",
    },
    # -- library: saves, votes, export, for you (issue 10) --
    "button.save": {"en": "Save", "zh": "收藏"},
    "button.saved": {"en": "Saved ✓", "zh": "已收藏 ✓"},
    "button.remove": {"en": "Remove", "zh": "移除"},
    "library.help": {
        "en": (
            "*Your reading list* (only you see it)\n"
            "`/papers save ParisKV` save the best match (or *Save* on any paper); `/papers saved [words]` list and search your saves\n"
            "`/papers foryou` new papers ranked by what you saved and 👍 / 👎, each with why; `/papers interests add KV cache, 推测解码` gives it a start\n"
            "`/papers export bibtex` (or `ris`, `csl-json`) send your saves as a file for Zotero\n"
            "`/papers top` (or `top month`) in a channel: what it shared, saved and reacted to most\n"
            "`/papers subscribe order:foryou` a digest ordered by your saves (in a channel: by what it shared and saved); `order:popular` by its votes, `order:new` as they arrive"
        ),
        "zh": (
            "*我的收藏*（仅你可见）\n"
            "`/papers save ParisKV` 收藏最匹配的论文（或点任意论文的 *收藏*）；`/papers saved [关键词]` 查看并搜索你的收藏\n"
            "`/papers foryou` 按你的收藏和 👍 / 👎 为你排序新论文，每篇注明理由；`/papers interests add KV cache, 推测解码` 为它提供起点\n"
            "`/papers export bibtex`（或 `ris`、`csl-json`）把收藏导出为文件，可导入 Zotero\n"
            "`/papers top`（或 `top month`）在频道中使用：本频道分享、收藏和回应最多的论文\n"
            "`/papers subscribe order:foryou` 日报按你的收藏排序（频道中按本频道分享和收藏的论文）；`order:popular` 按频道的回应，`order:new` 按收录时间"
        ),
    },
    "library.saved_ok": {
        "en": "Saved *{title}*. `/papers saved` lists your saved papers; only you can see them.",
        "zh": "已收藏 *{title}*。用 `/papers saved` 查看你的收藏，仅你可见。",
    },
    "library.already_saved": {
        "en": "*{title}* is already in your saved papers.",
        "zh": "*{title}* 已在你的收藏中。",
    },
    "library.unsaved_ok": {
        "en": "Removed *{title}* from your saved papers.",
        "zh": "已将 *{title}* 移出收藏。",
    },
    "library.save_usage": {
        "en": "Tell me what to save: `/papers save ParisKV`, or a paper's id from *Details*.",
        "zh": "请告诉我要收藏哪篇论文：`/papers save ParisKV`，或使用 *详情* 中的论文编号。",
    },
    "library.save_not_found": {
        "en": "Nothing matched “{query}”, so nothing was saved. Try other words, or a paper's id from *Details*.",
        "zh": "没有与“{query}”匹配的论文，因此没有收藏任何内容。请换个关键词，或使用 *详情* 中的论文编号。",
    },
    "library.saved_header": {
        "en": "*{total}* saved papers, newest first · page {page} of {pages}",
        "zh": "你收藏了 *{total}* 篇论文，最新收藏在前 · 第 {page}/{pages} 页",
    },
    "library.saved_header_single": {
        "en": "*{total}* saved papers, newest first",
        "zh": "你收藏了 *{total}* 篇论文，最新收藏在前",
    },
    "library.saved_header_single_one": {"en": "*1* saved paper", "zh": "你收藏了 *1* 篇论文"},
    "library.saved_header_query": {
        "en": "*{total}* of your saved papers match “{query}” · page {page} of {pages}",
        "zh": "你的收藏中有 *{total}* 篇与“{query}”匹配 · 第 {page}/{pages} 页",
    },
    "library.saved_header_query_single": {
        "en": "*{total}* of your saved papers match “{query}”",
        "zh": "你的收藏中有 *{total}* 篇与“{query}”匹配",
    },
    "library.saved_header_query_single_one": {
        "en": "*1* of your saved papers matches “{query}”",
        "zh": "你的收藏中有 *1* 篇与“{query}”匹配",
    },
    "library.saved_none": {
        "en": "You haven't saved any papers yet. Click *Save* on any paper, or type `/papers save ParisKV`.",
        "zh": "你还没有收藏论文。点任意论文的 *收藏*，或输入 `/papers save ParisKV`。",
    },
    "library.saved_none_query": {
        "en": "None of your saved papers match “{query}”. `/papers saved` lists them all.",
        "zh": "你的收藏中没有与“{query}”匹配的论文。`/papers saved` 可列出全部收藏。",
    },
    "library.saved_private": {
        "en": "Only you can see your saved papers. Export them with `/papers export bibtex`.",
        "zh": "你的收藏仅你可见。可用 `/papers export bibtex` 导出。",
    },
    "library.top_header_week": {
        "en": "*Popular in <#{channel_id}> this week*: shared, saved and reacted to most",
        "zh": "*<#{channel_id}> 本周热门*：分享、收藏和回应最多的论文",
    },
    "library.top_header_month": {
        "en": "*Popular in <#{channel_id}> this month*: shared, saved and reacted to most",
        "zh": "*<#{channel_id}> 本月热门*：分享、收藏和回应最多的论文",
    },
    "library.top_none_week": {
        "en": "Nothing was shared, saved or reacted to in <#{channel_id}> this week yet. Share a paper with `/papers share ...`, then react to it.",
        "zh": "<#{channel_id}> 本周还没有分享、收藏或回应过论文。先用 `/papers share ...` 分享一篇，再给它加个表情回应吧。",
    },
    "library.top_none_month": {
        "en": "Nothing was shared, saved or reacted to in <#{channel_id}> this month yet. Share a paper with `/papers share ...`, then react to it.",
        "zh": "<#{channel_id}> 本月还没有分享、收藏或回应过论文。先用 `/papers share ...` 分享一篇，再给它加个表情回应吧。",
    },
    "library.top_needs_channel": {
        "en": "`/papers top` shows what a channel values most: run it in a channel.",
        "zh": "`/papers top` 显示频道最看重的论文，请在频道中使用。",
    },
    "library.top_usage": {
        "en": "`/papers top` shows this week's popular papers here; `/papers top month` the last 30 days.",
        "zh": "`/papers top` 显示本频道本周热门论文；`/papers top month` 显示最近 30 天。",
    },
    "library.top_bad_period": {
        "en": "`/papers top` takes `week` (the default) or `month`, not `{value}`: try `/papers top month`.",
        "zh": "`/papers top` 后面只能跟 `week`/`本周`（默认）或 `month`/`本月`（最近 30 天），不能是 `{value}`。试试 `/papers top 本月`。",
    },
    # People, not times: one person sharing a paper ten times is one vote (issue 29).
    "library.top_shares": {"en": "shared by {count} people", "zh": "{count} 人分享"},
    "library.top_shares_one": {"en": "shared by 1 person", "zh": "1 人分享"},
    "library.top_saves": {"en": "saved by {count} people", "zh": "{count} 人收藏"},
    "library.top_saves_one": {"en": "saved by 1 person", "zh": "1 人收藏"},
    "library.top_voters": {"en": "{count} people reacted", "zh": "{count} 人回应"},
    "library.top_voters_one": {"en": "1 person reacted", "zh": "1 人回应"},
    "library.foryou_nothing_saved": {
        "en": "Save a few papers, rate any paper 👍 / 👎, or name your interests (`/papers interests add KV cache, 推测解码`), and `/papers foryou` ranks new papers by them. Until then, the newest:",
        "zh": "收藏几篇论文、给论文点 👍 / 👎，或添加你关注的主题（`/papers interests add KV cache, 推测解码`），`/papers foryou` 就会据此为新论文排序。先看看最新的论文：",
    },
    "library.foryou_none": {
        "en": "There are no papers you haven't saved yet.",
        "zh": "暂时没有你尚未收藏的论文。",
    },
    "library.reason_saved": {"en": "like *{title}*, which you saved", "zh": "与你收藏的《{title}》相似"},
    "library.reason_channel": {"en": "like *{title}*, which this channel valued", "zh": "与本频道看重的《{title}》相似"},
    "library.popular_intro": {
        "en": "*Popular in this channel this week:* {papers}",
        "zh": "*本频道本周热门：* {papers}",
    },
    "library.export_usage": {
        "en": "Export your saved papers with `/papers export bibtex`, `/papers export ris` or `/papers export csl-json`; Zotero imports all three.",
        "zh": "用 `/papers export bibtex`、`/papers export ris` 或 `/papers export csl-json` 导出你的收藏；Zotero 三种格式都能导入。",
    },
    "library.export_empty": {
        "en": "You have no saved papers to export yet. Click *Save* on a paper, or type `/papers save ParisKV`.",
        "zh": "你还没有可导出的收藏。点论文的 *收藏*，或输入 `/papers save ParisKV`。",
    },
    "library.export_sending": {
        "en": "Sending your *{count}* saved papers as {format} to your DM with paperbot…",
        "zh": "正在把你收藏的 *{count}* 篇论文以 {format} 格式发到你与 paperbot 的私信……",
    },
    "library.export_sending_one": {
        "en": "Sending your *1* saved paper as {format} to your DM with paperbot…",
        "zh": "正在把你收藏的 *1* 篇论文以 {format} 格式发到你与 paperbot 的私信……",
    },
    "library.export_comment": {
        "en": "Your *{count}* saved papers as {format}. In Zotero: File › Import…",
        "zh": "你收藏的 *{count}* 篇论文（{format} 格式）。在 Zotero 中选择“文件 › 导入……”即可。",
    },
    "library.export_comment_one": {
        "en": "Your *1* saved paper as {format}. In Zotero: File › Import…",
        "zh": "你收藏的 *1* 篇论文（{format} 格式）。在 Zotero 中选择“文件 › 导入……”即可。",
    },
    "library.export_failed": {
        "en": "I couldn't send the file: Slack said `{error}`. Try again in a minute.",
        "zh": "文件发送失败：Slack 返回 `{error}`。请稍后重试。",
    },
    "library.export_written": {
        "en": "Offline, so no DM: the file is at `{path}`.",
        "zh": "当前离线，无法私信发送：文件已保存到 `{path}`。",
    },
    "library.export_ai_summary": {
        "en": "AI summary by paperbot, not the authors' abstract: {summary}",
        "zh": "paperbot 生成的 AI 总结（并非作者摘要）：{summary}",
    },
    "library.export_write_failed": {
        "en": "Offline, so no DM, and the file could not be written: {error}",
        "zh": "当前离线，无法私信发送，文件也未能写入：{error}",
    },
    "library.home_saved_title": {"en": "Your saved papers", "zh": "我的收藏"},
    "library.home_saved_none": {
        "en": "Nothing saved yet: click *Save* on any paper. Only you see this list.",
        "zh": "还没有收藏：点任意论文的 *收藏* 即可。此列表仅你可见。",
    },
    "library.home_saved_more": {
        "en": "and {count} more: `/papers saved` lists them all, `/papers export bibtex` sends them to Zotero",
        "zh": "还有 {count} 篇：`/papers saved` 列出全部，`/papers export bibtex` 可导入 Zotero",
    },
    "library.order_new_user": {"en": "in the order they arrived", "zh": "按收录时间排序"},
    "library.order_new_channel": {"en": "in the order they arrived", "zh": "按收录时间排序"},
    "library.order_foryou_user": {"en": "ordered by what you saved", "zh": "按你的收藏排序"},
    "library.order_foryou_channel": {"en": "ordered by what this channel shared and saved", "zh": "按本频道的分享与收藏排序"},
    "library.order_popular_user": {"en": "ordered by what you saved", "zh": "按你的收藏排序"},
    "library.order_popular_channel": {"en": "ordered by what this channel values most", "zh": "按本频道最看重的论文排序"},
    "library.order_note": {"en": "Papers come {order}.", "zh": "论文{order}。"},
    "subscribe.bad_order": {
        "en": "`{value}` is not an order I know: use `order:new`, `order:foryou` or `order:popular`.",
        "zh": "无法识别排序方式 `{value}`：请使用 `order:new`、`order:foryou` 或 `order:popular`。",
    },
    # -- trust: limits, failures, storage, start-up (issue 13) --
    "listing.record_field_too_long": {
        "en": "the {field} is {length} characters long, over the limit of {limit}; a field this long is usually two records run together or pasted text: shorten it and ingest the file again",
        "zh": "{field}长 {length} 个字符，超过上限 {limit}；这么长的字段通常是两条记录连在了一起，或误贴了正文：请缩短后重新导入该文件",
    },
    "listing.field_title_en": {"en": "English title", "zh": "英文标题"},
    "listing.field_title_zh": {"en": "Chinese title", "zh": "中文标题"},
    "listing.field_authors": {"en": "author line", "zh": "作者行"},
    "listing.field_affiliations": {"en": "'机构' line", "zh": "“机构”行"},
    "listing.field_summary": {"en": "'AI总结' summary", "zh": "“AI总结”行"},
    "listing.field_comments": {"en": "'Comments' text", "zh": "Comments 内容"},
    "listing.field_journal": {"en": "'Journal ref' text", "zh": "Journal ref 内容"},
    "inbox.nothing_lost": {
        "en": "Nothing was lost: every paper already in the library is still there.",
        "zh": "没有任何数据丢失：论文库中已有的论文都还在。",
    },
    "inbox.storage_full": {
        "en": "Couldn't add `{name}`: the server's storage is full. Free some disk space on the server, then send the file again (papers it already added are recognised, not duplicated).",
        "zh": "无法添加 `{name}`：服务器存储空间已满。请先在服务器上释放一些磁盘空间，再重新发送该文件（已添加的论文会被识别，不会重复）。",
    },
    "inbox.save_failed": {
        "en": "Couldn't add `{name}`: saving it failed ({error}). Send it again (papers it already added are recognised, not duplicated); if it keeps failing, the server's log says why.",
        "zh": "无法添加 `{name}`：保存时出错（{error}）。请重新发送（已添加的论文会被识别，不会重复）；如果仍然失败，可在服务器日志中查看原因。",
    },
    "search.store_away": {
        "en": "I can't reach my database just now, so these results come from the search index alone: some papers may be missing. Saving, details and the next pages come back with the database, usually within a minute.",
        "zh": "暂时连不上数据库，以上结果仅来自搜索索引，可能有遗漏。数据库恢复后（通常在一分钟内），收藏、详情和翻页即可正常使用。",
    },
    "search.store_away_none": {
        "en": "I can't reach my database just now, so I searched the search index alone and may have missed papers. Please try again in a minute.",
        "zh": "暂时连不上数据库，本次仅在搜索索引中查找，可能有遗漏；请过一分钟再试。",
    },
    "error.store_unavailable": {
        "en": "Sorry, I can't reach my database just now (it may be restarting). Nothing stored is lost; please try again in a minute.",
        "zh": "抱歉，暂时连不上数据库（可能正在重启）。已存储的内容不会丢失，请过一分钟再试。",
    },
    "error.storage_full": {
        "en": "Sorry, I couldn't save that: the server's storage is full. An admin has been told; please try again later. Everything saved before is still there.",
        "zh": "抱歉，无法保存：服务器存储空间已满。已通知管理员，请稍后再试。之前保存的内容都还在。",
    },
    "error.storage_full_no_admin": {
        "en": "Sorry, I couldn't save that: the server's storage is full. Please tell whoever runs paperbot; everything saved before is still there.",
        "zh": "抱歉，无法保存：服务器存储空间已满。请告知 paperbot 的维护者；之前保存的内容都还在。",
    },
    "admin.storage_full": {
        "en": "paperbot's storage is full: writing to `{path}` failed (“database or disk is full”). People can still search, but can't change settings, subscribe or add papers until space is freed. Free disk space on that volume, or move PAPERBOT_DATA_DIR to a larger one. Nothing stored has been lost. (You'll hear this once, not for every failed request.)",
        "zh": "paperbot 的存储空间已满：写入 `{path}` 失败（“database or disk is full”）。大家仍可搜索，但在释放空间之前无法更改设置、订阅或添加论文。请释放该磁盘上的空间，或将 PAPERBOT_DATA_DIR 改到更大的磁盘。已存储的数据没有丢失。（此消息只发送一次，不会每次请求失败都发送。）",
    },
    "setup.data_dir_unwritable": {
        "en": "paperbot can't write to its data folder {path} ({cause}). Make that folder writable by this user, or set PAPERBOT_DATA_DIR in .env or the environment to a folder that is.",
        "zh": "paperbot 无法写入数据文件夹 {path}（{cause}）。请让当前用户可以写入该文件夹，或在 .env 或环境变量中把 PAPERBOT_DATA_DIR 设为一个可写的文件夹。",
    },
    # -- digests, schedules, zones, channels and sharing (issue 11) --
    "subscribe.bad_time_suggest": {
        "en": "“{value}” isn't a time I can read. Did you mean `{suggestion}`? Times look like `9`, `9am`, `09:30`, `9.30`, `21:30` or `9:30pm`.",
        "zh": "无法识别时间“{value}”。你是不是想写 `{suggestion}`？时间可以写成 `9`、`9am`、`09:30`、`21:30`、`早上8点` 或 `下午3点半`。",
    },
    "subscribe.not_a_schedule": {
        "en": "“{value}” isn't a schedule a digest can follow: digests run on days of the week. Try `daily`, `weekdays`, `weekly mon` or `sat sun`.",
        "zh": "“{value}”是某一天，而订阅按星期几发送。可以写 `每天`、`工作日`、`每周一` 或 `周六 周日`。",
    },
    "subscribe.time_needs_hour": {
        "en": "“{value}” doesn't say which hour. Write it with one, such as `9am`, `21:30` or `noon`.",
        "zh": "“{value}”没有说是几点。请写明时间，如 `上午9点`、`21:30` 或 `中午`。",
    },
    "subscribe.two_times": {
        "en": "That line has two times, {first} and “{second}”; a digest runs once a day. Keep one and subscribe again.",
        "zh": "这条命令里有两个时间：{first} 和“{second}”；日报每天只发一次。请只保留一个后重新订阅。",
    },
    "subscribe.two_zones": {
        "en": "That line has two time zones, {first} and “{second}”. Keep one and subscribe again.",
        "zh": "这条命令里有两个时区：{first} 和“{second}”。请只保留一个后重新订阅。",
    },
    "subscribe.zone_ambiguous": {
        "en": "“{value}” means different zones in different places, and some of them change with daylight saving. Say which one: {options}.",
        "zh": "“{value}”在不同地方代表不同的时区，有的还有夏令时。请明确指定：{options}。",
    },
    "subscribe.zone_offset": {
        "en": "I can only take whole-hour offsets such as `tz:UTC+8` or `tz:GMT-5`. For “{value}”, name the place instead, e.g. `tz:Asia/Kolkata` or `tz:Mumbai`.",
        "zh": "只支持整点偏移，如 `tz:UTC+8` 或 `tz:GMT-5`。对于“{value}”，请改用地名，如 `tz:Asia/Kolkata` 或 `tz:孟买`。",
    },
    "subscribe.bad_top": {
        "en": "“{value}” isn't a number of highlights I can use: write `top:N` with N from 1 to {limit}.",
        "zh": "无法使用“{value}”作为精选篇数：请写 `top:N`，N 为 1 到 {limit}。",
    },
    "subscribe.two_schedules": {
        "en": "“{value}” is a second schedule in one line. Pick one: `daily`, `weekdays`, `weekly mon` or days such as `mon wed fri`.",
        "zh": "“{value}”是同一条命令里的第二个日程。请只选一种：`daily`（每天）、`weekdays`（工作日）、`weekly mon`（每周一）或 `周一 周三 周五` 这样的日子。",
    },
    "schedule.every_day": {"en": "every day", "zh": "每天"},
    "schedule.weekdays": {"en": "every weekday", "zh": "每个工作日"},
    "schedule.one_day": {"en": "every {day}", "zh": "每{day}"},
    "schedule.some_days": {"en": "every {days} and {last}", "zh": "每{days}和{last}"},
    "schedule.day_names": {
        "en": "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday",
        "zh": "周一|周二|周三|周四|周五|周六|周日",
    },
    "zone.label": {"en": "{zone}", "zh": "{zone} 时间"},
    "zone.label_city": {"en": "{city} time", "zh": "{city}时间"},
    "zone.from_slack": {
        "en": "your Slack time zone; add `tz:…` to choose another",
        "zh": "按你在 Slack 中设置的时区；可加 `tz:…` 另选",
    },
    "zone.from_default": {
        "en": "the team's default; add `tz:…` to choose another",
        "zh": "团队默认时区；可加 `tz:…` 另选",
    },
    "zone.next_your_time": {"en": "{date} ({yours} your time)", "zh": "{date}（你当地时间 {yours}）"},
    "subscribe.zone_note": {"en": "Time zone: {zone} ({why}).", "zh": "时区：{zone}（{why}）。"},
    "subscribe.top_note_filter": {
        "en": "Each digest opens with the *{top}* papers most relevant to the filter; the rest follow in its thread.",
        "zh": "每期先列出与筛选条件最相关的 *{top}* 篇，其余的在消息串中。",
    },
    "subscribe.top_note_saved": {
        "en": "Each digest opens with the *{top}* papers most like what you saved; the rest follow in its thread.",
        "zh": "每期先列出与你的收藏最相似的 *{top}* 篇，其余的在消息串中。",
    },
    "subscribe.top_note_channel": {
        "en": "Each digest opens with the *{top}* papers closest to what this channel values; the rest follow in its thread.",
        "zh": "每期先列出与本频道看重的论文最相近的 *{top}* 篇，其余的在消息串中。",
    },
    "subscribe.top_note_plain": {
        "en": "Each digest opens with *{top}* highlights, main-track papers first; the rest follow in its thread.",
        "zh": "每期先列出 *{top}* 篇精选（主会论文优先），其余的在消息串中。",
    },
    "subscribe.cannot_post": {
        "en": "⏸ I'm not in <#{channel_id}> yet, so I can't post this digest there. Invite me with `/invite @paperbot`; the digest stays paused until then and starts by itself once I'm in.",
        "zh": "⏸ 我还不在频道 <#{channel_id}> 中，无法在那里发送日报。请用 `/invite @paperbot` 邀请我；在此之前日报保持暂停，我加入后会自动开始。",
    },
    "subscribe.announce_created": {
        "en": "📚 <@{user_id}> set up a {digest} for this channel: {schedule} at {time} ({zone}), in {lang_name}{filter}. `/papers subscriptions` shows it; `/papers unsubscribe` stops it.",
        "zh": "📚 <@{user_id}> 为本频道订阅了{digest}：{schedule} {time}（{zone}），{lang_name}{filter}。`/papers subscriptions` 查看设置；`/papers unsubscribe` 取消订阅。",
    },
    "subscribe.announce_updated": {
        "en": "📚 <@{user_id}> changed this channel's {digest}: {schedule} at {time} ({zone}), in {lang_name}{filter}.",
        "zh": "📚 <@{user_id}> 修改了本频道的{digest}：{schedule} {time}（{zone}），{lang_name}{filter}。",
    },
    "subscribe.announce_restored": {
        "en": "📚 <@{user_id}> brought back this channel's {digest}: {schedule} at {time} ({zone}), as before.",
        "zh": "📚 <@{user_id}> 恢复了本频道的{digest}：{schedule} {time}（{zone}），设置不变。",
    },
    "subscribe.restored": {
        "en": "Restored the {digest} for {place}: {schedule} at *{time}* ({zone}), as before. It picks up where it left off.",
        "zh": "已恢复{place}的{digest}：{schedule} *{time}*（{zone}），设置不变，从上次停下的地方继续。",
    },
    "subscribe.restore_not_yours": {
        "en": "Only the person who stopped this digest can undo that. `/papers subscribe` here sets up a new one.",
        "zh": "只有取消这份日报的人才能撤销。可以用 `/papers subscribe` 在这里重新订阅。",
    },
    "subscribe.restore_none": {
        "en": "There's nothing to restore: that digest is back already, or a new one was set up there since. `/papers subscriptions` shows what's running.",
        "zh": "没有可恢复的日报：它可能已经恢复，或者之后那里又订阅了新的日报。用 `/papers subscriptions` 查看当前的订阅。",
    },
    "subscribe.announce_removed": {
        "en": "📚 <@{user_id}> stopped this channel's {digest}. `/papers subscribe` starts a new one.",
        "zh": "📚 <@{user_id}> 取消了本频道的{digest}。可用 `/papers subscribe` 重新订阅。",
    },
    "subscribe.announce_joined": {
        "en": "📚 Thanks for inviting me. The {digest} <@{user_id}> set up here is running: {schedule} at {time} ({zone}).",
        "zh": "📚 感谢邀请。<@{user_id}> 为本频道设置的{digest}已开始：{schedule} {time}（{zone}）。",
    },
    "subscribe.next_run": {"en": "Next digest: {next_run}.", "zh": "下一期：{next_run}。"},
    "subscribe.announce_filter": {"en": ", papers matching “{filter}”", "zh": "，只收录匹配“{filter}”的论文"},
    "digest.top_in_thread_filter": {
        "en": "the {top} most relevant to the filter here, {rest} more in the thread 🧵",
        "zh": "这里是与筛选条件最相关的 {top} 篇，另外 {rest} 篇在消息串中 🧵",
    },
    "digest.top_in_thread_saved": {
        "en": "the {top} most like your saved papers here, {rest} more in the thread 🧵",
        "zh": "这里是与你的收藏最相似的 {top} 篇，另外 {rest} 篇在消息串中 🧵",
    },
    "digest.top_in_thread_channel": {
        "en": "the {top} closest to what this channel values here, {rest} more in the thread 🧵",
        "zh": "这里是与本频道看重的论文最相近的 {top} 篇，另外 {rest} 篇在消息串中 🧵",
    },
    "digest.top_in_thread_plain": {
        "en": "{top} highlights here (main-track papers first), {rest} more in the thread 🧵",
        "zh": "这里是 {top} 篇精选（主会论文优先），另外 {rest} 篇在消息串中 🧵",
    },
    "digest.thread_intro": {
        "en": "The other {count} papers, by venue:",
        "zh": "其余 {count} 篇论文，按会议/期刊分组：",
    },
    "digest.thread_intro_one": {
        "en": "The other {count} paper:",
        "zh": "其余 {count} 篇论文：",
    },
    "share.preview": {
        "en": "Post this paper in <#{channel_id}> for everyone?",
        "zh": "要把这篇论文发到频道 <#{channel_id}>，让所有人看到吗？",
    },
    "share.posted_to": {"en": "Shared to <#{channel_id}>.", "zh": "已分享到频道 <#{channel_id}>。"},
    "share.cancelled": {"en": "Cancelled; nothing was posted.", "zh": "已取消，没有发送任何内容。"},
    "button.post": {"en": "Post", "zh": "发送"},
    "button.cancel": {"en": "Cancel", "zh": "取消"},
    "search.header_single": {
        "en": "*{total}* papers for “{query}”",
        "zh": "“{query}”共找到 *{total}* 篇论文",
    },
    "search.header_single_one": {
        "en": "*{total}* paper for “{query}”",
        "zh": "“{query}”共找到 *{total}* 篇论文",
    },
    "search.more_like_header_single": {
        "en": "*{total}* papers like “{title}”",
        "zh": "与“{title}”相似的论文共 *{total}* 篇",
    },
    "search.more_like_header_single_one": {
        "en": "*{total}* paper like “{title}”",
        "zh": "与“{title}”相似的论文共 *{total}* 篇",
    },
    "console.channel_post": {
        "en": "[posted in the simulated channel #{channel}]",
        "zh": "[已发到模拟频道 #{channel}]",
    },
    "console.thread_post": {
        "en": "[in the thread of that message]",
        "zh": "[发在该消息的消息串中]",
    },
    "console.sample_note": {
        "en": "(Nothing new since the subscription started, so that was the {count} newest papers, posted the way the digest will post them.)",
        "zh": "（订阅以来还没有新论文，以上是按日报格式发送的最新 {count} 篇论文。）",
    },
    "console.no_digest_due": {
        "en": "No digest here yet: `/papers subscribe` first, then `/papers digest` previews it and `post digest` posts it to the simulated channel.",
        "zh": "这里还没有日报：先运行 `/papers subscribe`，然后用 `/papers digest` 预览，用 `post digest` 发到模拟频道。",
    },
    # -- arXiv links and feeds (issue 9) --
    "button.link_arxiv": {"en": "arXiv", "zh": "arXiv 页面"},
    "button.link_pdf": {"en": "PDF", "zh": "PDF 全文"},
    "button.link_code": {"en": "Code", "zh": "代码"},
    "button.link_project": {"en": "Project", "zh": "项目主页"},
    "card.label_abstract": {"en": "Abstract (arXiv)", "zh": "英文摘要（arXiv）"},
    "card.arxiv_published": {"en": "first submitted {date}", "zh": "首次提交于 {date}"},
    "sources.usage": {
        "en": 'Usage: `/papers sources` lists the feeds; `/papers sources add URL|arxiv:cs.CL|arxiv:"a query"`, `/papers sources remove SOURCE`, `/papers sources poll` polls them now; `/papers sources remove-papers SOURCE` removes the papers only that source brought (it asks you to confirm first).',
        "zh": '用法：`/papers sources` 列出所有订阅源；`/papers sources add 网址|arxiv:cs.CL|arxiv:"检索词"` 添加，`/papers sources remove 订阅源` 删除，`/papers sources poll` 立即抓取；`/papers sources remove-papers 订阅源` 移除仅由该订阅源带来的论文（执行前会请你确认）。',
    },
    "sources.admins_only": {
        "en": "Only paperbot's admins add, remove or poll feeds. {admins}",
        "zh": "只有 paperbot 管理员可以添加、删除或抓取订阅源。{admins}",
    },
    "sources.managed_by": {
        "en": "Feeds are managed by {admins}; ask one of them to add the one you want.",
        "zh": "订阅源由 {admins} 管理；需要添加订阅源请联系他们。",
    },
    "sources.no_admins": {
        "en": "No one is a paperbot admin yet, so feeds can't be changed from Slack; ask whoever runs paperbot.",
        "zh": "paperbot 还没有管理员，无法在 Slack 中更改订阅源；请联系 paperbot 的维护者。",
    },
    "sources.list_separator": {"en": ", ", "zh": "、"},
    "sources.bad_target": {
        "en": '`{target}` is not a feed I can read: give a listing URL (https://…), an arXiv category such as `arxiv:cs.CL`, or an arXiv search such as `arxiv:"speculative decoding"`.',
        "zh": '无法识别订阅源 `{target}`：请提供列表网址（https://…）、arXiv 分类（如 `arxiv:cs.CL`）或 arXiv 检索（如 `arxiv:"speculative decoding"`）。',
    },
    "sources.exists": {"en": "`{source}` is already a source.", "zh": "`{source}` 已经是订阅源。"},
    "sources.shared_elsewhere": {
        "en": "Another workspace also follows `{source}`, so its papers stay; `/papers sources remove {source}` stops it here.",
        "zh": "另一个工作区也在使用订阅源 `{source}`，因此它的论文保留；用 `/papers sources remove {source}` 可在本工作区停用它。",
    },
    "sources.unknown": {
        "en": "There is no source `{source}`; `/papers sources` lists them.",
        "zh": "没有订阅源 `{source}`；用 `/papers sources` 查看全部订阅源。",
    },
    "sources.arxiv_off": {
        "en": "arXiv is turned off here (PAPERBOT_ARXIV=off), so arXiv feeds can't be added; set PAPERBOT_ARXIV=on in .env first.",
        "zh": "本机已关闭 arXiv（PAPERBOT_ARXIV=off），无法添加 arXiv 订阅源；请先在 .env 中设置 PAPERBOT_ARXIV=on。",
    },
    "sources.added": {
        "en": "Added `{source}`. It is polled every {minutes} minutes; new papers reach digests like any other.",
        "zh": "已添加 `{source}`。每 {minutes} 分钟抓取一次，新论文会像其他论文一样进入日报。",
    },
    "sources.removed": {
        "en": "Removed `{source}`. The papers it brought stay.",
        "zh": "已删除 `{source}`。它带来的论文仍会保留。",
    },
    "sources.title": {"en": "Feeds", "zh": "订阅源"},
    "sources.remove_papers_preview": {
        "en": "Removing the papers of `{source}` takes away {count} papers that only it brought, and the source itself, so its next poll can't bring them back.",
        "zh": "删除 `{source}` 的论文将移除仅由它带来的 {count} 篇论文，并一并删除该订阅源，以免下次抓取又把它们带回来。",
    },
    "sources.remove_papers_preview_one": {
        "en": "Removing the papers of `{source}` takes away 1 paper that only it brought, and the source itself, so its next poll can't bring it back.",
        "zh": "删除 `{source}` 的论文将移除仅由它带来的 1 篇论文，并一并删除该订阅源，以免下次抓取又把它带回来。",
    },
    "sources.remove_papers_nothing": {
        "en": "`{source}` brought no papers that only it has: there is nothing of its to remove.",
        "zh": "`{source}` 没有带来只属于它的论文：没有可移除的内容。",
    },
    "sources.remove_papers_confirm": {
        "en": "Nothing is removed yet. To go ahead: `/papers sources remove-papers {source} confirm`",
        "zh": "目前尚未移除任何内容。确认执行：`/papers sources remove-papers {source} confirm`",
    },
    "sources.papers_removed": {
        "en": "Removed {count} papers that only `{source}` brought.",
        "zh": "已移除仅由 `{source}` 带来的 {count} 篇论文。",
    },
    "sources.papers_removed_one": {
        "en": "Removed 1 paper that only `{source}` brought.",
        "zh": "已移除仅由 `{source}` 带来的 1 篇论文。",
    },
    "sources.remove_papers_kept": {"en": "Kept: {kept}.", "zh": "保留：{kept}。"},
    "sources.remove_papers_and": {"en": "; ", "zh": "；"},
    "sources.remove_papers_kept_listed": {
        "en": "{count} that another feed or a listing file also brought",
        "zh": "{count} 篇其他订阅源或列表文件也收录的论文",
    },
    "sources.remove_papers_kept_people": {
        "en": "{count} that someone saved or shared",
        "zh": "{count} 篇有人收藏或分享过的论文",
    },
    "sources.remove_papers_source_gone": {
        "en": "`{source}` is no longer a source.",
        "zh": "`{source}` 已不再是订阅源。",
    },
    "sources.polling": {
        "en": "Polling {count} feeds now; `/papers sources` shows how it went.",
        "zh": "正在抓取 {count} 个订阅源；稍后用 `/papers sources` 查看结果。",
    },
    "sources.polling_one": {
        "en": "Polling 1 feed now; `/papers sources` shows how it went.",
        "zh": "正在抓取 1 个订阅源；稍后用 `/papers sources` 查看结果。",
    },
    "sources.none": {
        "en": "No feeds yet. Add one with `/papers sources add URL` or `/papers sources add arxiv:cs.CL`.",
        "zh": "还没有订阅源。可用 `/papers sources add 网址` 或 `/papers sources add arxiv:cs.CL` 添加。",
    },
    "sources.row": {
        "en": "`{source}` · last poll {poll} · last success {success} · {count} papers added · {error}",
        "zh": "`{source}` · 上次抓取 {poll} · 上次成功 {success} · 已添加 {count} 篇 · {error}",
    },
    "sources.row_one": {
        "en": "`{source}` · last poll {poll} · last success {success} · 1 paper added · {error}",
        "zh": "`{source}` · 上次抓取 {poll} · 上次成功 {success} · 已添加 1 篇 · {error}",
    },
    "sources.never": {"en": "never", "zh": "从未"},
    "sources.no_error": {"en": "no errors", "zh": "无错误"},
    "sources.poll_done": {"en": "`{source}`: {count} new papers.", "zh": "`{source}`：新增 {count} 篇论文。"},
    "sources.poll_done_one": {"en": "`{source}`: 1 new paper.", "zh": "`{source}`：新增 1 篇论文。"},
    "sources.poll_held_back": {
        "en": "{count} more new papers wait for the next poll (at most {cap} per poll: PAPERBOT_FEEDS_MAX_NEW_PER_POLL).",
        "zh": "另有 {count} 篇新论文留待下次抓取（每次最多 {cap} 篇：PAPERBOT_FEEDS_MAX_NEW_PER_POLL）。",
    },
    "sources.row_held_back": {
        "en": "{count} more new papers waiting for the next poll (PAPERBOT_FEEDS_MAX_NEW_PER_POLL)",
        "zh": "另有 {count} 篇新论文等待下次抓取（PAPERBOT_FEEDS_MAX_NEW_PER_POLL）",
    },
    "sources.poll_unchanged": {"en": "`{source}`: unchanged since the last poll.", "zh": "`{source}`：自上次抓取以来没有变化。"},
    "sources.poll_failed": {"en": "`{source}` failed: {reason}", "zh": "`{source}` 抓取失败：{reason}"},
    "sources.poll_skipped_busy": {
        "en": "`{source}` is being polled right now; try again in a minute.",
        "zh": "`{source}` 正在抓取中，请稍后再试。",
    },
    "sources.poll_skipped_waiting": {
        "en": "`{source}` is waiting after failures until {when}.",
        "zh": "`{source}` 因多次失败暂停，将于 {when} 后重试。",
    },
    "sources.failing_dm": {
        "en": ":warning: The feed `{source}` is failing: {reason}. paperbot keeps trying less often and will not tell you again until it has worked once. `/papers sources` shows its status.",
        "zh": ":warning: 订阅源 `{source}` 抓取失败：{reason}。paperbot 会降低频率继续重试，在恢复之前不会再次提醒。用 `/papers sources` 查看状态。",
    },
    "sources.error_network": {"en": "the server can't be reached ({detail})", "zh": "无法连接服务器（{detail}）"},
    "sources.error_timeout": {"en": "the server did not answer in time ({detail})", "zh": "服务器未及时响应（{detail}）"},
    "sources.error_too_large": {"en": "the response is too large ({detail})", "zh": "响应过大（{detail}）"},
    "sources.error_redirects": {"en": "the URL redirects in a loop ({detail})", "zh": "网址陷入重定向循环（{detail}）"},
    "sources.error_rate_limited": {
        "en": "the server asks us to slow down (HTTP 429); waiting as it says",
        "zh": "服务器要求降低请求频率（HTTP 429），将按其要求等待",
    },
    "sources.error_unavailable": {
        "en": "the server is unavailable (HTTP 503); trying again later",
        "zh": "服务器暂时不可用（HTTP 503），稍后重试",
    },
    "sources.error_http": {"en": "the server answered {detail}", "zh": "服务器返回 {detail}"},
    "sources.error_html": {
        "en": "the URL gave a web page ({detail}), not a listing; check that it points at the listing's text",
        "zh": "该网址返回的是网页（{detail}），而不是论文列表；请确认网址指向列表文本",
    },
    "sources.error_listing": {"en": "the listing can't be read: {detail}", "zh": "无法读取列表：{detail}"},
    "sources.error_format": {
        "en": "arXiv's answer is not a valid Atom feed ({detail})",
        "zh": "arXiv 返回的不是有效的 Atom 订阅（{detail}）",
    },
    "sources.error_api": {"en": "arXiv refused the query: {detail}", "zh": "arXiv 拒绝了该检索：{detail}"},
    "sources.error_arxiv_off": {"en": "arXiv is turned off ({detail})", "zh": "arXiv 已关闭（{detail}）"},
    "sources.error_stopped": {"en": "paperbot was shutting down ({detail})", "zh": "paperbot 正在关闭（{detail}）"},
    "sources.error_internal": {"en": "an internal error ({detail}); see the log", "zh": "内部错误（{detail}）；请查看日志"},
    "sources.error_private": {
        "en": "the feed's address {detail} is not a public one (loopback, a private network, link-local or another internal address), so paperbot does not fetch it; if it is an intranet feed you trust, allow its network with PAPERBOT_FEEDS_ALLOW_PRIVATE (e.g. 10.1.0.0/16, or on) in .env",
        "zh": "订阅源地址 {detail} 不是公网地址（属于本机、内网、链路本地或其他内部地址），paperbot 不会抓取；如果这是你信任的内网订阅源，请在 .env 中用 PAPERBOT_FEEDS_ALLOW_PRIVATE 放行它所在的网段（例如 10.1.0.0/16，或设为 on）",
    },
    "sources.error_scheme": {
        "en": "the feed redirected to {detail}, which is not an http:// or https:// address; paperbot fetches only those",
        "zh": "订阅源重定向到了 {detail}，这不是 http:// 或 https:// 地址；paperbot 只抓取这两类地址",
    },
    # -- search across languages, scripts, aliases and typos (issue 8) --
    "search.showing_for": {
        "en": "Showing results for “{suggestion}” · Search instead for “{query}”",
        "zh": "以下是“{suggestion}”的结果 · 仍然搜索“{query}”",
    },
    "button.search_instead": {"en": "Search “{query}” as typed", "zh": "按原文搜索“{query}”"},
    "button.back_to_corrected": {"en": "‹ Back to “{query}”", "zh": "‹ 返回“{query}”"},
    "search.corrected_from": {"en": "Corrected from “{query}”.", "zh": "已自动更正拼写（原文：“{query}”）。"},
    "search.as_typed": {"en": "Searched as typed, without spelling correction.", "zh": "已按原文搜索，未做拼写更正。"},
    "search.none_as_typed": {
        "en": "No papers found for “{query}” as typed.",
        "zh": "按原文搜索，没有找到与“{query}”相关的论文。",
    },
    "help.search": {
        "en": (
            "*Search understands both languages.* `/papers steganography` also finds papers that say 隐写术, "
            "and `/papers 推测解码` papers that say speculative decoding; papers that match your words as typed come first.\n"
            "Traditional and simplified Chinese are the same (`推測解碼` = `推测解码`), accents are optional (`Gudmundsdottir`), "
            "and so are hyphens and spaces (`KVCache` = `KV cache` = `KV-cache`, `multiagent` = `multi-agent`).\n"
            "Abbreviations and short names work: `LLM`, `RL`, `大模型`, `MIT`, `CMU`, `清华`, `北大`, `中科大`. "
            "A short name matches whole names only: `北大` finds Peking University, not 西北大学.\n"
            "Typos are corrected in both languages (`speculativ decodng`, `推测截码`), and questions work: "
            "`/papers papers about making LLM inference faster`, `/papers 有哪些关于世界模型的论文`.\n"
            "A quote under a result shows where it matched when that is not the title."
        ),
        "zh": (
            "*搜索同时理解中英文。* `/papers steganography` 也能找到写着“隐写术”的论文，"
            "`/papers 推测解码` 也能找到写着 speculative decoding 的论文；与你输入的词直接匹配的论文排在前面。\n"
            "繁体与简体通用（`推測解碼` = `推测解码`），外文重音可省略（`Gudmundsdottir`），"
            "连字符与空格也可有可无（`KVCache` = `KV cache` = `KV-cache`，`multiagent` = `multi-agent`）。\n"
            "支持缩写和简称：`LLM`、`RL`、`大模型`、`MIT`、`CMU`、`清华`、`北大`、`中科大`。"
            "简称只匹配完整名称：`北大` 找的是北京大学，不会匹配西北大学。\n"
            "中英文错别字都会自动纠正（`speculativ decodng`、`推测截码`），也可以直接提问："
            "`/papers papers about making LLM inference faster`、`/papers 有哪些关于世界模型的论文`。\n"
            "结果下方的引文只在匹配位置不在标题中时出现，标明匹配到的内容。"
        ),
    },
    # -- estimated counts (issue 12) --
    "search.header_estimated": {
        "en": "About *{total}* papers for “{query}”",
        "zh": "“{query}”找到约 *{total}* 篇论文",
    },
    "search.header_estimated_page": {
        "en": "About *{total}* papers for “{query}” · page {page}",
        "zh": "“{query}”找到约 *{total}* 篇论文 · 第 {page} 页",
    },
    "search.more_like_header_estimated": {
        "en": "About *{total}* papers like “{title}”",
        "zh": "与“{title}”相似的论文约 *{total}* 篇",
    },
    "search.more_like_header_estimated_page": {
        "en": "About *{total}* papers like “{title}” · page {page}",
        "zh": "与“{title}”相似的论文约 *{total}* 篇 · 第 {page} 页",
    },
    "search.past_end": {
        "en": "No more papers for “{query}”: page {page} is empty, so the pages before it hold every match (the count was an estimate).",
        "zh": "与“{query}”匹配的论文已全部列出，第 {page} 页没有结果（之前显示的数量是估计值）。",
    },
    "search.more_like_past_end": {
        "en": "No more papers like “{title}”: page {page} is empty, so the pages before it hold every match (the count was an estimate).",
        "zh": "与“{title}”相似的论文已全部列出，第 {page} 页没有结果（之前显示的数量是估计值）。",
    },
    "subscribe.filter_note_estimated": {
        "en": ", for papers matching “{filter}” (about {count} in the library match today)",
        "zh": "，只收录匹配“{filter}”的论文（目前库中约有 {count} 篇匹配）",
    },
    # -- search by meaning (issue 26) --
    "search.by_meaning": {
        "en": "related in meaning",
        "zh": "语义相关",
    },
    "meaning.status": {
        "en": "Search by meaning: {done} of {total} papers have vectors; the rest are searched by words meanwhile.",
        "zh": "语义搜索：{total} 篇论文中已有 {done} 篇算好向量，其余暂按关键词搜索。",
    },
    "meaning.status_eta": {
        "en": "Search by meaning: {done} of {total} papers have vectors, about {minutes} min to go; the rest are searched by words meanwhile.",
        "zh": "语义搜索：{total} 篇论文中已有 {done} 篇算好向量，约需 {minutes} 分钟算完，其余暂按关键词搜索。",
    },
    "meaning.status_done": {
        "en": "Search by meaning: all {total} papers have vectors.",
        "zh": "语义搜索：全部 {total} 篇论文都已算好向量。",
    },
    "meaning.status_off": {
        "en": "Search by meaning is off (PAPERBOT_SEMANTIC=off): papers are searched by words only.",
        "zh": "语义搜索已关闭（PAPERBOT_SEMANTIC=off），只按关键词搜索论文。",
    },
    # -- a for-you that learns: 👍 / 👎, interests, reasons (issue 27) --
    "foryou.button_like": {"en": "👍", "zh": "👍"},
    "foryou.button_dislike": {"en": "👎", "zh": "👎"},
    "foryou.menu_like": {"en": "👍 Interesting to me", "zh": "👍 感兴趣"},
    "foryou.menu_dislike": {"en": "👎 Not for me", "zh": "👎 不感兴趣"},
    "foryou.button_undo": {"en": "Undo", "zh": "撤销"},
    "foryou.liked": {
        "en": "👍 on *{title}*: `/papers foryou` will rank papers like it higher. Only you see this.",
        "zh": "已记下你对《{title}》的 👍：`/papers foryou` 会把类似的论文排得更靠前。仅你可见。",
    },
    "foryou.disliked": {
        "en": "👎 on *{title}*: `/papers foryou` and your own digest won't show it again, and papers like it move down. Only you see this.",
        "zh": "已记下你对《{title}》的 👎：它不会再出现在“为你推荐”和发给你的日报中，类似的论文也会排得更靠后。仅你可见。",
    },
    "foryou.channel_vote": {
        "en": "It also counts as your vote in <#{channel_id}>; the channel sees only how many voted, not who.",
        "zh": "这也算作你在 <#{channel_id}> 投的一票；频道里只显示票数，不显示投票人。",
    },
    "foryou.undone": {
        "en": "Your 👍 / 👎 on *{title}* is undone.",
        "zh": "已撤销你对《{title}》的 👍 / 👎。",
    },
    "foryou.reason_liked": {"en": "like *{title}*, which you 👍'd", "zh": "与你点过 👍 的《{title}》相似"},
    "foryou.reason_opened": {"en": "like *{title}*, which you opened", "zh": "与你查看过的《{title}》相似"},
    "foryou.reason_interest": {"en": "matches your interest “{interest}”", "zh": "符合你关注的“{interest}”"},
    "foryou.reason_channel_votes": {
        "en": "{count} people in <#{channel_id}> 👍'd it",
        "zh": "<#{channel_id}> 中有 {count} 人点了 👍",
    },
    "foryou.reason_channel_votes_one": {"en": "1 person in <#{channel_id}> 👍'd it", "zh": "<#{channel_id}> 中有 1 人点了 👍"},
    "foryou.reason_own": {"en": "you saved or 👍'd it", "zh": "你收藏过或点过 👍"},
    "foryou.reason_channel_own": {"en": "this channel shared or valued it", "zh": "本频道分享过或看重这篇"},
    "foryou.reason_new": {
        "en": "new; not like anything you saved, rated or follow yet",
        "zh": "新收录的论文，暂时与你收藏、评价过的论文和关注的主题都不相近",
    },
    "foryou.header_learned": {
        "en": "*Picked for you*: new papers ranked by what you saved, rated 👍 / 👎 and follow, each with its reason",
        "zh": "*为你推荐*：按你的收藏、👍 / 👎 和关注的主题为新论文排序，每篇都注明理由",
    },
    "foryou.header_interests": {
        "en": "*Picked for you* by your interests ({interests}): 👍 / 👎 on any paper teaches me more",
        "zh": "*为你推荐*：按你关注的主题（{interests}）排序；对任意论文点 👍 / 👎，推荐会更准",
    },
    "interests.usage": {
        "en": "`/papers interests add KV cache, 推测解码` adds topics you read (separated by commas, in either language); `/papers interests list` shows them; `/papers interests remove KV cache` removes one. Only you see your interests; `/papers foryou` ranks new papers by them, together with what you save and rate.",
        "zh": "`/papers interests add KV cache, 推测解码` 添加你关注的主题（用逗号分隔，中英文皆可）；`/papers interests list` 查看；`/papers interests remove KV cache` 删除。你关注的主题仅你可见；`/papers foryou` 会结合它们和你的收藏、评价为你排序。",
    },
    "interests.added": {
        "en": "Added {interests}. Your interests: {all}. `/papers foryou` now ranks new papers by them.",
        "zh": "已添加{interests}。你关注的主题：{all}。`/papers foryou` 会据此为新论文排序。",
    },
    "interests.already": {"en": "You already follow {interests}.", "zh": "你已经关注了{interests}。"},
    "interests.removed": {"en": "Removed {interests}.", "zh": "已删除{interests}。"},
    "interests.not_found": {
        "en": "You don't follow {interests}: `/papers interests list` shows what you do.",
        "zh": "你没有关注{interests}：用 `/papers interests list` 查看你关注的主题。",
    },
    "interests.list": {
        "en": "*Your interests* (only you see them): {interests}",
        "zh": "*你关注的主题*（仅你可见）：{interests}",
    },
    "interests.none": {
        "en": "You follow no topics yet: `/papers interests add KV cache, 推测解码` gives your `/papers foryou` a start.",
        "zh": "你还没有关注任何主题：用 `/papers interests add KV cache, 推测解码` 为 `/papers foryou` 提供起点。",
    },
    "interests.too_long": {
        "en": "An interest is at most {limit} characters, and “{interest}” is longer: separate topics with commas.",
        "zh": "每个主题最多 {limit} 个字符，“{interest}”超出了：多个主题请用逗号分隔。",
    },
    "interests.too_many": {
        "en": "You can follow at most {limit} topics: remove some first (`/papers interests remove ...`).",
        "zh": "最多可关注 {limit} 个主题：请先删除一些（`/papers interests remove ...`）。",
    },
    "interests.no_words": {
        "en": "“{interest}” has no words I can match papers by: try a topic such as `KV cache` or `推测解码`.",
        "zh": "“{interest}”中没有可用于匹配论文的词：请换成具体主题，例如 `KV cache` 或 `推测解码`。",
    },
    "home.interests_title": {"en": "Your interests", "zh": "你关注的主题"},
    "home.interests_intro": {
        "en": "Only you see them. Until you save or rate papers, your for-you is ranked by them (`/papers interests` manages them too).",
        "zh": "仅你可见。在你收藏或评价论文之前，你的推荐按这些主题排序（也可以用 `/papers interests` 管理）。",
    },
    "home.interests_none": {
        "en": "You follow no topics yet: add a few, in English or Chinese, and your for-you starts from them.",
        "zh": "你还没有关注任何主题：添加几个（中英文皆可），你的推荐就从这里开始。",
    },
    "home.interests_more": {
        "en": "…and {count} more: `/papers interests list` shows them all.",
        "zh": "……还有 {count} 个：用 `/papers interests list` 查看全部。",
    },
    "home.interest_remove": {"en": "Remove", "zh": "删除"},
    "home.interests_add": {"en": "Add interests", "zh": "添加主题"},
    "interests.modal_title": {"en": "Add interests", "zh": "添加关注的主题"},
    "interests.modal_label": {"en": "Topics, separated by commas", "zh": "主题（用逗号分隔）"},
    "interests.modal_hint": {
        "en": "In English or Chinese, for example: KV cache, 推测解码. Only you see them.",
        "zh": "中英文皆可，例如：KV cache，推测解码。仅你可见。",
    },
    "interests.modal_submit": {"en": "Add", "zh": "添加"},
    "interests.modal_cancel": {"en": "Cancel", "zh": "取消"},
    "foryou.undo_none": {
        "en": "You had no 👍 / 👎 on *{title}* to undo.",
        "zh": "你没有对《{title}》点过 👍 / 👎，无需撤销。",
    },
    # -- /papers settings and App Home's workspace settings (issue 25 point 3) --
    "settings.title": {"en": "Workspace settings", "zh": "工作区设置"},
    "settings.lang_line": {"en": "*Default digest language:* {value}", "zh": "*默认日报语言：* {value}"},
    "settings.zone_line": {"en": "*Time zone:* {value}", "zh": "*时区：* {value}"},
    "settings.admins_line": {"en": "*Admins:* {admins}", "zh": "*管理员：* {admins}"},
    "settings.uploads_line": {"en": "*Uploaded listings:* {value}", "zh": "*上传的列表：* {value}"},
    "settings.server_default": {"en": "{value} (the default)", "zh": "{value}（默认）"},
    "settings.uploads_private": {"en": "visible only in this workspace", "zh": "仅本工作区可见"},
    "settings.uploads_shared": {"en": "shared with every workspace", "zh": "与所有工作区共享"},
    "settings.nobody": {"en": "nobody yet", "zh": "暂无"},
    "settings.changed_by": {"en": "Last changed by <@{user_id}> on {date}.", "zh": "最近由 <@{user_id}> 于 {date} 修改。"},
    "settings.how_to_change": {
        "en": "Change them: `/papers settings lang zh`, `settings zone Asia/Shanghai`, `settings admins add @someone` (or `remove`), `settings uploads shared` (or `private`). New digests without a language or zone of their own take these.",
        "zh": "修改方式：`/papers 设置 语言 中文`、`设置 时区 Asia/Shanghai`、`设置 管理员 添加 @某人`（或 `删除`）、`设置 上传 共享`（或 `私有`）。新建日报未指定语言或时区时，使用这里的设置。",
    },
    "settings.read_only": {
        "en": "Only this workspace's admins change these; ask {admins}.",
        "zh": "只有本工作区的管理员可以修改这些设置，请联系 {admins}。",
    },
    "settings.read_only_nobody": {
        "en": "No one administers paperbot in this workspace yet; ask whoever runs paperbot to name an admin (`PAPERBOT_ADMINS`).",
        "zh": "本工作区还没有 paperbot 管理员；请联系 paperbot 的维护者指定一位（`PAPERBOT_ADMINS`）。",
    },
    "settings.admins_only": {
        "en": "Only this workspace's admins change its settings; nothing was changed.",
        "zh": "只有本工作区的管理员可以修改设置，没有做任何更改。",
    },
    "settings.lang_set": {
        "en": "New digests in this workspace now default to {name}. Digests already set up keep their language.",
        "zh": "本工作区新建的日报默认使用{name}。已有的日报保持原来的语言。",
    },
    "settings.lang_bad": {
        "en": "“{value}” isn't a language paperbot speaks: use `/papers settings lang en` (English) or `/papers settings lang zh` (中文).",
        "zh": "paperbot 不支持“{value}”：请用 `/papers 设置 语言 en`（英文）或 `/papers 设置 语言 zh`（中文）。",
    },
    "settings.zone_set": {
        "en": "This workspace's time zone is now {zone}: new digests without a `tz:` use it.",
        "zh": "本工作区的时区已设为 {zone}：未指定 `tz:` 的新日报将使用它。",
    },
    "settings.zone_usage": {
        "en": "Say which zone: `/papers settings zone Asia/Shanghai` (an IANA name, an offset such as `UTC+8`, or a city such as `London` or `北京`).",
        "zh": "请指定时区：`/papers 设置 时区 Asia/Shanghai`（IANA 时区名、偏移如 `UTC+8`，或城市名如 `北京`、`London`）。",
    },
    "settings.zone_bad": {
        "en": "“{value}” isn't a time zone I know. Use an IANA name such as `Asia/Shanghai` or `America/New_York`, an offset such as `UTC+8`, or a city such as `London` or `北京`.",
        "zh": "无法识别时区“{value}”。请使用 IANA 时区名（如 `Asia/Shanghai`、`America/New_York`）、偏移（如 `UTC+8`）或城市名（如 `北京`、`London`）。",
    },
    "settings.zone_ambiguous": {
        "en": "“{value}” means different zones in different places. Say which one: {options}.",
        "zh": "“{value}”在不同地方代表不同的时区。请明确指定：{options}。",
    },
    "settings.zone_offset": {
        "en": "I can only take whole-hour offsets such as `UTC+8`. For “{value}”, name the place instead, such as `Asia/Kolkata`.",
        "zh": "只支持整点偏移，如 `UTC+8`。对于“{value}”，请改用地名，如 `Asia/Kolkata`。",
    },
    "settings.admins_usage": {
        "en": "Name who, picked from Slack's @ list: `/papers settings admins add @someone` or `/papers settings admins remove @someone`. Or use *Admins → Change* in paperbot's App Home.",
        "zh": "请用 Slack 的 @ 列表指明是谁：`/papers 设置 管理员 添加 @某人` 或 `/papers 设置 管理员 删除 @某人`。也可以在 paperbot 的 App Home 中点击“管理员”旁的“修改”。",
    },
    "settings.admins_added": {
        "en": "Now admins of paperbot in this workspace: {users}. They change its settings, feeds and uploads.",
        "zh": "已将 {users} 设为本工作区的 paperbot 管理员，可以修改设置、订阅源和上传。",
    },
    "settings.admins_removed": {
        "en": "No longer admins here: {users}.",
        "zh": "已将 {users} 从本工作区的管理员中移除。",
    },
    "settings.admins_unchanged": {"en": "The admins stay as they were.", "zh": "管理员名单没有变化。"},
    "settings.last_admin": {
        "en": "That would leave this workspace with no admin. Add someone else first (`/papers settings admins add @someone`), then remove yourself.",
        "zh": "这样本工作区将没有管理员。请先添加其他人（`/papers 设置 管理员 添加 @某人`），再移除自己。",
    },
    "settings.admin_from_server": {
        "en": "{users}: admin through `PAPERBOT_ADMINS`, set where paperbot runs; change it there.",
        "zh": "{users} 是通过 `PAPERBOT_ADMINS` 设定的管理员，请在运行 paperbot 的服务器上修改。",
    },
    "settings.uploads_now_shared": {
        "en": "Listings uploaded in this workspace are now visible in every workspace that uses this paperbot.",
        "zh": "本工作区上传的列表现在对使用此 paperbot 的所有工作区可见。",
    },
    "settings.uploads_now_private": {
        "en": "Listings uploaded in this workspace are now visible only here.",
        "zh": "本工作区上传的列表现在仅在本工作区可见。",
    },
    "settings.uploads_usage": {
        "en": "Say `/papers settings uploads shared` or `/papers settings uploads private`.",
        "zh": "请写 `/papers 设置 上传 共享` 或 `/papers 设置 上传 私有`。",
    },
    "settings.unknown": {
        "en": "`{word}` isn't a workspace setting. There are four: `lang`, `zone`, `admins` and `uploads`.",
        "zh": "`{word}` 不是工作区设置。可设置的有四项：`语言`、`时区`、`管理员` 和 `上传`。",
    },
    "settings.change": {"en": "Change", "zh": "修改"},
    "settings.zone_modal_title": {"en": "Time zone", "zh": "时区"},
    "settings.zone_modal_label": {"en": "Time zone for new digests", "zh": "新日报的时区"},
    "settings.zone_modal_hint": {
        "en": "An IANA name (Asia/Shanghai), an offset (UTC+8) or a city (London, 北京).",
        "zh": "IANA 时区名（Asia/Shanghai）、偏移（UTC+8）或城市（北京、London）。",
    },
    "settings.admins_modal_title": {"en": "Admins", "zh": "管理员"},
    "settings.admins_modal_label": {"en": "Who administers paperbot here", "zh": "本工作区的 paperbot 管理员"},
    "settings.admins_modal_hint": {
        "en": "They change the workspace's settings, feeds and uploads.",
        "zh": "他们可以修改本工作区的设置、订阅源和上传。",
    },
    "settings.modal_submit": {"en": "Save", "zh": "保存"},
    "settings.modal_cancel": {"en": "Cancel", "zh": "取消"},
    "zone.from_workspace": {
        "en": "this workspace's default; add `tz:…` to choose another",
        "zh": "本工作区的默认时区；可加 `tz:…` 另选",
    },
}

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_IDEOGRAPH = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_MENTION_BEFORE_CJK = re.compile(rf"(<[#@!][^<>\s]*>)(?=[{_IDEOGRAPH}])")
_MENTION_AFTER_CJK = re.compile(rf"(?<=[{_IDEOGRAPH}])(<[#@!][^<>\s]*>)")
_PLACEHOLDER = re.compile(r"{(\w+)}")


def normalize_lang(lang: str | None) -> str:
    """Return "en" or "zh" for any spelling of a language we know (zh-CN, EN), else "en"."""
    value = (lang or "").strip().lower()
    if value.startswith("zh") or value in ("cn", "中文", "chinese"):
        return "zh"
    return DEFAULT_LANG


def lang_from_accept_language(header: str | None) -> str:
    """The language a browser asks for first, of ours: `zh-CN,zh;q=0.9,en;q=0.8` -> "zh".

    Tags are weighed by their `q` (1 when absent; ties keep the header's order); a header
    naming neither English nor Chinese, or none at all, gets English."""
    best, best_q = DEFAULT_LANG, 0.0
    for part in (header or "").split(","):
        tag, _, params = part.strip().partition(";")
        primary = tag.strip().lower().split("-")[0]
        if primary not in LANGS:
            continue
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if q > best_q:
            best, best_q = primary, q
    return best


def is_lang(word: str) -> bool:
    """Tell whether `word` names one of our languages (`en`, `zh`, `中文`, `english`, ...)."""
    return word.strip().lower() in {"en", "zh", "english", "chinese", "中文", "英文", "cn", "zh-cn", "en-us"}


def has_chinese(text: str) -> bool:
    return bool(_CJK.search(text or ""))


def detect_lang(text: str) -> str:
    """Guess a reader's language from what they typed: any Chinese character means "zh"."""
    return "zh" if has_chinese(text) else "en"


def choose_lang(stored: str | None, text: str = "") -> str:
    """The reader's display language: their setting, else a guess from their query."""
    return normalize_lang(stored) if stored else detect_lang(text)


def other_lang(lang: str) -> str:
    return "en" if normalize_lang(lang) == "zh" else "zh"


LANG_NAMES = {"en": "lang.name_en", "zh": "lang.name_zh"}
"""Each language's name, as a message key."""


def lang_name(lang: str, shown_in: str) -> str:
    """The name of `lang` in `shown_in`: English / 英文, Chinese / 中文."""
    return t(LANG_NAMES[normalize_lang(lang)], shown_in)


def placeholders(template: str) -> set[str]:
    return set(_PLACEHOLDER.findall(template))


_COUNT_FIELDS = frozenset({"count", "total", "pages", "new", "updated", "unchanged", "rejected", "rest", "matches", "done"})


def t(key: str, lang: str | None = DEFAULT_LANG, /, **fmt: object) -> str:
    """Return message `key` in `lang` (English when unknown), with `{placeholders}` filled in.

    A `KEY_one` variant, when there is one, is used for a `count` (else `total`) of 1.
    Raises KeyError for an unknown key: a missing string is a bug worth seeing in tests.
    """
    number = fmt.get("count", fmt.get("total"))
    if type(number) is int and number == 1 and f"{key}_one" in MESSAGES:
        key = f"{key}_one"
    entry = MESSAGES[key]
    lang = normalize_lang(lang)
    template = entry.get(lang) or entry[DEFAULT_LANG]
    # Counts read as counts in both languages: 36,123 (an estimate comes already written).
    fmt = {k: f"{v:,}" if k in _COUNT_FIELDS and type(v) is int else v for k, v in fmt.items()}
    text = template.format(**fmt) if fmt else template
    if lang == "zh" and "<" in text:
        text = _MENTION_AFTER_CJK.sub(r" \1", _MENTION_BEFORE_CJK.sub(r"\1 ", text))
    return text


SEARCH_PROBLEMS = {
    "query_empty": "search.query_empty",
    "query_repaired": "search.query_repaired",
    "query_truncated": "search.query_truncated",
}
"""What the query parser (bot/search/query.py) reports about a query, as message keys."""


def problem_text(problem: str, lang: str) -> str:
    """The message for a search `problem` (one of SEARCH_PROBLEMS)."""
    return t(SEARCH_PROBLEMS.get(problem, "search.query_problem"), lang)


def format_estimate(total: int, lang: str, *, at_least: int = 0) -> str:
    """Return an estimated count rounded to two significant figures, as `lang` writes numbers.

    English groups by thousands ("36,000"); Chinese by 万 and 亿 from 10,000 on, with at
    most one decimal ("3.6万", "12万", "1.2亿") and digits below ("3,400"). The
    templates add "about" / "约": an estimate is never shown as if it were exact.
    `at_least` (the papers already shown) rounds up instead of below it.
    """
    total = max(0, int(total), int(at_least))
    if total >= 100:
        step = 10 ** (len(str(total)) - 2)
        rounded = (total + step // 2) // step * step
        total = rounded + step if rounded < at_least else rounded
    if normalize_lang(lang) == "zh" and total >= 10_000:
        value, unit = (total / 100_000_000, "亿") if total >= 100_000_000 else (total / 10_000, "万")
        return f"{value:.1f}".removesuffix(".0") + unit
    return f"{total:,}"
