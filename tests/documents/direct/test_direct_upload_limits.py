"""What a direct upload may park in the bucket, and that checked bytes stay the bytes:
part URLs take their part's size only, uploads in flight count against the quotas and a
cap of their own, a form posted again after its upload ended changes nothing and is
deleted, names are cleaned, completions are throttled, and storage events keep to the
service's prefix. Against a real SeaweedFS server (tests/documents/conftest.py)."""

import pytest
import requests
from django.db import transaction
from django.test import override_settings

from documents.direct import bucket, completion, sweep
from documents.direct.events import Created, handle
from documents.models import DirectUpload, Document
from search import file_types
from tests.documents.conftest import BUCKET, settings_process, storages_for_environment
from tests.documents.direct.test_direct_uploads import (
    MiB,
    arrival_key,
    complete,
    nothing_at,
    padded_pdf,
    send_form,
    start,
)
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)


def start_answer(client, size: int, filename: str = "scan.pdf"):
    return client.post("/api/uploads/", {"filename": filename, "size": size}, format="json")


def test_a_part_url_takes_its_parts_size_and_no_other(alice_client, s3_bucket, broker):
    content = padded_pdf(11 * MiB)
    with override_settings(INGEST_MULTIPART_THRESHOLD_BYTES=5 * MiB):
        started = start(alice_client, content)
    last = started["parts"][-1]
    assert last["size"] == MiB

    larger = requests.put(last["url"], data=b"x" * (40 * MiB), timeout=60)
    smaller = requests.put(last["url"], data=b"x" * 1000, timeout=60)

    assert larger.status_code == 403, larger.text
    assert smaller.status_code == 403, smaller.text
    upload = DirectUpload.objects.get(id=started["upload_id"])
    listed = s3_bucket.list_parts(
        Bucket=BUCKET, Key=upload.storage_key, UploadId=upload.multipart_id
    )
    assert listed.get("Parts", []) == []
    body = content[10 * MiB :]
    assert requests.put(last["url"], data=body, timeout=60).status_code == 200


def test_uploads_in_flight_count_against_the_byte_quota(alice_client, s3_bucket, settings):
    settings.INGEST_MAX_BYTES_PER_USER = 20 * 1000 * 1000

    first = start_answer(alice_client, 15 * 1000 * 1000)
    second = start_answer(alice_client, 15 * 1000 * 1000)

    assert first.status_code == 201
    assert second.status_code == 413
    assert second.json()["code"] == "storage_quota_exceeded"
    assert DirectUpload.objects.count() == 1


def test_uploads_in_flight_count_against_the_document_quota(alice_client, s3_bucket, settings):
    settings.INGEST_MAX_DOCUMENTS_PER_USER = 1

    answers = [start_answer(alice_client, 1000) for _ in range(2)]

    assert [a.status_code for a in answers] == [201, 429]
    assert answers[1].json()["code"] == "document_quota_exceeded"


def test_an_upload_in_flight_is_not_counted_twice_when_it_completes(
    alice_client, s3_bucket, broker, settings
):
    content = make_pdf()
    settings.INGEST_MAX_BYTES_PER_USER = len(content) + 10
    settings.INGEST_MAX_DOCUMENTS_PER_USER = 1
    started = start(alice_client, content)
    send_form(started, content)

    answer = complete(alice_client, started)

    assert answer.status_code == 202, answer.content
    assert Document.objects.count() == 1


def test_an_account_has_a_cap_of_uploads_in_flight(alice_client, bob_client, s3_bucket, settings):
    settings.INGEST_MAX_DIRECT_UPLOADS_IN_FLIGHT = 2

    answers = [start_answer(alice_client, 1000) for _ in range(3)]

    assert [a.status_code for a in answers] == [201, 201, 429]
    refused = answers[2]
    assert refused.json()["code"] == "too_many_in_flight"
    assert "2 direct uploads started" in refused.json()["detail"]
    # Until the oldest expires: within the upload's lifetime, never zero.
    assert 1 <= int(refused["Retry-After"]) <= settings.INGEST_DIRECT_UPLOAD_EXPIRES_SECONDS
    assert start_answer(bob_client, 1000).status_code == 201  # the cap is per account


def test_an_account_has_a_cap_of_bytes_in_flight(alice_client, s3_bucket, settings):
    settings.INGEST_MAX_DIRECT_BYTES_IN_FLIGHT = 3 * MiB

    first, second = start_answer(alice_client, 2 * MiB), start_answer(alice_client, 2 * MiB)

    assert (first.status_code, second.status_code) == (201, 429)
    assert second.json()["code"] == "too_many_in_flight"


def test_a_completed_upload_frees_its_place_in_flight(alice_client, s3_bucket, broker, settings):
    settings.INGEST_MAX_DIRECT_UPLOADS_IN_FLIGHT = 1
    content = make_pdf()
    started = start(alice_client, content)
    send_form(started, content)
    assert complete(alice_client, started).status_code == 202

    assert start_answer(alice_client, 1000).status_code == 201


