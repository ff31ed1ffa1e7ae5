"""GET /api/jobs/{id}/ reads the database and shows only the owner's jobs."""

import pytest

from jobs import failures
from jobs.models import Job
from tests.factories import make_document

pytestmark = pytest.mark.django_db


@pytest.fixture
def alices_job(alice) -> Job:
    job = make_document(alice).current_job
    Job.objects.filter(id=job.id).update(
        progress_done=3,
        progress_total=7,
        attempts=1,
        error_code="transient",
        error_detail="TimeoutError: slow",
    )
    job.refresh_from_db()
    return job


def test_the_owner_sees_the_jobs_state(alice_client, alices_job):
    body = alice_client.get(f"/api/jobs/{alices_job.id}/").json()

    assert body["id"] == str(alices_job.id)
    assert body["document_id"] == str(alices_job.document_id)
    assert body["status"] == "queued"
    # done/total count chunks as they always have; a queued job has read no page yet.
    assert body["progress"] == {
        "stage": "queued",
        "done": 3,
        "total": 7,
        "pages_done": 0,
        "pages_total": 0,
    }
    assert body["attempts"] == 1
    # The code and its plain sentence; the stored detail is for staff (jobs.failures).
    assert body["error"] == {"code": "transient", "detail": failures.FALLBACK}
    for stamp in ["created_at", "enqueued_at", "started_at", "heartbeat_at", "finished_at"]:
        assert stamp in body


def test_another_users_job_answers_404(bob_client, alices_job):
    response = bob_client.get(f"/api/jobs/{alices_job.id}/")

    assert response.status_code == 404


def test_an_unknown_job_answers_404(alice_client):
    response = alice_client.get("/api/jobs/00000000-0000-0000-0000-000000000000/")

    assert response.status_code == 404


def test_a_job_without_an_error_shows_null(alice_client, alices_job):
    Job.objects.filter(id=alices_job.id).update(error_code="", error_detail="")

    assert alice_client.get(f"/api/jobs/{alices_job.id}/").json()["error"] is None
