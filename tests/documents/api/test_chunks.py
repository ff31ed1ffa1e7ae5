"""GET /api/documents/{id}/chunks/ (cursor-paged, in reading order) and GET /api/chunks/{id}/
(a chunk with its neighbours): what a citation needs, owner-only, with coded refusals."""

import pytest
from django.conf import settings

from documents.models import Document
from search.embedding.hashing import words
from search.models import Chunk
from tests.bench.structure import corpus
from tests.conftest import new_version, processed
from tests.factories import make_document

pytestmark = pytest.mark.django_db(transaction=True)


def every_page(client, url: str, **params) -> list[list[dict]]:
    pages = []
    answer = client.get(url, params).json()
    pages.append(answer["results"])
    while answer["next"]:
        answer = client.get(answer["next"]).json()
        pages.append(answer["results"])
    return pages


def test_the_list_gives_every_chunk_once_in_reading_order_with_its_citation(alice_client, worker):
    report = processed(alice_client, corpus.report().pdf)
    stored = list(Chunk.objects.filter(document_id=report).order_by("index"))

    pages = every_page(alice_client, f"/api/documents/{report}/chunks/", page_size=2)
    listed = [chunk for page in pages for chunk in page]

    assert len(stored) >= 4  # so that paging by 2 takes several pages
    assert [len(page) for page in pages[:-1]] == [2] * (len(pages) - 1)
    assert [c["id"] for c in listed] == [str(c.id) for c in stored]
    assert [c["index"] for c in listed] == list(range(len(stored)))
    for chunk, row in zip(listed, stored, strict=True):
        assert chunk["text"] == row.text
        assert chunk["pages"] == list(range(row.page, (row.page_end or row.page) + 1))
        assert chunk["boxes"] == row.boxes
        assert chunk["boxes"]
        assert {box[0] for box in chunk["boxes"]} <= set(chunk["pages"])
        assert chunk["tokens"] == len(words(row.text))  # the hashing provider counts words
        assert (chunk["source"], chunk["confidence"], chunk["version"]) == ("text", None, 1)
        assert "embedding" not in chunk
    markets = next(c for c in listed if "Markets" in c["section"])
    assert markets["section"] == ["Overview", "Markets"]
    assert all(" > " not in heading for c in listed for heading in c["section"])


def test_include_embedding_adds_each_vector_and_its_signature(alice_client, worker):
    report = processed(alice_client, corpus.report().pdf)

    first = alice_client.get(
        f"/api/documents/{report}/chunks/", {"include": "embedding", "page_size": 1}
    ).json()["results"][0]
    wrong = alice_client.get(f"/api/documents/{report}/chunks/", {"include": "vectors"})

    row = Chunk.objects.get(id=first["id"])
    assert len(first["embedding"]) == settings.INGEST_EMBED_DIMENSIONS
    assert first["embedding"] == pytest.approx([float(v) for v in row.embedding])
    assert first["embedding_signature"] == Document.objects.get(id=report).ready_embed_model
    assert first["embedding_signature"].startswith("hashing:")
    assert (wrong.status_code, wrong.json()["code"]) == (400, "invalid")
    assert "vectors" in wrong.json()["fields"]["include"]


def test_a_chunk_comes_with_its_neighbours_in_reading_order(alice_client, worker):
    report = processed(alice_client, corpus.report().pdf)
    ids = [str(c.id) for c in Chunk.objects.filter(document_id=report).order_by("index")]

    middle = alice_client.get(f"/api/chunks/{ids[2]}/", {"neighbours": 2}).json()
    first = alice_client.get(f"/api/chunks/{ids[0]}/", {"neighbours": 1}).json()
    alone = alice_client.get(f"/api/chunks/{ids[1]}/").json()
    too_many = alice_client.get(f"/api/chunks/{ids[1]}/", {"neighbours": 21})

    assert middle["id"] == ids[2]
    assert [c["id"] for c in middle["before"]] == ids[0:2]
    assert [c["id"] for c in middle["after"]] == ids[3:5]
    assert (first["before"], [c["id"] for c in first["after"]]) == ([], ids[1:2])
    assert (alone["id"], alone["before"], alone["after"]) == (ids[1], [], [])
    assert (
        alone["section"]
        == next(
            c
            for c in alice_client.get(f"/api/documents/{report}/chunks/").json()["results"]
            if c["id"] == ids[1]
        )["section"]
    )
    assert (too_many.status_code, too_many.json()["code"]) == (400, "invalid")


def test_what_cannot_be_given_is_refused_with_a_code(alice_client, bob_client, alice, worker):
    report = processed(alice_client, corpus.report().pdf)
    old_chunk = str(Chunk.objects.filter(document_id=report).first().id)
    new_version(alice_client, report, corpus.tables().pdf)
    new_chunk = str(Chunk.objects.filter(document_id=report, version=2).first().id)
    queued = make_document(alice)

    def refusal(url: str, client=alice_client, **params) -> tuple[int, str]:
        answer = client.get(url, params)
        return answer.status_code, answer.json()["code"]

    listing = f"/api/documents/{report}/chunks/"
    assert refusal(listing, version=1) == (410, "version_pruned")
    assert refusal(listing, version=3) == (404, "version_not_found")
    assert refusal(listing, version="two") == (400, "invalid")
    assert refusal(listing, cursor="not-a-cursor") == (400, "invalid")
    assert refusal(f"/api/documents/{queued.id}/chunks/") == (409, "not_ready")
    assert refusal(listing, client=bob_client) == (404, "not_found")
    assert refusal(f"/api/chunks/{old_chunk}/") == (404, "not_found")  # replaced with v1
    assert refusal(f"/api/chunks/{new_chunk}/", client=bob_client) == (404, "not_found")
    assert alice_client.get(f"/api/chunks/{new_chunk}/").json()["version"] == 2
    v2 = alice_client.get(listing).json()["results"]
    assert {c["version"] for c in v2} == {2}
