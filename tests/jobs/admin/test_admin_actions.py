"""The dead-letter console's bulk retry and cancel, down to real workers."""

from datetime import timedelta

import dramatiq
import pytest
from django.contrib.admin.models import LogEntry
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone

from jobs.models import Job, JobStatus, Lane
from tests.conftest import pdf_upload, running_worker, wait_until_terminal
from tests.factories import make_pdf
from tests.jobs.admin.admin_console import (
    DEAD_LETTERS,
    JOBS,
    failed_job,
    job_in,
    listed_ids,
    logged_in,
    run_action,
    staff_with,
    statuses,
)

# --------------------------------------------------------------------------- actions


def dead_letter(owner, **fields) -> Job:
    """A job failed for a reason a retry may cure (not its file)."""
    return failed_job(owner, code="retries_exhausted", **fields)


def queued_messages(broker: dramatiq.Broker) -> list[str]:
    """The job ids waiting in the fast and batch queues."""
    ids = []
    for lane in Lane:
        for raw in broker.client.hvals(f"dramatiq:{lane.value}.msgs"):
            ids.extend(dramatiq.Message.decode(raw).args)
    return ids


@pytest.mark.django_db(transaction=True)
def test_retry_selected_requeues_only_failed_jobs_and_sends_their_ids_after_commit(
    operator_client, alice, broker
):
    failed = [dead_letter(alice), dead_letter(alice), dead_letter(alice, lane=Lane.BATCH)]
    succeeded = job_in(alice, JobStatus.SUCCEEDED)

    response = run_action(operator_client, JOBS, "retry_selected", [*failed, succeeded])

    assert "Retried 3 jobs; 1 was not failed or stale and was left alone." in (
        response.content.decode()
    )
    for job in failed:
        job.refresh_from_db()
        assert (job.status, job.attempts, job.error_code, job.error_detail) == (
            JobStatus.QUEUED,
            0,
            "",
            "",
        )
        assert job.enqueued_at is not None, "sent once the action's transaction committed"
    assert statuses([succeeded]) == {succeeded.id: JobStatus.SUCCEEDED}
    assert sorted(queued_messages(broker)) == sorted(str(job.id) for job in failed)
    assert broker.client.hlen("dramatiq:batch.msgs") == 1


@pytest.mark.django_db
def test_retry_selected_also_takes_back_a_stale_job_but_not_a_live_one(operator_client, alice):
    long_ago = timezone.now() - timedelta(hours=1)
    stale = job_in(alice, JobStatus.PROCESSING, attempts=1, heartbeat_at=long_ago)
    live = job_in(alice, JobStatus.PROCESSING, attempts=1, heartbeat_at=timezone.now())

    response = run_action(operator_client, JOBS, "retry_selected", [stale, live])

    assert statuses([stale, live]) == {stale.id: JobStatus.QUEUED, live.id: JobStatus.PROCESSING}
    assert "Retried 1 job; 1 was not failed or stale" in response.content.decode()


@pytest.mark.django_db
def test_retrying_from_the_dead_letters_takes_them_off_that_list(operator_client, alice):
    jobs = [dead_letter(alice), dead_letter(alice)]

    response = run_action(operator_client, DEAD_LETTERS, "retry_selected", jobs)

    assert "Retried 2 jobs." in response.content.decode()
    assert listed_ids(response) == set()


@pytest.mark.django_db
def test_cancel_selected_cancels_only_queued_and_failed_jobs(operator_client, alice):
    queued, failed = job_in(alice, JobStatus.QUEUED), failed_job(alice)
    processing = job_in(alice, JobStatus.PROCESSING, heartbeat_at=timezone.now())
    succeeded = job_in(alice, JobStatus.SUCCEEDED)

    response = run_action(
        operator_client, JOBS, "cancel_selected", [queued, failed, processing, succeeded]
    )

    assert statuses([queued, failed, processing, succeeded]) == {
        queued.id: JobStatus.CANCELLED,
        failed.id: JobStatus.CANCELLED,
        processing.id: JobStatus.PROCESSING,
        succeeded.id: JobStatus.SUCCEEDED,
    }
    assert "Cancelled 2 jobs; 2 were not queued or failed and were left alone." in (
        response.content.decode()
    )


@pytest.mark.django_db
def test_the_change_permission_on_jobs_is_enough_to_retry_from_either_page(alice):
    operator = staff_with("otto", "change_job")
    client = logged_in(operator)
    jobs = [dead_letter(alice), dead_letter(alice)]

    run_action(client, DEAD_LETTERS, "retry_selected", jobs[:1])
    run_action(client, JOBS, "retry_selected", jobs[1:])

    assert set(statuses(jobs).values()) == {JobStatus.QUEUED}
    logged = LogEntry.objects.filter(user=operator).values_list("object_id", flat=True)
    assert sorted(logged) == sorted(str(job.id) for job in jobs), "who retried what is kept"


# --------------------------------------------------------------------------- end to end

GARBAGE = b"%PDF-1.7\n" + b"\x00\xff this is not a PDF body \x13\x37" * 200


def replace_stored_file(key: str, content: bytes) -> None:
    default_storage.delete(key)
    assert default_storage.save(key, ContentFile(content)) == key


@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(240)
def test_an_admin_bulk_retry_of_twenty_failed_jobs_succeeds_once_the_cause_is_fixed(
    alice_client, operator_client, broker
):
    originals = [make_pdf(words_per_page=200 + number) for number in range(20)]  # all differ
    files = [pdf_upload(content, f"doc-{n}.pdf") for n, content in enumerate(originals)]
    results = alice_client.post("/api/documents/", {"file": files}).json()["results"]
    jobs = list(Job.objects.filter(id__in=[result["job_id"] for result in results]))
    good_bytes = dict(zip([result["job_id"] for result in results], originals, strict=True))
    assert len(jobs) == 20
    for job in jobs:  # the cause: every stored file damaged before a worker reads it
        replace_stored_file(job.storage_key, GARBAGE)

    with running_worker(broker, threads=4):
        failed = wait_until_terminal([job.id for job in jobs], timeout=120)
        assert {(job.status, job.error_code) for job in failed} == {(JobStatus.FAILED, "corrupt")}

        for job in jobs:  # the cause, fixed
            replace_stored_file(job.storage_key, good_bytes[str(job.id)])
        skipped = run_action(operator_client, DEAD_LETTERS, "retry_selected", jobs)
        assert "Retried 0 jobs; skipped 20 that failed because of the file itself" in (
            skipped.content.decode()
        ), "corrupt, as far as anyone can tell"
        response = run_action(
            operator_client, DEAD_LETTERS, "retry_selected_file_failures_too", jobs
        )
        assert "Retried 20 jobs." in response.content.decode()

        finished = wait_until_terminal([job.id for job in jobs], timeout=120)

    assert {job.status for job in finished} == {JobStatus.SUCCEEDED}
    assert all(job.attempts == 1 for job in finished), "a fresh count against the limit"
    assert {job.attempt_log.count() for job in finished} == {2}, "the history keeps both"
