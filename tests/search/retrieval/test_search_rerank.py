"""Re-ranking (search/retrieval/rerank.py) against a real HTTP server that speaks the rerank
APIs (tests/fakes/rerank_server.py): the order it gives, what is sent, the fallback to the
fused order when it is slow, down or failing, and paging."""

import logging
import time

import pytest
from django.test import override_settings

from config.tooling.embedded import free_port
from search.retrieval import rerank
from search.retrieval.query import search
from tests.fakes.rerank_server import FakeReranker
from tests.search.chunks import ready_document
from tests.search.test_search_stats import scraped

pytestmark = pytest.mark.django_db

KEY, MODEL = "rerank-test-key", "rerank-v3.5"
BUDGET_MS = 500
# A search that gives up on its reranker answers within its budget; this much more is
# left for the search itself on two loaded cores (it takes tens of milliseconds alone).
MARGIN_S = 2.0
LEASES = [
    "The lease ends in March and the tenant leaves the office.",
    "A lease renewal needs notice three months before the lease ends.",
    "Parking is part of the lease for the office tenant.",
    "The lease sets the rent, paid monthly by the tenant.",
    "Repairs under the lease fall to the landlord, not the tenant.",
    "Subletting needs the landlord's consent under this lease.",
]
QUERY = "lease tenant"


@pytest.fixture
def reranker(settings):
    with FakeReranker(api_key=KEY, model=MODEL) as server:
        settings.INGEST_RERANK_URL = server.url_for("/v2/rerank")
        settings.INGEST_RERANK_KEY = KEY
        settings.INGEST_RERANK_MODEL = MODEL
        settings.INGEST_RERANK_FORMAT = "auto"
        settings.INGEST_RERANK_TOP = 30
        settings.INGEST_RERANK_TIMEOUT_MS = 5000
        yield server


@pytest.fixture
def leases(alice):
    return ready_document(alice, LEASES, filename="leases.pdf")


def texts(answer) -> list[str]:
    return [hit.text for hit in answer.results]


def fused(owner, mode: str = "hybrid", **kwargs) -> list[str]:
    """The search's own order, the reranker off."""
    with override_settings(INGEST_RERANK_URL=""):
        return texts(search(owner_id=owner.pk, q=QUERY, mode=mode, **kwargs))


def reverse_of(order: list[str]):
    """A scoring rule that puts `order` last to first."""
    return lambda query, text: float(order.index(text)) if text in order else -1.0


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_the_reranker_puts_the_best_candidates_in_its_order(alice, leases, reranker, mode):
    own = fused(alice, mode)
    assert len(own) == len(LEASES)
    reranker.score = reverse_of(own)

    answer = search(owner_id=alice.pk, q=QUERY, mode=mode)

    assert texts(answer) == own[::-1]
    assert (answer.reranked, answer.rerank_error) == (True, None)
    assert 0 < answer.rerank_ms <= answer.took_ms
    [request] = reranker.requests
    assert sorted(request["body"]["documents"]) == sorted(LEASES)


def test_the_key_and_the_model_are_sent(alice, leases, reranker):
    search(owner_id=alice.pk, q=QUERY)

    [request] = reranker.requests
    assert request["headers"]["Authorization"] == f"Bearer {KEY}"
    body = request["body"]
    assert (body["model"], body["query"], body["top_n"]) == (MODEL, QUERY, len(LEASES))


@pytest.mark.parametrize(
    ("path", "form", "sent"),
    [
        ("/rerank", "auto", "texts"),  # TEI, at its server's root
        ("/v1/rerank", "auto", "documents"),  # Jina
        ("/v2/rerank", "auto", "documents"),  # Cohere
        ("/rerank", "cohere", "documents"),  # vLLM or Infinity at the root: told so
        ("/api/rerank", "tei", "texts"),  # TEI behind a proxy: told so
    ],
)
def test_the_request_shape_follows_the_path_or_the_setting_and_either_answer_is_read(
    alice, leases, reranker, settings, path, form, sent
):
    settings.INGEST_RERANK_URL = reranker.url_for(path)
    settings.INGEST_RERANK_FORMAT = form
    own = fused(alice)
    reranker.score = reverse_of(own)

    answer = search(owner_id=alice.pk, q=QUERY)

    assert texts(answer) == own[::-1]
    [request] = reranker.requests
    assert sent in request["body"]
    assert request["body"].get("truncate") is (True if sent == "texts" else None)


def test_a_long_chunk_is_sent_cut_at_a_word(alice, reranker):
    ready_document(alice, ["lease " * 1000, "tenant lease"])

    search(owner_id=alice.pk, q=QUERY)

    [request] = reranker.requests
    longest = max(request["body"]["documents"], key=len)
    assert 1800 <= len(longest) <= 2000
    assert longest.endswith("lease")


def test_a_slow_reranker_leaves_the_fused_order_within_the_budget(
    alice, leases, reranker, settings
):
    settings.INGEST_RERANK_TIMEOUT_MS = BUDGET_MS
    reranker.delay = 10.0
    own = fused(alice)
    reranker.score = reverse_of(own)

    started = time.monotonic()
    answer = search(owner_id=alice.pk, q=QUERY)
    took = time.monotonic() - started

    assert texts(answer) == own
    assert (answer.reranked, answer.rerank_error) == (False, "timeout")
    assert took < BUDGET_MS / 1000 + MARGIN_S


def test_a_reranker_that_is_down_leaves_the_fused_order(alice, leases, settings):
    settings.INGEST_RERANK_URL = f"http://127.0.0.1:{free_port()}/v2/rerank"  # nothing there
    settings.INGEST_RERANK_TIMEOUT_MS = BUDGET_MS
    own = fused(alice)

    started = time.monotonic()
    answer = search(owner_id=alice.pk, q=QUERY)
    took = time.monotonic() - started

    assert texts(answer) == own
    assert (answer.reranked, answer.rerank_error) == (False, "unreachable")
    assert took < BUDGET_MS / 1000 + MARGIN_S


