"""The daily ingest and the digest on a big store, with searches running meanwhile (issue 12).

    python bench/run.py --sizes 50000 --engines paperbot --skip-e2e --out '' --work W   # once
    python bench/daily.py --data W/data/paperbot-50000                                 # this checkout
    python bench/daily.py --data W/data/paperbot-50000 --code /tmp/old --code .        # side by side

`--data` is a data folder already ingested; it is never changed: each run works on a
copy under `--work`. The daily file is 1,000 papers the store has never seen, made by
bench/corpus.py's generator with another seed (so ids don't collide), plus 100 records
that list stored papers again under the day's feed (a paper appears in several feeds),
so the update path runs too. For each `--code` (a copy of the `bot` package; default
this checkout), in its own process, interleaved over `--rounds`:

- the corpus prepared and its heap settled as the server starts (`prepare()`, then
  `settle_heap()` where the code has it);
- search p50/p95 over bench/queries.py's mix before the ingest (one thread, no ingest,
  beside the thread that polls for the day's first paper, as during the ingest);
- `Corpus.ingest_paths([daily file])` as the server's inbox calls it, while another
  thread runs the mix in a loop: wall time; how long the index's write lock (Whoosh's
  file lock) was held, summed over acquisitions, and the in-process upsert time; the time
  from the start until a lookup of its id (polled by a third thread) first finds a new
  paper; the searches' p50/p95 while the ingest ran; the first typo query that started
  after the last commit; the garbage collector's full passes during the ingest (each
  stops every thread); and the searches by phase of the ingest (`phases`): storing (the file comes
  until the index upsert starts), indexing (until the index's lock is first taken), the
  commit (until the probe first finds a new paper), and after it (learning, until the
  ingest returns); a search counts in the phase it started in (storing: also one that was
  under way when the file came);
- the searches before and during the file pooled over all the rounds (p50, p95, and
  during ÷ before): one round's p95 rests on ~17 searches, and the host's noise moves it
  by as much as the file does;
- checks: every new paper is found by its title once the ingest returns, no page ever
  lists a paper twice, no search fails; and a fingerprint of the mix's results after the
  ingest, which must be equal for every `--code` (results must not change);
- `paperbot digest --json --since S --filter F` over the day's papers for a few filters,
  as a CLI process (wall, median of `--digest-runs`) and in process (`digest_payload`,
  first and second call), with a fingerprint of each output.

Never run more than 100k papers on the shared machine; the lead runs 1M.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("PAPERBOT_BENCH_CODE") or BENCH.parent).resolve()
for p in (str(ROOT), str(BENCH)):
    if p not in sys.path:
        sys.path.insert(0, p)

DAILY_SEED = 20261201  # not corpus.SEED: the day's papers are new to the store
DAILY_PAPERS = 1000
REPEATS = 100  # stored papers listed again under the day's feed
DAILY_FEED = "NeurIPS"
DIGEST_FILTERS = ("diffusion", "author:Zhang", "LLM 推理", "affil:Stanford", "")
TYPO = "typo"


def log(msg: str) -> None:
    print(f"[daily {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


# -- the day's file -----------------------------------------------------------------------


def write_daily_file(data: Path, out: Path, papers: int = DAILY_PAPERS, repeats: int = REPEATS) -> dict:
    """Write one listing: `papers` new records (another seed) and `repeats` stored papers again."""
    import sqlite3

    from corpus import Generator, build_vocabulary, format_record, load_seed_papers

    gen = Generator(build_vocabulary(load_seed_papers()), DAILY_SEED)
    db = sqlite3.connect(data / "paperbot.sqlite3")
    gen.ids.update(row[0] for row in db.execute("SELECT id FROM papers"))  # never an id the store has
    rows = db.execute("SELECT title_en FROM papers ORDER BY id LIMIT ?", (repeats * 50,)).fetchall()
    db.close()
    records = [gen.record(DAILY_FEED) for _ in range(papers)]
    new_titles = [r["title_en"] for r in records]
    again = [row[0] for row in random.Random(DAILY_SEED).sample(rows, min(repeats, len(rows)))]
    # A repeated paper is recognised by its English title (the id is its hash): the rest
    # of the record may say what it likes, the store merges the feed in.
    for title in again:
        rec = gen.record(DAILY_FEED)
        rec["title_en"] = title
        records.insert(gen.rng.randrange(len(records) + 1), rec)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n\n".join([DAILY_FEED, *map(format_record, records)]) + "\n", encoding="utf-8")
    return {"new_titles": new_titles, "repeated": len(again)}


# -- the worker (one per code under test, in its own process) ------------------------------


class LockClock:
    """Time every hold of the live index's write lock (Whoosh's file lock) in this process."""

    def __init__(self, index_dir: Path):
        from whoosh.util import filelock

        self.holds: list[tuple[float, float]] = []
        self._since: dict[int, float] = {}
        clock = self
        original_acquire, original_release = filelock.FileLock.acquire, filelock.FileLock.release

        def acquire(lock, blocking=False):
            got = original_acquire(lock, blocking)
            if got and str(lock.filename).endswith("WRITELOCK") and Path(lock.filename).parent == index_dir:
                clock._since[id(lock)] = time.perf_counter()
            return got

        def release(lock):
            original_release(lock)
            started = clock._since.pop(id(lock), None)
            if started is not None:
                clock.holds.append((started, time.perf_counter()))

        filelock.FileLock.acquire, filelock.FileLock.release = acquire, release


def summary(times_ms: list[float]) -> dict:
    return {
        "n": len(times_ms),
        "p50_ms": percentile(times_ms, 0.5),
        "p95_ms": percentile(times_ms, 0.95),
        "max_ms": max(times_ms, default=0.0),
    }


def worker_ingest(data: Path, daily: Path, meta_path: Path, passes: int) -> dict:
    from queries import QUERIES

    lock_clock = LockClock(data / "index")  # not a scratch index's lock (bot/search/writers.py write_aside)
    from layout import find

    from bot.config import Settings
    from bot.corpus import Corpus

    PaperIndex = find("bot.search.index:PaperIndex", "bot.index:PaperIndex")

    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    upserts: list[tuple[float, float]] = []
    original_upsert = PaperIndex.upsert

    def timed_upsert(self, papers):
        started = time.perf_counter()
        try:
            return original_upsert(self, papers)
        finally:
            upserts.append((started, time.perf_counter()))

    PaperIndex.upsert = timed_upsert
    corpus = Corpus.open(Settings(data_dir=data))
    corpus.prepare()  # as the server starts: vocabularies warmed, then its heap settled
    import bot.slack.server as server

    if hasattr(server, "settle_heap"):  # (older code has no such step)
        server.settle_heap()
    kinds = {text: kind for kind, text in QUERIES}
    problems: list[str] = []

    def search(text: str) -> tuple[float, float, list[str]]:
        started = time.perf_counter()
        result = corpus.search(text)
        ids = [h.paper.id for h in result.hits]
        if len(ids) != len(set(ids)):
            problems.append(f"{text!r} listed a paper twice: {ids}")
        return started, (time.perf_counter() - started) * 1000, ids

    for _, text in QUERIES:  # warm, unmeasured
        search(text)
    last_seq = corpus.store.last_seq()
    count_before = corpus.store.state()[0]
    probe_title = meta["new_titles"][0]
    from layout import find

    paper_id = find("bot.ingest.listing:paper_id", "bot.listing:paper_id")

    probe_id = paper_id(probe_title)
    stop = threading.Event()
    during: list[tuple[float, float, str]] = []
    found_at: list[float] = []

    def searching() -> None:
        order = [text for _, text in QUERIES]
        while not stop.is_set():
            rng.shuffle(order)
            for text in order:
                if stop.is_set():
                    return
                try:
                    started, ms, _ = search(text)
                except Exception as exc:  # a search must never fail during an ingest
                    problems.append(f"{text!r} failed: {exc!r}")
                    continue
                during.append((started, ms, text))

    if not hasattr(corpus.index, "_searcher"):  # (the probe lends a searcher as a search does)
        raise SystemExit("this code's PaperIndex has no _searcher(): bench/daily.py's probe needs one")

    def indexed(paper_id: str) -> bool:
        # The index's own lookup of an id term, through a searcher lent as a search's is
        # (so refreshed after a commit). It used to ask for the paper's similar papers:
        # its last call, the one that found the paper, cost 55-135 ms at 1M, in the very
        # window after the commit that it measures.
        with corpus.index._searcher() as searcher:
            return searcher.document_number(id=paper_id) is not None

    def probing() -> None:
        while not stop.is_set() and not found_at:
            if indexed(probe_id):
                found_at.append(time.perf_counter())
                return
            time.sleep(0.01)

    # The probe (a lookup every 10 ms) slows the searches beside it by itself (asking for
    # similar papers it moved p95 +10-15% at 1M). So "before" is measured with it running
    # too, and the two differ by the ingest.
    threads = [threading.Thread(target=probing, daemon=True), threading.Thread(target=searching, daemon=True)]
    threads[0].start()
    rng = random.Random(7)
    before = []
    for _ in range(passes):
        order = [text for _, text in QUERIES]
        rng.shuffle(order)
        before += [search(text)[1] for text in order]
    full_passes: list[tuple[float, float]] = []  # the cyclic collector's full passes: (start, seconds)
    pass_started: list[float] = []

    def on_collect(phase: str, info: dict) -> None:
        if info["generation"] == 2:
            if phase == "start":
                pass_started[:] = [time.perf_counter()]
            elif pass_started:
                full_passes.append((pass_started[0], time.perf_counter() - pass_started[0]))

    gc.callbacks.append(on_collect)
    threads[1].start()
    time.sleep(0.5)  # searches are under way before the file arrives
    started = time.perf_counter()
    reports = corpus.ingest_paths([daily])
    ended = time.perf_counter()
    time.sleep(1.0)  # and go on for a moment after: the first searches after the commit
    stop.set()
    for thread in threads:
        thread.join()

    gc.callbacks.remove(on_collect)
    passes_during = [seconds * 1000 for at, seconds in full_passes if started <= at < ended]
    holds = [(a, b) for a, b in lock_clock.holds if b >= started]
    last_commit = max((b for _, b in holds), default=ended)
    # Every search the ingest overlapped, also one that started just before the file came.
    in_ingest = [ms for t, ms, _ in during if t < ended and t + ms / 1000 > started]
    after_commit = [(t, ms, text) for t, ms, text in during if t >= last_commit]
    first_typo = next((ms for t, ms, text in sorted(after_commit) if kinds.get(text) == TYPO), None)
    upsert_starts = [a for a, b in upserts if b >= started]
    edges = [
        started,
        min(upsert_starts, default=ended),
        min((a for a, _ in holds), default=ended),
        found_at[0] if found_at else ended,
        ended,
    ]
    edges = [max(edges[0], min(edge, ended)) for edge in edges]
    phases = {}
    for name, low, high in zip(("storing", "indexing", "commit", "after"), edges, edges[1:], strict=False):
        # a search counts in the phase it started in; the first also has those it overlapped
        times = [ms for t, ms, _ in during if t < high and (t >= low if name != "storing" else t + ms / 1000 > started)]
        phases[name] = {**summary(times), "from_s": low - started, "to_s": high - started}
    if first_typo is None:  # the loop met no typo after the commit: this is the first
        first_typo = search(next(text for kind, text in QUERIES if kind == TYPO))[1]

    # The index holds what the store holds (checked below), and a search finds a sample of
    # the new papers by title.
    missing = []
    for title in meta["new_titles"][:: max(1, len(meta["new_titles"]) // 20)]:
        if paper_id(title) not in [h.paper.id for h in corpus.search(f'"{title}"', per_page=20).hits]:
            missing.append(title)
    count, _ = corpus.store.state()
    index_count, _ = corpus.index.state()
    fingerprint = hashlib.sha256()
    for _, text in QUERIES:
        result = corpus.search(text, per_page=10)
        fingerprint.update(
            json.dumps([text, result.total, result.mode, result.suggestion, [h.paper.id for h in result.hits]]).encode()
        )
    corpus.close()
    return {
        "papers_before": count_before,
        "last_seq_before": last_seq,
        "new": sum(r.new for r in reports),
        "updated": sum(r.updated for r in reports),
        "ingest_s": ended - started,
        "lock_hold_s": sum(b - a for a, b in holds),
        "lock_holds": len(holds),
        "upsert_s": sum(b - a for a, b in upserts if b >= started),
        "searchable_s": (found_at[0] - started) if found_at else None,
        "before": summary(before),
        "during": summary(in_ingest),
        # every search's time, so rounds can be pooled (a round's p95 rests on ~17 searches)
        "before_ms": [round(ms, 2) for ms in before],
        "during_ms": [round(ms, 2) for ms in in_ingest],
        "first_typo_after_commit_ms": first_typo,
        # every thread waits while one runs a full pass: how many the ingest caused, the longest
        "full_gc": {"n": len(passes_during), "max_ms": max(passes_during, default=0.0), "sum_ms": sum(passes_during)},
        "phases": phases,
        "problems": problems[:5]
        + ([f"new papers not found by title: {missing[:3]}"] if missing else [])
        + ([f"index has {index_count} papers, store {count}"] if index_count != count else []),
        "results_sha": fingerprint.hexdigest()[:16],
    }


def worker_digest(data: Path, since: int) -> dict:
    from layout import find

    from bot.config import Settings
    from bot.corpus import Corpus

    digest_payload = find("bot.cli:digest_payload", "bot.slack.digest:digest_payload")

    t0 = time.perf_counter()
    corpus = Corpus.open(Settings(data_dir=data))
    opened = time.perf_counter() - t0
    out = {"open_s": opened, "filters": {}}
    for text in DIGEST_FILTERS:
        runs = []
        for _ in range(2):
            started = time.perf_counter()
            payload = digest_payload(corpus, lang="en", filter_text=text, since=since)
            runs.append(time.perf_counter() - started)
        blob = json.dumps(payload, ensure_ascii=False, sort_keys=True).encode()
        out["filters"][text] = {
            "first_s": runs[0],
            "second_s": runs[1],
            "papers": payload["papers"],
            "sha": hashlib.sha256(blob).hexdigest()[:16],
        }
    corpus.close()
    return out


def cli_digest(code: Path, data: Path, since: int, text: str, runs: int) -> dict:
    """`python -m bot digest --json --since S --filter F` from a fresh process: wall time."""
    env = {**os.environ, "PAPERBOT_DATA_DIR": str(data), "PYTHONPATH": str(code)}
    cmd = [sys.executable, "-m", "bot", "digest", "--json", "--since", str(since), "--filter", text]
    walls, sha = [], None
    for _ in range(runs):
        started = time.perf_counter()
        proc = subprocess.run(cmd, cwd=code, env=env, capture_output=True)
        walls.append(time.perf_counter() - started)
        if proc.returncode != 0:
            raise SystemExit(f"digest failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
        payload = json.loads(proc.stdout)
        sha = hashlib.sha256(json.dumps(payload, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:16]
    return {"wall_s": statistics.median(walls), "sha": sha}


def run_worker(code: Path, kind: str, *args: str) -> dict:
    env = {**os.environ, "PAPERBOT_BENCH_CODE": str(code)}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", kind, *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"worker {kind} failed with exit code {proc.returncode}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# -- the driver -------------------------------------------------------------------------------


def fmt_ms(value) -> str:
    return "—" if value is None else f"{value:,.0f}"


def render(results: dict[str, list[dict]]) -> str:
    """A Markdown table: one row per code, medians over the rounds."""

    def med(rows: list[dict], *path):
        values = []
        for row in rows:
            v = row
            for key in path:
                v = v.get(key) if isinstance(v, dict) else None
            if v is not None:
                values.append(v)
        return statistics.median(values) if values else None

    lines = [
        "| code | ingest | lock held | upsert | searchable after | search p50/p95 before | during | first typo after commit | full GC passes during, longest | results |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for label, rows in results.items():
        ing = [r["ingest"] for r in rows]
        lines.append(
            f"| {label} | {med(ing, 'ingest_s'):.2f} s | {med(ing, 'lock_hold_s'):.2f} s | {med(ing, 'upsert_s'):.2f} s "
            f"| {(med(ing, 'searchable_s') or float('nan')):.2f} s "
            f"| {fmt_ms(med(ing, 'before', 'p50_ms'))} / {fmt_ms(med(ing, 'before', 'p95_ms'))} ms "
            f"| {fmt_ms(med(ing, 'during', 'p50_ms'))} / {fmt_ms(med(ing, 'during', 'p95_ms'))} ms "
            f"| {fmt_ms(med(ing, 'first_typo_after_commit_ms'))} ms "
            f"| {sum(r.get('full_gc', {}).get('n', 0) for r in ing)} in {len(ing)} rounds, {fmt_ms(max((r.get('full_gc', {}).get('max_ms', 0) for r in ing), default=0))} ms "
            f"| `{ing[-1]['results_sha']}` |"
        )
    lines += [
        "",
        "| code | rounds | searches before / during, all rounds | p50 / p95 / p99 before | p50 / p95 / p99 during | during ÷ before, p95 | over 100 ms, before / during |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label, rows in results.items():
        ing = [r["ingest"] for r in rows]
        before = [ms for r in ing for ms in r.get("before_ms", [])]
        during = [ms for r in ing for ms in r.get("during_ms", [])]
        if before and during:
            b95, d95 = percentile(before, 0.95), percentile(during, 0.95)
            lines.append(
                f"| {label} | {len(ing)} | {len(before):,} / {len(during):,} "
                f"| {percentile(before, 0.5):.1f} / {b95:.1f} / {percentile(before, 0.99):.1f} ms "
                f"| {percentile(during, 0.5):.1f} / {d95:.1f} / {percentile(during, 0.99):.1f} ms | {d95 / b95:.2f}x "
                f"| {sum(ms > 100 for ms in before)} / {sum(ms > 100 for ms in during)} |"
            )
    lines += [
        "",
        "| code | phase | searches (median a round) | p50 / p95 | from → to (s after the file came) |",
        "|---|---|---:|---:|---|",
    ]
    for label, rows in results.items():
        ing = [r["ingest"] for r in rows]
        for name in ("storing", "indexing", "commit", "after"):
            lines.append(
                f"| {label} | {name} | {med(ing, 'phases', name, 'n'):.0f} | {fmt_ms(med(ing, 'phases', name, 'p50_ms'))} / "
                f"{fmt_ms(med(ing, 'phases', name, 'p95_ms'))} ms | {med(ing, 'phases', name, 'from_s'):.2f} → {med(ing, 'phases', name, 'to_s'):.2f} |"
            )
    lines += [
        "",
        "| code | filter | papers | `digest --json` (CLI wall) | in process, 1st / 2nd | output |",
        "|---|---|---:|---:|---:|---|",
    ]
    for label, rows in results.items():
        for text in DIGEST_FILTERS:
            d = [r["digest"]["filters"][text] for r in rows]
            c = [r["cli"][text] for r in rows]
            lines.append(
                f"| {label} | `{text or '(none)'}` | {d[-1]['papers']} | {statistics.median(x['wall_s'] for x in c):.2f} s "
                f"| {statistics.median(x['first_s'] for x in d):.3f} / {statistics.median(x['second_s'] for x in d):.3f} s | `{c[-1]['sha']}` |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", help="an ingested data folder (bench/run.py leaves W/data/paperbot-N); never changed")
    parser.add_argument("--work", default=str(BENCH / "work" / "daily"), help="where the copies and the day's file go")
    parser.add_argument("--code", action="append", help="a copy of paperbot to run (repeatable; default this checkout)")
    parser.add_argument("--rounds", type=int, default=1, help="interleaved rounds per code")
    parser.add_argument("--passes", type=int, default=2, help="passes over the query mix before the ingest")
    parser.add_argument("--digest-runs", type=int, default=3, help="CLI digest runs per filter (median)")
    parser.add_argument("--json", action="store_true", help="print every measurement as JSON on stdout")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args(argv)
    if args.worker == "ingest":
        print(json.dumps(worker_ingest(Path(rest[0]), Path(rest[1]), Path(rest[2]), int(rest[3]))))
        return 0
    if args.worker == "digest":
        print(json.dumps(worker_digest(Path(rest[0]), int(rest[1]))))
        return 0
    if not args.data:
        parser.error("--data is required")

    source = Path(args.data).resolve()
    work = Path(args.work).resolve()
    codes = [Path(c).resolve() for c in (args.code or [str(BENCH.parent)])]
    labels = {code: (code.name if len(codes) > 1 else "this checkout") for code in codes}
    if len(set(labels.values())) < len(codes):
        labels = {code: str(code) for code in codes}
    daily = work / "daily.txt"
    meta_path = work / "daily.json"
    meta = write_daily_file(source, daily)
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    log(f"day's file: {len(meta['new_titles'])} new papers, {meta['repeated']} stored ones again")
    results: dict[str, list[dict]] = {labels[c]: [] for c in codes}
    for round_ in range(args.rounds):
        for code in codes:
            label = labels[code]
            data = work / f"data-{round_}-{abs(hash(str(code))) % 10**6}"
            shutil.rmtree(data, ignore_errors=True)
            shutil.copytree(source, data)
            ing = run_worker(code, "ingest", str(data), str(daily), str(meta_path), str(args.passes))
            log(
                f"{label}: ingest {ing['ingest_s']:.2f}s, lock {ing['lock_hold_s']:.2f}s, searchable {ing['searchable_s']}, "
                f"during p95 {ing['during']['p95_ms']:.0f} ms, problems {ing['problems']}"
            )
            since = ing["last_seq_before"]
            dig = run_worker(code, "digest", str(data), str(since))
            cli = {text: cli_digest(code, data, since, text, args.digest_runs) for text in DIGEST_FILTERS}
            log(f"{label}: digest " + ", ".join(f"{t or '(none)'} {cli[t]['wall_s']:.2f}s" for t in DIGEST_FILTERS))
            results[label].append({"ingest": ing, "digest": dig, "cli": cli})
            shutil.rmtree(data, ignore_errors=True)
    print(render(results))
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
