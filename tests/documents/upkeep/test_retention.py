"""Retention (INGEST_RETAIN_DAYS): the sweeper's pruning removes old history and replaced
versions, and nothing a user still sees: ready documents, their search results and their
current version's file come through a pass unchanged."""

from datetime import timedelta

import pytest
from django.core.files.storage import default_storage
from django.utils import timezone

from config.common import metrics
from documents.models import Document
from documents.upkeep import retention
from jobs.models import AttemptOutcome, Job, JobAttempt, JobStatus
from jobs.webhooks import retention as webhook_retention
from jobs.webhooks.models import Delivery, DeliveryStatus, Event
from search.models import Chunk
from tests.conftest import pdf_upload, wait_until_terminal
from tests.factories import make_document, make_pdf

pytestmark = pytest.mark.django_db(transaction=True)

LATER = timedelta(days=91)  # past the default 90 days of everything made in a test


def upload(client, seed: int) -> dict:
    answer = client.post("/api/documents/", {"file": pdf_upload(make_pdf(pages=2, seed=seed))})
    assert answer.status_code == 202, answer.content
    return answer.json()["results"][0]


def new_version(client, document_id: str, seed: int) -> dict:
    answer = client.post(
        f"/api/documents/{document_id}/versions/",
        {"file": pdf_upload(make_pdf(pages=2, seed=seed))},
    )
    assert answer.status_code == 202, answer.content
    return answer.json()


def seen_by(client, document_id: str) -> dict:
    """What the owner sees of a document: its row, a search, the current file."""
    row = client.get(f"/api/documents/{document_id}/").json()
    found = client.get("/api/search/", {"q": "document"}).json()
    current = b"".join(client.get(f"/api/documents/{document_id}/file/").streaming_content)
    return {"row": row, "search": found["results"], "file": current}


def test_a_pass_removes_replaced_versions_and_history_and_nothing_a_user_sees(
    alice, alice_client, worker
):
    first = upload(alice_client, seed=1)
    wait_until_terminal([first["job_id"]])
    second = new_version(alice_client, first["document_id"], seed=2)
    other = upload(alice_client, seed=3)
    wait_until_terminal([second["job_id"], other["job_id"]])
    document = Document.objects.get(id=first["document_id"])
    old_key = Job.objects.get(id=first["job_id"]).storage_key
    old_size = default_storage.size(old_key)
    before = {
        doc: seen_by(alice_client, doc) for doc in (first["document_id"], other["document_id"])
    }
    assert alice_client.get(f"/api/documents/{document.id}/file/?version=1").status_code == 200
    assert all(seen["search"] and seen["row"]["status"] == "succeeded" for seen in before.values())

    counted = metrics.PRUNED.labels("jobs")._value.get()

    removed = retention.every_pass(now=timezone.now() + LATER)

    assert metrics.PRUNED.labels("jobs")._value.get() == counted + 1
    assert removed["jobs"] == 1
    assert removed["files"] == 1
    assert removed["attempts"] >= 3  # the three succeeded jobs' attempts
    after = {doc: seen_by(alice_client, doc) for doc in before}
    assert after == before
    assert not Job.objects.filter(id=first["job_id"]).exists()
    assert not default_storage.exists(old_key)
    assert Chunk.objects.filter(document=document, version=2).exists()
    refused = alice_client.get(f"/api/documents/{document.id}/file/?version=1")
    assert refused.status_code == 410
    assert refused.json()["code"] == "version_pruned"
    assert Document.objects.get(id=document.id).stored_bytes == document.stored_bytes - old_size
    assert not JobAttempt.objects.filter(job_id__in=[second["job_id"], other["job_id"]]).exists()
    assert retention.every_pass(now=timezone.now() + LATER) == {
        "attempts": 0,
        "jobs": 0,
        "chunks": 0,
        "files": 0,
    }


