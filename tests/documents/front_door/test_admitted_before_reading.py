"""Uploads and retries are admitted before anything reads the body, for sessions too.

The requests go through Django's real WSGI handler (every middleware, DRF, the real CSRF
check), with the body in a stream that counts what the server reads from it: a refusal
must come before the server has read more than a little of a 20 MB upload.
"""

import io
import uuid

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client

from config.accounts.tokens import issue_token
from documents.front_door import admission
from documents.models import Document
from jobs.models import Job, JobStatus
from tests.factories import make_document, make_pdf

pytestmark = pytest.mark.django_db

BODY_BYTES = 20 * 1024 * 1024
BOUNDARY = "admitted-before-reading"


@pytest.fixture(autouse=True)
def fresh_counts():
    admission.forget_backlog()
    yield
    admission.forget_backlog()


class CountingStream(io.RawIOBase):
    """A request body that remembers how much of it the server read."""

    def __init__(self, data: bytes) -> None:
        self.data = io.BytesIO(data)
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        chunk = self.data.read(size)
        self.read_bytes += len(chunk)
        return chunk

    def readline(self, size: int = -1) -> bytes:
        line = self.data.readline(size)
        self.read_bytes += len(line)
        return line


def multipart(size: int) -> bytes:
    pdf = make_pdf()
    padding = b"%" + b"p" * (size - len(pdf)) + b"\n"
    return (
        (
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\n'
            "Content-Type: application/pdf\r\n\r\n"
        ).encode()
        + pdf
        + padding
        + f"\r\n--{BOUNDARY}--\r\n".encode()
    )


def post(path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes, int]:
    """POST through the real WSGI handler: (status, body, bytes of the request read)."""
    stream = CountingStream(body)
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "localhost",
        "CONTENT_TYPE": f"multipart/form-data; boundary={BOUNDARY}",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": stream,
        "wsgi.url_scheme": "http",
        "wsgi.errors": io.StringIO(),
        "wsgi.version": (1, 0),
        "wsgi.multithread": False,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    environ.update(headers)
    answer: dict[str, str] = {}

    def start_response(status: str, response_headers: list, exc_info: object = None) -> None:
        answer["status"] = status

    # As Django's test client: the test's transaction holds the connection, which the
    # request signals would otherwise close.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        content = b"".join(WSGIHandler()(environ, start_response))
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    return int(answer["status"].split()[0]), content, stream.read_bytes


def session_headers(user) -> dict[str, str]:
    """A signed-in browser's headers: the session cookie, the CSRF cookie and header."""
    browser = Client()
    browser.force_login(user)
    browser.get("/")  # the page sets the CSRF cookie
    csrf = browser.cookies["csrftoken"].value
    session = browser.cookies["sessionid"].value
    return {"HTTP_COOKIE": f"sessionid={session}; csrftoken={csrf}", "HTTP_X_CSRFTOKEN": csrf}


def token_headers(user) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Token {issue_token(user).key}"}


CREDENTIALS = {"session": session_headers, "token": token_headers}


@pytest.mark.parametrize("credentials", CREDENTIALS)
@pytest.mark.parametrize("limit", ["throttle", "in_flight", "quota"])
def test_a_refused_upload_is_answered_before_its_body_is_read(alice, settings, credentials, limit):
    headers = CREDENTIALS[credentials](alice)
    if limit == "throttle":
        settings.INGEST_UPLOAD_THROTTLE_RATE = "0/min"
    elif limit == "in_flight":
        settings.INGEST_MAX_INFLIGHT_PER_USER = 1
        make_document(alice)
    else:
        settings.INGEST_MAX_DOCUMENTS_PER_USER = 1
        make_document(alice)

    status, body, read = post("/api/documents/", multipart(BODY_BYTES), headers)

    assert status == 429, body
    assert read < 1024 * 1024, f"{read} bytes read before the refusal"


@pytest.mark.parametrize("credentials", CREDENTIALS)
def test_an_admitted_upload_is_read_and_stored(alice, broker, credentials):
    headers = CREDENTIALS[credentials](alice)

    status, body, read = post("/api/documents/", multipart(1024 * 1024), headers)

    assert status == 202, body
    assert read > 1024 * 1024
    assert Document.objects.filter(owner=alice).count() == 1


def test_a_session_upload_without_its_csrf_token_is_still_refused(alice, broker):
    headers = session_headers(alice)
    del headers["HTTP_X_CSRFTOKEN"]

    status, body, _ = post("/api/documents/", multipart(1024 * 1024), headers)

    assert status == 403
    assert b"CSRF" in body
    assert not Document.objects.exists()


def failed_documents(owner, count: int) -> list[Document]:
    documents = []
    for _ in range(count):
        document = make_document(owner, sha256=uuid.uuid4().hex * 2)
        Job.objects.filter(id=document.current_job_id).update(
            status=JobStatus.FAILED, error_code="provider_unavailable", attempts=5
        )
        documents.append(document)
    return documents


def test_retries_count_against_the_in_flight_limit(alice, alice_client, broker, settings):
    settings.INGEST_MAX_INFLIGHT_PER_USER = 2
    documents = failed_documents(alice, 3)

    answers = [alice_client.post(f"/api/documents/{d.id}/retry/") for d in documents]

    assert [a.status_code for a in answers] == [202, 202, 429]
    assert answers[2].json()["code"] == "too_many_in_flight"
    assert int(answers[2]["Retry-After"]) >= 1
    assert Job.objects.filter(status=JobStatus.QUEUED).count() == 2


def test_retries_are_throttled_like_uploads(alice, alice_client, broker, settings):
    settings.INGEST_UPLOAD_THROTTLE_RATE = "2/min"
    documents = failed_documents(alice, 3)

    answers = [alice_client.post(f"/api/documents/{d.id}/retry/") for d in documents]

    assert [a.status_code for a in answers] == [202, 202, 429]
    assert int(answers[2]["Retry-After"]) >= 1


def test_retries_wait_for_a_full_backlog(alice, bob, alice_client, broker, settings):
    settings.INGEST_MAX_BACKLOG = 3
    [document] = failed_documents(alice, 1)
    for _ in range(3):
        make_document(bob)

    answer = alice_client.post(f"/api/documents/{document.id}/retry/")

    assert answer.status_code == 503
    assert answer.json()["code"] == "backlog_full"
    assert Job.objects.filter(document=document).count() == 1
