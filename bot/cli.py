"""Thin command line: each command makes one library call and prints the outcome.

Library errors become one clear line on stderr and a non-zero exit; never a traceback.
`serve` is the frontend chooser: Slack (bot/slack/server.py) when Slack is configured, the
offline console (bot/console.py) when nothing is.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO
from zoneinfo import ZoneInfo

from bot.clock import Clock, system_clock
from bot.config import Settings
from bot.corpus import Corpus, settle_heap
from bot.digests.compose import compose_digest
from bot.digests.requests import BAD_FILTER_PROBLEMS, filter_problem_text
from bot.digests.subscriptions import Subscription, SubscriptionStore
from bot.errors import ArxivError, ConfigError, IndexBusy, SourceError, UserError, WorkerFailed
from bot.i18n import normalize_lang, problem_text, t
from bot.library.export import FORMATS, export_papers, normalize_format
from bot.library.readinglist import Library
from bot.logs import configure_logging
from bot.models import IngestReport, Paper, SearchResult
from bot.slack.render.digest import render_digest
from bot.slack.render.plain import blocks_to_text
from bot.slack.render.results import results_header
from bot.store import tenancy
from bot.store.migrate import copy_sqlite_into

logger = logging.getLogger("bot")

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bot", description="paperbot: find papers in English and Chinese.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    ingest = commands.add_parser("ingest", help="ingest listing files or folders")
    ingest.add_argument("paths", nargs="+", metavar="PATH")

    search = commands.add_parser("search", help="search the corpus")
    search.add_argument("query", nargs="*", metavar="QUERY")
    search.add_argument("--limit", type=int, default=5, help="results per page (default 5)")
    search.add_argument("--page", type=int, default=1)
    search.add_argument("--lang", choices=("en", "zh"), help="title language (default: zh for Chinese queries)")
    search.add_argument("--json", action="store_true", help="print the page as JSON: total, estimated, page, pages, hits")
    search.add_argument("--team", help="search as this Slack workspace sees the library (default: every paper)")

    show = commands.add_parser("show", help="show one paper by id")
    show.add_argument("id")
    show.add_argument("--lang", choices=("en", "zh"), default="en")
    show.add_argument("--json", action="store_true")
    show.add_argument("--team", help="show it only if this Slack workspace may see it (default: any paper)")

    stats = commands.add_parser("stats", help="what the corpus holds")
    stats.add_argument("--json", action="store_true")

    commands.add_parser("reindex", help="rebuild the search index from the store")

    vectors = commands.add_parser("vectors", help="compute the papers' vectors for search by meaning now")
    vectors.add_argument("--rebuild", action="store_true", help="forget every vector and compute them all anew")
    vectors.add_argument("--json", action="store_true", help="print how many were computed and how long it took as JSON")
    commands.add_parser("serve", help="run the Slack app (offline console without Slack tokens)")

    enrich = commands.add_parser("enrich", help="find papers on arXiv: links, PDF, English abstract")
    enrich.add_argument(
        "--limit", type=int, default=None, metavar="N", help="look up at most N papers (default: all that are due)"
    )
    enrich.add_argument("--json", action="store_true", help="print what was checked, found and updated as JSON")

    sources = commands.add_parser("sources", help="feeds polled for new papers: listing URLs and arXiv")
    sources_commands = sources.add_subparsers(dest="sources_command", metavar="ACTION")
    for name, help_text in (
        ("list", "show every source and how its last poll went"),
        ("poll", "poll every source now (or the given ones)"),
    ):
        sub = sources_commands.add_parser(name, help=help_text)
        if name == "poll":
            sub.add_argument("targets", nargs="*", metavar="SOURCE")
        sub.add_argument("--json", action="store_true")
    add = sources_commands.add_parser("add", help='add a listing URL, arxiv:CATEGORY or arxiv:"QUERY"')
    add.add_argument("target", metavar="SOURCE")
    add.add_argument("--json", action="store_true")
    remove = sources_commands.add_parser("remove", help="remove a source (its papers stay)")
    remove.add_argument("target", metavar="SOURCE")
    remove.add_argument("--json", action="store_true")
    remove_papers = sources_commands.add_parser(
        "remove-papers", help="remove the papers only SOURCE brought, and SOURCE (asks for --yes first)"
    )
    remove_papers.add_argument("target", metavar="SOURCE")
    remove_papers.add_argument("--yes", action="store_true", help="remove them (without it: say what would go)")
    remove_papers.add_argument("--json", action="store_true")

    digest = commands.add_parser(
        "digest", help="show what a daily digest would post (any papers, or one workspace's subscription)"
    )
    digest.add_argument("--lang", choices=("en", "zh"), default=None, help="default: the subscription's, else en")
    digest.add_argument(
        "--team", default=None, metavar="T…",
        help="the workspace whose subscriptions --channel, --user and --subscriptions read (default: the store's home workspace)",
    )  # fmt: skip
    place = digest.add_mutually_exclusive_group()
    place.add_argument("--channel", metavar="C…", help="preview the next digest of this channel's subscription")
    place.add_argument("--user", metavar="U…", help="preview the next digest of this person's own (DM) subscription")
    place.add_argument("--subscriptions", action="store_true", help="list the workspace's subscriptions")
    digest.add_argument("--filter", default="", metavar="QUERY", help="only papers matching QUERY (search syntax)")
    digest.add_argument(
        "--since", type=int, default=0, metavar="SEQ", help="papers first stored after ingest sequence SEQ (default: all)"
    )
    digest.add_argument("--json", action="store_true", help='print {"papers": N, "messages": [{"text", "blocks"}, ...]}')

    store = commands.add_parser("store", help="the store itself: copy a SQLite store into PostgreSQL")
    store_commands = store.add_subparsers(dest="store_command", metavar="ACTION", required=True)
    copy = store_commands.add_parser(
        "copy-to-postgres", help="copy data/paperbot.sqlite3 into the empty PostgreSQL of PAPERBOT_DATABASE_URL"
    )
    copy.add_argument("--from", dest="source", metavar="PATH", help="the SQLite file (default: the data folder's)")

    export = commands.add_parser("export", help="write saved papers (or papers by id) as BibTeX, RIS or CSL-JSON")
    export.add_argument("--format", required=True, metavar="FORMAT", help="bibtex, ris or csl-json")
    export.add_argument(
        "--user", action="append", default=[], metavar="USER_ID", help="a Slack user id whose saves to export (repeatable)"
    )
    export.add_argument(
        "--ids", nargs="+", default=[], metavar="ID", help="paper ids (or unique prefixes), comma or space separated"
    )
    export.add_argument(
        "--team",
        metavar="TEAM_ID",
        help="the Slack workspace of --user (default: the bot's own workspace; '' for the offline console's)",
    )
    export.add_argument("--lang", choices=("en", "zh"), default="en", help="the language of the AI summary note's label")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    env_file = Path.cwd() / ".env"  # the .env where you run, never one found elsewhere
    if env_file.exists():  # python-dotenv's import is ~10 ms of every command's start
        from dotenv import load_dotenv

        load_dotenv(env_file, override=False)
    args = build_parser().parse_args(argv)
    if not args.command:
        build_parser().print_help()
        return EXIT_USAGE
    try:
        settings = Settings.from_env()
        configure_logging(settings)
        return COMMANDS[args.command](settings, args)
    except ConfigError as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return 130
    except IndexBusy as exc:
        return _fail(f"{exc}; the store has every paper, so run the command again once that process is done")
    except WorkerFailed as exc:
        logger.debug("index write failed", exc_info=True)
        return _fail(
            f"{exc}; the store has every paper and the index is as it was: run the command again"
            " (and `python -m bot reindex` if it keeps failing; out of memory is the usual cause)"
        )
    except UserError as exc:
        return _fail(exc.text("en"))
    except (OSError, sqlite3.Error) as exc:
        logger.debug("command failed", exc_info=True)
        return _fail(f"{type(exc).__name__}: {exc}")


def _fail(message: str) -> int:
    print(f"paperbot: error: {message}", file=sys.stderr)
    return EXIT_FAILED


def _open(settings: Settings, *, writing: bool = False) -> Corpus:
    # The CLI runs no other threads, so large index writes may fork a worker per core.
    return Corpus.open(settings, writer_procs=(os.cpu_count() or 1) if writing else 1)


# -- commands ------------------------------------------------------------------------------


def cmd_ingest(settings: Settings, args) -> int:
    corpus = _open(settings, writing=True)
    try:
        bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
        reports = corpus.ingest_paths(args.paths, progress=bar)
        if bar:
            bar.close()
        for report in reports:
            print(format_report(report))
        new = sum(r.new for r in reports)
        updated = sum(r.updated for r in reports)
        rejected = sum(r.rejected for r in reports)
        print(
            f"{len(reports)} file(s): {new} new, {updated} updated, {rejected} rejected; {corpus.store.state()[0]} papers in the store"
        )
        return EXIT_FAILED if rejected else EXIT_OK
    finally:
        corpus.close()


def format_report(report: IngestReport) -> str:
    """One line per file, then one indented line per rejection with file:line and reason."""
    feed = f" [{report.feed}]" if report.feed else ""
    lines = [
        f"{report.path}{feed}: {report.new} new, {report.updated} updated, {report.unchanged} unchanged, {report.rejected} rejected"
    ]
    lines += [f"  rejected {error}" for error in report.errors]
    return "\n".join(lines)


class ProgressBar:
    """A one-line byte progress bar on a terminal, for inputs large enough to wait for."""

    def __init__(self, stream, width: int = 30, threshold: int = 1 << 20):
        self.stream, self.width, self.threshold, self.drawn = stream, width, threshold, False

    def __call__(self, done: int, total: int, path: str) -> None:
        if total < self.threshold:
            return
        filled = int(self.width * done / max(total, 1))
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {100 * done // max(total, 1):3d}% {path[-40:]:<40}")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")


def cmd_search(settings: Settings, args) -> int:
    text = " ".join(args.query)
    if args.limit < 1 or args.page < 1:
        return _fail("--limit and --page must be 1 or more")
    corpus = _open(settings)
    try:
        lang = args.lang or ("zh" if any("\u4e00" <= c <= "\u9fff" for c in text) else "en")
        result = corpus.search(text, page=args.page, per_page=args.limit, lang=lang, team=args.team)
    finally:
        corpus.close()
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        return EXIT_OK
    print(format_result(result, lang, bold=sys.stdout.isatty()))
    return EXIT_OK


def format_result(result: SearchResult, lang: str, *, bold: bool = False) -> str:
    """Render a page of results for a terminal, with the same words Slack shows."""
    lines = []
    if result.problem:
        lines.append(problem_text(result.problem, lang))
    if result.problem == "query_empty":
        return "\n".join([*lines, t("search.none_hint", lang)])
    if result.is_past_end:
        return "\n".join([*lines, t("search.past_end", lang, query=result.query, page=result.page)])
    if not result.hits:
        lines.append(t("search.none", lang, query=result.query))
        if result.suggestion:
            lines.append(t("search.suggestion_prompt", lang, suggestion=result.suggestion))
        if result.store_away:
            lines.append(t("search.store_away_none", lang))
        return "\n".join(lines)
    if result.mode == "any":
        lines.append(t("search.any_terms", lang))
    if result.suggestion and result.suggestion.strip().casefold() != result.query.strip().casefold():
        lines.append(t("search.showing_for", lang, suggestion=result.suggestion, query=result.query))
    if result.estimated:
        header = results_header(result, lang, query=result.query)
    else:
        header = t("search.header", lang, total=result.total, query=result.query, page=result.page, pages=result.pages)
    lines.append(header.replace("*", ""))
    first = (result.page - 1) * result.per_page
    for n, hit in enumerate(result.hits, start=first + 1):
        paper = hit.paper
        other = paper.title("en" if lang == "zh" else "zh")
        lines.append("")
        lines.append(f"{n}. {paper.title(lang)}  [{paper.id}]")
        if other and other != paper.title(lang):
            lines.append(f"   {other}")
        lines.append(f"   {_short_authors(paper.authors)}" + (f" · {paper.venue}" if paper.venue else ""))
        if hit.shows_snippet():
            on, off = ("\x1b[1m", "\x1b[0m") if bold else ("[", "]")
            lines.append("   " + "".join(f"{on}{f.text}{off}" if f.hit else f.text for f in hit.snippet))
        if hit.by_meaning:
            lines.append("   " + t("search.by_meaning", lang))
    if result.store_away:
        lines.append(t("search.store_away", lang))
    return "\n".join(lines)


def _short_authors(authors: list[str], keep: int = 3) -> str:
    return ", ".join(authors[:keep]) + (f" +{len(authors) - keep}" if len(authors) > keep else "")


def cmd_show(settings: Settings, args) -> int:
    corpus = _open(settings)
    try:
        paper = corpus.get(args.id, team=args.team)
    finally:
        corpus.close()
    if paper is None:
        return _fail(f"no paper with id {args.id!r}; find ids with `python -m bot search QUERY`")
    print(json.dumps(paper.to_dict(), ensure_ascii=False, indent=2) if args.json else format_paper(paper))
    return EXIT_OK


def format_paper(paper: Paper) -> str:
    """Every field of a paper, for a terminal."""
    rows = [
        ("id", paper.id),
        ("title", paper.title_en),
        ("标题", paper.title_zh),
        ("authors", ", ".join(paper.authors)),
        (
            "affiliations",
            "\n              ".join(f"{a.en}（{a.zh}）" if a.en and a.zh else a.en or a.zh for a in paper.affiliations),
        ),
        ("venue", paper.venue),
        ("feeds", ", ".join(paper.feeds)),
        ("summary", paper.summary_zh),
        ("comments", paper.comments),
        ("journal ref", paper.journal_ref),
        ("links", " ".join(paper.urls)),
        ("arXiv", f"{paper.arxiv.abs_url} (v{paper.arxiv.version}, {', '.join(paper.arxiv.categories)})" if paper.arxiv else ""),
        ("pdf", paper.arxiv.pdf_url if paper.arxiv else ""),
        ("published", paper.arxiv.published if paper.arxiv else ""),
        ("abstract", paper.abstract_en),
        ("first seen", f"{paper.first_seen} (seq {paper.seq})"),
    ]
    return "\n".join(f"{label:<13} {value}" for label, value in rows if value)


def cmd_stats(settings: Settings, args) -> int:
    corpus = _open(settings)
    try:
        stats = corpus.stats()
    finally:
        corpus.close()
    if args.json:
        print(json.dumps(stats, ensure_ascii=False, indent=2))
        return EXIT_OK
    print(f"papers        {stats['papers']}")
    print(f"index         {stats['index']['documents']} documents at rev {stats['index']['rev']}")
    print(f"ingests       {stats['ingests']} (last {stats['last_ingest_at'] or 'never'})")
    print(f"arXiv         {stats['arxiv']['found']} found, {stats['arxiv']['missing']} not on arXiv (looked up)")
    vectors = stats.get("vectors")
    if vectors is None:
        print("vectors       off (PAPERBOT_SEMANTIC=off): search by words only")
    else:
        left = vectors["seconds_left"]
        eta = f", about {max(1, round(left / 60))} min left" if left else ""
        print(
            f"vectors       {vectors['with_vectors']} of {vectors['papers']} papers ({vectors['missing']} to compute{eta}; {vectors['model']})"
        )
    print("feeds         " + "; ".join(f"{k} ({v})" for k, v in stats["feeds"].items()))
    print("venues        " + "; ".join(f"{k or '—'} ({v})" for k, v in stats["venues"].items()))
    return EXIT_OK


def cmd_vectors(settings: Settings, args) -> int:
    """Compute every missing vector now (the server does it in the background, newest first)."""
    if not settings.semantic_enabled:
        return _fail("search by meaning is off (PAPERBOT_SEMANTIC=off); turn it on to compute vectors")
    corpus = _open(settings)
    try:
        meaning = corpus.meaning
        assert meaning is not None
        if args.rebuild:
            meaning.vectors.clear()
        bar = ProgressBar(sys.stderr, threshold=1) if sys.stderr.isatty() and not args.json else None
        started = time.monotonic()
        done = meaning.builder.run(progress=(lambda d, n: bar(d, n, "")) if bar else None)
        if bar:
            bar.close()
        if meaning.vectors.needs_compacting() or args.rebuild:
            meaning.vectors.compact(threads=os.cpu_count() or 1)
        seconds = time.monotonic() - started
        progress = meaning.builder.progress(count=True)
    finally:
        corpus.close()
    rate = done / seconds if seconds > 0 and done else None
    if args.json:
        data = {"computed": done, "seconds": round(seconds, 2), "papers_per_second": rate and round(rate, 1)}
        print(json.dumps(data | {"with_vectors": progress.with_vectors, "papers": progress.papers}, indent=2))
    else:
        speed = f" ({rate:.1f} papers/s)" if rate else ""
        print(f"vectors: computed {done} in {seconds:.1f} s{speed}; {progress.with_vectors} of {progress.papers} papers have one")
    return EXIT_OK


def cmd_reindex(settings: Settings, args) -> int:
    corpus = _open(settings, writing=True)
    try:
        count = corpus.reindex()
    finally:
        corpus.close()
    print(f"index rebuilt: {count} papers")
    return EXIT_OK


def cmd_serve(settings: Settings, args) -> int:
    corpus = Corpus.load(settings)  # serving prepares it, after binding the HTTP port
    # Platforms stop a process with SIGTERM: leave like Ctrl-C, through the finally blocks.
    signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        return serve(settings, corpus)
    finally:
        corpus.close()


def serve(settings: Settings, corpus: Corpus, *, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Run until interrupted; return an exit code.

    No Slack settings at all: explain how to create the app, then open the offline
    console. Some missing: name them and stop (exit 2). Otherwise serve Slack.
    """
    stdout = stdout or sys.stdout
    if not settings.has_slack_settings:
        names = "SLACK_BOT_TOKEN, SLACK_APP_TOKEN / SLACK_SIGNING_SECRET"
        print(t("setup.missing_all", "en", names=names), file=stdout, flush=True)
        # Deferred: the console builds every service (APScheduler, feedparser: ~0.1 s).
        from bot.console import run_console

        corpus.prepare()
        settle_heap()
        meaning = corpus.meaning
        if meaning is not None:
            # As the Slack server's scheduler does: the vectors are computed beside the console,
            # newest first, and its searches are by words alone for papers still without one.
            threading.Thread(target=meaning.builder.run, name="vectors", daemon=True).start()
        try:
            return run_console(corpus, stdin=stdin or sys.stdin, stdout=stdout)
        finally:
            if meaning is not None:
                meaning.builder.stop()
    missing = settings.missing_slack_settings()
    if missing:
        print(t("setup.missing_some", "en", names=" and ".join(missing)), file=sys.stderr, flush=True)
        return EXIT_USAGE
    # Deferred: slack_bolt and waitress (~0.2 s) are for serving Slack only.
    from bot.slack import server

    return server.serve(settings, corpus, stdout=stdout)


