"""What the sweeper does on each pass, after its recovery of jobs: the ops dashboard's
history gets the minute's row, the job counts are folded, a queue that waited too long
alerts, jobs waiting behind idle threads and webhook deliveries whose message was lost are
sent again, direct uploads whose bytes arrived are completed and those never completed
expire, and expired Idempotency-Key rows are deleted (nothing else deletes them)."""

import logging

from documents import direct_sweep, idempotency
from jobs.ops import alerts, counts, history, idle
from jobs.webhooks import sweep

log = logging.getLogger(__name__)


def every_sweep() -> None:
    """Never raises: recovery must go on whatever happens to any one step."""
    steps = (
        counts.fold,
        history.record,
        alerts.check_queue_age,
        idle.resend_waiting_behind_idle_threads,
        sweep.resend_due,
        direct_sweep.every_pass,
        idempotency.forget_expired,
    )
    for step in steps:
        try:
            step()
        except Exception:
            log.warning("ops: %s failed", step.__qualname__, exc_info=True)