@pytest.mark.parametrize(
    ("behaviour", "error"),
    [
        ("500", "failed"),
        ("503", "failed"),
        ("429:2", "rate_limited"),
        ("400", "refused"),
        ("malformed", "malformed"),
        ("wrong", "malformed"),
        ("out_of_range", "malformed"),
    ],
)
def test_a_failing_reranker_leaves_the_fused_order_and_says_why(
    alice, leases, reranker, behaviour, error
):
    own = fused(alice)
    reranker.score = reverse_of(own)
    reranker.script([behaviour])

    answer = search(owner_id=alice.pk, q=QUERY)

    assert texts(answer) == own
    assert (answer.reranked, answer.rerank_error) == (False, error)


def test_a_refused_key_is_logged_without_the_key(alice, leases, reranker, settings, caplog):
    settings.INGEST_RERANK_KEY = "wrong-secret-key"

    with caplog.at_level(logging.WARNING, logger="search.retrieval.rerank"):
        answer = search(owner_id=alice.pk, q=QUERY)

    assert (answer.reranked, answer.rerank_error) == (False, "refused")
    assert "HTTP 401" in caplog.text
    assert "wrong-secret-key" not in caplog.text


def test_each_call_is_counted_by_outcome(alice, leases, reranker):
    reranked = scraped("ingest_search_reranks_total", outcome="reranked")
    failed = scraped("ingest_search_reranks_total", outcome="failed")
    reranker.script(["ok", "500"])

    search(owner_id=alice.pk, q=QUERY)
    search(owner_id=alice.pk, q=QUERY)

    assert scraped("ingest_search_reranks_total", outcome="reranked") == reranked + 1
    assert scraped("ingest_search_reranks_total", outcome="failed") == failed + 1


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_pages_continue_the_reranked_order_each_result_once(alice, leases, reranker, mode):
    reranker.score = reverse_of(fused(alice, mode))
    whole = texts(search(owner_id=alice.pk, q=QUERY, mode=mode, k=6))

    pages = [search(owner_id=alice.pk, q=QUERY, mode=mode, k=2, offset=n) for n in (0, 2, 4)]

    assert [text for page in pages for text in texts(page)] == whole
    assert all(page.reranked for page in pages)
    # Every page sent the reranker the same candidates in the same order.
    sent = [request["body"]["documents"] for request in reranker.requests]
    assert all(documents == sent[0] for documents in sent)


def test_a_page_past_the_reranked_top_asks_nothing_and_continues_in_fused_order(
    alice, leases, reranker, settings
):
    settings.INGEST_RERANK_TOP = 3
    own = fused(alice)
    reranker.score = reverse_of(own)

    straddling = search(owner_id=alice.pk, q=QUERY, k=2, offset=2)
    past = search(owner_id=alice.pk, q=QUERY, k=2, offset=4)

    # The top 3 in the reranker's order (own[2], own[1], own[0]), then the fused order.
    assert texts(straddling) == [own[0], own[3]]
    assert straddling.reranked
    assert texts(past) == own[4:6]
    assert (past.reranked, past.rerank_error) == (False, None)
    assert reranker.calls == 1
    assert len(reranker.requests[0]["body"]["documents"]) == 3


def test_text_mode_is_never_reranked(alice, leases, reranker):
    answer = search(owner_id=alice.pk, q=QUERY, mode="text")

    assert (answer.reranked, answer.rerank_error) == (False, None)
    assert reranker.calls == 0


def test_the_api_answer_says_whether_it_was_reranked_and_why_not(alice_client, leases, reranker):
    reranker.script(["ok", "429:1"])

    reranked = alice_client.get("/api/search/", {"q": QUERY}).json()
    fallback = alice_client.get("/api/search/", {"q": QUERY}).json()

    assert (reranked["reranked"], reranked["rerank_error"]) == (True, None)
    assert (fallback["reranked"], fallback["rerank_error"]) == (False, "rate_limited")
    schema = alice_client.get("/api/schema/?format=json").json()["components"]["schemas"]
    assert schema["SearchOut"]["properties"]["reranked"]["type"] == "boolean"
    assert "rerank_error" in schema["SearchOut"]["required"]
    assert set(schema["RerankErrorEnum"]["enum"]) == {
        "timeout", "unreachable", "rate_limited", "refused", "failed", "malformed"
    }  # fmt: skip


@pytest.mark.parametrize(
    "body",
    [
        b'[{"index": true, "score": 1.0}]',  # true is no index
        b'[{"index": 0, "score": NaN}]',
        b'[{"index": 0, "score": "0.9"}]',
        b'[{"index": 0, "score": 0.9}, {"index": 0, "score": 0.8}]',  # twice
        b'{"results": []}',
        b'{"data": [{"index": 0, "score": 0.9}]}',
    ],
)
def test_an_answer_of_neither_shape_is_malformed(body):
    with pytest.raises(rerank.RerankFailed) as failed:
        rerank.scores_from(body, count=2)

    assert failed.value.reason == "malformed"


def test_either_shape_of_answer_is_read():
    cohere = b'{"id": "x", "results": [{"index": 1, "relevance_score": 0.9}], "meta": {}}'
    tei = b'[{"index": 1, "score": 2}, {"index": 0, "score": -1.5}]'

    assert rerank.scores_from(cohere, count=2) == {1: 0.9}
    assert rerank.scores_from(tei, count=2) == {1: 2.0, 0: -1.5}
