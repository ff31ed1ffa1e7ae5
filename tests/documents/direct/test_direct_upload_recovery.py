"""A direct upload is completed even when its client never calls `complete`: by the
bucket's object-created event (POST /api/uploads/events/), or by the sweeper, which finds
the bytes itself on any S3; and one never sent expires, its bytes deleted. Against real
SeaweedFS servers (tests/documents/conftest.py), one of them sending its own webhook
events to a live server of the service."""

import time
from datetime import timedelta

import pytest
import requests
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from config.common import metrics
from config.tooling.s3 import S3Server
from documents.direct import sweep
from documents.models import DirectUpload, DirectUploadStatus, Document
from tests.documents.conftest import BUCKET, storages_for_environment
from tests.documents.direct.test_direct_uploads import arrival_key, complete, send_form, start
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN = "storage-events-secret-of-32-characters"


def s3_event(key: str, etag: str = "abc") -> dict:
    """An object-created record as S3 (and MinIO, Ceph, RustFS) write them."""
    return {
        "Records": [
            {
                "eventName": "s3:ObjectCreated:Post",
                "s3": {"bucket": {"name": BUCKET}, "object": {"key": key, "eTag": etag}},
            }
        ]
    }


def post_event(body: dict, token: str = TOKEN):
    return APIClient().post(
        "/api/uploads/events/", body, format="json", HTTP_AUTHORIZATION=f"Bearer {token}"
    )


def outcome(metric_outcome: str) -> float:
    return metrics.DIRECT_UPLOADS.labels(outcome=metric_outcome)._value.get()


@override_settings(INGEST_STORAGE_EVENTS_TOKEN=TOKEN)
def test_the_buckets_event_completes_an_upload_once(alice_client, s3_bucket, broker):
    content = make_pdf()
    started = start(alice_client, content)
    send_form(started, content)
    key = arrival_key(started)
    stored = DirectUpload.objects.get(id=started["upload_id"]).storage_key

    first = post_event(s3_event(key))
    again = post_event(s3_event(key))

    assert first.json()["handled"] == [{"key": key, "outcome": "completed: 202"}]
    assert again.json()["handled"] == [{"key": key, "outcome": "seen"}]
    assert Document.objects.filter(storage_key=stored).count() == 1
    # The client's own completion, late, gets the same answer.
    assert complete(alice_client, started).json()["document_id"] == str(
        Document.objects.get(storage_key=stored).id
    )


@override_settings(INGEST_STORAGE_EVENTS_TOKEN=TOKEN)
def test_events_need_the_token(s3_bucket):
    assert post_event(s3_event("x"), token="wrong").status_code == 401


def test_events_are_off_without_a_token(s3_bucket):
    assert post_event(s3_event("x")).status_code == 404


def test_the_sweeper_completes_an_upload_whose_bytes_arrived(alice_client, s3_bucket, broker):
    content = make_pdf()
    started = start(alice_client, content)
    send_form(started, content)
    before = outcome("completed")

    completed = sweep.reconcile()

    assert [str(upload_id) for upload_id in completed] == [started["upload_id"]]
    assert DirectUpload.objects.get(id=started["upload_id"]).status == "completed"
    assert outcome("completed") == before + 1
    assert sweep.reconcile() == []  # nothing started is left


def test_an_upload_never_sent_expires_and_its_late_bytes_are_deleted(
    alice_client, s3_bucket, broker
):
    content = make_pdf()
    started = start(alice_client, content)
    DirectUpload.objects.filter(id=started["upload_id"]).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    before = outcome("expired")

    assert [str(i) for i in sweep.expire()] == [started["upload_id"]]
    assert outcome("expired") == before + 1
    late = complete(alice_client, started)
    assert late.status_code == 410
    assert late.json()["code"] == "upload_expired"

    key = arrival_key(started)
    s3_bucket.put_object(Bucket=BUCKET, Key=key, Body=content)  # arrives after all
    with override_settings(INGEST_STORAGE_EVENTS_TOKEN=TOKEN):
        answer = post_event(s3_event(key))
    assert answer.json()["handled"][0]["outcome"] == "expired: deleted"
    assert "Contents" not in s3_bucket.list_objects_v2(Bucket=BUCKET, Prefix=key)


def test_bytes_that_arrived_just_before_the_expiry_are_completed_not_deleted(
    alice_client, s3_bucket, broker
):
    content = make_pdf()
    started = start(alice_client, content)
    send_form(started, content)
    DirectUpload.objects.filter(id=started["upload_id"]).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )

    assert sweep.expire() == []
    assert DirectUpload.objects.get(id=started["upload_id"]).status == "completed"


def test_ended_uploads_are_forgotten_after_a_day(alice_client, s3_bucket, broker):
    content = make_pdf()
    started = start(alice_client, content)
    send_form(started, content)
    complete(alice_client, started)
    DirectUpload.objects.filter(id=started["upload_id"]).update(
        completed_at=timezone.now() - timedelta(days=2)
    )

    sweep.expire()

    assert not DirectUpload.objects.filter(id=started["upload_id"]).exists()


@pytest.fixture
def notifying_s3(tmp_path_factory, live_server):
    """A SeaweedFS server of its own whose filer sends its webhook events to the live
    server's events endpoint, and the default storage pointed at it."""
    url = f"{live_server.url}/api/uploads/events/"
    server = S3Server(tmp_path_factory.mktemp("notify"), bucket=BUCKET, notify=(url, TOKEN))
    server.start()
    try:
        storages = storages_for_environment(server.variables)
        with override_settings(STORAGES=storages, INGEST_STORAGE_EVENTS_TOKEN=TOKEN):
            yield server
    finally:
        server.stop()


def test_seaweedfs_own_events_complete_an_upload(alice_client, notifying_s3, broker):
    content = make_pdf()
    started = start(alice_client, content)

    assert send_form(started, content).status_code in (200, 201, 204)

    deadline = time.monotonic() + 60
    upload = DirectUpload.objects.get(id=started["upload_id"])
    while upload.status == DirectUploadStatus.STARTED and time.monotonic() < deadline:
        time.sleep(0.2)
        upload.refresh_from_db()
    assert upload.status == DirectUploadStatus.COMPLETED, "no event completed it"
    assert Document.objects.filter(id=upload.document_id).exists()


def test_a_multipart_upload_left_unfinished_expires_and_its_parts_go(
    alice_client, s3_bucket, broker
):
    MiB = 1024 * 1024
    content = make_pdf() + b"\n%" + b"x" * (11 * MiB)
    with override_settings(INGEST_MULTIPART_THRESHOLD_BYTES=5 * MiB):
        started = start(alice_client, content)
    first = started["parts"][0]
    requests.put(first["url"], data=content[: first["size"]], timeout=60)
    upload = DirectUpload.objects.get(id=started["upload_id"])
    DirectUpload.objects.filter(id=upload.id).update(expires_at=timezone.now())

    sweep.expire()

    listed = s3_bucket.list_multipart_uploads(Bucket=BUCKET).get("Uploads", [])
    assert upload.multipart_id not in {entry["UploadId"] for entry in listed}
