"""GET /api/search/: auth, scope, the answer's shape, bad input, degraded answers, the
query-embedding cache (against the fake OpenAI server)."""

import uuid

import pytest
from django.test import Client
from rest_framework.test import APIClient

from config.accounts import tokens
from jobs.models import Job, JobStatus
from search.embedding.ratelimit import shared_limiter
from search.models import Chunk
from search.retrieval.query_vector import cache_key
from tests.factories import make_document
from tests.search.chunks import ready_document

pytestmark = pytest.mark.django_db

URL = "/api/search/"


@pytest.fixture
def alices_report(alice):
    return ready_document(
        alice,
        ["The quarterly report shows revenue growth.", "Travel expenses are due monthly."],
        filename="q3.pdf",
    )


def test_an_answer_has_the_documented_shape(alice_client, alices_report):
    response = alice_client.get(URL, {"q": "quarterly report"})

    assert response.status_code == 200
    body = response.json()
    assert set(body) == {
        "query",
        "mode",
        "took_ms",
        "degraded",
        "reranked",
        "rerank_error",
        "pending_documents",
        "not_searchable_by_meaning",
        "not_searchable_by_meaning_documents",
        "results",
        "next",
    }
    assert body["next"] is None
    assert body["pending_documents"] == 0
    assert body["not_searchable_by_meaning"] == 0
    assert (body["query"], body["mode"], body["degraded"]) == ("quarterly report", "hybrid", False)
    assert (body["reranked"], body["rerank_error"]) == (False, None)  # no INGEST_RERANK_URL
    first = body["results"][0]
    assert set(first) == {
        "chunk_id",
        "document_id",
        "filename",
        "version",
        "page",
        "index",
        "score",
        "text",
        "highlight",
        "source",
        "confidence",
        "section",
        "pages",
        "boxes",
        "relevance",
        "links",
    }
    assert first["relevance"] is None  # the tests' `hashing` embedding has no fitted weights
    assert (first["source"], first["confidence"]) == ("text", None)
    assert (first["section"], first["pages"], first["boxes"]) == ([], [1], [])
    assert first["document_id"] == str(alices_report.id)
    assert (first["filename"], first["version"], first["page"], first["index"]) == (
        "q3.pdf",
        1,
        1,
        0,
    )
    assert "<mark>quarterly</mark> <mark>report</mark>" in first["highlight"]


def test_a_token_or_a_session_is_needed(alice, alices_report):
    client = APIClient()
    assert client.get(URL, {"q": "report"}).status_code == 401

    client.credentials(HTTP_AUTHORIZATION=f"Token {tokens.issue_token(alice).key}")
    assert client.get(URL, {"q": "report"}).json()["results"][0]["index"] == 0

    session = APIClient()
    session.force_login(alice)
    assert session.get(URL, {"q": "report"}).status_code == 200


def test_other_users_see_nothing_of_alices_documents(bob_client, alices_report):
    response = bob_client.get(URL, {"q": "quarterly report"})

    assert response.status_code == 200
    assert response.json()["results"] == []


def test_another_users_document_filter_answers_404_like_an_unknown_one(bob_client, alices_report):
    foreign = bob_client.get(URL, {"q": "report", "document": str(alices_report.id)})
    unknown = bob_client.get(URL, {"q": "report", "document": str(uuid.uuid4())})

    assert foreign.status_code == unknown.status_code == 404
    assert foreign.json() == unknown.json()
    assert foreign.json()["code"] == "not_found"


def test_the_owners_document_filter_searches_that_document(alice_client, alice, alices_report):
    other = ready_document(alice, ["quarterly report of another kind"], filename="other.pdf")

    response = alice_client.get(URL, {"q": "quarterly report", "document": str(other.id)})

    assert {hit["document_id"] for hit in response.json()["results"]} == {str(other.id)}


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({}, "empty_query"),
        ({"q": ""}, "empty_query"),
        ({"q": "   \t "}, "empty_query"),
        ({"q": "x" * 1001}, "query_too_long"),
    ],
)
def test_an_empty_or_too_long_query_is_refused(alice_client, params, code):
    response = alice_client.get(URL, params)

    assert response.status_code == 400
    assert response.json()["code"] == code


def test_a_query_of_1000_characters_is_answered(alice_client, alices_report):
    assert alice_client.get(URL, {"q": "report " + "x" * 993}).status_code == 200


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"k": "0"}, "k"),
        ({"k": "201"}, "k"),
        ({"k": "ten"}, "k"),
        ({"mode": "fuzzy"}, "mode"),
        ({"document": "not-a-uuid"}, "document"),
    ],
)
def test_bad_parameters_are_refused_naming_the_field(alice_client, params, field):
    response = alice_client.get(URL, {"q": "report", **params})

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert set(body["fields"]) == {field}