def digest_payload(
    corpus: Corpus, *, lang: str = "en", filter_text: str = "", since: int = 0, timezone: str = "UTC", clock: Clock = system_clock
) -> dict:
    """What a digest of the papers after `since` would post: `{"papers", "held_back", "messages"}`
    (`python -m bot digest --json`).

    Dated today in `timezone`. Raises UserError when the filter can't be read.
    """
    if filter_text:
        problem = corpus.query_problem(filter_text)  # not a search of the whole index: only whether it reads
        if problem in BAD_FILTER_PROBLEMS:
            raise UserError("subscribe.bad_filter", filter=filter_text, problem=filter_problem_text(problem, "en"))
    today = clock().astimezone(ZoneInfo(timezone)).date()
    digest = compose_digest(corpus, after_seq=max(0, since), filter_text=filter_text, lang=normalize_lang(lang), local_date=today)
    messages = render_digest(digest) if digest.papers else []
    return {
        "papers": digest.count,
        "held_back": digest.held_back,
        "left_out": digest.left_out,
        "messages": [{"text": m.text, "blocks": m.blocks} for m in messages],
    }


def subscription_rows(subscriptions: SubscriptionStore, team_id: str) -> list[dict]:
    """One workspace's subscriptions, as `digest --subscriptions --json` prints them."""
    return [
        {"id": s.id, "kind": s.kind, "place_id": s.place_id, "created_by": s.created_by, "lang": s.lang, "days": s.days,
         "time": s.time_label, "timezone": s.timezone, "filter": s.filter_text, "status": s.status, "paused_reason": s.paused_reason}
        for s in subscriptions.all(team_id)
    ]  # fmt: skip


