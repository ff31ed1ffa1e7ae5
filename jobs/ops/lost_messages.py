"""Threads idle while a job waits: its message was lost on the way, so send it again.

A queue hands out its messages first sent first, so the oldest due job of a lane is the
next a free thread takes. If the lane has threads with nothing to do and that job was sent
more than IDLE_RESEND_SECONDS ago, no thread will ever take its message: it went with a
worker cut off the network after fetching it, a connection that broke between the fetch
and the answer, or somewhere no one can see. Waiting for the sweeper's grace period
(INGEST_REQUEUE_GRACE_SECONDS, for deep backlogs) would stall it for minutes while the
threads idle. On each pass the sweeper sends, to the lane's resume queue, as many of the
lane's first-sent due jobs as it has idle threads (not the jobs of owners at their fair
share, which wait without a message by design). A message that was only slow is then
claimed once and its copy dropped by the claim.
"""

import logging
from datetime import timedelta

from django.db.models import Count
from django.utils import timezone

from jobs.lanes import lane_queues
from jobs.models import Job, Lane
from jobs.sweeper import resend_first_sent
from jobs.worker import heartbeat

log = logging.getLogger(__name__)

# Longer than a free thread takes to fetch and claim a message (well under a second), and
# than a worker's prefetch of one message per thread holds one behind a short job.
IDLE_RESEND_SECONDS = 10


def idle_threads() -> dict[str, int]:
    """Per lane: the threads of live worker processes that consume its queue, less the
    lane's running jobs."""
    alive = list(heartbeat.alive().values_list("threads", "queues"))
    running = dict(
        Job.objects.running().values_list("lane").annotate(n=Count("id")).values_list("lane", "n")
    )
    idle = {}
    for lane in Lane.values:
        queue = lane_queues(lane)[0]
        threads = sum(count for count, queues in alive if queue in queues)
        idle[lane] = threads - running.get(lane, 0)
    return idle


def resend_waiting_behind_idle_threads() -> list:
    """One pass: the ids sent again."""
    sent_before = timezone.now() - timedelta(seconds=IDLE_RESEND_SECONDS)
    sent: list = []
    for lane, idle in idle_threads().items():
        if idle > 0:
            again = resend_first_sent(lane=lane, count=idle, sent_before=sent_before, runnable=True)
            if again:
                log.info("sent %d %s jobs again that waited behind idle threads", len(again), lane)
            sent += again
    return sent
