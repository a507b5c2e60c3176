"""Times, zones and days as people type them (bot/digests/times.py), and subscribe lines that use them."""

from __future__ import annotations

import pytest

from bot.digests.requests import parse_subscribe
from bot.digests.times import (
    parse_day_word,
    parse_time,
    parse_zone,
    suggest_time,
    zone_offset_label,
)
from bot.errors import SubscribeError, ZoneRefusal


@pytest.mark.parametrize(
    ("word", "expected"),
    [("9", (9, 0)), ("9am", (9, 0)), ("09:30", (9, 30)), ("9.30", (9, 30)), ("0930", (9, 30)), ("930", (9, 30)),
     ("21:30", (21, 30)), ("9:30pm", (21, 30)), ("9:30PM", (21, 30)), ("9 a.m.", (9, 0)), ("１０：４５", (10, 45)),
     ("早上8点", (8, 0)), ("上午9点半", (9, 30)), ("下午3点", (15, 0)), ("晚上9点", (21, 0)), ("下午3点15分", (15, 15)),
     ("8点30", (8, 30)), ("晚上九点", (21, 0)), ("中午12点", (12, 0)), ("凌晨2点", (2, 0)), ("下午两点一刻", (14, 15)),
     ("20点", (20, 0)), ("12am", (0, 0)), ("12pm", (12, 0)),
     ("2024", None), ("25:00", None), ("9:75", None), ("13pm", None), ("24点", None), ("nine", None)],
)  # fmt: skip
def test_times_as_people_type_them(word, expected):
    assert parse_time(word) == expected


@pytest.mark.parametrize(
    ("word", "suggestion"),
    [("8;30", "08:30"), ("8:3", "08:30"), ("8h30", "08:30"), ("08,30", "08:30"), ("13pm", "13:00"), ("25:00", None)],
)
def test_time_like_junk_gets_a_suggestion(word, suggestion):
    assert suggest_time(word) == suggestion


@pytest.mark.parametrize(
    ("word", "zone"),
    [("Asia/Shanghai", "Asia/Shanghai"), ("asia/shanghai", "Asia/Shanghai"), ("ASIA/TOKYO", "Asia/Tokyo"),
     ("UTC+8", "Etc/GMT-8"), ("GMT-5", "Etc/GMT+5"), ("utc+08:00", "Etc/GMT-8"), ("UTC+0", "UTC"), ("ＵＴＣ＋８", "Etc/GMT-8"),
     ("北京", "Asia/Shanghai"), ("上海", "Asia/Shanghai"), ("北京时间", "Asia/Shanghai"), ("东京", "Asia/Tokyo"),
     ("日本", "Asia/Tokyo"), ("伦敦", "Europe/London"), ("纽约", "America/New_York"), ("London", "Europe/London"),
     ("new york", "America/New_York"), ("New_York", "America/New_York"), ("tokyo", "Asia/Tokyo"), ("Beijing", "Asia/Shanghai"),
     ("China", "Asia/Shanghai"), ("San Francisco", "America/Los_Angeles"), ("Berlin", "Europe/Berlin"), ("UTC", "UTC")],
)  # fmt: skip
def test_zones_by_name_offset_and_place_in_both_languages(word, zone):
    assert parse_zone(word) == zone


@pytest.mark.parametrize(
    ("word", "key", "might_mean"),
    [("EST", "ambiguous", "America/New_York"), ("CST", "ambiguous", "Asia/Shanghai"), ("cst", "ambiguous", "America/Chicago"),
     ("IST", "ambiguous", "Asia/Kolkata"), ("IST", "ambiguous", "Europe/Dublin"), ("美国", "ambiguous", "America/Los_Angeles"),
     ("UTC+5:30", "offset", None), ("UTC+15", "offset", None), ("Mars/Olympus", "unknown", None), ("../etc/passwd", "unknown", None)],
)  # fmt: skip
def test_ambiguous_and_unknown_zones_are_refused_with_what_they_might_mean(word, key, might_mean):
    with pytest.raises(ZoneRefusal) as refused:
        parse_zone(word)
    assert refused.value.key == key
    assert might_mean is None or might_mean in refused.value.options


