"""A JSON body the parser cannot read is 400 `parse_error`, on every endpoint that reads
one: malformed, nested deeper than Python's parser recurses, or holding a number too long
for int(). The storage events' SNS envelope, a JSON text inside the body, likewise."""

import json

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from tests.conftest import pdf_upload
from tests.factories import make_document, make_pdf

pytestmark = pytest.mark.django_db

DEEP = "[" * 100_000
HUGE_NUMBER = '{"events": [1' + "0" * 5000 + "]}"
TOKEN = "storage-events-secret-of-32-characters"


def post_json(client: APIClient, method: str, path: str, body: str, **headers: str):
    return getattr(client, method)(path, body, content_type="application/json", **headers)


@pytest.fixture
def endpoints(alice, alice_client) -> list[tuple[APIClient, str, str, dict]]:
    """(client, method, path, headers) of the JSON endpoints: a document's labels, the
    webhook endpoints, and the bucket's events (its own token, no user)."""
    document = make_document(alice)
    events = {"HTTP_AUTHORIZATION": f"Bearer {TOKEN}"}
    return [
        (alice_client, "patch", f"/api/documents/{document.id}/", {}),
        (alice_client, "post", "/api/webhooks/", {}),
        (APIClient(), "post", "/api/uploads/events/", events),
    ]


def parse_error(response) -> str:
    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert body["code"] == "parse_error", body
    return body["detail"]


@override_settings(INGEST_STORAGE_EVENTS_TOKEN=TOKEN)
@pytest.mark.parametrize("body", ["{not json", DEEP, HUGE_NUMBER])
def test_a_body_the_parser_cannot_read_is_parse_error_everywhere(endpoints, body):
    for client, method, path, headers in endpoints:
        detail = parse_error(post_json(client, method, path, body, **headers))

        assert "JSON parse error" in detail, (path, detail)
        assert "set_int_max_str_digits" not in detail


@override_settings(INGEST_STORAGE_EVENTS_TOKEN=TOKEN)
def test_the_detail_says_why_in_plain_words(alice_client, endpoints):
    client, method, path, headers = endpoints[1]

    deep = parse_error(post_json(client, method, path, DEEP, **headers))
    huge = parse_error(post_json(client, method, path, HUGE_NUMBER, **headers))

    assert "nested too deeply" in deep
    assert "a number of 5,001 digits" in huge


@override_settings(INGEST_STORAGE_EVENTS_TOKEN=TOKEN)
def test_an_sns_message_nested_too_deeply_is_no_event():
    envelope = {"Type": "Notification", "Message": DEEP}

    response = APIClient().post(
        "/api/uploads/events/",
        json.dumps(envelope),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {TOKEN}",
    )

    assert response.status_code == 200, response.content[:300]
    assert response.json() == {"handled": []}


def test_a_metadata_field_nested_too_deeply_is_invalid_metadata(alice_client, broker):
    response = alice_client.post(
        "/api/documents/", {"file": pdf_upload(make_pdf()), "metadata": DEEP}
    )

    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert body["code"] == "invalid"
    assert "nested too deeply" in " ".join(body["fields"]["metadata"])
