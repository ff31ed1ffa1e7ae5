"""The webhooks API and the upload's webhook_url, as /api/schema/ describes them."""

import pytest

pytestmark = pytest.mark.django_db


def test_the_schema_describes_the_webhooks_api_and_its_refusals(client):
    schema = client.get("/api/schema/?format=json").json()

    paths = schema["paths"]
    create = paths["/api/webhooks/"]["post"]
    assert {"201", "400"} <= set(create["responses"])
    created = create["responses"]["201"]["content"]["application/json"]["schema"]["$ref"]
    assert "secret" in schema["components"]["schemas"][created.rsplit("/", 1)[-1]]["properties"]
    listed = paths["/api/webhooks/"]["get"]["responses"]["200"]["content"]["application/json"]
    item = listed["schema"]["$ref"].rsplit("/", 1)[-1]  # the page; its results hold endpoints
    page = schema["components"]["schemas"][item]["properties"]["results"]["items"]["$ref"]
    assert "secret" not in schema["components"]["schemas"][page.rsplit("/", 1)[-1]]["properties"]
    assert "404" in paths["/api/webhooks/{id}/"]["delete"]["responses"]
    assert set(paths["/api/webhooks/signing-secret/"]) == {"get", "post"}


def test_the_upload_form_names_webhook_url(client):
    schema = client.get("/api/schema/?format=json").json()

    for path in ("/api/documents/", "/api/documents/{id}/versions/"):
        body = schema["paths"][path]["post"]["requestBody"]["content"]["multipart/form-data"]
        form = schema["components"]["schemas"][body["schema"]["$ref"].rsplit("/", 1)[-1]]
        assert "webhook_url" in form["properties"]
        assert "webhook_url" not in form.get("required", [])
