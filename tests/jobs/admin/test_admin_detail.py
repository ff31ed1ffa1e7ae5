"""The dead-letter console's job page: every attempt shown, escaped, and nothing editable."""

from datetime import timedelta

import pytest
from django.utils import timezone

from jobs.models import AttemptOutcome, JobAttempt, JobStatus
from tests.jobs.admin.admin_console import (
    DEAD_LETTERS,
    JOBS,
    failed_job,
    logged_in,
    run_action,
    staff_with,
)

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
