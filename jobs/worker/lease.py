"""Keep a claimed job's lease alive while its attempt works, however long a step takes."""

import logging
import threading
from types import TracebackType

from django.conf import settings
from django.db import connection

from jobs import services
from jobs.models import Job

log = logging.getLogger(__name__)


class LeaseKeeper:
    """Renews the job's heartbeat every third of INGEST_LEASE_SECONDS from a background
    thread, so a long extraction or a slow provider call never lets the lease expire.

    `lost` is set once a renewal finds the job no longer held by this attempt (deleted,
    cancelled, or taken over after this worker stalled): the attempt should stop.
    """

    def __init__(self, job: Job) -> None:
        self.job = job
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._renew, name=f"lease-{job.id}", daemon=True)

    def __enter__(self) -> "LeaseKeeper":
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _renew(self) -> None:
        interval = settings.INGEST_LEASE_SECONDS / 3
        try:
            while not self._stop.wait(interval):
                try:
                    held = services.renew_lease(job=self.job)
                except Exception:
                    # A database blip: try again next time (the lease has slack for two
                    # misses), on a new connection: the old one may have died with it.
                    log.warning("job %s: could not renew its lease", self.job.id, exc_info=True)
                    connection.close()
                    continue
                if not held:
                    self.lost.set()
                    return
        finally:
            connection.close()  # this thread's own connection
