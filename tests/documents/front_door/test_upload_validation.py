"""Each file is checked while it streams in, before anything is stored."""

import io
import os

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.files.uploadhandler import StopFutureHandlers

from documents.front_door.validation import (
    GuardedUploadHandler,
    RejectedFile,
    RequestTooLarge,
)
from documents.models import Document
from jobs.models import JobStatus
from search.file_types import PDF_MAGIC, PDF_MAGIC_WINDOW
from tests.conftest import pdf_upload, wait_until_terminal
from tests.factories import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)

GIF = b"GIF89a" + b"\x00" * 200


def post(client, *files: SimpleUploadedFile):
    return client.post("/api/documents/", {"file": list(files)}, format="multipart")


def stored_files() -> list[str]:
    root = settings.MEDIA_ROOT
    return [os.path.join(d, f) for d, _, names in os.walk(root) for f in names]


@pytest.mark.parametrize(
    ("content", "name", "status", "code"),
    [
        (b"", "empty.pdf", 400, "empty"),
        (b"just some text, honestly\n" * 100, "notes.pdf", 415, "not_a_pdf"),
        (GIF, "picture.gif", 415, "unsupported_type"),
    ],
)
def test_a_bad_file_alone_is_refused_with_the_reasons_status(
    alice_client, broker, content, name, status, code
):
    response = post(alice_client, pdf_upload(content, name))

    assert response.status_code == status
    [result] = response.json()["results"]
    assert result["status"] == "rejected"
    assert result["error"]["code"] == code
    assert result["error"]["detail"]
    assert not Document.objects.exists()
    assert stored_files() == []


def test_not_a_pdf_means_no_pdf_header_in_the_first_kilobyte_as_its_message_says(
    alice_client, broker
):
    junk = b"\r\n junk before the header \r\n" * 100
    header_ends_the_window = junk[: PDF_MAGIC_WINDOW - len(PDF_MAGIC)] + make_pdf()
    header_one_byte_later = junk[: PDF_MAGIC_WINDOW - len(PDF_MAGIC) + 1] + make_pdf()

    accepted = post(alice_client, pdf_upload(header_ends_the_window, "late-header.pdf"))
    refused = post(alice_client, pdf_upload(header_one_byte_later, "too-late.pdf"))

    assert accepted.status_code == 202
    assert refused.status_code == 415
    error = refused.json()["results"][0]["error"]
    assert error == {
        "code": "not_a_pdf",
        "detail": "The file is not a PDF: no %PDF- header in its first 1024 bytes.",
    }


def test_a_file_over_the_limit_is_refused_with_413(alice_client, broker, settings):
    settings.INGEST_MAX_UPLOAD_BYTES = 20_000
    big = make_pdf(pages=30, words_per_page=400)
    assert len(big) > 20_000

    response = post(alice_client, pdf_upload(big, "big.pdf"))

    assert response.status_code == 413
    assert response.json()["results"][0]["error"]["code"] == "too_large"
    assert "19.5 KiB" in response.json()["results"][0]["error"]["detail"]
    assert stored_files() == []


