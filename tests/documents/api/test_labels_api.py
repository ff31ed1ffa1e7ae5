"""Tags and metadata: given on upload, changed with PATCH, filtered on by the list."""

import json

import pytest

from documents.models import Document
from tests.conftest import pdf_upload
from tests.factories import make_document, make_pdf, stored_files

pytestmark = pytest.mark.django_db(transaction=True)

URL = "/api/documents/"


def upload(client, *, pages: int = 1, **fields):
    return client.post(URL, {"file": pdf_upload(make_pdf(pages=pages)), **fields})


def invalid(response, field: str) -> str:
    """The message of a 400 `invalid` for `field`."""
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid"
    assert field in body["fields"], body
    return " ".join(body["fields"][field])


def test_an_upload_labels_its_documents_with_repeated_tags_and_one_metadata_object(
    alice_client, broker
):
    metadata = {"client": "acme", "year": 2024, "signed": True, "score": 0.5}

    response = upload(
        alice_client, tags=["contracts", " 2024 ", "contracts"], metadata=json.dumps(metadata)
    )

    assert response.status_code == 202, response.content
    document_id = response.json()["results"][0]["document_id"]
    shown = alice_client.get(f"{URL}{document_id}/").json()
    assert shown["tags"] == ["contracts", "2024"], "trimmed, repeats dropped, order kept"
    assert shown["metadata"] == metadata


def test_an_upload_without_labels_has_none(alice_client, broker):
    response = upload(alice_client)

    document = Document.objects.get(id=response.json()["results"][0]["document_id"])
    assert (document.tags, document.metadata) == ([], {})


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"tags": [f"t{n}" for n in range(51)]}, "At most 50 tags"),
        ({"tags": ["fine", "   "]}, "cannot be empty"),
        ({"tags": ["x" * 65]}, "at most 64 characters"),
        ({"metadata": "{not json"}, "Not valid JSON"),
        ({"metadata": "[1, 2]"}, "A JSON object, not a list"),
        ({"metadata": json.dumps({"nested": {"a": 1}})}, "metadata is flat"),
        ({"metadata": json.dumps({"list": [1]})}, "metadata is flat"),
        ({"metadata": json.dumps({"none": None})}, "is null"),
        ({"metadata": json.dumps({"big": "x" * 9000})}, "At most 8,192 bytes"),
        ({"metadata": json.dumps({"": 1})}, "non-empty string"),
        ({"metadata": ["{}", "{}"]}, "Send one metadata field"),
        # Past int()'s 4,300 digits: refused by name, in words, not with Python's advice.
        ({"metadata": '{"year": 1' + "0" * 5000 + "}"}, "'year' is a number of 5,001 digits"),
        ({"metadata": '{"n": -' + "9" * 4301 + "}"}, "at most 4,300"),
    ],
)
def test_bad_labels_refuse_the_upload_before_anything_is_stored(alice_client, broker, fields, says):
    response = upload(alice_client, **fields)

    field = next(iter(fields))
    assert says in invalid(response, field)
    assert not Document.objects.exists()
    assert not stored_files()


def test_a_duplicate_keeps_its_own_labels(alice_client, broker):
    content = make_pdf()
    first = alice_client.post(URL, {"file": pdf_upload(content), "tags": ["first"]})

    again = alice_client.post(URL, {"file": pdf_upload(content), "tags": ["second"]})

    [result] = again.json()["results"]
    assert result["duplicate"] is True
    assert result["document_id"] == first.json()["results"][0]["document_id"]
    assert Document.objects.get().tags == ["first"]


def test_an_idempotency_key_is_bound_to_the_labels_too(alice_client, broker):
    content = make_pdf()
    headers = {"HTTP_IDEMPOTENCY_KEY": "labels-1"}
    alice_client.post(URL, {"file": pdf_upload(content), "tags": ["a"]}, **headers)

    response = alice_client.post(URL, {"file": pdf_upload(content), "tags": ["b"]}, **headers)

    assert response.status_code == 422
    assert response.json()["code"] == "idempotency_key_reused"


def test_a_new_version_refuses_labels_and_says_where_to_change_them(alice_client, alice, broker):
    document = make_document(alice, tags=["kept"])

    response = alice_client.post(
        f"{URL}{document.id}/versions/", {"file": pdf_upload(make_pdf()), "tags": ["new"]}
    )

    assert "PATCH /api/documents/" in invalid(response, "tags")
    document.refresh_from_db()
    assert (document.version, document.tags) == (1, ["kept"])


# ------------------------------------------------------------------------ PATCH


