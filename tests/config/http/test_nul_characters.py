"""A NUL character, which Postgres text cannot hold, is refused with 400 `invalid` wherever a
client can send one: a query string (the API's search, the pages) or an upload's
`webhook_url`. Nothing is stored, and no view meets it."""

import pytest
from django.test import Client

from documents.models import Document
from tests.conftest import pdf_upload
from tests.factories import make_pdf, stored_files

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/api/search/?q=a%00b", "/api/documents/?status=%00"])
def test_the_api_refuses_a_nul_in_the_query_string(alice_client, path):
    response = alice_client.get(path)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "NUL" in response.json()["detail"]


@pytest.mark.parametrize("path", ["/?q=%00", "/search/?q=x%00", "/admin/jobs/job/?q=%00"])
def test_the_pages_refuse_a_nul_in_the_query_string(alice, path):
    browser = Client()
    browser.force_login(alice)

    response = browser.get(path)

    assert response.status_code == 400
    assert "NUL" in response.content.decode()


def test_an_upload_whose_webhook_url_holds_a_nul_is_refused_and_stores_nothing(
    alice_client, broker
):
    response = alice_client.post(
        "/api/documents/",
        {"file": pdf_upload(make_pdf()), "webhook_url": "https://example.com/\x00hook"},
        format="multipart",
    )

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert not Document.objects.exists()
    assert stored_files() == []


def test_an_endpoint_whose_url_holds_a_nul_is_refused(alice_client):
    response = alice_client.post(
        "/api/webhooks/", {"url": "https://example.com/a\x00b"}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
