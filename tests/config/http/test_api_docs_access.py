"""Whether /api/schema/ and the docs pages need a sign-in: INGEST_API_DOCS_PUBLIC."""

import pytest
from django.test import Client

from config.accounts.tokens import issue_token

pytestmark = pytest.mark.django_db


def test_by_default_anyone_may_read_the_schema_and_the_docs(client):
    assert client.get("/api/schema/?format=json").status_code == 200
    assert client.get("/api/docs/").status_code == 200
    assert client.get("/api/redoc/").status_code == 200


@pytest.fixture
def private_docs(settings):
    settings.INGEST_API_DOCS_PUBLIC = False


def test_private_schema_answers_401_to_anyone_and_200_to_a_token(private_docs, alice, client):
    anonymous = client.get("/api/schema/?format=json")
    with_token = client.get(
        "/api/schema/?format=json", HTTP_AUTHORIZATION=f"Token {issue_token(alice).key}"
    )

    assert anonymous.status_code == 401
    assert anonymous.json()["code"] == "not_authenticated"
    assert with_token.status_code == 200
    assert "/api/documents/" in with_token.json()["paths"]


@pytest.mark.parametrize("path", ["/api/docs/", "/api/redoc/"])
def test_private_docs_pages_send_a_visitor_to_sign_in(private_docs, alice, path):
    visitor = Client().get(path)
    signed_in = Client()
    signed_in.force_login(alice)

    assert visitor.status_code == 302
    assert visitor["Location"] == f"/accounts/login/?next={path}"
    assert signed_in.get(path).status_code == 200
    assert signed_in.get("/api/schema/?format=json").status_code == 200