def test_the_form_posted_again_after_completion_changes_nothing_and_is_deleted(
    alice_client, s3_bucket, broker
):
    content = make_pdf(pages=3)
    started = start(alice_client, content)
    send_form(started, content)
    answer = complete(alice_client, started)
    assert answer.status_code == 202
    document = Document.objects.get(id=answer.json()["document_id"])
    other = make_pdf(pages=1)
    other = other + b"\n%" + b"y" * (len(content) - len(other) - 2)  # the policy's size

    assert send_form(started, other).status_code in (200, 201, 204)

    stored = s3_bucket.get_object(Bucket=BUCKET, Key=document.storage_key)["Body"].read()
    assert stored == content
    assert (
        b"".join(alice_client.get(f"/api/documents/{document.id}/file/").streaming_content)
        == content
    )
    assert sweep.sweep_staging() == [arrival_key(started)]
    assert nothing_at(s3_bucket, arrival_key(started))


def test_the_form_posted_again_after_a_delete_brings_nothing_back(alice_client, s3_bucket, broker):
    content = make_pdf()
    started = start(alice_client, content)
    send_form(started, content)
    document_id = complete(alice_client, started).json()["document_id"]
    key = Document.objects.get(id=document_id).storage_key
    assert alice_client.delete(f"/api/documents/{document_id}/").status_code == 204

    send_form(started, content)
    sweep.sweep_staging()

    assert nothing_at(s3_bucket, key, arrival_key(started))


def test_the_sweeper_keeps_the_bytes_of_uploads_still_started(alice_client, s3_bucket, broker):
    content = make_pdf()
    started = start(alice_client, content)
    send_form(started, content)

    assert sweep.sweep_staging() == []
    assert complete(alice_client, started).status_code == 202


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("inv\u202efdp.exe", "invfdp.exe"),
        ("../../etc/report.pdf", "report.pdf"),
        ("line\r\nbreak\x1b[31mred.pdf", "linebreak[31mred.pdf"),
    ],
)
def test_a_direct_uploads_name_is_cleaned_as_an_uploads_is(alice_client, s3_bucket, given, kept):
    answer = start_answer(alice_client, 1000, filename=given)

    assert answer.status_code == 201
    assert DirectUpload.objects.get(id=answer.json()["upload_id"]).filename == kept


def test_completions_are_throttled_like_starts(alice_client, s3_bucket, broker, settings):
    settings.INGEST_UPLOAD_THROTTLE_RATE = "3/min"
    content = make_pdf()
    started = start(alice_client, content)  # one of the three, as every upload request

    answers = [complete(alice_client, started) for _ in range(3)]

    assert [a.status_code for a in answers] == [409, 409, 429]
    assert answers[2].json()["code"] == "throttled"
    assert int(answers[2]["Retry-After"]) >= 1


@pytest.fixture
def prefixed_bucket(s3_server):
    """The test bucket under INGEST_S3_PREFIX=tenant-a, as settings.py builds it."""
    s3_server.empty()
    storages = storages_for_environment({**s3_server.variables, "INGEST_S3_PREFIX": "tenant-a"})
    with override_settings(STORAGES=storages):
        yield
    s3_server.empty()


def test_a_storage_event_outside_the_prefix_is_refused(alice_client, prefixed_bucket, broker):
    content = make_pdf()
    started = start(alice_client, content)
    send_form(started, content)
    name = arrival_key(started)
    assert bucket.object_key(name) == f"tenant-a/{name}"

    outside = handle(Created(BUCKET, name, "e1"))  # the same name, without the prefix
    inside = handle(Created(BUCKET, f"tenant-a/{name}", "e1"))

    assert outside == "refused: outside_prefix"
    assert inside == "completed: 202"


def test_a_short_storage_events_token_stops_the_service_at_start():
    short = settings_process({"INGEST_STORAGE_EVENTS_TOKEN": "x" * 31})
    enough = settings_process({"INGEST_STORAGE_EVENTS_TOKEN": "x" * 32})

    assert short.returncode != 0
    assert "INGEST_STORAGE_EVENTS_TOKEN must be at least 32 characters" in short.stderr
    assert enough.returncode == 0, enough.stderr


def test_bytes_changed_after_the_check_are_not_moved_into_place(alice_client, s3_bucket):
    content = make_pdf()
    started = start(alice_client, content)
    send_form(started, content)
    upload = DirectUpload.objects.get(id=started["upload_id"])
    checked = s3_bucket.head_object(Bucket=BUCKET, Key=arrival_key(started))["ETag"]
    send_form(started, content[:-4] + b"\n%x\n")  # the form posted again meanwhile

    with pytest.raises(completion.NotArrived), transaction.atomic():
        completion._move_into_place(upload, etag=checked, kind=file_types.PDF)

    assert nothing_at(s3_bucket, upload.storage_key)
