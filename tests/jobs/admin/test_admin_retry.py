"""The admin's bulk retry follows the API's rule for failures of the file itself, says what
it skipped, and after a retry the attempts, the history, /ops/ "Retries" and the dead
letters tell one story."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from documents.front_door import admission
from jobs import failures, services
from jobs.models import AttemptOutcome, Job, JobAttempt, JobStatus
from tests.factories import make_document
from tests.jobs.admin.admin_console import (
    DEAD_LETTERS,
    JOBS,
    failed_job,
    job_in,
    run_action,
    statuses,
)

pytestmark = pytest.mark.django_db

TOO_MANY = "The PDF has 2500 pages; the limit is 2000."


@pytest.fixture(autouse=True)
def fresh_admission():
    admission.forget_backlog()
    yield
    admission.forget_backlog()


def test_the_bulk_retry_skips_failures_of_the_file_itself_and_says_how_many_by_code(
    operator_client, alice, settings
):
    settings.INGEST_OCR = "off"  # no_text is the file's own only while OCR is off
    of_the_file = [
        failed_job(alice, code="encrypted"),
        failed_job(alice, code="encrypted"),
        failed_job(alice, code="no_text"),
        failed_job(alice, code="corrupt"),
        failed_job(alice, code="too_many_pages", error_detail=TOO_MANY),
    ]
    curable = [failed_job(alice, code="retries_exhausted"), failed_job(alice, code="crashed")]
    succeeded = job_in(alice, JobStatus.SUCCEEDED)

    response = run_action(
        operator_client, JOBS, "retry_selected", [*of_the_file, *curable, succeeded]
    )

    message = response.content.decode()
    assert (
        "Retried 2 jobs; skipped 5 that failed because of the file itself (1 corrupt, "
        "2 encrypted, 1 no_text, 1 too_many_pages): the same file fails the same way, so its "
        "owner needs to upload a new version"
    ) in message
    assert "1 was not failed or stale and was left alone." in message
    assert 'class="warning"' in message
    assert set(statuses(of_the_file).values()) == {JobStatus.FAILED}
    assert set(statuses(curable).values()) == {JobStatus.QUEUED}


def test_a_stored_file_repaired_is_retried_by_the_action_that_says_so(operator_client, alice):
    jobs = [failed_job(alice, code="corrupt"), failed_job(alice, code="no_text")]

    response = run_action(operator_client, JOBS, "retry_selected_file_failures_too", jobs)

    assert "Retried 2 jobs." in response.content.decode()
    assert set(statuses(jobs).values()) == {JobStatus.QUEUED}


def test_with_ocr_on_the_bulk_retry_retries_no_text(operator_client, alice, settings):
    settings.INGEST_OCR = "auto"
    scanned = failed_job(
        alice, code="no_text", error_detail="No text layer: it looks scanned; OCR is not enabled."
    )
    encrypted = failed_job(alice, code="encrypted")

    response = run_action(operator_client, JOBS, "retry_selected", [scanned, encrypted])

    assert "Retried 1 job; skipped 1 that failed because of the file itself (1 encrypted)" in (
        response.content.decode()
    )
    assert statuses([scanned, encrypted]) == {
        scanned.id: JobStatus.QUEUED,
        encrypted.id: JobStatus.FAILED,
    }


@pytest.mark.parametrize("ocr", ["off", "auto"])
@pytest.mark.parametrize(
    "code", [*failures.FILE_FAILURES, "too_many_pages", "retries_exhausted", "embedding_rejected"]
)
def test_the_admin_and_the_api_refuse_the_same_failures(
    operator_client, alice, alice_client, code, broker, settings, ocr
):
    settings.INGEST_OCR = ocr
    detail = TOO_MANY if code == "too_many_pages" else "it went wrong"
    by_api, by_admin = failed_job(alice, code=code, error_detail=detail), None
    by_admin = failed_job(alice, code=code, error_detail=detail)

    api = alice_client.post(f"/api/documents/{by_api.document_id}/retry/")
    run_action(operator_client, DEAD_LETTERS, "retry_selected", [by_admin])

    refused_by_api = api.status_code == 409
    skipped_by_admin = statuses([by_admin])[by_admin.id] == JobStatus.FAILED
    assert refused_by_api == skipped_by_admin == (failures.file_refusal(by_admin) is not None)
    of_the_file = [*failures.FILE_FAILURES, "too_many_pages"]
    if ocr != "off":
        of_the_file.remove("no_text")
    assert refused_by_api == (code in of_the_file)


def test_a_failed_job_its_owner_already_retried_is_skipped_as_replaced(
    operator_client, alice, alice_client, broker
):
    job = failed_job(alice, code="retries_exhausted")
    assert alice_client.post(f"/api/documents/{job.document_id}/retry/").status_code == 202

    response = run_action(operator_client, JOBS, "retry_selected", [job])

    assert "skipped 1 replaced by a newer job of its document" in response.content.decode()
    assert statuses([job]) == {job.id: JobStatus.FAILED}


# --------------------------------------------------------------------------- one story


def attempt_and_fail(job: Job, code: str, *, transient: bool = False) -> None:
    """One real attempt at the job, ending in `code`: failed, or back to the queue."""
    Job.objects.filter(id=job.id).update(next_attempt_at=None)  # due now, whatever backoff
    claimed = services.claim_job(job_id=job.id, worker="host:1:thread-1")
    assert claimed is not None
    if transient:
        services.retry_or_fail(job=claimed, code=code, detail="the provider said 503")
    else:
        services.fail_job(job=claimed, code=code, detail="the provider refused it")


def attempts_shown(client, job: Job) -> tuple[str, str]:
    """The job list's attempts column, and the detail page's attempts."""
    listed = client.get(JOBS, {"q": str(job.id)}).content.decode()
    column = re.search(r'<td class="field-attempts_made">([^<]*)</td>', listed)
    detail = client.get(f"{JOBS}{job.id}/change/").content.decode()
    field = re.search(r'field-attempts_in_full.*?<div class="readonly">([^<]*)</div>', detail, re.S)
    assert column, "no attempts column"
    assert field, "no attempts on the detail page"
    return column.group(1), field.group(1)


def dashboard(client) -> tuple[str, str]:
    """/ops/: the dead letters, and the Retries chart's summary."""
    html = client.get(reverse("ops-dashboard")).content.decode()
    dead = re.search(r'data-figure="dead-letters">([^<]*)<', html)
    retries = re.search(r'id="chart-retries".*?data-summary>([^<]*)<', html, re.S)
    assert dead
    assert retries
    return dead.group(1), retries.group(1)


