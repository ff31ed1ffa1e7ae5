"""What the sweeper does on each pass, after its recovery of jobs: the ops dashboard's
history gets the minute's row, the job counts are folded, a queue that waited too long
alerts, and webhook deliveries whose message was lost are sent again."""

import logging

from jobs.ops import alerts, counts, history
from jobs.webhooks import sweep

log = logging.getLogger(__name__)


def every_sweep() -> None:
    """Never raises: recovery must go on whatever happens to any one step."""
    for step in (counts.fold, history.record, alerts.check_queue_age, sweep.resend_due):
        try:
            step()
        except Exception:
            log.warning("ops: %s failed", step.__qualname__, exc_info=True)
