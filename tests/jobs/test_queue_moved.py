"""A lane's queue moving reaches the owners with jobs queued in it: at once when the lane
was quiet, then at most once more per interval however many changes follow, after
commit only, and never anyone without a job waiting there."""

import asyncio
import time

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from config.common import redis_clients
from jobs import queue_moved
from jobs.models import Job, JobStatus, Lane
from jobs.notify import user_group
from tests.conftest import pdf_upload
from tests.factories import make_document, make_pdf

pytestmark = pytest.mark.django_db(transaction=True)

MOVED_FAST = {"type": "queue.moved", "lane": "fast"}


@pytest.fixture(autouse=True)
def quiet_lanes() -> None:
    """No interval left open by an earlier test."""
    client = redis_clients.client(settings.REDIS_URL, connect_timeout=1, timeout=1)
    for lane in Lane.values:
        client.delete(f"ingest:queue-moved:{lane}", f"ingest:queue-moved:{lane}:dirty")


def listen(user) -> tuple[object, str]:
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(user_group(user.pk), channel)
    return layer, channel


def heard(layer, channel: str, seconds: float) -> list[dict]:
    """Every message the channel gets within `seconds`."""

    async def collect() -> list[dict]:
        messages = []
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            try:
                messages.append(await asyncio.wait_for(layer.receive(channel), timeout=left))
            except TimeoutError:
                break
        return messages

    return async_to_sync(collect)()


def first_heard(layer, channel: str, timeout: float = 5) -> dict:
    async def one() -> dict:
        return await asyncio.wait_for(layer.receive(channel), timeout=timeout)

    return async_to_sync(one)()


def test_a_burst_is_told_at_once_then_once_more_when_the_interval_ends(alice, broker):
    make_document(alice)  # a job queued in the fast lane
    layer, channel = listen(alice)

    started = time.monotonic()
    queue_moved.moved_on_commit(Lane.FAST)  # autocommit: as if just committed
    assert first_heard(layer, channel) == MOVED_FAST
    told_in = time.monotonic() - started
    for _ in range(200):  # 200 more changes while the interval is open
        queue_moved.moved_on_commit(Lane.FAST)

    later = heard(layer, channel, seconds=4 * queue_moved.NOTICE_SECONDS + 2)

    assert told_in < 3, "a quiet lane's first change is told at once, not at the interval's end"
    assert later == [MOVED_FAST], "the 200 changes are told once, together"


def test_only_owners_with_jobs_queued_in_the_lane_are_told(alice, bob, broker):
    carol = User.objects.create_user("carol", password="carol-password")
    make_document(alice)  # queued, fast lane
    bobs = make_document(bob)
    Job.objects.filter(id=bobs.current_job_id).update(lane=Lane.BATCH)  # queued elsewhere
    carols = make_document(carol)
    Job.objects.filter(id=carols.current_job_id).update(status=JobStatus.SUCCEEDED)
    listening = {user.username: listen(user) for user in (alice, bob, carol)}

    queue_moved.moved_on_commit(Lane.FAST)

    assert first_heard(*listening["alice"]) == MOVED_FAST
    assert heard(*listening["bob"], seconds=1.5) == []
    assert heard(*listening["carol"], seconds=0.1) == []


def test_a_change_that_rolls_back_tells_nobody(alice, broker):
    make_document(alice)
    layer, channel = listen(alice)

    def move_then_fail() -> None:
        with transaction.atomic():
            queue_moved.moved_on_commit(Lane.FAST)
            raise RuntimeError("rolled back")

    with pytest.raises(RuntimeError):
        move_then_fail()

    assert heard(layer, channel, seconds=1.5) == []


def test_an_accepted_upload_tells_its_owners_pages(alice, alice_client, broker):
    """A new document's first job goes in with it and changes no state, yet the owner's
    pages must hear of it while it is queued (jobs.events.first_queued)."""
    layer, channel = listen(alice)

    answer = alice_client.post("/api/documents/", {"file": pdf_upload(make_pdf(seed=3))})

    assert answer.status_code == 202
    assert first_heard(layer, channel) == MOVED_FAST