@pytest.mark.parametrize("k", [1, 200])
def test_k_at_its_bounds_is_accepted(alice_client, alices_report, k):
    response = alice_client.get(URL, {"q": "report", "k": k, "mode": "vector"})

    assert response.status_code == 200
    # The other chunk shares no word with "report": the hashing vectors say nothing of it.
    assert len(response.json()["results"]) == 1


def test_the_endpoint_is_in_the_openapi_schema_with_its_errors(alice_client):
    schema = alice_client.get("/api/schema/?format=json").json()

    operation = schema["paths"]["/api/search/"]["get"]
    assert {"200", "400", "401", "404"} <= set(operation["responses"])
    assert {p["name"] for p in operation["parameters"]} >= {"q", "k", "mode", "document"}


# ------------------------------------------------------------------ the embedding provider


@pytest.fixture
def fast_search(settings):
    settings.INGEST_SEARCH_EMBED_TIMEOUT_SECONDS = 1.0
    settings.INGEST_SEARCH_EMBED_MAX_WAIT_SECONDS = 0.5


@pytest.mark.parametrize("failure", ["500", "429:30", "401"])
def test_hybrid_answers_from_text_alone_when_the_provider_fails(
    alice_client, alices_report, openai_server, fast_search, failure
):
    openai_server.script([failure])

    response = alice_client.get(URL, {"q": "quarterly report"})

    assert response.status_code == 200
    body = response.json()
    assert body["degraded"] is True
    assert [hit["index"] for hit in body["results"]] == [0]  # the word match only
    assert openai_server.calls == 1


def test_vector_mode_also_answers_from_text_when_the_provider_is_unreachable(
    alice_client, alices_report, settings, openai_server, fast_search
):
    settings.OPENAI_BASE_URL = "http://127.0.0.1:9/v1"  # nothing listens on the discard port

    response = alice_client.get(URL, {"q": "expenses", "mode": "vector"})

    assert response.status_code == 200
    body = response.json()
    assert (body["mode"], body["degraded"]) == ("vector", True)
    assert [hit["index"] for hit in body["results"]] == [1]


def test_a_query_embedding_is_cached_so_the_same_query_asks_the_provider_once(
    alice_client, alices_report, openai_server, fast_search
):
    first = alice_client.get(URL, {"q": "revenue growth"})
    second = alice_client.get(URL, {"q": "revenue growth"})
    third = alice_client.get(URL, {"q": "revenue growth", "mode": "vector"})

    assert first.json()["results"] == second.json()["results"]
    assert not second.json()["degraded"]
    assert third.status_code == 200
    assert openai_server.calls == 1  # the second and third came from Redis
    assert openai_server.requests[0]["input"] == ["revenue growth"]
    alice_client.get(URL, {"q": "revenue  growth"})  # another text: another request
    assert openai_server.calls == 2


def test_the_cache_key_names_the_owner_provider_model_and_dimensions(openai_server, settings):
    key = cache_key("hello", owner_id=7)

    assert ":7:openai:text-embedding-3-small:384:" in key
    assert cache_key("hello", owner_id=8) != key
    settings.INGEST_EMBED_MODEL = "text-embedding-3-large"
    assert cache_key("hello", owner_id=7) != key


def test_one_owners_search_does_not_warm_anothers(
    alice_client, bob_client, alices_report, openai_server, fast_search
):
    """A cache shared between owners would answer bob's search faster after alice's,
    telling him what she searched for."""
    alice_client.get(URL, {"q": "revenue growth"})
    bob_client.get(URL, {"q": "revenue growth"})

    assert openai_server.calls == 2


# --------------------------------------------------------------------------- limits


def test_searches_past_the_users_limit_are_refused_with_retry_after(
    alice_client, bob_client, alices_report, settings
):
    settings.INGEST_SEARCH_THROTTLE_RATE = "3/min"

    answers = [alice_client.get(URL, {"q": "revenue"}) for _ in range(4)]

    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert answers[3].json()["code"] == "throttled"
    assert 1 <= int(answers[3]["Retry-After"]) <= 60
    assert bob_client.get(URL, {"q": "revenue"}).status_code == 200  # his own count


def test_the_page_search_counts_against_the_same_limit(alice, alices_report, settings):
    settings.INGEST_SEARCH_THROTTLE_RATE = "2/min"
    browser = Client()
    browser.force_login(alice)

    answers = [browser.get("/search/", {"q": "revenue"}) for _ in range(3)]

    assert [a.status_code for a in answers] == [200, 200, 429]
    assert "try again in" in answers[2].content.decode()


