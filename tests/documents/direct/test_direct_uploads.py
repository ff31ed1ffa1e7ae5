"""Direct uploads (POST /api/uploads/, documents/direct/): the bytes go from the client
straight to the bucket, a real SeaweedFS server (tests/documents/conftest.py); the API
hands out the form or the part URLs, then checks what arrived and makes the job."""

import hashlib

import pytest
import requests
from django.test import override_settings

from documents.direct import bucket
from documents.models import DirectUpload, Document
from jobs.models import JobStatus
from search import file_types
from tests.conftest import wait_until_terminal
from tests.documents.conftest import BUCKET
from tests.factories import make_pdf, word_document

pytestmark = pytest.mark.django_db(transaction=True)

MiB = 1024 * 1024


def start(client, content: bytes, **more) -> dict:
    body = {"filename": "big-scan.pdf", "size": len(content), **more}
    answer = client.post("/api/uploads/", body, format="json")
    assert answer.status_code == 201, answer.content
    return answer.json()


def send_form(started: dict, content: bytes) -> requests.Response:
    """The browser's POST of the form: its fields, then the file last."""
    files = {"file": ("big-scan.pdf", content, "application/pdf")}
    return requests.post(started["url"], data=started["fields"], files=files, timeout=60)


def complete(client, started: dict):
    return client.post(started["complete_url"].split("testserver", 1)[-1])


def arrival_key(started: dict) -> str:
    """Where the upload's bytes arrive in the (unprefixed) test bucket."""
    return bucket.arrival_name(DirectUpload.objects.get(id=started["upload_id"]))


def nothing_at(s3_bucket, *keys: str) -> bool:
    return all(
        "Contents" not in s3_bucket.list_objects_v2(Bucket=BUCKET, Prefix=key) for key in keys
    )


def padded_pdf(size: int) -> bytes:
    """A real PDF of exactly `size` bytes: comment lines after its end."""
    pdf = make_pdf(pages=2)
    filler = size - len(pdf)
    assert filler > 2
    return pdf + b"\n%" + b"x" * (filler - 2)


def test_a_file_sent_straight_to_the_bucket_becomes_a_document_and_its_job(
    alice_client, s3_bucket, worker
):
    content = make_pdf(pages=2)
    started = start(alice_client, content, tags=["scans"], metadata={"year": 2026})

    assert started["method"] == "POST"
    assert send_form(started, content).status_code in (200, 201, 204)
    answer = complete(alice_client, started)

    assert answer.status_code == 202, answer.content
    body = answer.json()
    [job] = wait_until_terminal([body["job_id"]])
    assert job.status == JobStatus.SUCCEEDED, job.error_detail
    document = Document.objects.get(id=body["document_id"])
    assert document.tags == ["scans"]
    assert document.metadata == {"year": 2026}
    # Nobody hashed the bytes on the way in: the worker did, and recorded the real hash.
    assert document.sha256 == hashlib.sha256(content).hexdigest()
    assert document.sha256_checked
    stored = s3_bucket.get_object(Bucket=BUCKET, Key=document.storage_key)["Body"].read()
    assert stored == content


def test_completing_again_gives_the_same_answer_and_makes_nothing(alice_client, s3_bucket, broker):
    content = make_pdf()
    started = start(alice_client, content)
    send_form(started, content)

    first, again = complete(alice_client, started), complete(alice_client, started)

    assert first.status_code == again.status_code == 202
    assert first.json() == again.json()
    assert Document.objects.filter(owner__username="alice").count() == 1


def test_the_bucket_takes_no_other_size_than_the_declared_one(alice_client, s3_bucket, broker):
    content = make_pdf()
    started = start(alice_client, content)

    refused = send_form(started, content + b"% one byte more\n")

    assert refused.status_code >= 400
    answer = complete(alice_client, started)
    assert answer.status_code == 409
    assert answer.json()["code"] == "upload_incomplete"


def test_an_object_of_another_size_is_refused_and_deleted(alice_client, s3_bucket, broker):
    content = make_pdf()
    started = start(alice_client, content)
    key = arrival_key(started)
    s3_bucket.put_object(Bucket=BUCKET, Key=key, Body=content[:-10])  # past the policy

    answer = complete(alice_client, started)

    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "size_mismatch"
    assert nothing_at(s3_bucket, key, DirectUpload.objects.get(id=started["upload_id"]).storage_key)
    assert not Document.objects.exists()


def test_an_object_of_a_type_not_read_is_refused_and_deleted(alice_client, s3_bucket, broker):
    content = b"GIF89a" + b"\x00" * 2000
    started = start(alice_client, content)
    send_form(started, content)

    answer, again = complete(alice_client, started), complete(alice_client, started)

    assert answer.status_code == again.status_code == 415
    assert answer.json()["error"]["code"] == "unsupported_type"
    assert "GIF" in answer.json()["error"]["detail"]
    key = DirectUpload.objects.get(id=started["upload_id"]).storage_key
    assert nothing_at(s3_bucket, key, arrival_key(started))


def test_completing_before_the_bytes_arrive_says_so(alice_client, s3_bucket, broker):
    started = start(alice_client, make_pdf())

    answer = complete(alice_client, started)

    assert answer.status_code == 409
    assert answer.json()["code"] == "upload_incomplete"