def test_an_offset_zone_is_shown_as_typed():
    assert zone_offset_label("Etc/GMT-8") == "UTC+8" and zone_offset_label("Etc/GMT+5") == "UTC-5"
    assert zone_offset_label("Asia/Shanghai") is None


@pytest.mark.parametrize(
    ("word", "days"),
    [("mon", {"mon"}), ("Monday", {"mon"}), ("mon,wed,fri", {"mon", "wed", "fri"}), ("mon-fri", {"mon", "tue", "wed", "thu", "fri"}),
     ("fri-mon", {"fri", "sat", "sun", "mon"}), ("周一", {"mon"}), ("每周一", {"mon"}), ("每周一三五", {"mon", "wed", "fri"}),
     ("星期日", {"sun"}), ("周末", {"sat", "sun"}), ("KV", None), ("monsoon", None)],
)  # fmt: skip
def test_days(word, days):
    assert parse_day_word(word) == days


@pytest.mark.parametrize(
    ("text", "days", "time", "zone", "filter_text"),
    [("weekly mon 09:00", "mon", (9, 0), None, ""), ("weekdays 9am", "mon,tue,wed,thu,fri", (9, 0), None, ""),
     ("每周一 早上8点 tz:北京", "mon", (8, 0), "Asia/Shanghai", ""), ("daily 21:30 KV cache", "*", (21, 30), None, "KV cache"),
     ("mon wed fri 0930", "mon,wed,fri", (9, 30), None, ""), ("9 pm tz:new york KV", None, (21, 0), "America/New_York", "KV"),
     ("tz:UTC+8 9.30", None, (9, 30), "Etc/GMT-8", ""), ("UTC+8 9", None, (9, 0), "Etc/GMT-8", ""),
     ("早上8点", None, (8, 0), None, ""), ("KV cache 9:30pm", None, (21, 30), None, "KV cache"),
     ("9 2024 results", None, (9, 0), None, "2024 results"), ("weekly", "mon", None, None, ""),
     ("Monday papers", "mon", None, None, "papers"), ("tz:Asia/Shanghai weekly fri 工作", "fri", None, "Asia/Shanghai", "工作")],
)  # fmt: skip
def test_subscribe_lines_with_schedules_times_and_zones(text, days, time, zone, filter_text):
    request = parse_subscribe(text)
    assert request.days == days
    assert (None if request.hour is None else (request.hour, request.minute)) == time
    assert (request.timezone, request.filter_text) == (zone, filter_text)


@pytest.mark.parametrize(
    ("text", "key", "fmt"),
    [("9:00 9:30", "two_times", {"first": "09:00", "second": "9:30"}), ("早上8点半 上午9点", "two_times", {"first": "08:30"}),
     ("9am KV cache 10pm", "two_times", {"second": "10pm"}), ("tz:北京 tz:UTC", "two_zones", {"first": "Asia/Shanghai"}),
     ("tz:UTC KV tz:London", "two_zones", {}), ("8;30", "bad_time_suggest", {"suggestion": "08:30"}),
     ("08.3 KV", "bad_time_suggest", {"suggestion": "08:30"}), ("tz:EST", "zone_ambiguous", {"value": "EST"}),
     ("tz:UTC+5:30", "zone_offset", {}), ("daily weekdays", "two_schedules", {}), ("top:0", "bad_top", {}), ("top:x", "bad_top", {})],
)  # fmt: skip
def test_refusals_say_what_is_wrong_and_never_become_a_filter(text, key, fmt):
    with pytest.raises(SubscribeError) as raised:
        parse_subscribe(text)
    assert raised.value.key == f"subscribe.{key}"
    assert fmt.items() <= raised.value.fields.items()


def test_ambiguous_zone_lists_the_zones_it_might_mean():
    with pytest.raises(SubscribeError) as raised:
        parse_subscribe("9am tz:CST")
    assert "`tz:America/Chicago`" in raised.value.fields["options"] and "`tz:Asia/Shanghai`" in raised.value.fields["options"]


def test_top_is_a_setting():
    assert parse_subscribe("top:5 KV").top == 5 and parse_subscribe("KV").top is None
