"""One person's `/papers foryou` on a store of many papers, and the 500-person digest morning.

The for-you reads the store's newest 300 papers (not the corpus), the person's saves,
👍 / 👎 and interests, and an interest's alternatives from the search index; so a store
with many rows is what makes it slow or not. This builds (once, kept under --work) a
SQLite store of --papers generated papers (bench/recommend.py's topic corpus), gives
people 14 saves, 6 👎 and 3 interests among its older papers, and times
`Library.foryou` through the real store and Recommender: the first call (the model's
imports, hashing the newest 300) and then one call per person (the pool reused, as in
the server). The interests' alternatives come from a real PaperIndex over the newest
--indexed papers (a Whoosh index of 1M papers takes an hour to build here; the lookup
reads one query's expansion, cached per text). Then bench/recommend.py's digest-morning
speed: 1,000 new papers ranked for 500 people.

    .venv/bin/python bench/foryou_scale.py --papers 1000000

CPU time is printed beside wall time, and the host's load: this machine is shared.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.recommend import generated_corpus, speed  # noqa: E402
from bot.library.readinglist import Library  # noqa: E402
from bot.models import Listing, Paper  # noqa: E402
from bot.search.index import PaperIndex  # noqa: E402
from bot.store.database import Store  # noqa: E402

BATCH = 20_000
TEAM = "T_BENCH"
INTERESTS = ["KV cache", "推测解码", "diffusion"]


def build_store(path: Path, papers: int, rng: random.Random) -> Store:
    store = Store(path)
    have = store.state()[0]
    if have >= papers:
        return store
    started = time.perf_counter()
    for start in range(have, papers, BATCH):
        count = min(BATCH, papers - start)
        batch = generated_corpus(count, rng)
        records = [
            (i + 1, Paper(id=f"{start + i:012x}", title_en=p.title_en, title_zh=p.title_zh, summary_zh=p.summary_zh))
            for i, (p, _) in enumerate(batch)
        ]
        store.ingest_listing(Listing(path=f"bench-{start}.txt", feed="bench", records=records))
        if (start // BATCH) % 10 == 0:
            print(f"  stored {start + count:,} papers, {time.perf_counter() - started:.0f} s", flush=True)
    print(f"store of {store.state()[0]:,} papers built in {time.perf_counter() - started:.0f} s")
    return store


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=1_000_000)
    parser.add_argument("--indexed", type=int, default=3000, help="the newest this many papers in the index")
    parser.add_argument("--people", type=int, default=30)
    parser.add_argument("--work", type=Path, default=ROOT / "bench" / "work" / "foryou")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--no-morning", action="store_true")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    args.work.mkdir(parents=True, exist_ok=True)
    store = build_store(args.work / f"store-{args.papers}.sqlite3", args.papers, rng)
    total = store.state()[0]

    index = PaperIndex(args.work / f"index-{args.papers}-{args.indexed}")
    if not index.path.exists():
        index.rebuild(store.newest(args.indexed))
    index.open()
    library = Library(store, alternatives=index.alternatives)

    older = [f"{i:012x}" for i in rng.sample(range(0, total - 1000), 20 * args.people)]
    people = []
    for n in range(args.people):
        user = f"U_BENCH{n}"
        ids = older[20 * n : 20 * n + 20]
        for paper_id in ids[:14]:
            library.save(user, paper_id, team_id=TEAM)
        for paper_id in ids[14:]:
            library.feedback.vote(TEAM, user, paper_id, -1)
        library.feedback.add_interests(TEAM, user, INTERESTS)
        people.append(user)

    started, cpu = time.perf_counter(), time.process_time()
    first = library.foryou(people[0], team_id=TEAM)
    first_wall, first_cpu = time.perf_counter() - started, time.process_time() - cpu
    assert first and all(r.reason.kind for r in first)
    walls, cpus = [], []
    for user in people[1:]:
        started, cpu = time.perf_counter(), time.process_time()
        library.foryou(user, team_id=TEAM)
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    again_walls, again_cpus = [], []
    for user in people[1:]:  # the same people again: their saves and 👎 are hashed by now, as in a server
        started, cpu = time.perf_counter(), time.process_time()
        library.foryou(user, team_id=TEAM)
        again_walls.append(time.perf_counter() - started)
        again_cpus.append(time.process_time() - cpu)
    again_walls.sort()
    again_cpus.sort()
    started = time.perf_counter()
    for _ in range(20):
        store.newest(300)
    newest_ms = (time.perf_counter() - started) / 20 * 1000
    walls.sort()
    cpus.sort()
    load = os.getloadavg()[0]
    print(
        f"\n/papers foryou at {total:,} papers in the store (load {load:.1f} on {os.cpu_count()} cores), "
        f"14 saves + 6 👎 + 3 interests a person:\n"
        f"- first call (model imports, hashing the newest 300): {first_wall * 1000:.0f} ms wall, {first_cpu * 1000:.0f} ms CPU\n"
        f"- then {len(walls)} people: median {walls[len(walls) // 2] * 1000:.1f} ms wall ({cpus[len(cpus) // 2] * 1000:.1f} ms CPU), "
        f"p90 {walls[int(len(walls) * 0.9)] * 1000:.1f} ms wall (each person's 20 papers hashed for the first time)\n"
        f"- the same people again: median {again_walls[len(again_walls) // 2] * 1000:.1f} ms wall "
        f"({again_cpus[len(again_cpus) // 2] * 1000:.1f} ms CPU), p90 {again_walls[int(len(again_walls) * 0.9)] * 1000:.1f} ms wall\n"
        f"- of which store.newest(300): {newest_ms:.1f} ms"
    )
    index.close()
    store.close()
    if not args.no_morning:
        speed(random.Random(args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
