"""Search with `tag=` and `metadata.<key>=`: only the documents that have them, in every
mode and on both vector paths."""

import pytest

from documents.models import Document
from search.embedding import hashing_embed
from search.models import Chunk
from search.retrieval.scope import Filters, Scope
from search.retrieval.vector import nearest
from tests.factories import make_document
from tests.search.chunks import ready_document

pytestmark = pytest.mark.django_db

URL = "/api/search/"
TEXT = "The quarterly report shows revenue growth in every region."


def labelled(owner, name: str, *, tags=(), metadata=None) -> Document:
    document = ready_document(owner, [f"{TEXT} ({name})"], filename=f"{name}.pdf")
    Document.objects.filter(id=document.id).update(tags=list(tags), metadata=metadata or {})
    return document


@pytest.fixture
def shelf(alice, bob):
    return {
        "contract": labelled(
            alice, "contract", tags=["contracts", "2024"], metadata={"year": 2024}
        ),
        "old": labelled(alice, "old", tags=["contracts"], metadata={"year": "2019"}),
        "memo": labelled(alice, "memo", metadata={"draft": True}),
        "bobs": labelled(bob, "bobs", tags=["contracts", "2024"], metadata={"year": 2024}),
    }


def found(client, shelf, **params) -> set[str]:
    response = client.get(URL, {"q": "quarterly report revenue", **params})
    assert response.status_code == 200, response.content
    names = {str(d.id): name for name, d in shelf.items()}
    return {names[hit["document_id"]] for hit in response.json()["results"]}


@pytest.mark.parametrize("mode", ["hybrid", "vector", "text"])
@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({}, {"contract", "old", "memo"}),
        ({"tag": "contracts"}, {"contract", "old"}),
        ({"tag": ["contracts", "2024"]}, {"contract"}),
        ({"metadata.year": "2024"}, {"contract"}),
        ({"metadata.year": "2019"}, {"old"}),
        ({"metadata.draft": "true"}, {"memo"}),
        ({"tag": "contracts", "metadata.draft": "true"}, set()),
    ],
)
def test_a_search_sees_only_the_documents_its_filters_keep(
    alice_client, shelf, mode, filters, expected
):
    assert found(alice_client, shelf, mode=mode, **filters) == expected


def test_a_bad_filter_is_refused_naming_it(alice_client, shelf):
    response = alice_client.get(URL, {"q": "report", "tag": ""})

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert set(response.json()["fields"]) == {"tag"}


def test_pending_documents_counts_only_those_the_filters_keep(alice_client, alice, shelf):
    make_document(alice, tags=["contracts"])  # queued: not searchable yet
    make_document(alice, tags=["memos"])

    everything = alice_client.get(URL, {"q": "report"}).json()
    contracts = alice_client.get(URL, {"q": "report", "tag": "contracts"}).json()

    assert (everything["pending_documents"], contracts["pending_documents"]) == (2, 1)


@pytest.mark.parametrize("exact", [True, False])
def test_both_vector_paths_keep_to_the_filtered_documents(alice, shelf, exact, settings):
    """The exact scan and the HNSW walk (iterative scan past the filtered-out rows)."""
    query = hashing_embed([TEXT], settings.INGEST_EMBED_DIMENSIONS)[0]
    scope = Scope(owner_id=alice.pk, filters=Filters(tags=("contracts", "2024")))

    hits = nearest(scope, query, 10, exact=exact)

    owners = dict(Chunk.objects.values_list("id", "document_id"))
    assert hits, "the filtered document's chunk is found"
    assert {owners[chunk_id] for chunk_id, _ in hits} == {shelf["contract"].id}
