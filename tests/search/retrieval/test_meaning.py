"""A search that compares vectors says which documents in its scope it could compare by their
words only: ready, but made by another embedding than the configured one (while they are
re-embedded after a change of model)."""

import pytest
from django.test import Client

from documents.mcp import shapes
from documents.models import Document
from search.embedding.signature import current_signature
from search.retrieval import meaning
from search.retrieval.query import search
from search.retrieval.scope import Filters
from tests.search.chunks import ready_document

pytestmark = pytest.mark.django_db

OTHER = "openai:text-embedding-3-small:384"
HTMX = {"HTTP_HX_REQUEST": "true"}


def made_by(document: Document, signature: str) -> Document:
    Document.objects.filter(id=document.id).update(ready_embed_model=signature)
    return document


@pytest.fixture
def shelf(alice, bob):
    """alice: two documents of another embedding, one unrecorded, one current; bob: one of
    another embedding."""
    old = made_by(ready_document(alice, ["the lease ends in March"], filename="b-lease.pdf"), OTHER)
    Document.objects.filter(id=old.id).update(tags=["flat"])
    made_by(ready_document(alice, ["the lease of the garage"], filename="a-garage.pdf"), OTHER)
    made_by(ready_document(alice, ["a lease from long ago"], filename="c-unrecorded.pdf"), "")
    current = ready_document(alice, ["the new lease"], filename="d-current.pdf")
    made_by(ready_document(bob, ["bob's lease"], filename="bob.pdf"), OTHER)
    return {"old": old, "current": current}


def test_it_counts_and_names_the_callers_documents_another_embedding_made(alice, shelf):
    answer = search(owner_id=alice.pk, q="lease", mode="hybrid")

    found = answer.not_searchable_by_meaning
    assert found.count == 3
    assert [filename for _, filename in found.documents] == [
        "a-garage.pdf",
        "b-lease.pdf",
        "c-unrecorded.pdf",
    ]
    # Their words still find them: every one of alice's leases is a hit.
    assert len(answer.results) == 4
    assert current_signature() != OTHER


def test_it_keeps_to_the_scope_and_to_the_modes_that_compare_vectors(alice, shelf):
    def count(**asked) -> int:
        return search(owner_id=alice.pk, q="lease", **asked).not_searchable_by_meaning.count

    assert count(mode="vector") == 3
    assert count(mode="text") == 0  # words only anyway: nothing to say
    assert count(mode="hybrid", document_id=shelf["old"].id) == 1
    assert count(mode="hybrid", document_id=shelf["current"].id) == 0
    assert count(mode="hybrid", filters=Filters(tags=("flat",))) == 1


def test_it_counts_up_to_a_bound_and_names_a_few(alice, monkeypatch):
    for n in range(7):
        made_by(ready_document(alice, [f"passage {n}"], filename=f"{n}.pdf"), OTHER)
    monkeypatch.setattr(meaning, "COUNTED", 5)
    monkeypatch.setattr(meaning, "LISTED", 3)

    found = search(owner_id=alice.pk, q="passage").not_searchable_by_meaning

    assert found.count == 5
    assert len(found.documents) == 3


def test_the_api_the_page_and_the_assistants_say_it(alice, alice_client, shelf):
    body = alice_client.get("/api/search/", {"q": "lease"}).json()
    words = alice_client.get("/api/search/", {"q": "lease", "mode": "text"}).json()
    client = Client()
    client.force_login(alice)
    page = client.get("/search/", {"q": "lease"}, **HTMX).content.decode()
    scoped = client.get("/search/", {"q": "lease", "document": str(shelf["old"].id)}, **HTMX)
    answer = search(owner_id=alice.pk, q="lease")
    out = shapes.search_out(answer, 0, "http://testserver", None)

    assert body["not_searchable_by_meaning"] == 3
    assert body["not_searchable_by_meaning_documents"][0] == {
        "document_id": str(Document.objects.get(filename="a-garage.pdf").id),
        "filename": "a-garage.pdf",
    }
    assert (words["not_searchable_by_meaning"], words["not_searchable_by_meaning_documents"]) == (
        0,
        [],
    )
    assert (
        "3 documents are still being re-embedded for the new model; they are found by their "
        "words until then." in page
    )
    assert "This document is still being re-embedded for the new model" in scoped.content.decode()
    assert out.not_searchable_by_meaning == 3
    assert [d.filename for d in out.not_searchable_by_meaning_documents][:1] == ["a-garage.pdf"]
    assert (
        "3 document(s) are still being re-embedded for a new embedding model, so only their "
        "words were searched (a-garage.pdf, b-lease.pdf, c-unrecorded.pdf)."
    ) in shapes.search_text(out)


def test_nothing_is_said_once_every_document_is_caught_up(alice, alice_client):
    ready_document(alice, ["the lease ends in March"])

    body = alice_client.get("/api/search/", {"q": "lease"}).json()

    assert (body["not_searchable_by_meaning"], body["not_searchable_by_meaning_documents"]) == (
        0,
        [],
    )
