"""The deliverer: one Dramatiq actor on the `webhooks` queue (names in sending/dispatch.py,
which sends to it by name after commit). Thin: sending/delivery.py does the work.

Dramatiq's own retries are off for it: a delivery's retries live in the database
(`next_attempt_at`, a delayed message, the sweeper), where a lost message cannot lose
them. Only a database that stays away past `deliver`'s own waits brings the message back
(a few minutes of redeliveries, as for jobs), since nothing could be claimed or recorded.
"""

import dramatiq

from jobs.webhooks.sending import delivery
from jobs.webhooks.sending.dispatch import ACTOR_NAME, QUEUE_NAME
from jobs.worker.reconnect import database_was_away

# One attempt takes at most 10 s (client.LIMITS) after the name resolves; the rest is
# for the resolver and the two short transactions around it.
TIME_LIMIT_SECONDS = 30


# Priority 0, as resumed jobs and alerts: a delivery is short, and the next free thread
# sends it rather than leaving it behind a backlog of new jobs.
@dramatiq.actor(
    actor_name=ACTOR_NAME,
    queue_name=QUEUE_NAME,
    priority=0,
    retry_when=database_was_away,
    min_backoff=1_000,
    max_backoff=15_000,
    time_limit=TIME_LIMIT_SECONDS * 1000,
)
def deliver_webhook(delivery_id: int) -> None:
    delivery.deliver(delivery_id)
