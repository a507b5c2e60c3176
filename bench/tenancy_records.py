"""Benchmark people's records keyed by workspace (issue 25, point 2): per-request costs, and the upgrade.

    .venv/bin/python bench/tenancy_records.py [--people 2000] [--saves 20] [--channels 200] [--repeat 300]

Per request: what a click or a command reads and writes in the store (a save and its undo,
the saved ids a results page marks, Home's saved section, the channel's top, a reaction,
an event claim, a language) on a SQLite store holding `--people` x `--saves` saves,
`--channels` x 50 shares with their cards and three reactions each. Runs against the
code before workspaces too (it passes `team_id` only where the code takes one), so one
machine measures both: `PYTHONPATH=<old checkout> python bench/tenancy_records.py`.

Upgrade: the same rows written in the old (pre-tenancy) tables, then the time the new
code takes to open them (tenancy.rekey rebuilds each table with its team in the key)
and to adopt them for the bot's workspace.
"""

from __future__ import annotations

import argparse
import inspect
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # appended: PYTHONPATH may name an older checkout to measure

from bot.ingest.listing import parse_path  # noqa: E402
from bot.library.readinglist import Library  # noqa: E402
from bot.store.database import Store  # noqa: E402

TEAM = "T0001"


def takes_team(function) -> bool:
    return "team_id" in inspect.signature(function).parameters


def fill(store: Store, library: Library, args, kw: dict) -> list[str]:
    for path in sorted((ROOT / "seeds").iterdir()):
        store.ingest_listing(parse_path(path))
    ids = [p.id for p in store.newest(1000)]
    for person in range(args.people):
        for n in range(args.saves):
            library.save(f"U{person}", ids[(person + n) % len(ids)], channel_id=f"C{person % args.channels}", **kw)
    for channel in range(args.channels):
        for n in range(50):
            ts = f"{channel}.{n}"
            library.record_share(f"C{channel}", ids[(channel + n) % len(ids)], f"U{n}", ts, **kw)
            for voter in range(3):
                library.react(channel_id=f"C{channel}", message_ts=ts, user_id=f"U{voter}", reaction="tada",
                              added=True, event_ts=f"{n}.{voter}", **kw)  # fmt: skip
    return ids


def timed(work, repeat: int) -> float:
    """Median milliseconds of `work()` over `repeat` runs."""
    times = []
    for i in range(repeat):
        start = time.perf_counter()
        work(i)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def per_request(args) -> None:
    folder = Path(tempfile.mkdtemp(prefix="bench-tenancy-"))
    try:
        store = Store(folder / "paperbot.sqlite3")
        library = Library(store)
        kw = {"team_id": TEAM} if takes_team(Library.save) else {}
        lang_kw = {"team_id": TEAM} if takes_team(store.get_user_lang) else {}
        started = time.perf_counter()
        ids = fill(store, library, args, kw)
        print(f"filled in {time.perf_counter() - started:.1f} s: {args.people * args.saves:,} saves, "
              f"{args.channels * 50:,} shares and cards, {args.channels * 150:,} reactions")  # fmt: skip
        store.set_user_lang("U1", "zh", **lang_kw)
        people, channels, repeat = args.people, args.channels, args.repeat
        rows = {
            "save + unsave": lambda i: (library.save(f"U{i % people}", ids[-1], **kw), library.unsave(f"U{i % people}", ids[-1], **kw)),
            "saved_ids (a results page)": lambda i: library.saved_ids(f"U{i % people}", **kw),
            "saved_papers(6) + count (Home)": lambda i: (library.saved_papers(f"U{i % people}", 6, **kw), library.saved_count(f"U{i % people}", **kw)),
            "top (a channel's week)": lambda i: library.top(f"C{i % channels}", **kw),
            "react (a vote)": lambda i: library.react(channel_id=f"C{i % channels}", message_ts=f"{i % channels}.1", user_id=f"UR{i}",
                                                      reaction="tada", added=True, event_ts=f"99.{i}", **kw),
            "claim_event": lambda i: store.claim_event(f"Ev{i}", **lang_kw),
            "get_user_lang": lambda i: store.get_user_lang(f"U{i % people}", **lang_kw),
        }  # fmt: skip
        for name, work in rows.items():
            print(f"  {name:32s} {timed(work, repeat):7.3f} ms")
        store.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def upgrade(args) -> None:
    """Old tables with the same rows, opened by this code (rekey), then adopted."""
    if not takes_team(Library.save):
        print("upgrade: only with the code that has workspaces")
        return
    sys.path.insert(0, str(ROOT / "tests"))
    from test_tenancy_records import OLD_LIBRARY, OLD_STORE, OLD_TABLES  # noqa: PLC0415 (the old schemas, written once)

    from bot.store import tenancy
    from bot.store.database import apply_schema

    folder = Path(tempfile.mkdtemp(prefix="bench-tenancy-"))
    try:
        store = Store(folder / "paperbot.sqlite3")
        library = Library(store)
        fill(store, library, args, {"team_id": ""})
        with store.transaction() as db:  # the same rows, in the tables as they were before workspaces
            for table in OLD_TABLES:
                db.execute(f"ALTER TABLE {table} RENAME TO {table}_new")
            for index in ("slack_events_seen", "saves_channel", "shares_channel"):  # the old schema's names
                db.execute(f"DROP INDEX IF EXISTS {index}")
            apply_schema(db, OLD_STORE)
            apply_schema(db, OLD_LIBRARY, {"saves": {"position": "INTEGER NOT NULL DEFAULT 0"}})
            for table in OLD_TABLES:
                old = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
                db.execute(f"INSERT INTO {table} ({', '.join(old)}) SELECT {', '.join(old)} FROM {table}_new")
                db.execute(f"DROP TABLE {table}_new")
        store.close()
        started = time.perf_counter()
        store = Store(folder / "paperbot.sqlite3")
        Library(store)
        opened = time.perf_counter() - started
        started = time.perf_counter()
        moved = tenancy.adopt(store, TEAM)
        adopted = time.perf_counter() - started
        print(f"upgrade: open (rekey) {opened:.2f} s, adopt {adopted:.2f} s: {moved}")
        store.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--people", type=int, default=2000)
    parser.add_argument("--saves", type=int, default=20)
    parser.add_argument("--channels", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--no-upgrade", action="store_true")
    args = parser.parse_args()
    print(f"code: {Path(inspect.getfile(Library)).parent.parent.parent}")
    per_request(args)
    if not args.no_upgrade:
        upgrade(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
