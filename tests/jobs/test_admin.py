"""The dead-letter console in the Django admin: lists, filters, search, the read-only
detail page, and the bulk retry and cancel actions, down to real workers."""

import uuid
from datetime import timedelta

import dramatiq
import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission, User
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.test import Client
from django.utils import timezone

from jobs.admin_display import short_age
from jobs.admin_filters import id_range
from jobs.models import AttemptOutcome, Job, JobAttempt, JobStatus, Lane
from tests.conftest import pdf_upload, running_worker, wait_until_terminal
from tests.factories import make_document, make_pdf

JOBS = "/admin/jobs/job/"
DEAD_LETTERS = "/admin/jobs/deadletter/"


# --------------------------------------------------------------------------- people


@pytest.fixture
def operator(db) -> User:
    return User.objects.create_superuser("olivia", "olivia@example.com", "olivia-password")


def staff_with(username: str, *codenames: str) -> User:
    user = User.objects.create_user(username, f"{username}@example.com", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    return user


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def operator_client(operator) -> Client:
    return logged_in(operator)


# --------------------------------------------------------------------------- jobs


def job_in(owner: User, status: str, filename: str = "a.pdf", **fields) -> Job:
    """A document with a current job in `status`; `fields` set on the job as they are."""
    job = make_document(owner, filename=filename).current_job
    finished = timezone.now() if status in (JobStatus.SUCCEEDED, JobStatus.FAILED) else None
    values = {"status": status, "finished_at": finished, **fields}
    Job.objects.filter(id=job.id).update(**values)
    job.refresh_from_db()
    return job


def failed_job(owner: User, filename: str = "a.pdf", code: str = "corrupt", **fields) -> Job:
    values = {"error_code": code, "error_detail": f"{filename} could not be parsed."}
    return job_in(owner, JobStatus.FAILED, filename, **{"attempts": 1, **values, **fields})


def run_action(client: Client, page: str, action: str, jobs: list[Job]):
    return client.post(
        page,
        {"action": action, ACTION_CHECKBOX_NAME: [str(job.id) for job in jobs], "index": 0},
        follow=True,
    )


def listed_ids(response) -> set[uuid.UUID]:
    return {job.id for job in response.context["cl"].result_list}


def list_filter(response, title: str):
    [found] = [spec for spec in response.context["cl"].filter_specs if spec.title == title]
    return found


def statuses(jobs: list[Job]) -> dict[uuid.UUID, str]:
    return dict(Job.objects.filter(id__in=[j.id for j in jobs]).values_list("id", "status"))


# --------------------------------------------------------------------------- who gets in


@pytest.mark.django_db
@pytest.mark.parametrize("page", [JOBS, DEAD_LETTERS])
def test_a_user_who_is_not_staff_is_sent_to_the_admin_login(alice, page):
    response = logged_in(alice).get(page)

    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


@pytest.mark.django_db
@pytest.mark.parametrize("page", [JOBS, DEAD_LETTERS])
def test_staff_without_any_job_permission_cannot_see_the_console(page):
    response = logged_in(staff_with("sam")).get(page)

    assert response.status_code == 403


# --------------------------------------------------------------------------- the lists


@pytest.mark.django_db
def test_the_job_list_shows_each_job_with_its_document_owner_and_error(operator_client, alice):
    job = failed_job(alice, "q3-report.pdf", attempts=3, lane=Lane.BATCH)
    Job.objects.filter(id=job.id).update(created_at=timezone.now() - timedelta(minutes=3))

    response = operator_client.get(JOBS)

    assert response.status_code == 200
    page = response.content.decode()
    assert str(job.id)[:8] in page
    assert f'href="/admin/documents/document/{job.document_id}/change/"' in page
    assert "q3-report.pdf" in page
    assert ">alice<" in page
    assert "corrupt" in page
    assert "3 min" in page


@pytest.mark.django_db
def test_the_dead_letter_list_shows_only_failed_jobs(operator_client, alice):
    failed = [failed_job(alice), failed_job(alice, code="no_text")]
    others = [job_in(alice, status) for status in JobStatus if status != JobStatus.FAILED]

    dead_letters = operator_client.get(DEAD_LETTERS)
    everything = operator_client.get(JOBS)

    assert dead_letters.status_code == everything.status_code == 200
    assert listed_ids(dead_letters) == {job.id for job in failed}
    assert listed_ids(everything) == {job.id for job in failed + others}


@pytest.mark.django_db
def test_the_job_list_filters_by_status_and_by_error_code(operator_client, alice):
    corrupt = failed_job(alice, code="corrupt")
    no_text = failed_job(alice, code="no_text")
    queued = job_in(alice, JobStatus.QUEUED)

    by_status = operator_client.get(JOBS, {"status": "queued"})
    by_code = operator_client.get(DEAD_LETTERS, {"error_code": "no_text"})

    assert listed_ids(by_status) == {queued.id}
    assert listed_ids(by_code) == {no_text.id}
    assert corrupt.id not in listed_ids(by_code)


@pytest.mark.django_db
def test_the_error_code_filter_offers_only_the_codes_present(operator_client, alice):
    failed_job(alice, code="encrypted")
    job_in(alice, JobStatus.SUCCEEDED)

    response = operator_client.get(JOBS)

    error_filter = list_filter(response, "error code")
    assert [value for value, _ in error_filter.lookup_choices] == ["encrypted"]


@pytest.mark.django_db
def test_the_job_list_filters_by_creation_date(operator_client, alice):
    today = job_in(alice, JobStatus.QUEUED)
    last_month = job_in(alice, JobStatus.QUEUED)
    Job.objects.filter(id=last_month.id).update(created_at=timezone.now() - timedelta(days=40))
    listing = operator_client.get(JOBS)
    choices = list_filter(listing, "created at").choices(listing.context["cl"])
    [past_week] = [choice for choice in choices if choice["display"] == "Past 7 days"]

    response = operator_client.get(JOBS + past_week["query_string"])

    assert listed_ids(response) == {today.id}


@pytest.mark.django_db
def test_dead_letters_can_hide_failures_the_owner_has_already_retried(operator_client, alice):
    open_failure = failed_job(alice)
    replaced = failed_job(alice)
    replaced.document.current_job = Job.objects.create(
        document=replaced.document, owner=alice, version=1, status=JobStatus.SUCCEEDED
    )
    replaced.document.save()

    unresolved = operator_client.get(DEAD_LETTERS, {"replaced": "no"})
    history = operator_client.get(DEAD_LETTERS, {"replaced": "yes"})

    assert listed_ids(unresolved) == {open_failure.id}
    assert listed_ids(history) == {replaced.id}


@pytest.mark.django_db
def test_the_job_list_finds_jobs_by_file_name_owner_and_id(operator_client, alice, bob):
    invoice = job_in(alice, JobStatus.QUEUED, "invoice-2024.pdf")
    receipt = job_in(bob, JobStatus.QUEUED, "receipt.pdf")

    assert listed_ids(operator_client.get(JOBS, {"q": "invoice"})) == {invoice.id}
    assert listed_ids(operator_client.get(JOBS, {"q": "bob"})) == {receipt.id}
    assert listed_ids(operator_client.get(JOBS, {"q": str(receipt.id)})) == {receipt.id}
    assert listed_ids(operator_client.get(JOBS, {"q": str(invoice.id)[:8]})) == {invoice.id}


@pytest.mark.django_db
def test_searching_dead_letters_by_id_never_shows_a_job_that_has_not_failed(operator_client, alice):
    queued = job_in(alice, JobStatus.QUEUED)

    response = operator_client.get(DEAD_LETTERS, {"q": str(queued.id)})

    assert listed_ids(response) == set()


def test_an_id_prefix_becomes_the_range_of_ids_that_start_with_it():
    job_id = uuid.UUID("3f2a9b1c-0d4e-4f50-8a6b-7c8d9e0f1a2b")

    low, high = id_range("3F2A9B1C")

    assert low <= job_id <= high
    assert id_range(str(job_id)) == (job_id, job_id)
    assert id_range("3f2a9b") is None, "too short to mean one job"
    assert id_range("report.pdf") is None


def test_ages_are_shown_in_one_unit():
    assert short_age(timedelta(seconds=45)) == "45 s"
    assert short_age(timedelta(minutes=3, seconds=59)) == "3 min"
    assert short_age(timedelta(hours=5, minutes=1)) == "5 h"
    assert short_age(timedelta(days=2, hours=23)) == "2 d"


@pytest.mark.django_db
@pytest.mark.parametrize("page", [JOBS, DEAD_LETTERS])
def test_a_list_of_many_jobs_takes_a_few_queries_not_one_per_row(
    operator_client, page, django_assert_max_num_queries
):
    for number in range(25):
        owner = User.objects.create_user(f"user{number}", f"user{number}@example.com")
        failed_job(owner, f"file-{number}.pdf", code=f"code_{number % 3}")

    # session, user, the error codes present, the paginator's count, and one query for
    # the page of jobs with their documents and owners
    with django_assert_max_num_queries(5):
        response = operator_client.get(page)

    assert len(listed_ids(response)) == 25


# --------------------------------------------------------------------------- detail page


@pytest.mark.django_db
def test_the_detail_page_shows_each_attempt_with_its_message_and_escaped_traceback(
    operator_client, alice
):
    job = failed_job(alice, attempts=2)
    started = timezone.now() - timedelta(minutes=5)
    for number, outcome in [(1, AttemptOutcome.RETRY), (2, AttemptOutcome.FAILED)]:
        JobAttempt.objects.create(
            job=job,
            number=number,
            worker=f"host:1:thread-{number}",
            outcome=outcome,
            started_at=started,
            finished_at=started + timedelta(seconds=2.5),
            error_code="corrupt",
            error_message=f"attempt {number} <b>went wrong</b>",
            traceback=f'Traceback (most recent call last):\n  File "<script>alert({number})',
        )

    for page in (JOBS, DEAD_LETTERS):
        response = operator_client.get(f"{page}{job.id}/change/")

        assert response.status_code == 200
        html = response.content.decode()
        for number in (1, 2):
            assert f"attempt {number} &lt;b&gt;went wrong&lt;/b&gt;" in html
            assert f"File &quot;&lt;script&gt;alert({number})" in html
            assert f"host:1:thread-{number}" in html
        assert "<script>alert" not in html
        assert "<b>went wrong" not in html
        assert "2.5 s" in html


@pytest.mark.django_db
def test_the_detail_page_is_read_only_even_for_a_superuser(operator_client, alice):
    job = failed_job(alice)
    url = f"{JOBS}{job.id}/change/"

    page = operator_client.get(url).content.decode()
    posted = operator_client.post(url, {"status": "succeeded"})

    assert 'name="_save"' not in page
    assert posted.status_code == 403
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert operator_client.get(f"{JOBS}add/").status_code == 403
    assert operator_client.get(f"{JOBS}{job.id}/delete/").status_code == 403


@pytest.mark.django_db
def test_a_staff_user_who_may_only_view_jobs_sees_the_pages_but_not_the_actions(alice):
    viewer = logged_in(staff_with("vera", "view_job"))
    job = failed_job(alice)

    listing = viewer.get(DEAD_LETTERS)
    detail = viewer.get(f"{DEAD_LETTERS}{job.id}/change/")
    attempted = run_action(viewer, DEAD_LETTERS, "retry_selected", [job])

    assert listing.status_code == detail.status_code == 200
    assert "retry_selected" not in listing.content.decode()
    assert "cancel_selected" not in listing.content.decode()
    assert "Retried" not in attempted.content.decode()
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error_code == "corrupt"


# --------------------------------------------------------------------------- actions


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
    failed = [failed_job(alice), failed_job(alice), failed_job(alice, lane=Lane.BATCH)]
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
    jobs = [failed_job(alice), failed_job(alice)]

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
    jobs = [failed_job(alice), failed_job(alice)]

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
        response = run_action(operator_client, DEAD_LETTERS, "retry_selected", jobs)
        assert "Retried 20 jobs." in response.content.decode()

        finished = wait_until_terminal([job.id for job in jobs], timeout=120)

    assert {job.status for job in finished} == {JobStatus.SUCCEEDED}
    assert all(job.attempts == 1 for job in finished), "a fresh count of attempts"
