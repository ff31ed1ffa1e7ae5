"""Downloads on a real S3 server (SeaweedFS) and on local disk: byte ranges, signed URLs of
the bucket (INGEST_S3_DOWNLOAD_REDIRECT_SECONDS), deletes, and the S3 server restarting."""

import time
import urllib.error
import urllib.request
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest
from django.test import override_settings

from tests.conftest import pdf_upload, running_worker, wait_until_terminal
from tests.documents.conftest import BUCKET
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)

CONTENT = make_pdf(pages=3, seed=41)
SIZE = len(CONTENT)


def upload(client, content: bytes = CONTENT, name: str = "minutes.pdf") -> str:
    response = client.post("/api/documents/", {"file": pdf_upload(content, name)})
    assert response.status_code == 202, response.content
    return response.json()["results"][0]["document_id"]


def download(client, document_id: str, **headers: str):
    return client.get(f"/api/documents/{document_id}/file/", headers=headers)


def fetch(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """A plain HTTP GET, as a browser following the redirect makes it: no credentials."""
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as refused:
        return refused.code, dict(refused.headers), refused.read()


@pytest.mark.parametrize(
    ("header", "first", "last"),
    [("bytes=0-99", 0, 99), ("bytes=100-", 100, SIZE - 1), ("bytes=-64", SIZE - 64, SIZE - 1)],
)
def test_a_range_gets_those_bytes_alone(alice_client, broker, storage_kind, header, first, last):
    document_id = upload(alice_client)

    response = download(alice_client, document_id, Range=header)

    assert response.status_code == 206
    assert b"".join(response.streaming_content) == CONTENT[first : last + 1]
    assert response["Content-Range"] == f"bytes {first}-{last}/{SIZE}"
    assert response["Content-Length"] == str(last - first + 1)


def test_a_range_past_the_end_is_refused_with_the_files_size(alice_client, broker, storage_kind):
    document_id = upload(alice_client)

    response = download(alice_client, document_id, Range=f"bytes={SIZE}-")

    assert response.status_code == 416
    assert response.json()["code"] == "range_not_satisfiable"
    assert response["Content-Range"] == f"bytes */{SIZE}"


HUGE = "9" * 5000  # past int()'s 4,300 digits: a number too long to read as one


@pytest.mark.parametrize("header", [f"bytes=0-{HUGE}", f"bytes=-{HUGE}", f"bytes={HUGE}-"])
def test_a_range_with_a_number_longer_than_any_file_is_refused(alice_client, broker, header):
    document_id = upload(alice_client)

    response = download(alice_client, document_id, Range=header)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_range"
    assert "5000 digits" in response.json()["detail"]


def test_leading_zeros_do_not_make_a_range_number_long(alice_client, broker):
    document_id = upload(alice_client)

    response = download(alice_client, document_id, Range=f"bytes={'0' * 5000}5-9")

    assert response.status_code == 206
    assert b"".join(response.streaming_content) == CONTENT[5:10]
    assert response["Content-Range"] == f"bytes 5-9/{SIZE}"


@pytest.mark.parametrize(
    "headers", [{"Range": "bytes=0-9,20-29"}, {"Range": "bytes=0-9", "If-Range": '"x"'}]
)
def test_several_ranges_or_an_if_range_get_the_whole_file(alice_client, broker, headers):
    document_id = upload(alice_client)

    response = download(alice_client, document_id, **headers)

    assert response.status_code == 200
    assert response["Accept-Ranges"] == "bytes"
    assert b"".join(response.streaming_content) == CONTENT


@override_settings(INGEST_S3_DOWNLOAD_REDIRECT_SECONDS=60)
def test_on_s3_a_download_redirects_to_a_signed_url_that_serves_the_file(
    alice_client, broker, s3_bucket
):
    document_id = upload(alice_client, name="board minutes.pdf")

    response = download(alice_client, document_id)

    assert response.status_code == 302
    assert response["Cache-Control"] == "private, no-store"
    status, headers, content = fetch(response["Location"])
    assert (status, content) == (200, CONTENT)
    assert headers["Content-Disposition"] == 'attachment; filename="board minutes.pdf"'
    assert headers["Content-Type"] == "application/pdf"
    status, headers, content = fetch(response["Location"], Range="bytes=0-4")
    assert (status, content) == (206, b"%PDF-")


@override_settings(INGEST_S3_DOWNLOAD_REDIRECT_SECONDS=60)
def test_a_signed_url_with_a_changed_key_or_signature_is_refused(alice_client, broker, s3_bucket):
    document_id = upload(alice_client)
    other_id = upload(alice_client, make_pdf(pages=1, seed=42))
    url = download(alice_client, document_id)["Location"]
    other = urlsplit(download(alice_client, other_id)["Location"])

    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    query["X-Amz-Signature"] = "0" * 64
    forged = urlunsplit(parts._replace(query=urlencode(query)))
    moved = urlunsplit(parts._replace(path=other.path))

    assert fetch(forged)[0] == 403
    assert fetch(moved)[0] == 403
    assert fetch(url)[0] == 200


@override_settings(INGEST_S3_DOWNLOAD_REDIRECT_SECONDS=1)
def test_a_signed_url_stops_working_when_it_expires(alice_client, broker, s3_bucket):
    document_id = upload(alice_client)
    url = download(alice_client, document_id)["Location"]

    time.sleep(2.5)

    assert fetch(url)[0] == 403


@override_settings(INGEST_S3_DOWNLOAD_REDIRECT_SECONDS=60)
def test_with_redirects_on_a_file_gone_from_the_bucket_is_still_file_missing(
    alice_client, broker, s3_bucket
):
    document_id = upload(alice_client)
    [entry] = s3_bucket.list_objects_v2(Bucket=BUCKET)["Contents"]
    s3_bucket.delete_object(Bucket=BUCKET, Key=entry["Key"])

    response = download(alice_client, document_id)

    assert response.status_code == 404
    assert response.json()["code"] == "file_missing"


def test_deleting_a_document_deletes_every_version_from_the_bucket(alice_client, broker, s3_bucket):
    document_id = upload(alice_client)
    response = alice_client.post(
        f"/api/documents/{document_id}/versions/",
        {"file": pdf_upload(make_pdf(pages=2, seed=43), "minutes v2.pdf")},
    )
    assert response.status_code == 202, response.content
    assert s3_bucket.list_objects_v2(Bucket=BUCKET)["KeyCount"] == 2

    assert alice_client.delete(f"/api/documents/{document_id}/").status_code == 204

    assert s3_bucket.list_objects_v2(Bucket=BUCKET)["KeyCount"] == 0


def test_while_the_s3_server_is_down_uploads_answer_503_and_nothing_is_recorded(
    alice_client, broker, s3_bucket, s3_server
):
    s3_server.stop()
    try:
        response = alice_client.post("/api/documents/", {"file": pdf_upload(CONTENT)})
    finally:
        s3_server.start()

    assert response.status_code == 503
    assert response.json()["code"] == "storage_unavailable"
    assert response["Retry-After"] == "5"
    assert alice_client.get("/api/documents/").json()["results"] == []
    assert s3_bucket.list_objects_v2(Bucket=BUCKET)["KeyCount"] == 0


def test_a_restarted_s3_server_serves_what_it_stored_and_the_worker_reads_it(
    alice_client, broker, s3_bucket, s3_server
):
    document_id = upload(alice_client)
    job_id = alice_client.get(f"/api/documents/{document_id}/").json()["job"]["id"]

    s3_server.restart()
    with running_worker(broker):
        [job] = wait_until_terminal([job_id])

    assert job.status == "succeeded", job.error_detail
    assert b"".join(download(alice_client, document_id).streaming_content) == CONTENT