def test_searches_take_no_more_than_their_share_of_the_embedding_limit(
    alice_client, alices_report, openai_server, fast_search, settings
):
    """120 calls a minute shared, a quarter of them for searches: one search's call, then
    the searches' bucket is empty for 2 s while the workers' budget is untouched."""
    settings.INGEST_EMBED_RPM = 120
    settings.INGEST_SEARCH_EMBED_SHARE = 0.25
    settings.INGEST_SEARCH_EMBED_MAX_WAIT_SECONDS = 0.1

    bodies = [alice_client.get(URL, {"q": f"revenue {n}"}).json() for n in range(3)]

    assert [b["degraded"] for b in bodies] == [False, True, True]
    assert openai_server.calls == 1
    assert shared_limiter(0).acquire(1) == 0  # a worker still gets its slot at once


def test_pending_documents_counts_the_first_versions_still_being_processed(
    alice_client, alice, bob, alices_report
):
    queued = make_document(alice, filename="queued.pdf")
    processing = make_document(alice, filename="processing.pdf")
    Job.objects.filter(id=processing.current_job_id).update(status=JobStatus.PROCESSING)
    failed = make_document(alice, filename="failed.pdf")
    Job.objects.filter(id=failed.current_job_id).update(status=JobStatus.FAILED)
    make_document(bob, filename="bobs.pdf")  # someone else's
    # A new version in flight: its ready version is still searched, so it is not pending.
    newer = make_document(alice, filename="newer.pdf", ready_version=1, version=2)

    body = alice_client.get(URL, {"q": "quarterly"}).json()
    one = alice_client.get(URL, {"q": "quarterly", "document": str(queued.id)}).json()
    ready = alice_client.get(URL, {"q": "quarterly", "document": str(newer.id)}).json()

    assert body["pending_documents"] == 2
    assert len(body["results"]) == 1
    assert (one["pending_documents"], one["results"]) == (1, [])
    assert ready["pending_documents"] == 0


def test_a_hit_cites_its_section_pages_and_boxes_and_links_to_them(alice_client, alice):
    document = ready_document(alice, ["Costs rose in the second half.", "Unrelated words."])
    Chunk.objects.filter(document=document, index=0).update(
        section="Results > Costs",
        page=2,
        page_end=3,
        boxes=[[2, 72, 700, 520, 780], [3, 72, 60, 300, 90]],
    )
    base = "http://testserver"

    [hit] = alice_client.get(URL, {"q": "costs rose", "mode": "text"}).json()["results"]

    assert (hit["section"], hit["pages"]) == (["Results", "Costs"], [2, 3])
    assert hit["boxes"] == [[2, 72, 700, 520, 780], [3, 72, 60, 300, 90]]
    api = f"{base}/api/documents/{document.id}"
    assert hit["links"] == {
        "chunk": f"{base}/api/chunks/{hit['chunk_id']}/",
        "document": f"{api}/",
        "content": f"{api}/content?version=1",
        "chunks": f"{api}/chunks/?version=1",
        "view": f"{base}/documents/{document.id}/?page=2&chunk={hit['chunk_id']}",
        "page_image": f"{api}/pages/2.png",
    }
    chunk = alice_client.get(hit["links"]["chunk"]).json()
    assert (chunk["id"], chunk["section"], chunk["pages"]) == (
        hit["chunk_id"],
        ["Results", "Costs"],
        [2, 3],
    )


def test_next_pages_through_every_result_once_in_order(alice_client, alice):
    texts = [f"harvest report {n} " + "filler " * n for n in range(23)]
    texts += ["harvest report 3 " + "filler " * 3]  # the same passage again: shown once
    ready_document(alice, texts)
    whole = alice_client.get(URL, {"q": "harvest report", "k": 200, "mode": "text"}).json()

    pages = [alice_client.get(URL, {"q": "harvest report", "k": 5, "mode": "text"}).json()]
    while pages[-1]["next"]:
        pages.append(alice_client.get(pages[-1]["next"]).json())

    ids = [hit["chunk_id"] for page in pages for hit in page["results"]]
    assert whole["next"] is None
    assert len(whole["results"]) == 23
    assert ids == [hit["chunk_id"] for hit in whole["results"]]
    assert [len(page["results"]) for page in pages] == [5, 5, 5, 5, 3]
    assert "k=5" in pages[0]["next"]
    assert "mode=text" in pages[0]["next"]


@pytest.mark.parametrize("cursor", ["nonsense", "bz0w", "bz0xMDAw", "eD01"])
def test_a_cursor_not_from_next_is_refused(alice_client, alices_report, cursor):
    response = alice_client.get(URL, {"q": "report", "cursor": cursor})

    assert (response.status_code, response.json()["code"]) == (400, "invalid_cursor")