def test_nothing_younger_than_the_retention_goes(alice, alice_client, worker):
    first = upload(alice_client, seed=4)
    wait_until_terminal([first["job_id"]])
    second = new_version(alice_client, first["document_id"], seed=5)
    wait_until_terminal([second["job_id"]])

    removed = retention.every_pass(now=timezone.now() + timedelta(days=89))

    assert removed == {"attempts": 0, "jobs": 0, "chunks": 0, "files": 0}
    assert Job.objects.filter(id=first["job_id"]).exists()


def test_dead_letters_and_the_ready_version_stay(alice):
    long_ago = timezone.now() - LATER
    dead = make_document(alice)
    Job.objects.filter(id=dead.current_job_id).update(
        status=JobStatus.FAILED, error_code="corrupt", finished_at=long_ago
    )
    JobAttempt.objects.create(
        job_id=dead.current_job_id,
        number=1,
        worker="w",
        started_at=long_ago,
        finished_at=long_ago,
        outcome=AttemptOutcome.FAILED,
    )
    served = make_document(alice, ready_version=1)  # v1 ready, v2 failed: search serves v1
    v1 = served.current_job
    Job.objects.filter(id=v1.id).update(status=JobStatus.SUCCEEDED, finished_at=long_ago)
    Job.objects.filter(id=v1.id).update(created_at=long_ago)
    v2 = Job.objects.create(
        document=served, owner=alice, version=2, storage_key="k2", status=JobStatus.FAILED
    )
    Job.objects.filter(id=v2.id).update(created_at=long_ago, finished_at=long_ago)
    Document.objects.filter(id=served.id).update(version=2, current_job=v2)

    removed = retention.every_pass()

    assert removed["jobs"] == 0
    assert Job.objects.filter(id=v1.id).exists()  # the ready version's job names its file
    assert JobAttempt.objects.filter(job_id=dead.current_job_id).count() == 1


def ended_long_ago(owner, status: str = JobStatus.SUCCEEDED) -> Job:
    """A document whose job ended past the retention, with one attempt recorded."""
    long_ago = timezone.now() - LATER
    job = make_document(owner).current_job
    Job.objects.filter(id=job.id).update(status=status, finished_at=long_ago)
    JobAttempt.objects.create(
        job=job, number=1, worker="w", started_at=long_ago, finished_at=long_ago,
        outcome=AttemptOutcome.SUCCEEDED,
    )  # fmt: skip
    return job


def test_each_pass_goes_on_from_where_the_last_stopped(alice, monkeypatch):
    monkeypatch.setattr(retention, "BATCH", 1)
    monkeypatch.setattr(retention, "BATCHES_PER_PASS", 1)
    jobs = [ended_long_ago(alice) for _ in range(3)]

    removed = [retention.every_pass()["attempts"] for _ in range(4)]

    assert removed == [1, 1, 1, 0]
    assert not JobAttempt.objects.filter(job__in=jobs).exists()


def test_a_dead_letter_cancelled_later_loses_its_history_once_that_is_old(alice):
    dead = ended_long_ago(alice, status=JobStatus.FAILED)
    assert retention.every_pass()["attempts"] == 0  # walked past: a dead letter keeps it

    Job.objects.filter(id=dead.id).update(status=JobStatus.CANCELLED, finished_at=timezone.now())

    assert retention.every_pass()["attempts"] == 0  # cancelled today: not yet
    assert retention.every_pass(now=timezone.now() + LATER)["attempts"] == 1


def test_old_webhook_events_go_unless_a_delivery_is_pending(alice):
    document = make_document(alice)
    long_ago = timezone.now() - LATER

    def event(status: str) -> Event:
        made = Event.objects.create(
            type="document.succeeded",
            owner=alice,
            document_id=document.id,
            job_id=document.current_job_id,
            payload={},
            created_at=long_ago,
        )
        Delivery.objects.create(event=made, owner=alice, url="https://example.com/", status=status)
        return made

    delivered, pending = event(DeliveryStatus.DELIVERED), event(DeliveryStatus.PENDING)

    assert webhook_retention.every_pass() == 1
    assert not Event.objects.filter(id=delivered.id).exists()
    assert Event.objects.filter(id=pending.id).exists()
    assert Delivery.objects.filter(event=pending).count() == 1