def test_another_users_upload_is_not_found(alice_client, bob_client, s3_bucket, broker):
    content = make_pdf()
    started = start(alice_client, content)
    send_form(started, content)

    assert complete(bob_client, started).status_code == 404
    assert complete(alice_client, started).status_code == 202


def test_a_declared_size_over_the_limit_is_refused_at_once(alice_client, s3_bucket):
    with override_settings(INGEST_MAX_DIRECT_UPLOAD_BYTES=MiB):
        answer = alice_client.post(
            "/api/uploads/", {"filename": "huge.pdf", "size": MiB + 1}, format="json"
        )

    assert answer.status_code == 413
    assert answer.json()["code"] == "too_large"
    assert not DirectUpload.objects.exists()


def test_without_a_bucket_direct_uploads_are_unavailable_and_say_which_setting(
    alice_client, local_media
):
    answer = alice_client.post("/api/uploads/", {"filename": "a.pdf", "size": 10}, format="json")

    assert answer.status_code == 409
    assert answer.json()["code"] == "direct_upload_unavailable"
    assert "INGEST_S3_BUCKET" in answer.json()["detail"]


def test_a_declared_sha256_that_the_bytes_do_not_have_fails_the_job(
    alice_client, s3_bucket, worker
):
    content = make_pdf()
    started = start(alice_client, content, sha256="0" * 64)
    send_form(started, content)

    answer = complete(alice_client, started)
    [job] = wait_until_terminal([answer.json()["job_id"]])

    assert job.status == JobStatus.FAILED
    assert job.error_code == "checksum_mismatch"


def test_a_declared_sha256_of_bytes_already_kept_answers_the_existing_document(
    alice_client, s3_bucket, broker
):
    content = make_pdf()
    first = start(alice_client, content, sha256=hashlib.sha256(content).hexdigest())
    send_form(first, content)
    kept = complete(alice_client, first).json()
    second = start(alice_client, content, sha256=hashlib.sha256(content).hexdigest())
    send_form(second, content)

    answer = complete(alice_client, second)

    assert answer.status_code == 202
    assert answer.json()["duplicate"] is True
    assert answer.json()["document_id"] == kept["document_id"]
    key = DirectUpload.objects.get(id=second["upload_id"]).storage_key
    assert nothing_at(s3_bucket, key, arrival_key(second))


def test_a_large_file_goes_in_parts_and_a_failed_part_is_sent_again_alone(
    alice_client, s3_bucket, worker
):
    content = padded_pdf(11 * MiB)
    with override_settings(INGEST_MULTIPART_THRESHOLD_BYTES=5 * MiB):
        started = start(alice_client, content)
    parts = started["parts"]
    assert started["method"] == "PUT"
    assert [part["size"] for part in parts] == [5 * MiB, 5 * MiB, MiB]

    offset = 0
    for part in parts:
        chunk = content[offset : offset + part["size"]]
        offset += part["size"]
        if part["number"] == 2:  # sent once cut short, as a dropped connection would
            requests.put(part["url"], data=chunk[:MiB], timeout=60)
        assert requests.put(part["url"], data=chunk, timeout=60).status_code == 200
    answer = complete(alice_client, started)

    assert answer.status_code == 202, answer.content
    [job] = wait_until_terminal([answer.json()["job_id"]], timeout=120)
    assert job.status == JobStatus.SUCCEEDED, job.error_detail
    key = DirectUpload.objects.get(id=started["upload_id"]).storage_key
    assert s3_bucket.get_object(Bucket=BUCKET, Key=key)["Body"].read() == content


def test_a_part_missing_makes_the_completion_wait_for_it(alice_client, s3_bucket, broker):
    content = padded_pdf(11 * MiB)
    with override_settings(INGEST_MULTIPART_THRESHOLD_BYTES=5 * MiB):
        started = start(alice_client, content)
    first = started["parts"][0]
    requests.put(first["url"], data=content[: first["size"]], timeout=60)

    answer = complete(alice_client, started)

    assert answer.status_code == 409
    assert "Parts 2, 3 of 3" in answer.json()["detail"]


def test_a_repeated_start_with_its_idempotency_key_gets_the_same_upload(alice_client, s3_bucket):
    body = {"filename": "a.pdf", "size": 1000}
    first = alice_client.post("/api/uploads/", body, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    again = alice_client.post("/api/uploads/", body, format="json", HTTP_IDEMPOTENCY_KEY="k1")

    assert first.status_code == again.status_code == 201
    assert first.json()["upload_id"] == again.json()["upload_id"]
    assert DirectUpload.objects.count() == 1


def test_a_word_file_sent_straight_to_the_bucket_is_read_as_one(alice_client, s3_bucket, worker):
    content = word_document("Site survey", "The north wall needs new mortar before winter.")
    started = start(alice_client, content, filename="survey.docx")
    send_form(started, content)

    answer = complete(alice_client, started)

    assert answer.status_code == 202, answer.content
    [job] = wait_until_terminal([answer.json()["job_id"]])
    assert job.status == JobStatus.SUCCEEDED, job.error_detail
    document = Document.objects.get(id=answer.json()["document_id"])
    assert document.file_type == "docx"
    assert document.storage_key.endswith("/v1.docx")
    head = s3_bucket.head_object(Bucket=BUCKET, Key=document.storage_key)
    assert head["ContentType"] == file_types.DOCX.media_type
