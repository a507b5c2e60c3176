"""Settings.from_env(mapping): every environment variable is named here and only here."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.errors import ConfigError, DataDirError


def ensure_data_dir(path: Path) -> None:
    """Create the data folder if needed and prove it writable, else raise DataDirError.

    SQLite would only say "unable to open database file", at the first write, with a
    traceback; this names the folder, the system's reason (read-only file system,
    permission denied, not a directory) and PAPERBOT_DATA_DIR, before anything opens.
    """
    probe = Path(path) / f".paperbot-write-test-{os.getpid()}"
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
        os.close(os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        os.unlink(probe)
    except OSError as exc:
        raise DataDirError.of(path, exc.strerror or str(exc)) from None


def _int(env: Mapping[str, str], name: str, default: int, minimum: int = 0) -> int:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a whole number; fix it in .env or the environment.") from None
    if value < minimum:
        raise ConfigError(f"{name} must be at least {minimum}; fix it in .env or the environment.")
    return value


ALL_NETWORKS = (ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0"))


def _networks(env: Mapping[str, str], name: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """`on` (every network), `off` or nothing (none), or networks such as 10.1.0.0/16,fd00::/8."""
    raw = env.get(name, "").strip()
    if raw.lower() in ("", "off", "0", "false", "no"):
        return ()
    if raw.lower() in ("on", "1", "true", "yes"):
        return ALL_NETWORKS
    try:
        return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in raw.split(",") if part.strip())
    except ValueError:
        raise ConfigError(
            f"{name}={raw!r} must be on, off, or networks such as 10.1.0.0/16,192.168.0.0/24; fix it in .env or the environment."
        ) from None


def database_passwords(url: str) -> tuple[str, ...]:
    """Every spelling of the password a database URL carries: in its user info
    (`//user:pw@`, `//:pw@`) or its query (`?password=pw`), as typed and percent-decoded."""
    parts = urlsplit(url)
    found: list[str] = []
    if "@" in parts.netloc:
        userinfo = parts.netloc.rsplit("@", 1)[0]
        if ":" in userinfo:
            found.append(userinfo.split(":", 1)[1])
    for pair in parts.query.split("&"):
        key, _, value = pair.partition("=")
        if unquote(key) == "password":
            found.append(value)
    found += [unquote(p) for p in found]
    return tuple(dict.fromkeys(p for p in found if p))


@dataclass(frozen=True)
class Settings:
    """Everything paperbot reads from its environment. Secrets never appear in repr()."""

    data_dir: Path = Path("data")
    seeds_dir: Path = Path("seeds")
    inbox_dir: Path = Path("data/inbox")
    inbox_interval_minutes: int = 15
    timezone: str = "UTC"
    admins: frozenset[str] = frozenset()
    log_level: str = "INFO"
    host: str = "0.0.0.0"
    port: int = 3000
    ack_budget_ms: int = 1500  # a /papers answer not ready by then goes to its response_url
    # Open connections one client address may hold (bot/slack/http.py); behind a reverse proxy
    # every request comes from the proxy, so raise it there.
    http_connections_per_client: int = 50
    slack_bot_token: str = field(default="", repr=False)
    slack_signing_secret: str = field(default="", repr=False)
    slack_app_token: str = field(default="", repr=False)
    slack_api_base_url: str = ""
    # Install from a link (issue 25, bot/slack/oauth.py): with both, `serve` in HTTP mode runs
    # Slack's OAuth flow and answers each workspace with its own token; SLACK_BOT_TOKEN is
    # then not needed. A rotating token is refreshed this many minutes before it expires.
    slack_client_id: str = ""
    slack_client_secret: str = field(default="", repr=False)
    slack_token_rotation_minutes: int = 120
    # arXiv enrichment (bot/feeds/arxiv.py) and feeds (bot/feeds/sources.py)
    arxiv_enabled: bool = True
    arxiv_api_url: str = "https://export.arxiv.org/api/query"
    arxiv_interval_seconds: float = 3.0
    arxiv_backoff_seconds: float = 5.0
    arxiv_recheck_days: int = 30
    sources_interval_minutes: int = 60
    # Feeds at addresses that are not public (intranet, loopback): none unless the operator
    # allows them (bot/feeds/fetch.py); networks, or ALL_NETWORKS for PAPERBOT_FEEDS_ALLOW_PRIVATE=on.
    feeds_allow_private: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    feeds_max_new_per_poll: int = 2000  # new papers one poll of one feed may add; the rest wait
    # Search by meaning (bot/semantic/): off gives exactly the lexical search of before
    semantic_enabled: bool = True
    # Several instances (issue 24): the store on PostgreSQL (empty: SQLite in the data folder),
    # how often an instance looks for papers stored through another, and how long a claim on
    # background work (feed polls, arXiv lookups, inbox scans) or a digest lasts unless renewed.
    database_url: str = field(default="", repr=False)
    follow_interval_seconds: float = 2.0
    lease_seconds: int = 120
    # Removals leave tombstones that followers delete from their index; kept this long, then
    # pruned (an index older than that is rebuilt from the store rather than caught up).
    tombstone_retention_days: int = 7
    index_snapshot_dir: Path | None = None  # an index folder to start from instead of rebuilding

    @property
    def db_path(self) -> Path:
        return self.data_dir / "paperbot.sqlite3"

    @property
    def database_location(self) -> str:
        """Where the store is: PAPERBOT_DATABASE_URL, else the SQLite file in the data folder."""
        return self.database_url or str(self.db_path)

    @property
    def shared_database(self) -> bool:
        """Whether other instances may share the store (PostgreSQL), so one follows their changes."""
        return bool(self.database_url)

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "index"

    @property
    def vectors_dir(self) -> Path:
        """The papers' vectors (bot/semantic/vectors.py): derived, like the index, and rebuilt from the store."""
        return self.data_dir / "vectors"

    @property
    def aliases_path(self) -> Path:
        """The admin's own aliases, added to bot/search/data/aliases.tsv (same format)."""
        return self.data_dir / "aliases.tsv"

    @property
    def socket_mode(self) -> bool:
        return bool(self.slack_app_token)

    @property
    def oauth_enabled(self) -> bool:
        """Installs from a link (a client id and secret): each workspace's token from the store."""
        return bool(self.slack_client_id and self.slack_client_secret)

    @property
    def secrets(self) -> tuple[str, ...]:
        """The values that must never reach a log line or a message."""
        passwords = database_passwords(self.database_url) if self.database_url else ()
        return tuple(
            s
            for s in (self.slack_bot_token, self.slack_signing_secret, self.slack_app_token, self.slack_client_secret, *passwords)
            if s
        )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Build settings from `env` (default: os.environ); raise ConfigError on bad values."""
        env = os.environ if env is None else env
        data_dir = Path(env.get("PAPERBOT_DATA_DIR", "").strip() or "data")
        timezone = env.get("PAPERBOT_TIMEZONE", "").strip() or "UTC"
        try:
            ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ConfigError(
                f"PAPERBOT_TIMEZONE={timezone!r} is not a known time zone; use an IANA name such as "
                "Asia/Shanghai or America/New_York in .env."
            ) from None
        arxiv_switch = env.get("PAPERBOT_ARXIV", "").strip().lower() or "on"
        if arxiv_switch not in ("on", "off", "1", "0", "true", "false", "yes", "no"):
            raise ConfigError(f"PAPERBOT_ARXIV={arxiv_switch!r} must be on or off; fix it in .env or the environment.")
        semantic_switch = env.get("PAPERBOT_SEMANTIC", "").strip().lower() or "on"
        if semantic_switch not in ("on", "off", "1", "0", "true", "false", "yes", "no"):
            raise ConfigError(f"PAPERBOT_SEMANTIC={semantic_switch!r} must be on or off; fix it in .env or the environment.")
        admins = frozenset(a.strip() for a in env.get("PAPERBOT_ADMINS", "").split(",") if a.strip())
        database_url = env.get("PAPERBOT_DATABASE_URL", "").strip()
        if database_url and not database_url.startswith(("postgresql://", "postgres://")):
            raise ConfigError(
                "PAPERBOT_DATABASE_URL must be a PostgreSQL URL such as postgresql://paperbot:secret@db:5432/paperbot "
                "(or empty for SQLite in the data folder); fix it in .env or the environment."
            )
        snapshot = env.get("PAPERBOT_INDEX_SNAPSHOT", "").strip()
        client_id = env.get("PAPERBOT_SLACK_CLIENT_ID", "").strip() or env.get("SLACK_CLIENT_ID", "").strip()
        client_secret = env.get("PAPERBOT_SLACK_CLIENT_SECRET", "").strip() or env.get("SLACK_CLIENT_SECRET", "").strip()
        if bool(client_id) != bool(client_secret):
            missing = "PAPERBOT_SLACK_CLIENT_SECRET" if client_id else "PAPERBOT_SLACK_CLIENT_ID"
            raise ConfigError(
                f"Installing from a link needs both the app's client id and secret; {missing} (or Slack's "
                f"{missing.removeprefix('PAPERBOT_')}) is missing. Copy it from the app's Basic Information page, or unset the other."
            )
        if client_id and env.get("SLACK_APP_TOKEN", "").strip():
            raise ConfigError(
                "Installing from a link runs over HTTP (Slack sends installers to /slack/oauth_redirect); "
                "unset SLACK_APP_TOKEN to serve over HTTP, or unset the client id and secret for Socket Mode."
            )
        return cls(
            data_dir=data_dir,
            seeds_dir=Path(env.get("PAPERBOT_SEEDS_DIR", "").strip() or "seeds"),
            inbox_dir=Path(env.get("PAPERBOT_INBOX", "").strip() or data_dir / "inbox"),
            inbox_interval_minutes=_int(env, "PAPERBOT_INBOX_INTERVAL_MINUTES", 15, minimum=1),
            timezone=timezone,
            admins=admins,
            log_level=(env.get("PAPERBOT_LOG_LEVEL", "").strip() or "INFO").upper(),
            host=env.get("PAPERBOT_HOST", "").strip() or "0.0.0.0",
            port=_int(env, "PORT", 3000, minimum=0),
            ack_budget_ms=_int(env, "PAPERBOT_ACK_BUDGET_MS", 1500),
            http_connections_per_client=_int(env, "PAPERBOT_HTTP_CONNECTIONS_PER_CLIENT", 50, minimum=1),
            slack_bot_token=env.get("SLACK_BOT_TOKEN", "").strip(),
            slack_signing_secret=env.get("SLACK_SIGNING_SECRET", "").strip(),
            slack_app_token=env.get("SLACK_APP_TOKEN", "").strip(),
            slack_api_base_url=env.get("SLACK_API_BASE_URL", "").strip(),
            slack_client_id=client_id,
            slack_client_secret=client_secret,
            slack_token_rotation_minutes=_int(env, "PAPERBOT_SLACK_TOKEN_ROTATION_MINUTES", 120, minimum=1),
            arxiv_enabled=arxiv_switch in ("on", "1", "true", "yes"),
            arxiv_api_url=env.get("PAPERBOT_ARXIV_API_URL", "").strip() or "https://export.arxiv.org/api/query",
            arxiv_interval_seconds=float(_int(env, "PAPERBOT_ARXIV_INTERVAL_SECONDS", 3, minimum=0)),
            arxiv_backoff_seconds=float(_int(env, "PAPERBOT_ARXIV_BACKOFF_SECONDS", 5, minimum=0)),
            arxiv_recheck_days=_int(env, "PAPERBOT_ARXIV_RECHECK_DAYS", 30, minimum=1),
            sources_interval_minutes=_int(env, "PAPERBOT_SOURCES_INTERVAL_MINUTES", 60, minimum=5),
            feeds_allow_private=_networks(env, "PAPERBOT_FEEDS_ALLOW_PRIVATE"),
            feeds_max_new_per_poll=_int(env, "PAPERBOT_FEEDS_MAX_NEW_PER_POLL", 2000, minimum=1),
            semantic_enabled=semantic_switch in ("on", "1", "true", "yes"),
            database_url=database_url,
            follow_interval_seconds=float(_int(env, "PAPERBOT_FOLLOW_INTERVAL_SECONDS", 2, minimum=1)),
            lease_seconds=_int(env, "PAPERBOT_LEASE_SECONDS", 120, minimum=1),
            tombstone_retention_days=_int(env, "PAPERBOT_TOMBSTONE_RETENTION_DAYS", 7, minimum=1),
            index_snapshot_dir=Path(snapshot) if snapshot else None,
        )

    @property
    def has_slack_settings(self) -> bool:
        """Any Slack setting at all: without one, `serve` opens the offline console."""
        return bool(self.slack_bot_token or self.slack_signing_secret or self.slack_app_token or self.oauth_enabled)

    def missing_slack_settings(self) -> list[str]:
        """Name the Slack variables `serve` still needs (empty when it can connect)."""
        missing = []
        if not self.slack_bot_token and not self.oauth_enabled:  # OAuth: each workspace's token is stored
            missing.append("SLACK_BOT_TOKEN")
        if not self.socket_mode and not self.slack_signing_secret:
            missing.append("SLACK_SIGNING_SECRET")
        return missing
