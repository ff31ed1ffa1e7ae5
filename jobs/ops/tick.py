"""What the sweeper does on each pass, after its recovery of jobs: the ops dashboard's
history gets the minute's row, the job counts are folded, a queue that waited too long
alerts, jobs waiting behind idle threads and webhook deliveries whose message was lost are
sent again, direct uploads whose bytes arrived are completed and those never completed
expire, expired Idempotency-Key rows are deleted (nothing else deletes them), and what is
past INGEST_RETAIN_DAYS is pruned (documents/upkeep/retention.py, jobs/webhooks/retention.py)."""

import logging

from documents.direct import sweep as direct_sweep
from documents.front_door import idempotency
from documents.upkeep import retention
from jobs.ops import alerts, counts, history, lost_messages
from jobs.webhooks import retention as webhook_retention
from jobs.webhooks import sweep

log = logging.getLogger(__name__)


def every_sweep() -> None:
    """Never raises: recovery must go on whatever happens to any one step."""
    steps = (
        counts.fold,
        history.record,
        alerts.check_queue_age,
        lost_messages.resend_waiting_behind_idle_threads,
        sweep.resend_due,
        direct_sweep.every_pass,
        idempotency.forget_expired,
        retention.every_pass,
        webhook_retention.every_pass,
    )
    for step in steps:
        try:
            step()
        except Exception:
            log.warning("ops: %s failed", step.__qualname__, exc_info=True)
