"""What the sweeper does for operators on each pass, after its recovery work: the ops
dashboard's history gets the minute's row, the job counts are folded, and a queue that
waited too long alerts."""

import logging

from jobs.ops import alerts, counts, history

log = logging.getLogger(__name__)


def every_sweep() -> None:
    """Never raises: recovery must go on whatever happens to the ops side."""
    for step in (counts.fold, history.record, alerts.check_queue_age):
        try:
            step()
        except Exception:
            log.warning("ops: %s failed", step.__qualname__, exc_info=True)