def test_after_an_admin_retry_attempts_history_retries_and_dead_letters_agree(
    operator_client, alice, settings
):
    settings.INGEST_MAX_ATTEMPTS = 2
    job = make_document(alice).current_job
    attempt_and_fail(job, "provider_unavailable", transient=True)  # retried by itself
    attempt_and_fail(job, "provider_unavailable", transient=True)  # out of attempts
    job.refresh_from_db()
    assert (job.status, job.error_code) == (JobStatus.FAILED, "retries_exhausted")
    assert attempts_shown(operator_client, job) == ("2", "2")
    assert dashboard(operator_client) == ("1", "1 in the last hour")

    run_action(operator_client, DEAD_LETTERS, "retry_selected", [job])

    assert attempts_shown(operator_client, job) == (
        "2",
        "2 (0 since the last retry, of the 2 a round may use)",
    )
    assert dashboard(operator_client) == ("0", "2 in the last hour"), "nothing dead; 2 retries"

    attempt_and_fail(job, "embedding_rejected")  # the fresh attempt fails for good

    history = list(JobAttempt.objects.filter(job=job).values_list("number", "outcome"))
    assert history == [
        (1, AttemptOutcome.RETRY),
        (2, AttemptOutcome.FAILED),
        (3, AttemptOutcome.FAILED),
    ]
    assert attempts_shown(operator_client, job) == (
        "3",
        "3 (1 since the last retry, of the 2 a round may use)",
    )
    assert dashboard(operator_client) == ("1", "2 in the last hour"), "dead again, as it is"


def test_an_owners_retry_counts_among_the_retries_and_ends_the_dead_letter(
    operator_client, alice, alice_client, broker
):
    job = make_document(alice).current_job
    attempt_and_fail(job, "embedding_rejected")
    assert dashboard(operator_client) == ("1", "0 in the last hour")

    assert alice_client.post(f"/api/documents/{job.document_id}/retry/").status_code == 202

    assert dashboard(operator_client) == ("0", "1 in the last hour")
    assert statuses([job]) == {job.id: JobStatus.FAILED}, "the old job stays as it ended"
    assert JobAttempt.objects.get(job=job).retried_at > timezone.now() - timedelta(minutes=1)
