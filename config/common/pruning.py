"""How the sweeper prunes (jobs/sweeper.py, on_each_pass): a batch per statement, so no
statement holds many row locks or runs long, and a bounded number of batches per pass, so
a backlog (say, after the sweeper was down for days) drains over a few passes without
delaying the pass's other steps. Imports no app: documents and jobs both prune this way."""

from collections.abc import Callable
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone


def in_batches(prune_one: Callable[[], int], *, batch: int, batches: int) -> int:
    """`prune_one()`, which removes at most `batch` rows, up to `batches` times, until it
    removes less than a whole batch; how many it removed in all."""
    total = 0
    for _ in range(batches):
        count = prune_one()
        total += count
        if count < batch:
            break
    return total


def retention_cutoff(now: datetime | None = None) -> datetime:
    """What is older than this is past INGEST_RETAIN_DAYS."""
    return (now or timezone.now()) - timedelta(days=settings.INGEST_RETAIN_DAYS)
