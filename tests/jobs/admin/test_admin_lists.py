"""The dead-letter console in the Django admin: who gets in, and its lists' filters and search."""

import uuid
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from jobs.admin.display import short_age
from jobs.admin.filters import id_range
from jobs.models import Job, JobStatus, Lane
from tests.jobs.admin.admin_console import (
    DEAD_LETTERS,
    JOBS,
    failed_job,
    job_in,
    list_filter,
    listed_ids,
    logged_in,
    staff_with,
)

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

    # session, user, the error codes present (a query for each of the 3 codes and one that
    # finds none after the last), the paginator's estimate and (a small list) its count,
    # and one query for the page of jobs with their documents and owners
    with django_assert_max_num_queries(9):
        response = operator_client.get(page)

    assert len(listed_ids(response)) == 25
