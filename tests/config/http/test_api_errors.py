"""Every error under /api/ is JSON {"code", "detail"}, whoever answers it: DRF, the
URL resolver (unknown paths, ids that are not UUIDs) or Django's own 400 and 500."""

import json
import uuid

import pytest
from django.core.exceptions import RequestDataTooBig
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from config.accounts.tokens import issue_token
from config.http import api_fallbacks
from tests.conftest import pdf_upload
from tests.factories import make_pdf

# An id no row has (the same in every test process: pytest-xdist compares collections).
UNKNOWN = uuid.UUID("00000000-0000-4000-8000-00000000dead")

pytestmark = pytest.mark.django_db


def assert_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    body = json.loads(response.content)
    assert body["code"] == code
    assert body["detail"]
    return body


@pytest.mark.parametrize(
    "path",
    [
        f"/api/jobs/{UNKNOWN}/",
        f"/api/documents/{UNKNOWN}/",
        f"/api/documents/{UNKNOWN}/retry/",
    ],
)
def test_an_unknown_id_answers_404_not_found(alice_client, path):
    method = alice_client.post if path.endswith("retry/") else alice_client.get

    assert_error(method(path), 404, "not_found")


@pytest.mark.parametrize(
    "path", ["/api/jobs/not-a-uuid/", "/api/documents/not-a-uuid/", "/api/documents/123/retry/"]
)
def test_a_malformed_id_answers_the_same_json_404_as_an_unknown_one(alice_client, path):
    method = alice_client.post if path.endswith("retry/") else alice_client.get

    assert_error(method(path), 404, "not_found")


@pytest.mark.parametrize("path", ["/api/jobs/a%0Ab/", "/api/%0A"])
def test_an_id_with_a_newline_answers_the_json_404(alice_client, path):
    # Found by the schema fuzz test: a generated job id with a newline in it got
    # Django's HTML 404, a content type the operation does not declare.
    assert_error(alice_client.get(path), 404, "not_found")


@pytest.mark.parametrize("path", ["/api/jobs/not-a-uuid/", "/api/no-such-endpoint/", "/api/"])
def test_a_path_no_route_matches_says_where_the_endpoints_are(alice_client, path):
    body = assert_error(alice_client.get(path), 404, "not_found")

    assert path in body["detail"]
    assert "/api/docs/" in body["detail"]


@pytest.mark.parametrize("method", ["get", "post", "put", "delete"])
def test_an_unknown_path_is_404_for_any_method_even_anonymous(client, method):
    assert_error(getattr(client, method)("/api/jobs/not-a-uuid/"), 404, "not_found")


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_missing_final_slash_answers_308_to_the_endpoint_saying_so(alice_client, method):
    response = getattr(alice_client, method)("/api/documents?reprocess=true")

    body = assert_error(response, 308, "slash_missing")
    assert response["Location"] == "/api/documents/?reprocess=true"
    assert "/api/documents/" in body["detail"]


def test_a_missing_final_slash_on_no_endpoint_is_a_plain_404(alice_client):
    assert_error(alice_client.get("/api/jobs"), 404, "not_found")


def test_pages_outside_the_api_keep_djangos_html_404(client):
    response = client.get("/no-such-page/")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.parametrize("header", [None, "Basic YWxpY2U6cGFzc3dvcmQ="])
def test_requests_without_a_token_answer_401_saying_which_header(client, header):
    extra = {"HTTP_AUTHORIZATION": header} if header else {}

    response = client.get("/api/documents/", **extra)

    body = assert_error(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Token"
    assert "Authorization: Token <key>" in body["detail"]


def test_a_wrong_token_answers_401_authentication_failed(client):
    response = client.get("/api/documents/", HTTP_AUTHORIZATION="Token not-a-real-token")

    assert_error(response, 401, "authentication_failed")


def test_a_session_without_its_csrf_token_answers_403_permission_denied(alice):
    browser = APIClient(enforce_csrf_checks=True)
    browser.force_login(alice)

    response = browser.post("/api/documents/", {"file": pdf_upload(make_pdf())})

    body = assert_error(response, 403, "permission_denied")
    assert "CSRF" in body["detail"]


def test_a_method_an_endpoint_lacks_answers_405_method_not_allowed(alice_client):
    assert_error(alice_client.put(f"/api/jobs/{uuid.uuid4()}/"), 405, "method_not_allowed")


def test_an_upload_that_is_not_multipart_answers_415_unsupported_media_type(alice, broker):
    client = Client(HTTP_AUTHORIZATION=f"Token {issue_token(alice).key}")

    response = client.post(
        "/api/documents/", "file=report.pdf", content_type="application/x-www-form-urlencoded"
    )

    assert_error(response, 415, "unsupported_media_type")


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "application/pdf"])
def test_a_file_sent_as_the_whole_body_is_told_to_use_a_form_part(alice, broker, content_type):
    # What `curl --data-binary @report.pdf` sends (curl's default type, or the one -H set).
    client = Client(HTTP_AUTHORIZATION=f"Token {issue_token(alice).key}")

    response = client.post("/api/documents/", make_pdf(), content_type=content_type)

    body = assert_error(response, 415, "unsupported_media_type")
    assert "-F file=@report.pdf" in body["detail"]
    assert "--data-binary" in body["detail"]
    assert repr(content_type) in body["detail"]


def test_no_credentials_names_both_schemes_and_where_keys_are_made(client):
    body = assert_error(client.get("/api/documents/"), 401, "not_authenticated")

    assert "Authorization: Token <key>" in body["detail"]
    assert "Authorization: Bearer <key>" in body["detail"]
    assert "/accounts/tokens/" in body["detail"]


def test_asking_for_html_answers_406_not_acceptable_in_json(alice_client):
    response = alice_client.get("/api/documents/", HTTP_ACCEPT="text/html")

    assert_error(response, 406, "not_acceptable")


def test_form_fields_too_large_to_hold_answer_413_in_json(alice_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    as_text = make_pdf(pages=20).decode("latin-1")  # curl -F 'file=<report.pdf'
    assert len(as_text) > 10_000

    response = alice_client.post("/api/documents/", {"file": as_text}, format="multipart")

    body = assert_error(response, 413, "fields_too_large")
    assert "file=@" in body["detail"]


def test_a_server_error_under_the_api_answers_json_500():
    request = RequestFactory().get("/api/documents/")

    assert_error(api_fallbacks.server_error(request), 500, "server_error")


def test_a_server_error_elsewhere_keeps_djangos_page():
    response = api_fallbacks.server_error(RequestFactory().get("/"))

    assert response.status_code == 500
    assert response["Content-Type"].startswith("text/html")


def test_a_request_django_cannot_read_under_the_api_answers_json_400():
    request = RequestFactory().get("/api/documents/")

    assert_error(api_fallbacks.bad_request(request, ValueError("bad")), 400, "bad_request")
    too_big = api_fallbacks.bad_request(request, RequestDataTooBig("big"))
    assert_error(too_big, 413, "fields_too_large")
