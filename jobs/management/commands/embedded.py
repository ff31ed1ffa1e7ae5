"""manage.py embedded start|stop|status: the checkout's private Postgres and Redis.

Loading the settings starts nothing (config/settings.py); `start` is what starts them
(the first step of `make run`), and writes the secret key the processes share when
DJANGO_SECRET_KEY is unset. `status` and `stop` only look: `status` says "stopped"
instead of starting what it reports on, and `stop` says "not running" when nothing runs.
"""

from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.common import secret_key
from config.common.env import env_str
from config.tooling import embedded


def postgres_status(pgdata: Path) -> str:
    """The embedded Postgres in pgdata: running (and its URL) or stopped; starts nothing."""
    url = embedded.running_postgres_url(pgdata)
    return f"running, {url} (embedded)" if url else f"stopped (embedded, data in {pgdata})"


def redis_status(workdir: Path) -> str:
    """The embedded Redis in workdir: running (and its URL) or stopped; starts nothing."""
    url = embedded.running_redis_url(workdir)
    return f"running, {url} (embedded)" if url else f"stopped (embedded, data in {workdir})"


def without_password(url: str) -> str:
    """A configured URL fit to print: its password (if any) replaced by ***."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


class Command(BaseCommand):
    help = "Start, stop or show the embedded Postgres and Redis used when no URL is configured."
    requires_system_checks: list = []  # no check may need the services it looks at

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["start", "stop", "status"])

    def handle(self, *args: object, action: str, **options: object) -> None:
        pgdata, redis_dir = settings.DATA_DIR / "pg", settings.DATA_DIR / "redis"
        if action == "stop":
            self._stop(pgdata, redis_dir)
            return
        if action == "start":
            self._start()
        self._line("postgres", "DATABASE_URL", lambda: postgres_status(pgdata))
        self._line("redis", "REDIS_URL", lambda: redis_status(redis_dir))

    def _start(self) -> None:
        try:
            embedded.start(
                settings.DATA_DIR,
                postgres=not env_str("DATABASE_URL"),
                redis=not env_str("REDIS_URL"),
            )
        except embedded.EmbeddedServiceError as error:
            raise CommandError(str(error)) from error
        if not env_str("DJANGO_SECRET_KEY"):
            secret_key.ensure(settings.DATA_DIR)

    def _line(self, name: str, variable: str, embedded_status: Callable[[], str]) -> None:
        configured = env_str(variable)
        state = f"{without_password(configured)} (from {variable})" if configured else None
        self.stdout.write(f"{name}: {state or embedded_status()}")

    def _stop(self, pgdata: Path, redis_dir: Path) -> None:
        for name, variable, stop, where in [
            ("postgres", "DATABASE_URL", embedded.stop_postgres, pgdata),
            ("redis", "REDIS_URL", embedded.stop_redis, redis_dir),
        ]:
            if env_str(variable):
                self.stdout.write(f"{name}: not embedded ({variable} is set), left alone")
            else:
                self.stdout.write(f"{name}: {'stopped' if stop(where) else 'not running'}")
