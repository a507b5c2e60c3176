"""Every error paperbot raises, in one place.

    PaperbotError                     the one base: `except PaperbotError` catches ours only
    ├── UserError                     a sentence for a person: an i18n key and its fields,
    │   │                             `.text(lang)` renders it in either language
    │   ├── SubscribeError            a `/papers subscribe` line that can't be read
    │   ├── SourceError               a feed that can't be added, removed or found
    │   └── WorkspaceError            a workspace setting that can't be changed so
    ├── ConfigError (ValueError)      a setting missing or wrong; names the variable (.env)
    │   └── DataDirError              the data folder can't be created or written
    ├── SearchIndexError              the search index (bot/search/) can't do what was asked
    │   ├── IndexUnusable             missing, corrupt or another schema: rebuild it
    │   ├── IndexBusy                 another process holds its write lock
    │   └── WorkerFailed              an index worker process died mid-write
    ├── ChildFailed                   a child process (bot/child.py) did not finish
    ├── FetchError                    an HTTP GET of a feed gave nothing usable (bot/feeds/fetch.py)
    ├── ArxivError                    arXiv gave no usable answer (bot/feeds/arxiv.py)
    ├── ZoneRefusal                   a time-zone word that can't be taken (bot/digests/times.py)
    ├── DeliveryFailed                Slack refused a digest's post (bot/digests/service.py)
    ├── DigestClaimLost               another instance took a digest over from us (same)
    └── WorkClaimLost                 our lease on background work ran out (bot/store/claims.py)

The CLI, the console and Slack listeners turn these into one clear line in the user's
language; none of them needs to import the room that raised one (the CLI catches index
errors without importing Whoosh).
"""

from __future__ import annotations

from pathlib import Path

from bot.i18n import t

__all__ = [
    "ArxivError",
    "ChildFailed",
    "ConfigError",
    "DataDirError",
    "DeliveryFailed",
    "DigestClaimLost",
    "FetchError",
    "IndexBusy",
    "SearchIndexError",
    "IndexUnusable",
    "PaperbotError",
    "SourceError",
    "SubscribeError",
    "UserError",
    "WorkClaimLost",
    "WorkerFailed",
    "WorkspaceError",
    "ZoneRefusal",
]


class PaperbotError(Exception):
    """The base of every error paperbot raises on purpose."""


class UserError(PaperbotError):
    """What a person did that can't be done, said in their language: `key` and `fields` are
    the message in bot/i18n.py. `str()` is the English sentence (logs, the CLI)."""

    def __init__(self, key: str, **fields: object):
        super().__init__(t(key, "en", **fields))
        self.key = key
        self.fields = fields

    def text(self, lang: str) -> str:
        return t(self.key, lang, **self.fields)


class SubscribeError(UserError):
    """A subscribe line that can't be read: `key` is `subscribe.<why>`."""


class SourceError(UserError):
    """A source command that can't be done: `key` is `sources.<why>`."""


class WorkspaceError(UserError):
    """A workspace setting that can't be changed as asked: `key` is `settings.<why>`."""


class ConfigError(PaperbotError, ValueError):
    """A setting is missing or wrong; the message names the variable and where to set it.

    English only: it is read by whoever runs paperbot, before any person's language is known.
    """


class DataDirError(ConfigError):
    """The data folder can't be created or written: says which folder, why, and what to set."""

    @classmethod
    def of(cls, path: Path, cause: str) -> DataDirError:
        return cls(t("setup.data_dir_unwritable", "en", path=Path(path).absolute(), cause=cause))


class SearchIndexError(PaperbotError):
    """The search index can't do what was asked; the store, the source of truth, is untouched."""


class IndexUnusable(SearchIndexError):
    """The index is missing, corrupt, unreadable or built with another schema: rebuild it."""


class IndexBusy(SearchIndexError):
    """Another process held the index's write lock for longer than we were willing to wait."""


class WorkerFailed(SearchIndexError):
    """An index worker process died before handing back its segment."""


class ChildFailed(PaperbotError):
    """The child process did not finish its work."""


class FetchError(PaperbotError):
    """A GET that gave us nothing to use; `kind` names why (see bot/feeds/fetch.py)."""

    def __init__(self, kind: str, detail: str = "", *, status: int = 0, retry_after: float | None = None):
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind
        self.detail = detail
        self.status = status
        self.retry_after = retry_after


class ArxivError(PaperbotError):
    """arXiv gave no usable answer: `kind` is a FetchError kind, "format", "api" or "stopped"."""

    def __init__(self, kind: str, detail: str = "", *, retry_after: float | None = None):
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind
        self.detail = detail
        self.retry_after = retry_after


class ZoneRefusal(PaperbotError):
    """A zone word we can't take: `key` is why (unknown, ambiguous, offset), `options` what it might mean."""

    def __init__(self, key: str, value: str, options: tuple[str, ...] = ()):
        super().__init__(key, value, options)
        self.key = key
        self.value = value
        self.options = options


class DeliveryFailed(PaperbotError):
    """Posting failed. `gone`: the place can't take posts (pause it); `retryable`: try later."""

    def __init__(self, code: str, *, gone: bool = False, retryable: bool = False):
        super().__init__(code)
        self.code = code
        self.gone = gone
        self.retryable = retryable


class DigestClaimLost(PaperbotError):
    """Another instance took this digest's claim over (our heartbeat stopped long enough): stop posting."""


class WorkClaimLost(PaperbotError):
    """Our lease on a piece of background work ran out or was taken over: its next write is refused, and it stops."""
