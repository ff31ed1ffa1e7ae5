"""Uploads on S3-compatible object storage: the settings, the real upload API, the worker.

Every S3 call here crosses a socket to a SeaweedFS server (tests/documents/conftest.py).
"""

import threading

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.test import override_settings

from documents.models import Document
from jobs.models import JobStatus
from search.models import Chunk
from tests.conftest import pdf_upload, running_worker, wait_until_terminal
from tests.documents.conftest import BUCKET, settings_process, storages_for_environment
from tests.factories import make_pdf

S3_BACKEND = "config.common.s3.SharedClientS3Storage"
PUBLIC_GROUPS = {
    "http://acs.amazonaws.com/groups/global/AllUsers",
    "http://acs.amazonaws.com/groups/global/AuthenticatedUsers",
}


def upload(client, content: bytes) -> tuple[Document, str]:
    """POST a PDF through the real API; the stored Document and the id of its job."""
    response = client.post("/api/documents/", {"file": pdf_upload(content)})
    assert response.status_code == 202, response.content
    [result] = response.json()["results"]
    return Document.objects.get(id=result["document_id"]), result["job_id"]


def test_without_a_bucket_the_default_storage_is_the_local_filesystem():
    storages = storages_for_environment({})

    assert storages["default"] == {"BACKEND": "django.core.files.storage.FileSystemStorage"}


def test_a_bucket_selects_s3_with_private_signed_never_overwritten_objects():
    storages = storages_for_environment(
        {
            "INGEST_S3_BUCKET": "uploads",
            "INGEST_S3_ENDPOINT_URL": "http://minio.internal:9000",
            "INGEST_S3_REGION": "eu-central-1",
            "INGEST_S3_ACCESS_KEY_ID": "key-id",
            "INGEST_S3_SECRET_ACCESS_KEY": "secret",
            "INGEST_S3_PREFIX": "/ingest/",
        }
    )

    assert storages["default"] == {
        "BACKEND": S3_BACKEND,
        "OPTIONS": {
            "bucket_name": "uploads",
            "file_overwrite": False,
            "default_acl": None,
            "querystring_auth": True,
            "signature_version": "s3v4",
            "endpoint_url": "http://minio.internal:9000",
            "region_name": "eu-central-1",
            "access_key": "key-id",
            "secret_key": "secret",
            "location": "ingest",
        },
    }


def test_without_s3_credentials_boto3s_own_credential_chain_applies():
    storages = storages_for_environment({"INGEST_S3_BUCKET": "uploads"})

    options = storages["default"]["OPTIONS"]
    assert "access_key" not in options
    assert "secret_key" not in options
    assert "endpoint_url" not in options


def test_a_key_id_without_its_secret_stops_start_up_naming_both_variables():
    completed = settings_process(
        {"INGEST_S3_BUCKET": "uploads", "INGEST_S3_ACCESS_KEY_ID": "key-id"}
    )

    assert completed.returncode != 0
    assert "INGEST_S3_SECRET_ACCESS_KEY" in completed.stderr


@pytest.mark.django_db(transaction=True)
def test_an_upload_lands_in_the_bucket_under_its_storage_key(alice_client, broker, s3_bucket):
    content = make_pdf(pages=2)

    document, _ = upload(alice_client, content)

    stored = s3_bucket.get_object(Bucket=BUCKET, Key=document.storage_key)
    assert stored["Body"].read() == content
    assert document.storage_key.startswith(f"documents/{document.owner_id}/{document.id}/")
    grants = s3_bucket.get_object_acl(Bucket=BUCKET, Key=document.storage_key)["Grants"]
    assert not {grant["Grantee"].get("URI") for grant in grants} & PUBLIC_GROUPS


@pytest.mark.django_db(transaction=True)
def test_the_worker_reads_the_upload_back_from_the_bucket(alice_client, s3_bucket, worker):
    content = make_pdf(pages=2)

    document, job_id = upload(alice_client, content)
    [job] = wait_until_terminal([job_id])

    assert job.status == JobStatus.SUCCEEDED, job.error_detail
    assert Chunk.objects.filter(document=document).exists()
    with default_storage.open(document.storage_key, "rb") as stored:
        assert stored.read() == content


@pytest.mark.django_db
def test_a_second_file_under_a_taken_key_gets_a_new_name_and_the_first_is_kept(s3_bucket):
    key = "documents/1/00000000-0000-0000-0000-000000000000/v1.pdf"

    first = default_storage.save(key, ContentFile(b"first"))
    second = default_storage.save(key, ContentFile(b"second"))

    assert first == key
    assert second != key
    assert s3_bucket.get_object(Bucket=BUCKET, Key=key)["Body"].read() == b"first"


@pytest.mark.django_db(transaction=True)
def test_a_key_prefix_puts_uploads_under_it_while_storage_keys_stay_unprefixed(
    alice_client, broker, s3_bucket, s3_storages
):
    default = s3_storages["default"]
    prefixed = {**default, "OPTIONS": {**default["OPTIONS"], "location": "tenant-a"}}
    content = make_pdf()

    with override_settings(STORAGES={**s3_storages, "default": prefixed}):
        document, _ = upload(alice_client, content)
        with default_storage.open(document.storage_key, "rb") as stored:
            assert stored.read() == content

    assert document.storage_key.startswith("documents/")
    stored = s3_bucket.get_object(Bucket=BUCKET, Key=f"tenant-a/{document.storage_key}")
    assert stored["Body"].read() == content


@pytest.mark.django_db(transaction=True)
def test_the_worker_waits_out_an_s3_server_restart_within_its_attempt(
    alice_client, broker, s3_bucket, s3_server
):
    document, job_id = upload(alice_client, make_pdf(pages=2))
    s3_server.stop()
    restarted = threading.Timer(3.0, s3_server.start)

    restarted.start()
    try:
        with running_worker(broker):
            [job] = wait_until_terminal([job_id])
    finally:
        restarted.join()

    assert job.status == JobStatus.SUCCEEDED, job.error_detail
    assert job.attempts == 1  # the read was tried again, the job not retried
    assert Chunk.objects.filter(document=document).exists()