def subscription_payload(corpus: Corpus, sub: Subscription, *, lang: str | None = None, clock: Clock = system_clock) -> dict:
    """What `sub`'s next digest would post if it ran now (nothing is claimed or moved)."""
    subscriptions = SubscriptionStore(corpus.store, clock=clock)
    today = clock().astimezone(sub.zone).date()
    digest = compose_digest(
        corpus, after_seq=sub.cursor_seq, filter_text=sub.filter_text, lang=normalize_lang(lang or sub.lang), local_date=today,
        exclude_ids=subscriptions.posted_since(sub.id, sub.cursor_seq), top=sub.top,
    )  # fmt: skip
    digest.days = sub.days
    messages = render_digest(digest) if digest.papers else []
    return {
        "subscription": sub.id,
        "papers": digest.count,
        "held_back": digest.held_back,
        "left_out": digest.left_out,
        "messages": [{"text": m.text, "blocks": m.blocks} for m in messages],
    }


def cmd_digest(settings: Settings, args) -> int:
    corpus = _open(settings)
    try:
        if args.channel or args.user or args.subscriptions:
            # One workspace's subscriptions only: another's are not this command's to show.
            team_id = args.team if args.team is not None else tenancy.home_team(corpus.store)
            subscriptions = SubscriptionStore(corpus.store)
            if args.subscriptions:
                rows = subscription_rows(subscriptions, team_id)
                if args.json:
                    print(json.dumps({"team": team_id, "subscriptions": rows}, ensure_ascii=False, indent=2))
                else:
                    for row in rows:
                        print(f"{row['id']}\t{row['kind']} {row['place_id']}\t{row['days']} {row['time']} {row['timezone']}"
                              f"\t{row['lang']}\t{row['status']}\t{row['filter']}")  # fmt: skip
                    if not rows:
                        print(f"no subscriptions in workspace {team_id or '(local)'}")
                return EXIT_OK
            kind, place_id = ("channel", args.channel) if args.channel else ("user", args.user)
            sub = subscriptions.for_place(team_id, kind, place_id)
            if sub is None:
                return _fail(f"no digest for {kind} {place_id} in workspace {team_id or '(local)'}")
            payload = subscription_payload(corpus, sub, lang=args.lang)
        else:
            payload = digest_payload(
                corpus, lang=args.lang or "en", filter_text=args.filter, since=args.since, timezone=settings.timezone
            )
    finally:
        corpus.close()
    if args.json:
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        print("\n\n".join(blocks_to_text(m["blocks"]) for m in payload["messages"]) or f"no new papers after seq {args.since}")
    return EXIT_OK


