"""A real PostgreSQL server for the tests: started once per test session (per xdist worker) in a
temporary folder with the OS package's initdb/pg_ctl, a fresh schema for every test.

    from tests.postgres_support import postgres_server, database_location  # noqa: F401 (fixtures)

`database_location` is parametrized: each test that takes it runs on SQLite (a file in
tmp_path) and on PostgreSQL (a schema of its own, named in the URL's search_path, dropped
after). A schema is made in a few milliseconds, where CREATE DATABASE copies a template.
Run as root, the server runs as the `postgres` user (initdb refuses root).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

PG_BIN_DIRS = [Path("/usr/lib/postgresql/15/bin"), *sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)]


def pg_bin() -> Path | None:
    """The folder with initdb and pg_ctl: the OS package's (.ci/run installs postgresql-15), or PATH's."""
    for folder in PG_BIN_DIRS:
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class PostgresServer:
    """One running server: its folder, port and `pg_ctl`, and who runs it."""

    folder: Path
    port: int
    bin: Path
    user: str | None  # run as this user (when the tests run as root)

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _command(self, *args: str) -> list[str]:
        return ["runuser", "-u", self.user, "--", *args] if self.user else list(args)

    def ctl(self, *args: str) -> None:
        subprocess.run(
            self._command(str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-w", "-t", "30", *args),
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )

    def start(self) -> None:
        self.ctl("-l", str(self.folder / "log"), "-o", f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1", "start")

    def stop(self, mode: str = "fast") -> None:
        self.ctl("-m", mode, "stop")

    def schema_url(self, schema: str) -> str:
        return f"{self.url}?options=-csearch_path%3D{schema}"

    def new_schema(self) -> str:
        schema = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url, autocommit=True) as db:
            db.execute(f"CREATE SCHEMA {schema}")
        return schema

    def drop_schema(self, schema: str) -> None:
        with contextlib.suppress(psycopg.Error), psycopg.connect(self.url, autocommit=True) as db:
            db.execute(f"DROP SCHEMA {schema} CASCADE")


def start_postgres() -> PostgresServer:
    """initdb a cluster in a new temporary folder and start it on a free port (about 1-2 s)."""
    binaries = pg_bin()
    if binaries is None:
        pytest.skip("PostgreSQL's initdb/pg_ctl are not installed (.ci/run installs postgresql-15; apt-get install postgresql)")
    folder = Path(tempfile.mkdtemp(prefix="paperbot-pg-"))
    user = "postgres" if os.geteuid() == 0 else None
    if user:
        try:
            owner = pwd.getpwnam(user)
        except KeyError:
            pytest.skip("running as root, and there is no `postgres` user to run PostgreSQL as (initdb refuses root)")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    server = PostgresServer(folder=folder, port=_free_port(), bin=binaries, user=user)
    subprocess.run(
        server._command(
            str(binaries / "initdb"), "-D", str(folder / "data"), "-U", "postgres", "-A", "trust",
            "-E", "UTF8", "--locale=C", "--no-sync",
        ),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    with open(folder / "data" / "postgresql.conf", "a", encoding="utf-8") as conf:
        # A test server: nothing needs to survive a power cut, and many connections come and go.
        conf.write("fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n")
    server.start()
    deadline = time.monotonic() + 30
    while True:
        try:
            psycopg.connect(server.url, connect_timeout=2).close()
            return server
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    server = start_postgres()
    try:
        yield server
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            server.stop("immediate")
        shutil.rmtree(server.folder, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A URL to an empty schema of this test's own on the session's server."""
    schema = postgres_server.new_schema()
    yield postgres_server.schema_url(schema)
    postgres_server.drop_schema(schema)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a store opens: a SQLite file in tmp_path, or an empty schema on the session's PostgreSQL."""
    if request.param == "sqlite":
        return str(tmp_path / "paperbot.sqlite3")
    return request.getfixturevalue("postgres_url")
