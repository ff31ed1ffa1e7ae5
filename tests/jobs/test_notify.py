"""State changes reach the owner's channel-layer group after commit, and only then."""

import asyncio
import logging

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from documents.services.deletion import delete_document
from jobs import notify
from jobs.models import Job, JobStatus
from jobs.webhooks.models import Event
from tests.factories import make_document

pytestmark = pytest.mark.django_db(transaction=True)


def listen(group: str) -> tuple[object, str]:
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(group, channel)
    return layer, channel


def receive(layer, channel: str, timeout: float = 5) -> dict:
    """The next push about a job. The lane's `queue.moved` notices (jobs.queue_moved,
    tested on their own) reach the same group whenever a queue moves, this test's or an
    earlier one's, so they are passed over."""

    async def next_job_message() -> dict:
        while True:
            message = await layer.receive(channel)
            if message.get("type") != "queue.moved":
                return message

    async def within_timeout() -> dict:
        return await asyncio.wait_for(next_job_message(), timeout=timeout)

    return async_to_sync(within_timeout)()


def test_a_state_change_is_pushed_to_the_owners_group_after_commit(alice, broker):
    job = make_document(alice).current_job
    layer, channel = listen(notify.user_group(alice.pk))

    with transaction.atomic():
        notify.job_changed(job, status=JobStatus.SUCCEEDED, done=3, total=3)

    message = receive(layer, channel)
    assert message == {
        "type": "job.changed",
        "job_id": str(job.id),
        "document_id": str(job.document_id),
        "status": "succeeded",
        "done": 3,
        "total": 3,
        "stage": "done",
        "pages_done": 0,
        "pages_total": 0,
    }


def test_progress_is_pushed_once_a_second_but_a_new_stage_at_once(alice, broker):
    job = make_document(alice).current_job
    layer, channel = listen(notify.user_group(alice.pk))
    reading = {"status": JobStatus.PROCESSING, "progress": True, "stage": "extracting"}

    notify.job_changed(job, **reading, pages_done=0, pages_total=117)
    notify.job_changed(job, **reading, pages_done=12, pages_total=117)  # within the second
    notify.job_changed(
        job, status=JobStatus.PROCESSING, progress=True, stage="embedding", total=380,
        pages_done=117, pages_total=117,
    )  # fmt: skip

    pushed = [receive(layer, channel) for _ in range(2)]
    assert [(m["stage"], m["pages_done"], m["total"]) for m in pushed] == [
        ("extracting", 0, 0),
        ("embedding", 117, 380),
    ]
    with pytest.raises(asyncio.TimeoutError):
        receive(layer, channel, timeout=1)


def test_a_change_that_is_rolled_back_is_never_pushed(alice, broker):
    job = make_document(alice).current_job
    layer, channel = listen(notify.user_group(alice.pk))

    def change_then_fail() -> None:
        with transaction.atomic():
            notify.job_changed(job, status=JobStatus.SUCCEEDED)
            raise RuntimeError("the state change failed")

    with pytest.raises(RuntimeError):
        change_then_fail()

    with pytest.raises(asyncio.TimeoutError):
        receive(layer, channel, timeout=1)


def test_a_push_that_fails_never_fails_the_caller(alice, broker, settings, caplog):
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": ["redis://127.0.0.1:1/0"]},
        }
    }
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    job = make_document(alice).current_job
    try:
        with caplog.at_level(logging.INFO, logger="jobs.notify"), transaction.atomic():
            Job.objects.filter(id=job.id).update(status=JobStatus.FAILED)
            notify.job_changed(job, status=JobStatus.FAILED)  # pushed on commit, and fails
    finally:
        channel_layers.backends.clear()

    job.refresh_from_db()
    assert job.status == JobStatus.FAILED, "the caller's change is committed all the same"
    [record] = [r for r in caplog.records if r.name == "jobs.notify"]
    assert record.getMessage() == f"could not push failed to user-{alice.pk}; pages will poll"
    assert record.exc_info is not None


def test_deleting_a_document_pushes_its_job_as_cancelled_and_writes_no_webhook_event(alice, broker):
    document = make_document(alice)
    job = document.current_job
    layer, channel = listen(notify.user_group(alice.pk))

    delete_document(document_id=document.id, owner_id=alice.pk)

    message = receive(layer, channel)
    assert (message["job_id"], message["status"]) == (str(job.id), "cancelled")
    assert not Job.objects.filter(id=job.id).exists()
    assert not Event.objects.exists()
