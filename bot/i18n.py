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
        "zh": "摘要之后又出现“AI总结”或“机构”行；每条记录各只有一行，且位于 Comments 之前",
    },
    # --- /papers help -------------------------------------------------------------
    "help.title": {
        "en": "*paperbot* finds papers in English and Chinese. Only you see the results.",
        "zh": "*paperbot* 可以用中文或英文查找论文，结果仅你可见。",
    },
    "help.body": {
        "en": (
            "`/papers speculative decoding` search titles, authors, affiliations and summaries\n"
            "`/papers 推测解码` Chinese works too\n"
            '`/papers "KV cache" author:Chen` a phrase and a field; also `affil:哈佛` (= `affil:Harvard`), `venue:ICML`, `feed:ICML`, `year:2026`\n'
            "`/papers KV缓存 OR speculative decoding` either topic\n"
            "`/papers share ParisKV` post the best match in this channel for everyone\n"
            "`/papers lang zh` show papers in Chinese first (`/papers lang en` for English)\n"
            "`/papers help` this message"
        ),
        "zh": (
            "`/papers speculative decoding` 在标题、作者、机构和摘要中搜索\n"
            "`/papers 推测解码` 也可以用中文搜索\n"
            '`/papers "KV cache" author:Chen` 短语与字段搜索；还有 `affil:哈佛`（同 `affil:Harvard`）、`venue:ICML`、`feed:ICML`、`year:2026`\n'
            "`/papers KV缓存 OR speculative decoding` 任一主题\n"
            "`/papers share ParisKV` 把最匹配的论文发到本频道，所有人可见\n"
            "`/papers lang en` 优先显示英文（`/papers lang zh` 显示中文）\n"
            "`/papers help` 显示本说明"
        ),
    },
    "help.buttons": {
        "en": "Results come with buttons: *Share* posts a paper here, *Details* shows the full card, *More like this* finds similar papers.",
        "zh": "每条结果都有按钮：*分享* 把论文发到频道，*详情* 显示完整信息，*相似论文* 查找类似的论文。",
    },
    "help.digests_need_slack": {
        "en": "Daily digests post into Slack channels, so `/papers {word}` works once paperbot is connected to Slack (see the README). Offline, `python -m bot digest` shows what a digest would hold.",
        "zh": "每日论文日报会发到 Slack 频道，因此 `/papers {word}` 需要先把 paperbot 连接到 Slack（见 README）。离线时可用 `python -m bot digest` 查看日报会收录哪些论文。",
    },
    # --- search results -----------------------------------------------------------
    "search.header": {
        "en": "*{total}* papers for “{query}” · page {page} of {pages}",
        "zh": "“{query}” 共找到 *{total}* 篇论文 · 第 {page}/{pages} 页",
    },
    "search.header_one": {
        "en": "*{total}* paper for “{query}” · page {page} of {pages}",
        "zh": "“{query}” 共找到 *{total}* 篇论文 · 第 {page}/{pages} 页",
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
    "button.keep": {"en": "Keep it", "zh": "保留"},
    # --- a paper's card -------------------------------------------------------------
    "card.label_authors": {"en": "Authors", "zh": "作者"},
    "card.label_affiliations": {"en": "Affiliations", "zh": "机构"},
    "card.label_venue": {"en": "Venue", "zh": "会议/期刊"},
    "card.label_summary": {"en": "Summary", "zh": "摘要"},
    "card.label_comments": {"en": "Comments", "zh": "备注"},
    "card.label_journal_ref": {"en": "Journal reference", "zh": "期刊引用"},
    "card.label_links": {"en": "Links", "zh": "链接"},
    "card.label_id": {"en": "Paper id", "zh": "论文编号"},
    "card.authors_more": {"en": "+{count}", "zh": "及另外 {count} 人"},
    "card.affiliations_more": {"en": "+{count}", "zh": "及另外 {count} 个机构"},
    "card.summary_language_note": {
        "en": "(summary in Chinese)",
        "zh": "（中文摘要）",
    },
    "card.shared_by": {
        "en": "<@{user_id}> shared this paper",
        "zh": "<@{user_id}> 分享了这篇论文",
    },
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
    "share.done": {
        "en": "Shared “{title}” in this channel.",
        "zh": "已在本频道分享“{title}”。",
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
    # --- language -----------------------------------------------------------------------
    "lang.set": {
        "en": "Got it: I'll show papers in English first.",
        "zh": "好的：之后将优先以中文显示论文。",
    },
    "lang.current": {
        "en": "Papers are shown in {name} first. Change it with `/papers lang en` or `/papers lang zh`.",
        "zh": "当前优先显示{name}。可用 `/papers lang en` 或 `/papers lang zh` 更改。",
    },
    "lang.unset": {
        "en": "You haven't picked a language: a query with Chinese characters shows Chinese first, otherwise English. Pick one with `/papers lang en` or `/papers lang zh`.",
        "zh": "你还没有选择语言：含中文的查询优先显示中文，否则显示英文。可用 `/papers lang en` 或 `/papers lang zh` 选择。",
    },
    "lang.usage": {
        "en": "I know two languages: `/papers lang en` (English) or `/papers lang zh` (中文).",
        "zh": "目前支持两种语言：`/papers lang en`（English）或 `/papers lang zh`（中文）。",
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
    "home.subscriptions_title": {"en": "Subscriptions", "zh": "订阅"},
    "home.subscriptions_none": {
        "en": "You have no daily digests yet. Run `/papers subscribe` in a channel to get one there, or in a DM with me to get your own.",
        "zh": "你还没有订阅每日日报。在频道中运行 `/papers subscribe` 可订阅到该频道，在与我的私信中运行则订阅给自己。",
    },
    "home.subscriptions_footer": {
        "en": "Your own digest and the channel digests you set up. Running `/papers subscribe` again in the same place changes one; `/papers digest` there previews the next.",
        "zh": "这里列出你自己的日报和你在频道中设置的日报。在同一处再次运行 `/papers subscribe` 可修改设置；在该处运行 `/papers digest` 可预览下一期。",
    },
    "home.unsubscribe_confirm_title": {"en": "Stop this digest?", "zh": "取消这份日报？"},
    "home.unsubscribe_confirm_text": {
        "en": "No more daily digests will be posted there. You can subscribe again any time.",
        "zh": "之后不会再发送这份日报，随时可以重新订阅。",
    },
    "home.subscriptions_placeholder": {
        "en": "Daily digests of new papers: run `/papers subscribe` in a channel, or in a DM with me for your own.",
        "zh": "每日论文日报：在频道中运行 `/papers subscribe`，或在与我的私信中运行，订阅给自己。",
    },
    # --- daily digests (bot/slack/digest.py) ----------------------------------------------
    "digest.header": {"en": "📚 Paper digest · {date}", "zh": "📚 论文日报 · {date}"},
    "digest.preview_header": {"en": "👀 Preview of the next digest · {date}", "zh": "👀 下一期日报预览 · {date}"},
    "digest.sample_header": {"en": "👀 What a digest looks like", "zh": "👀 日报示例"},
    "digest.count_one": {"en": "*{count}* new paper", "zh": "*{count}* 篇新论文"},
    "digest.count": {"en": "*{count}* new papers", "zh": "*{count}* 篇新论文"},
    "digest.filter": {"en": "filter: {filter}", "zh": "筛选：{filter}"},
    "digest.in_thread": {"en": "🧵 continued in the thread ({count} more messages)", "zh": "🧵 其余内容见消息串（另有 {count} 条）"},
    "digest.in_thread_one": {"en": "🧵 continued in the thread ({count} more message)", "zh": "🧵 其余内容见消息串（另有 {count} 条）"},
    "digest.part": {"en": "{date} · part {part} of {parts}", "zh": "{date} · 第 {part}/{parts} 部分"},
    "digest.notification": {"en": "Paper digest for {date}: {count} new papers", "zh": "{date} 论文日报：{count} 篇新论文"},
    "digest.notification_one": {"en": "Paper digest for {date}: {count} new paper", "zh": "{date} 论文日报：{count} 篇新论文"},
    "digest.notification_part": {"en": "Paper digest for {date}, part {part} of {parts}", "zh": "{date} 论文日报，第 {part}/{parts} 部分"},
    "digest.group_continued": {"en": "{group} (continued)", "zh": "{group}（续）"},
    "digest.group_other": {"en": "Other", "zh": "其他"},
    "digest.held_back": {
        "en": "{count} more new papers didn't fit today; they lead the next digest.",
        "zh": "另有 {count} 篇新论文今天放不下，将在下一期日报中优先发送。",
    },
    "digest.held_back_one": {
        "en": "{count} more new paper didn't fit today; it leads the next digest.",
        "zh": "另有 {count} 篇新论文今天放不下，将在下一期日报中优先发送。",
    },
    "digest.footer": {
        "en": "`/papers subscriptions` shows this digest's settings · `/papers unsubscribe` stops it",
        "zh": "`/papers subscriptions` 查看日报设置 · `/papers unsubscribe` 取消订阅",
    },
    "digest.empty": {
        "en": "📭 No new papers since the last digest{filter_note}.",
        "zh": "📭 自上期日报以来没有新论文{filter_note}。",
    },
    "digest.empty_filter_note": {"en": " matching “{filter}”", "zh": "（筛选“{filter}”）"},
    "digest.preview_more": {
        "en": "…and {count} more. The digest posts every paper, continuing in a thread.",
        "zh": "……另有 {count} 篇。日报会发送全部论文，其余内容在消息串中继续。",
    },
    "digest.preview_none": {
        "en": "Nothing new yet for the next digest, due {when}. Papers added before then will be in it.",
        "zh": "下一期日报将于 {when}发送，目前还没有新论文；在此之前新增的论文都会收录其中。",
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
        "en": "I paused the daily paper digest for {place} because {reason}. {fix}",
        "zh": "{place}的每日论文日报已暂停，原因：{reason}。{fix}",
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
    "digest.weekdays": {"en": "Mon,Tue,Wed,Thu,Fri,Sat,Sun", "zh": "周一,周二,周三,周四,周五,周六,周日"},
    "digest.months": {
        "en": "Jan,Feb,Mar,Apr,May,Jun,Jul,Aug,Sep,Oct,Nov,Dec",
        "zh": "1月,2月,3月,4月,5月,6月,7月,8月,9月,10月,11月,12月",
    },
    "digest.date": {"en": "{weekday} {day} {month} {year}", "zh": "{year}年{month}{day}日（{weekday}）"},
    "digest.when": {"en": "{date}, {time} ({zone})", "zh": "{date} {time}（{zone} 时间）"},
    # --- /papers subscribe, subscriptions, unsubscribe ------------------------------------------
    "subscribe.help": {
        "en": (
            "*Daily digests* of new papers, in a channel or in a DM with me:\n"
            "`/papers subscribe` every day at 09:00 ({zone}), in English\n"
            "`/papers subscribe zh 08:30 tz:Asia/Shanghai KV缓存 OR speculative decoding` language, time, zone and a filter (search syntax)\n"
            "`/papers subscribe notify:empty ...` also post a short note on days without new papers (`notify:none` to stop)\n"
            "Times: `9`, `9:30`, `09:30`, `21:00`, `9am`, `9:30pm`. Zones: IANA names such as `tz:Europe/Berlin`.\n"
            "Subscribing again here changes the subscription. `/papers subscriptions` lists them, "
            "`/papers unsubscribe [N]` stops one, `/papers digest [en|zh]` previews the next digest (only you see it).\n"
            "A new digest starts with the papers added from now on."
        ),
        "zh": (
            "*每日论文日报*，可订阅到频道，或在与我的私信中订阅给自己：\n"
            "`/papers subscribe` 每天 09:00（{zone}）发送英文日报\n"
            "`/papers subscribe zh 08:30 tz:Asia/Shanghai KV缓存 OR speculative decoding` 指定语言、时间、时区和筛选条件（与搜索语法相同）\n"
            "`/papers subscribe notify:empty ...` 没有新论文时也发一条简短提示（`notify:none` 取消）\n"
            "时间写法：`9`、`9:30`、`09:30`、`21:00`、`9am`、`9:30pm`。时区用 IANA 名称，如 `tz:Asia/Shanghai`。\n"
            "在同一处再次订阅会修改原订阅。`/papers subscriptions` 列出订阅，"
            "`/papers unsubscribe [编号]` 取消订阅，`/papers digest [en|zh]` 预览下一期日报（仅你可见）。\n"
            "新订阅从此刻之后新增的论文开始收录。"
        ),
    },
    "subscribe.help_hint": {
        "en": "`/papers subscribe [en|zh] [HH:MM] [tz:Area/City] [notify:empty] [FILTER]` a daily digest of new papers here (in a DM: just for you); `/papers subscriptions` lists them, `/papers unsubscribe [N]` stops one, `/papers digest` previews the next; `/papers subscribe help` explains",
        "zh": "`/papers subscribe [en|zh] [HH:MM] [tz:时区] [notify:empty] [筛选条件]` 在这里订阅每日新论文日报（在私信中订阅则只发给你）；`/papers subscriptions` 查看订阅，`/papers unsubscribe [N]` 取消，`/papers digest` 预览下一期；`/papers subscribe help` 查看说明",
    },
    "subscribe.created": {
        "en": "Subscribed {place} to a daily paper digest at *{time}* ({zone}), in {lang_name}{filter_note}. The first one comes {next_run}, with papers added from now on.",
        "zh": "已为{place}订阅每日论文日报：每天 *{time}*（{zone}），{lang_name}{filter_note}。第一期将于 {next_run}发送，收录此后新增的论文。",
    },
    "subscribe.updated": {
        "en": "Updated the daily paper digest for {place}: *{time}* ({zone}), in {lang_name}{filter_note}. Next one: {next_run}.",
        "zh": "已更新{place}的每日论文日报：每天 *{time}*（{zone}），{lang_name}{filter_note}。下一期：{next_run}。",
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
    "subscribe.filter_did_you_mean": {
        "en": "⚠️ Digests match filters exactly as typed, and this one matches nothing. Did you mean `{suggestion}`? Subscribe again with it to get those papers.",
        "zh": "⚠️ 日报按筛选条件的原样匹配，这个条件目前匹配不到任何论文。你是不是想输入 `{suggestion}`？用它重新订阅即可收到这些论文。",
    },
    "subscribe.filter_no_match": {
        "en": "⚠️ No paper in the library matches this filter yet, so check its spelling if you expected some (search with it: `/papers {filter}`).",
        "zh": "⚠️ 目前库中没有论文匹配这个筛选条件；如果你预期会有，请检查拼写（可先搜索试试：`/papers {filter}`）。",
    },
    "subscribe.notify_empty_note": {
        "en": "On days without new papers I'll post a short note.",
        "zh": "没有新论文的日子，我也会发一条简短提示。",
    },
    "subscribe.bad_time": {
        "en": "“{value}” isn't a time I can read. Use 24-hour `HH:MM` such as `08:30` or `21:00` (`9`, `9am` and `9:30pm` work too).",
        "zh": "无法识别时间“{value}”。请使用 24 小时制 `HH:MM`，如 `08:30` 或 `21:00`（也可写 `9`、`9am`、`9:30pm`）。",
    },
    "subscribe.bad_zone": {
        "en": "“{value}” isn't a time zone I know. Use an IANA name such as `tz:Asia/Shanghai`, `tz:Europe/London` or `tz:America/New_York`.",
        "zh": "无法识别时区“{value}”。请使用 IANA 时区名，如 `tz:Asia/Shanghai`、`tz:Europe/London` 或 `tz:America/New_York`。",
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
    "subscribe.list_header": {"en": "*Daily digests for {place}*", "zh": "*{place}的每日日报*"},
    "subscribe.list_item": {
        "en": "{number}. {place} · every day at *{time}* ({zone}) · {lang_name}{filter} · next: {next_run}",
        "zh": "{number}. {place} · 每天 *{time}*（{zone}）· {lang_name}{filter} · 下一期：{next_run}",
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
        "en": "No daily digests here yet. Start one with `/papers subscribe`; `/papers subscribe help` shows the options.",
        "zh": "这里还没有订阅每日日报。可用 `/papers subscribe` 订阅；`/papers subscribe help` 查看选项。",
    },
    "subscribe.place_you": {"en": "you", "zh": "你"},
    "subscribe.place_your_dm": {"en": "your DM", "zh": "你的私信"},
    "subscribe.removed": {
        "en": "Unsubscribed: no more daily digests for {place}.",
        "zh": "已取消订阅：{place}不再收到每日日报。",
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
        "en": "There's no daily digest here to stop.",
        "zh": "这里没有可以取消的每日日报。",
    },
    # --- inbox and listing uploads (bot/inbox.py, bot/slack/uploads.py) ---------------------------
    "inbox.report": {
        "en": "`{name}`{feed}: *{new}* new, {updated} updated, {unchanged} unchanged, {rejected} rejected.",
        "zh": "`{name}`{feed}：新增 *{new}* 篇，更新 {updated} 篇，未变 {unchanged} 篇，拒收 {rejected} 条。",
    },
    "inbox.rejected_header": {"en": "Rejected records (file:line: reason):", "zh": "被拒收的记录（文件:行号：原因）："},
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
    "setup.serving_socket": {
        "en": "paperbot is connecting to Slack in Socket Mode",
        "zh": "paperbot 正在以 Socket 模式连接 Slack",
    },
    # -- search across languages, scripts, aliases and typos (issue 8) --
    "search.showing_for": {
        "en": "Showing results for “{suggestion}” · Search instead for “{query}”",
        "zh": "以下是“{suggestion}”的结果 · 仍然搜索“{query}”",
    },
    "button.search_instead": {"en": "Search instead for “{query}”", "zh": "仍然搜索“{query}”"},
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


def has_message(key: str) -> bool:
    return key in MESSAGES


def placeholders(template: str) -> set[str]:
    return set(_PLACEHOLDER.findall(template))


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
    text = template.format(**fmt) if fmt else template
    if lang == "zh" and "<" in text:
        text = _MENTION_AFTER_CJK.sub(r" \1", _MENTION_BEFORE_CJK.sub(r"\1 ", text))
    return text


def problem_text(problem: str, lang: str) -> str:
    """The i18n message for a search `problem` key (bare or `search.`-prefixed)."""
    for key in (problem, f"search.{problem}"):
        if has_message(key):
            return t(key, lang)
    return t("search.query_problem", lang)