def cmd_export(settings: Settings, args) -> int:
    fmt = normalize_format(args.format)
    if fmt is None:
        return _fail(f"unknown format {args.format!r}; use one of {', '.join(FORMATS)}")
    ids = [i for raw in args.ids for i in raw.replace(",", " ").split()]
    if not ids and not args.user:
        return _fail("say what to export: --user U123 (their saved papers) and/or --ids ID [ID ...]")
    corpus = _open(settings)
    try:
        papers: dict[str, Paper] = {}
        # A person's saves are their workspace's: the one named, else the bot's own (token mode).
        team_id = tenancy.home_team(corpus.store) if args.team is None else args.team
        library = Library(corpus.store, corpus=corpus)
        for user_id in args.user:
            papers.update((p.id, p) for p in library.saved_papers(user_id, team_id=team_id))
        unknown = []
        for paper_id in ids:
            paper = corpus.get(paper_id)
            if paper is None:
                unknown.append(paper_id)
            else:
                papers.setdefault(paper.id, paper)
    finally:
        corpus.close()
    if unknown:
        return _fail(f"no paper with id {', '.join(map(repr, unknown))}; find ids with `python -m bot search QUERY`")
    if not papers:
        print(f"paperbot: {', '.join(args.user)} saved no papers yet", file=sys.stderr)
    sys.stdout.write(export_papers(list(papers.values()), fmt, args.lang))
    return EXIT_OK


