import re

import pytest
from django.contrib.staticfiles import finders

pytestmark = pytest.mark.django_db


def test_the_schema_lists_every_endpoint_with_its_errors(client):
    response = client.get("/api/schema/?format=json")

    assert response.status_code == 200
    schema = response.json()
    assert set(schema["paths"]) == {
        "/api/documents/",
        "/api/documents/{id}/",
        "/api/chunks/{id}/",
        "/api/documents/{id}/chunks/",
        "/api/documents/{id}/content/",
        "/api/documents/{id}/file/",
        "/api/documents/{id}/pages/{n}.png",
        "/api/documents/{id}/retry/",
        "/api/documents/{id}/versions/",
        "/api/jobs/{job_id}/",
        "/api/search/",
        "/api/uploads/",
        "/api/uploads/{id}/complete/",
        "/api/webhooks/",
        "/api/webhooks/{id}/",
        "/api/webhooks/{id}/rotate-secret/",
        "/api/webhooks/signing-secret/",
    }
    upload = schema["paths"]["/api/documents/"]["post"]
    assert {"202", "400", "413", "415", "422", "429", "503"} <= set(upload["responses"])
    assert "multipart/form-data" in upload["requestBody"]["content"]
    assert "examples" in upload["responses"]["503"]["content"]["application/json"]
    assert "409" in schema["paths"]["/api/documents/{id}/retry/"]["post"]["responses"]
    content = schema["paths"]["/api/documents/{id}/content/"]["get"]
    assert {"200", "304", "400", "404", "409", "410"} <= set(content["responses"])
    assert {"text/markdown", "application/json", "text/plain"} <= set(
        content["responses"]["200"]["content"]
    )
    chunks = schema["paths"]["/api/documents/{id}/chunks/"]["get"]
    assert {"200", "400", "404", "409", "410"} <= set(chunks["responses"])
    assert {p["name"] for p in chunks["parameters"]} >= {"cursor", "include", "version"}
    chunk = schema["paths"]["/api/chunks/{id}/"]["get"]
    assert "neighbours" in {p["name"] for p in chunk["parameters"]}
    image = schema["paths"]["/api/documents/{id}/pages/{n}.png"]["get"]
    assert {"200", "304", "400", "404", "409", "410", "422", "503"} <= set(image["responses"])
    assert set(image["responses"]["200"]["content"]) == {"image/png"}


def test_the_interactive_docs_use_only_local_assets(client):
    page = client.get("/api/docs/").content.decode()

    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert assets, "the page loads its scripts and styles"
    assert all(url.startswith("/static/") for url in assets), assets
    for url in assets:
        assert finders.find(url.removeprefix("/static/")), f"{url} is not shipped"
