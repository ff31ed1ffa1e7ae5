"""The schema declares the errors the API really answers (found by the schema fuzz test,
tests/config/test_schema_fuzz.py): each is sent here once, and its status must be one the
operation lists."""

import uuid

import pytest
import requests
import schemathesis
from rest_framework.test import APIClient

from config.accounts.tokens import issue_token
from documents.front_door import admission
from jobs.models import Job, JobStatus
from tests.conftest import pdf_upload
from tests.factories import make_document
from tests.services import postgres_stopped

pytestmark = pytest.mark.django_db

UNSAFE = {"post", "put", "patch", "delete"}


@pytest.fixture
def schema(alice_client) -> dict:
    response = alice_client.get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def declared(schema: dict, path: str, method: str) -> dict:
    return schema["paths"][path][method]["responses"]


def is_error_body(schema: dict, response_spec: dict) -> bool:
    ref = response_spec["content"]["application/json"]["schema"]["$ref"]
    component = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    return {"code", "detail"} <= set(component["required"])


def assert_answered_as_declared(schema: dict, path: str, method: str, response) -> None:
    """The status is one the operation declares, and the body one that status's schema
    allows, judged by the validator the fuzz test uses (its error says what differs)."""
    assert str(response.status_code) in declared(schema, path, method), response.content
    assert response["Content-Type"] == "application/json", response["Content-Type"]
    answer = schemathesis.Response(
        status_code=response.status_code,
        headers={name.lower(): [value] for name, value in response.headers.items()},
        content=response.content,
        request=requests.Request(method.upper(), f"http://testserver{path}").prepare(),
        elapsed=0.0,
        verify=True,
    )
    schemathesis.openapi.from_dict(schema)[path][method.upper()].validate_response(answer)


def test_every_operation_declares_401_and_every_change_403(schema):
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            assert "401" in responses, f"{method} {path}"
            assert is_error_body(schema, responses["401"])
            if method in UNSAFE:
                assert "403" in responses, f"{method} {path}"
                assert is_error_body(schema, responses["403"])


def test_no_credentials_answers_the_declared_401(schema):
    response = APIClient().get("/api/webhooks/signing-secret/")

    assert response.status_code == 401
    assert "401" in declared(schema, "/api/webhooks/signing-secret/", "get")
    assert response.json()["code"] == "not_authenticated"


@pytest.mark.parametrize("path", ["/api/documents/", "/api/webhooks/"])
def test_a_cursor_the_list_did_not_give_answers_the_declared_404(alice_client, schema, path):
    response = alice_client.get(path, {"cursor": "not-a-cursor"})

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert "404" in declared(schema, path, "get")


def test_an_unknown_status_filter_answers_the_declared_400(alice_client, schema):
    response = alice_client.get("/api/documents/", {"status": "lost"})

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "400" in declared(schema, "/api/documents/", "get")


def test_a_retry_refused_by_a_full_backlog_answers_the_declared_503(
    alice_client, alice, bob, schema, settings
):
    settings.INGEST_MAX_BACKLOG = 5
    failed = make_document(alice).current_job
    Job.objects.filter(id=failed.id).update(status=JobStatus.FAILED, error_code="corrupt")
    for _ in range(10):
        make_document(bob)
    admission.forget_backlog()

    response = alice_client.post(f"/api/documents/{failed.document_id}/retry/")

    admission.forget_backlog()
    assert response.status_code == 503
    assert response.json()["code"] == "backlog_full"
    assert {"429", "503"} <= set(declared(schema, "/api/documents/{id}/retry/", "post"))


# Found by the fuzz test: an upload refused as a whole answers {code, detail} (and the
# files' results when there were files), which the schema declared as {results} alone.


def test_an_upload_without_a_file_answers_the_declared_400_body(alice_client, broker, schema):
    response = alice_client.post("/api/documents/", {}, format="multipart")

    assert response.json()["code"] == "no_file"
    assert_answered_as_declared(schema, "/api/documents/", "post", response)


def test_an_upload_with_no_pdf_answers_the_declared_415_body(alice_client, broker, schema):
    response = alice_client.post(
        "/api/documents/", {"file": pdf_upload(b"GIF89a", "cat.gif")}, format="multipart"
    )

    assert response.json()["code"] == "rejected"
    assert_answered_as_declared(schema, "/api/documents/", "post", response)


def test_form_fields_too_large_answer_the_declared_413_body(alice_client, schema, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1_000
    response = alice_client.post("/api/documents/", {"file": "x" * 2_000}, format="multipart")

    assert response.json()["code"] == "fields_too_large"
    assert_answered_as_declared(schema, "/api/documents/", "post", response)


# Found by the fuzz test: a request whose view cannot reach the database answers 503
# `database_unavailable` (config.http.middleware), on any operation, which none declared.


def test_every_operation_declares_the_503_of_a_lost_database(schema):
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            assert "503" in operation["responses"], f"{method} {path}"


@pytest.mark.django_db(transaction=True)
def test_a_lost_database_answers_the_declared_503(alice, schema):
    client = APIClient(HTTP_AUTHORIZATION=f"Token {issue_token(alice).key}")
    path = f"/api/jobs/{uuid.uuid4()}/"

    with postgres_stopped():
        response = client.get(path)

    assert response.json()["code"] == "database_unavailable"
    assert_answered_as_declared(schema, "/api/jobs/{job_id}/", "get", response)
