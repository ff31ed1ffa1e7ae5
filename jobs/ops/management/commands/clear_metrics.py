"""manage.py clear_metrics: empty PROMETHEUS_MULTIPROC_DIR before the processes start.

prometheus_client's multiprocess mode keeps each process's counts in files there, and adds
up every file it finds, dead processes' included (a restarted worker's counts must not
vanish from a counter). A new run of the service starts from nothing: `make run` calls
this before it starts the Procfile's processes, never while they run.
"""

from django.conf import settings
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Delete the Prometheus multiprocess files (run before starting the service)."

    def handle(self, *args: object, **options: object) -> None:
        directory = settings.PROMETHEUS_MULTIPROC_DIR
        removed = 0
        for path in directory.glob("*.db"):
            path.unlink(missing_ok=True)
            removed += 1
        self.stdout.write(f"cleared {removed} metrics files from {directory}")
