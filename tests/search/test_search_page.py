"""The search box's server side: /search/ answers a fragment to htmx and a whole page
otherwise, over the signed-in user's ready documents only, and a result's link opens the
document's page at the whole passage."""

import pytest
from django.test import Client

from tests.factories import make_document
from tests.search.chunks import add_chunks, ready_document

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_results_are_the_users_own_passages_with_marked_words(alice, bob):
    mine = ready_document(
        alice, ["Quarterly revenue grew in the northern region.", "Unrelated text."]
    )
    ready_document(bob, ["Quarterly revenue of another company."], filename="bob.pdf")

    page = signed_in(alice).get("/search/", {"q": "quarterly revenue"}, **HTMX)

    html = page.content.decode()
    assert page.status_code == 200
    assert "<html" not in html  # the fragment htmx swaps in
    assert 'data-state="results"' in html
    assert "a.pdf" in html
    assert "bob.pdf" not in html
    assert "<mark>" in html
    assert f"/documents/{mine.id}/?page=1&amp;chunk=" in html  # the viewer at its page
    assert "page 1" in html


def test_a_chunks_markup_is_shown_as_text(alice):
    ready_document(alice, ["<script>alert('x')</script> payroll figures <b>bold</b>"])

    html = signed_in(alice).get("/search/", {"q": "payroll"}, **HTMX).content.decode()

    assert "<script>" not in html
    assert "&lt;/script&gt;" in html
    assert "<b>" not in html
    assert "&lt;b&gt;bold" in html


def test_empty_no_result_and_too_long_states(alice):
    ready_document(alice, ["Invoices for March."])
    client = signed_in(alice)

    def state(q: str) -> str:
        return client.get("/search/", {"q": q}, **HTMX).content.decode()

    assert 'data-state="empty"' in state("")
    assert 'data-state="empty"' in state("   ")
    assert 'data-state="no-results"' in state("zebra")
    too_long = state("word " * 300)
    assert 'data-state="problem"' in too_long
    assert "at most 1,000" in too_long


def test_without_htmx_the_results_come_in_a_whole_page(alice):
    ready_document(alice, ["Invoices for March."])

    page = signed_in(alice).get("/search/", {"q": "invoices"})

    html = page.content.decode()
    assert "<html" in html
    assert 'id="search-q"' in html
    assert 'value="invoices"' in html
    assert 'data-state="results"' in html


def test_the_home_page_has_the_search_box(alice):
    html = signed_in(alice).get("/").content.decode()

    assert 'role="search"' in html
    assert 'id="search-q"' in html
    assert 'data-state="empty"' in html


def test_search_needs_a_sign_in():
    page = Client().get("/search/", {"q": "x"})

    assert page.status_code == 302
    assert "/accounts/login/" in page["Location"]


def test_a_results_link_opens_the_whole_passage_with_the_words_marked(alice):
    document = ready_document(alice, ["First chunk.", "The budget for <2027> is approved."])
    [_, second] = document.chunks.order_by("index")

    page = signed_in(alice).get(
        f"/documents/{document.id}/", {"chunk": str(second.id), "q": "budget approved"}
    )

    html = page.content.decode()
    assert 'id="passage"' in html
    assert "Page 2" in html
    assert "The <mark>budget</mark> for &lt;2027&gt; is <mark>approved</mark>." in html


def test_a_passage_of_a_replaced_version_or_another_document_is_not_shown(alice, bob):
    document = ready_document(alice, ["Old text of version one."])
    [old] = document.chunks.all()
    other = ready_document(bob, ["Bob's secret passage."], filename="bob.pdf")
    [bobs] = other.chunks.all()
    add_chunks(document, 2, ["New text."])
    old.delete()  # version 2 became ready: version 1's chunks are gone
    client = signed_in(alice)

    gone = client.get(f"/documents/{document.id}/", {"chunk": str(old.id)}).content.decode()
    foreign = client.get(f"/documents/{document.id}/", {"chunk": str(bobs.id)}).content.decode()
    garbage = client.get(f"/documents/{document.id}/", {"chunk": "not-a-uuid"})

    assert "no longer stored" in gone
    assert "secret" not in foreign
    assert "no longer stored" in foreign
    assert garbage.status_code == 200


def test_documents_still_being_processed_are_counted_not_hidden(alice):
    ready_document(alice, ["The lease ends in March."])
    make_document(alice, filename="scan.pdf")  # queued: its first version is not searchable
    make_document(alice, filename="other.pdf")
    client = signed_in(alice)

    found = client.get("/search/", {"q": "lease"}, **HTMX).content.decode()
    nothing = client.get("/search/", {"q": "pension"}, **HTMX).content.decode()

    assert 'data-state="results"' in found
    assert "2 documents are still being processed and are not searched yet." in found
    assert 'data-state="pending"' in nothing
    assert "No passage" not in nothing
    assert "2 documents are still being processed" in nothing


def test_a_documents_page_searches_that_document_only(alice, bob):
    mine = ready_document(alice, ["The lease ends in March."])
    ready_document(alice, ["The lease of the other flat."], filename="other.pdf")
    theirs = ready_document(bob, ["Bob's lease."], filename="bob.pdf")
    client = signed_in(alice)

    detail = client.get(f"/documents/{mine.id}/").content.decode()
    scoped = client.get("/search/", {"q": "lease", "document": str(mine.id)}, **HTMX)
    whole = client.get("/search/", {"q": "lease", "document": str(mine.id)})

    assert "Search this document" in detail
    assert f'<input type="hidden" name="document" value="{mine.id}">' in detail
    html = scoped.content.decode()
    assert "1 passage for" in html
    assert "other.pdf" not in html
    assert f"← {mine.filename}" in whole.content.decode()
    assert client.get("/search/", {"q": "lease", "document": str(theirs.id)}).status_code == 404
    assert client.get("/search/", {"q": "lease", "document": "not-a-uuid"}).status_code == 404


def test_a_hits_relevance_is_shown_where_the_embedding_gives_one(alice, settings):
    from documents.models import Document
    from search.embedding import embed
    from search.models import Chunk

    ready_document(alice, ["The tenant must pay the rent on the first day of each month."])
    words_only = signed_in(alice).get("/search/", {"q": "rent"}, **HTMX).content.decode()
    settings.INGEST_EMBED_PROVIDER = "local"
    settings.INGEST_LOCAL_PRECISION = "int8"
    settings.INGEST_SEARCH_MIN_SIMILARITY = None
    for chunk in Chunk.objects.all():  # as the local model would have embedded it
        [chunk.embedding] = embed([chunk.text])
        chunk.save(update_fields=["embedding"])
    Document.objects.update(ready_embed_model="local:all-MiniLM-L6-v2-int8:384")

    html = signed_in(alice).get("/search/", {"q": "when is the rent due"}, **HTMX)

    assert "hit-relevance" not in words_only  # `hashing`: no fitted weights, nothing shown
    assert 'class="hit-relevance"' in html.content.decode()
    assert "relevance 0." in html.content.decode()
