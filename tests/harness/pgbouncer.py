"""PgBouncer (Debian's `pgbouncer`) in front of a private Postgres, in transaction pooling.

Every client transaction gets whichever server connection is free, so nothing of a
session survives between transactions: no session advisory lock, no `SET`, no server-side
prepared statement (PgBouncer 1.18 has no support for them), no cursor held across
transactions. The service runs through it with DATABASE_POOL_MODE=transaction.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from config.tooling import embedded

BINARY_PLACES = ("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer")
READY_SECONDS = 30.0


def pgbouncer_binary() -> str | None:
    found = shutil.which("pgbouncer")
    return found or next((path for path in BINARY_PLACES if os.path.exists(path)), None)


class PgBouncer:
    """A foreground pgbouncer on 127.0.0.1:`port` (or `listen`) for the databases of the
    Postgres at `upstream_host` (a socket directory or a host) and `upstream_port`; at most
    `pool_size` server connections per database and user; `pools` names databases with
    pools of their own (a name per side of the connection budget: jobs/ops/budget.py)."""

    def __init__(
        self,
        workdir: Path,
        *,
        upstream_host: str,
        upstream_port: int,
        pool_size: int = 20,
        max_clients: int = 2000,
        listen: str = "127.0.0.1",
        port: int | None = None,
        launcher: Callable[[list[str]], list[str]] | None = None,
        idle_transaction_timeout: float = 0,
        pools: dict[str, tuple[str, int]] | None = None,
    ) -> None:
        self.workdir = workdir
        # Database names of their own: name -> (the Postgres database, its pool's size).
        self.pools = pools or {}
        # How its command is run: as it is, or in a test host (tests/harness/netns.py).
        self.launcher = launcher or (lambda argv: argv)
        self.upstream_host, self.upstream_port = upstream_host, upstream_port
        self.pool_size, self.max_clients = pool_size, max_clients
        # A client silent this long inside a transaction is disconnected, and its server
        # connection (its locks) with it: PgBouncer's DATABASE_IDLE_TRANSACTION_SECONDS.
        self.idle_transaction_timeout = idle_transaction_timeout
        self.listen = listen
        self.port = port or embedded.free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, database: str, user: str = "postgres") -> str:
        return f"postgresql://{quote(user)}@{self.listen}:{self.port}/{quote(database)}"

    def config(self) -> str:
        return "\n".join(
            [
                "[databases]",
                *(
                    f"{name} = host={self.upstream_host} port={self.upstream_port} "
                    f"dbname={database} pool_size={size}"
                    for name, (database, size) in self.pools.items()
                ),
                f"* = host={self.upstream_host} port={self.upstream_port}",
                "[pgbouncer]",
                f"listen_addr = {self.listen}",
                f"listen_port = {self.port}",
                "unix_socket_dir =",
                "auth_type = trust",
                f"auth_file = {self.workdir / 'users.txt'}",
                "pool_mode = transaction",
                f"default_pool_size = {self.pool_size}",
                f"max_client_conn = {self.max_clients}",
                # Django's connection check and psycopg's own startup parameters.
                "ignore_startup_parameters = extra_float_digits,options",
                "server_reset_query =",
                f"idle_transaction_timeout = {self.idle_transaction_timeout:g}",
                f"logfile = {self.workdir / 'pgbouncer.log'}",
                f"pidfile = {self.workdir / 'pgbouncer.pid'}",
                "admin_users = postgres",
                "stats_users = postgres",
                "",
            ]
        )

    def start(self) -> PgBouncer:
        binary = pgbouncer_binary()
        if binary is None:
            raise embedded.EmbeddedServiceError(
                "pgbouncer is not installed: apt-get install pgbouncer (Debian's package)."
            )
        self.workdir.mkdir(parents=True, exist_ok=True)
        (self.workdir / "users.txt").write_text('"postgres" ""\n')
        (self.workdir / "pgbouncer.ini").write_text(self.config())
        command = [binary]
        if os.geteuid() == 0:  # pgbouncer will not run as root
            user = embedded.SYSTEM_USER
            uid = pwd.getpwnam(user).pw_uid
            for path in (self.workdir, *self.workdir.iterdir()):
                os.chown(path, uid, -1)
            command += ["-u", user]
        command.append(str(self.workdir / "pgbouncer.ini"))
        with open(self.workdir / "stdout.log", "ab") as log:
            self.process = subprocess.Popen(
                self.launcher(command), stdout=log, stderr=subprocess.STDOUT
            )
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise embedded.EmbeddedServiceError(f"pgbouncer exited: {self._tail()}")
            try:
                with socket.create_connection((self.listen, self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        raise embedded.EmbeddedServiceError(f"pgbouncer did not listen: {self._tail()}")

    def _tail(self) -> str:
        logs = [self.workdir / "pgbouncer.log", self.workdir / "stdout.log"]
        return " ".join(path.read_text(errors="replace")[-1500:] for path in logs if path.exists())

    def stop(self) -> None:
        embedded.end_process(self.process)
        self.process = None