def test_patch_replaces_what_it_sends_and_leaves_the_rest(alice_client, alice):
    document = make_document(alice, tags=["old"], metadata={"year": 2023})

    response = alice_client.patch(f"{URL}{document.id}/", {"tags": ["new", "two"]}, format="json")

    assert response.status_code == 200, response.content
    assert response.json()["tags"] == ["new", "two"]
    assert response.json()["metadata"] == {"year": 2023}
    response = alice_client.patch(f"{URL}{document.id}/", {"metadata": {}}, format="json")
    assert response.json()["metadata"] == {}
    document.refresh_from_db()
    assert (document.tags, document.metadata) == (["new", "two"], {})


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        ({"tags": "papers"}, "tags", "list"),
        ({"tags": ["ok", ""]}, "tags", ""),
        ({"metadata": {"a": {"b": 1}}}, "metadata", "flat"),
        ({"metadata": "year=2024"}, "metadata", "dictionary"),
        ({"metadata": {"k" * 65: 1}}, "metadata", "at most 64 characters"),
        ({"filename": "renamed.pdf"}, "filename", "Only tags and metadata"),
        ({}, "non_field_errors", "Send tags, metadata or both"),
    ],
)
def test_a_bad_patch_changes_nothing(alice_client, alice, body, field, says):
    document = make_document(alice, tags=["kept"], metadata={"k": "v"})

    response = alice_client.patch(
        f"{URL}{document.id}/",
        json.dumps(body),
        content_type="application/json",
    )

    assert says in invalid(response, field)
    document.refresh_from_db()
    assert (document.filename, document.tags, document.metadata) == ("a.pdf", ["kept"], {"k": "v"})


def test_another_owners_document_cannot_be_patched(bob_client, alice):
    document = make_document(alice, tags=["alices"])

    response = bob_client.patch(f"{URL}{document.id}/", {"tags": []}, format="json")

    assert response.status_code == 404
    document.refresh_from_db()
    assert document.tags == ["alices"]


# ------------------------------------------------------------------------ filters


@pytest.fixture
def labelled(alice, bob):
    made = {
        "both": make_document(alice, tags=["papers", "2024"], metadata={"year": 2024}),
        "papers": make_document(alice, tags=["papers"], metadata={"year": "2024", "draft": True}),
        "none": make_document(alice, metadata={"draft": "false"}),
        "bobs": make_document(bob, tags=["papers", "2024"], metadata={"year": 2024}),
    }
    return {name: str(d.id) for name, d in made.items()}


def listed(client, query: str, labelled) -> set[str]:
    response = client.get(f"{URL}?{query}")
    assert response.status_code == 200, response.content
    names = {v: k for k, v in labelled.items()}
    return {names[d["id"]] for d in response.json()["results"]}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("tag=papers", {"both", "papers"}),
        ("tag=papers&tag=2024", {"both"}),
        ("tag=Papers", set()),
        ("metadata.year=2024", {"both", "papers"}),
        ("metadata.draft=true", {"papers"}),
        ("metadata.draft=false", {"none"}),
        ("metadata.year=2024&tag=2024", {"both"}),
        ("metadata.year=2023", set()),
        ("metadata.nothing=2024", set()),
    ],
)
def test_the_list_keeps_documents_with_every_tag_and_the_metadata_asked_for(
    alice_client, labelled, query, expected
):
    assert listed(alice_client, query, labelled) == expected


@pytest.mark.parametrize(
    ("query", "field"),
    [("tag=", "tag"), ("tag=" + "x" * 65, "tag"), ("metadata.=1", "metadata.")],
)
def test_a_bad_filter_answers_400_naming_it(alice_client, labelled, query, field):
    invalid(alice_client.get(f"{URL}?{query}"), field)


def test_a_filter_on_a_number_too_long_to_read_finds_that_text(alice_client, alice):
    digits = "1" + "0" * 5000  # past int()'s 4,300 digits: no stored number, only text
    kept = make_document(alice, metadata={"id": digits})
    make_document(alice, metadata={"id": "1"})

    response = alice_client.get(URL, {"metadata.id": digits})

    assert response.status_code == 200, response.content[:300]
    assert [d["id"] for d in response.json()["results"]] == [str(kept.id)]


def test_a_search_filter_on_a_number_too_long_to_read_is_no_error(alice_client):
    response = alice_client.get("/api/search/", {"q": "minutes", "metadata.id": "9" * 5000})

    assert response.status_code == 200, response.content[:300]


def test_the_filters_are_served_by_the_gin_indexes(alice):
    from django.db import connection

    for n in range(200):
        make_document(alice, tags=[f"t{n}"], metadata={"n": n})
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE documents_document")
        cursor.execute("SET enable_seqscan = off")  # a small table: make the choice plain
    try:
        by_tag = Document.objects.filter(tags__contains=["t7"]).explain()
        by_metadata = Document.objects.filter(metadata__contains={"n": 7}).explain()
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET enable_seqscan")
    assert "document_tags" in by_tag, by_tag
    assert "document_metadata" in by_metadata, by_metadata