def test_a_truncated_pdf_is_accepted_and_fails_later_with_a_clear_reason(alice_client, worker):
    content = make_pdf(pages=3)
    response = post(alice_client, pdf_upload(content[: len(content) // 3], "cut.pdf"))

    assert response.status_code == 202
    [job] = wait_until_terminal([response.json()["results"][0]["job_id"]])
    assert job.status == JobStatus.FAILED
    assert job.error_code == "corrupt"
    assert "damaged" in job.error_detail


def test_one_bad_file_never_sinks_the_others(alice_client, broker):
    response = post(
        alice_client,
        pdf_upload(make_pdf(seed=1), "good-1.pdf"),
        pdf_upload(b"", "empty.pdf"),
        pdf_upload(GIF, "photo.gif"),
        pdf_upload(make_pdf(seed=2), "good-2.pdf"),
    )

    assert response.status_code == 202
    results = response.json()["results"]
    assert [r["filename"] for r in results] == [
        "good-1.pdf",
        "empty.pdf",
        "photo.gif",
        "good-2.pdf",
    ]
    assert [r["status"] for r in results] == ["queued", "rejected", "rejected", "queued"]
    assert Document.objects.count() == 2
    assert response["Location"] == results[0]["status_url"]


def test_all_files_refused_for_different_reasons_answer_400(alice_client, broker):
    response = post(alice_client, pdf_upload(b"", "empty.pdf"), pdf_upload(GIF, "x.gif"))

    assert response.status_code == 400
    assert [r["error"]["code"] for r in response.json()["results"]] == ["empty", "unsupported_type"]


def test_fifty_files_in_one_request_are_refused_and_nothing_is_stored(alice_client, broker):
    files = [pdf_upload(make_pdf(seed=i, words_per_page=20), f"f{i}.pdf") for i in range(50)]

    response = post(alice_client, *files)

    assert response.status_code == 400
    assert response.json()["code"] == "too_many_files"
    assert "At most 20 files" in response.json()["detail"]
    assert not Document.objects.exists()
    assert stored_files() == []


def test_file_names_are_cleaned_for_display_and_never_reach_the_storage_key(
    alice_client, alice, broker
):
    hostile = "..\\..\\windows/system32/" + "evil\x00\x1b[31m\u202ename" + "x" * 500 + ".pdf"

    response = post(alice_client, pdf_upload(make_pdf(), hostile))

    [result] = response.json()["results"]
    name = result["filename"]
    assert name.endswith(".pdf")
    assert len(name) <= 200
    assert "/" not in name
    assert "\\" not in name
    assert not any(ord(ch) < 32 or ch == "\u202e" for ch in name)
    document = Document.objects.get(id=result["document_id"])
    assert document.storage_key == f"documents/{alice.pk}/{document.id}/v1.pdf"


def test_a_request_without_files_says_what_to_send(alice_client, broker):
    response = alice_client.post("/api/documents/", {"note": "hello"}, format="multipart")

    assert response.status_code == 400
    assert response.json()["code"] == "no_file"


@pytest.mark.parametrize("text", ["report.pdf", make_pdf().decode("latin-1")])
def test_a_file_field_sent_as_text_says_to_attach_it_as_a_file(alice_client, broker, text):
    # curl -F file=report.pdf and curl -F 'file=<report.pdf' send a text field.
    response = alice_client.post("/api/documents/", {"file": text}, format="multipart")

    assert response.status_code == 400
    assert response.json() == {
        "code": "file_not_attached",
        "detail": "The field 'file' holds text, not a file: send it as a file part "
        "(curl -F file=@report.pdf).",
    }
    assert not Document.objects.exists()


def test_a_new_version_sent_as_text_says_to_attach_it_as_a_file(alice_client, broker):
    created = post(alice_client, pdf_upload(make_pdf()))
    document_id = created.json()["results"][0]["document_id"]

    response = alice_client.post(
        f"/api/documents/{document_id}/versions/", {"file": "v2.pdf"}, format="multipart"
    )

    assert response.status_code == 400
    assert response.json()["code"] == "file_not_attached"


@pytest.mark.parametrize("content_type", ["application/json", "application/pdf"])
def test_an_upload_that_is_not_multipart_is_refused_with_415(alice_client, broker, content_type):
    response = alice_client.post("/api/documents/", b"{}", content_type=content_type)

    assert response.status_code == 415
    assert response.json()["code"] == "unsupported_media_type"


# ---------------------------------------------------------------- the handler itself


def feed(handler: GuardedUploadHandler, name: str, chunks: list[bytes]):
    with pytest.raises(StopFutureHandlers):  # how a handler claims the file
        handler.new_file("file", name, "application/pdf", None)
    offset = 0
    for chunk in chunks:
        handler.receive_data_chunk(chunk, offset)
        offset += len(chunk)
    return handler.file_complete(offset)


def test_the_handler_stops_writing_the_moment_a_file_passes_the_limit(settings):
    settings.INGEST_MAX_UPLOAD_BYTES = 100_000
    handler = GuardedUploadHandler()
    spool_sizes = []
    original = handler.receive_data_chunk

    def watch(raw: bytes, start: int) -> None:
        original(raw, start)
        spool = handler.current.spool
        spool_sizes.append(spool.tell() if spool is not None else None)

    handler.receive_data_chunk = watch
    result = feed(handler, "huge.pdf", [b"%PDF-1.7\n" + b"0" * 65_527] + [b"0" * 65_536] * 50)

    assert isinstance(result, RejectedFile)
    assert result.rejection.code == "too_large"
    assert max(size for size in spool_sizes if size is not None) <= 100_000
    assert spool_sizes[-1] is None, "nothing is written once the limit is passed"


def test_the_handler_hashes_what_it_accepts():
    import hashlib

    content = make_pdf()
    handler = GuardedUploadHandler()

    upload = feed(handler, "ok.pdf", [content[:1000], content[1000:]])

    assert upload.sha256 == hashlib.sha256(content).hexdigest()
    assert upload.read() == content


def test_a_body_larger_than_all_allowed_files_is_refused_before_it_is_read(settings):
    settings.INGEST_MAX_UPLOAD_BYTES = 1_000_000
    settings.INGEST_MAX_FILES_PER_REQUEST = 2
    handler = GuardedUploadHandler()

    with pytest.raises(RequestTooLarge):
        handler.handle_raw_input(io.BytesIO(), {}, 10_000_000, b"boundary")