def cmd_enrich(settings: Settings, args) -> int:
    # Deferred: feedparser (~50 ms) is for arXiv and feeds only.
    from bot.feeds.arxiv import build_enricher

    if not settings.arxiv_enabled:
        return _fail("arXiv lookups are off (PAPERBOT_ARXIV=off); set PAPERBOT_ARXIV=on in .env to use them")
    if args.limit is not None and args.limit < 1:
        return _fail("--limit must be 1 or more")
    corpus = _open(settings)
    try:
        try:
            report = build_enricher(settings, corpus).enrich(args.limit)
        except ArxivError as exc:
            return _fail(f"arXiv could not be asked ({exc}); papers found before this stay stored. Try again later.")
    finally:
        corpus.close()
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(
            f"{report.checked} checked, {report.found} found on arXiv, {report.missing} not on arXiv, "
            f"{report.updated} updated ({report.requests} request(s))"
        )
    return EXIT_OK


def cmd_sources(settings: Settings, args) -> int:
    # Deferred: feedparser, as in cmd_enrich.
    from bot.feeds.sources import SourceService, format_source_line

    # Deferred: the library's ranking loads the analysers; only remove-papers asks it (whose papers people kept).
    from bot.library.readinglist import Library

    if not getattr(args, "sources_command", None):
        return _fail("say what to do: python -m bot sources list|add|remove|poll|remove-papers")
    corpus = _open(settings)
    try:
        service = SourceService(settings, corpus, kept_by_people=Library(corpus.store).kept_by_people)
        data: object
        results: list = []
        try:
            if args.sources_command == "list":
                rows = service.list_sources()
                data = [s.to_dict() for s in rows]
                lines = [format_source_line(s, "en") for s in rows] or [
                    "no sources yet; add one with: python -m bot sources add URL"
                ]
            elif args.sources_command == "add":
                source = service.add(args.target, added_by="cli")
                data, lines = (
                    source.to_dict(),
                    [f"added {source.target}; it is polled every {settings.sources_interval_minutes} minutes"],
                )
            elif args.sources_command == "remove":
                source = service.remove(args.target)
                data, lines = source.to_dict(), [f"removed {source.target}; its papers stay in the store"]
            elif args.sources_command == "remove-papers":
                removal = service.remove_papers(args.target) if args.yes else service.plan_removal(args.target)
                data, lines = removal.to_dict(), [removal.line("en", done=args.yes)]
                if not args.yes and removal.count:
                    lines.append(
                        f"nothing is removed yet; to go ahead: python -m bot sources remove-papers {removal.target} --yes"
                    )
            else:
                results = service.poll_all(args.targets or None, force=True)
                data = [r.to_dict() for r in results]
                lines = [r.line("en") for r in results] or ["no sources to poll; add one with: python -m bot sources add URL"]
        except SourceError as exc:
            return _fail(exc.text("en"))
    finally:
        corpus.close()
    print(json.dumps(data, ensure_ascii=False, indent=2) if args.json else "\n".join(lines))
    if args.sources_command == "poll" and any(r.error for r in results):
        return EXIT_FAILED
    return EXIT_OK


def cmd_store(settings: Settings, args) -> int:
    """`store copy-to-postgres`: every table of the SQLite store, into an empty PostgreSQL."""
    if not settings.database_url:
        return _fail(t("migrate.no_url", "en"))
    source = Path(args.source) if args.source else settings.db_path
    corpus = _open(settings, writing=True)
    try:
        # Deferred: the console builds every service, and so every room's tables on the target.
        from bot.console import console_services

        console_services(corpus, sys.stdout)
        copied = copy_sqlite_into(source, corpus.store)
        corpus.reindex()
    finally:
        corpus.close()
    for item in copied:
        print(f"{item.table}: {item.rows} rows")
    print(t("migrate.done", "en", path=str(source)))
    return EXIT_OK


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


COMMANDS = {
    "digest": cmd_digest,
    "export": cmd_export,
    "enrich": cmd_enrich,
    "sources": cmd_sources,
    "ingest": cmd_ingest,
    "search": cmd_search,
    "show": cmd_show,
    "stats": cmd_stats,
    "reindex": cmd_reindex,
    "vectors": cmd_vectors,
    "serve": cmd_serve,
    "store": cmd_store,
}
