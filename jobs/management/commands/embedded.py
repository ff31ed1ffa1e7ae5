"""manage.py embedded start|stop|status: the checkout's private Postgres and Redis."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from config import embedded
from config.env import env_str


class Command(BaseCommand):
    help = "Start, stop or show the embedded Postgres and Redis used when no URL is configured."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["start", "stop", "status"])

    def handle(self, *args: object, action: str, **options: object) -> None:
        pgdata, redis_dir = settings.DATA_DIR / "pg", settings.DATA_DIR / "redis"
        if action == "stop":
            if not env_str("DATABASE_URL"):
                stopped = embedded.stop_postgres(pgdata)
                self.stdout.write(f"postgres: {'stopped' if stopped else 'was not running'}")
            if not env_str("REDIS_URL"):
                stopped = embedded.stop_redis(redis_dir)
                self.stdout.write(f"redis: {'stopped' if stopped else 'was not running'}")
            return
        # Loading settings already found or started the embedded services.
        for name, url, configured in [
            ("postgres", settings.DATABASE_URL, "DATABASE_URL"),
            ("redis", settings.REDIS_URL, "REDIS_URL"),
        ]:
            origin = "from " + configured if env_str(configured) else "embedded"
            self.stdout.write(f"{name}: {url} ({origin})")
