"""Operators see searches: their time by mode and how many were degraded, in /metrics and in
the per-minute totals the ops dashboard reads (search/stats.py)."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from search import stats
from search.retrieval.query import MODES, search
from tests.search.chunks import ready_document

pytestmark = pytest.mark.django_db

HOUR = timedelta(hours=1)


def scraped(name: str, **labels: str) -> float:
    """A sample of one scrape of /metrics (loopback may read it), 0 when absent."""
    body = Client().get("/metrics", REMOTE_ADDR="127.0.0.1").content.decode()
    wanted = ",".join(f'{key}="{value}"' for key, value in sorted(labels.items()))
    for line in body.splitlines():
        match = re.fullmatch(rf"{name}\{{(.*)\}} (\S+)", line)
        if match and ",".join(sorted(match.group(1).split(","))) == wanted:
            return float(match.group(2))
    return 0.0


def figures() -> dict[str, stats.ModeFigures]:
    return {row.mode: row for row in stats.recent(MODES, timezone.now(), HOUR)}


def test_each_search_is_counted_by_mode_and_outcome_with_its_time(alice):
    ready_document(alice, ["The lease ends in March."])
    before = figures()
    found = scraped("ingest_searches_total", mode="text", outcome="results")
    empty = scraped("ingest_searches_total", mode="text", outcome="no_results")
    timed = scraped("ingest_search_seconds_count", mode="text")

    search(owner_id=alice.pk, q="lease", mode="text")
    search(owner_id=alice.pk, q="lease", mode="text")
    search(owner_id=alice.pk, q="pension", mode="text")
    search(owner_id=alice.pk, q="lease", mode="hybrid")

    after = figures()
    assert after["text"].searches - before["text"].searches == 3
    assert after["text"].no_results - before["text"].no_results == 1
    assert after["hybrid"].searches - before["hybrid"].searches == 1
    assert after["text"].p95_ms is not None
    assert scraped("ingest_searches_total", mode="text", outcome="results") == found + 2
    assert scraped("ingest_searches_total", mode="text", outcome="no_results") == empty + 1
    assert scraped("ingest_search_seconds_count", mode="text") == timed + 3


def test_a_degraded_answer_is_counted_as_degraded(alice, settings, openai_server):
    settings.INGEST_SEARCH_EMBED_TIMEOUT_SECONDS = 1.0
    ready_document(alice, ["The lease ends in March."])
    openai_server.script(["500"])
    before = figures()["hybrid"].degraded

    answer = search(owner_id=alice.pk, q="lease", mode="hybrid")

    assert answer.degraded
    assert figures()["hybrid"].degraded == before + 1
    assert scraped("ingest_searches_total", mode="hybrid", outcome="degraded") >= 1


def test_percentiles_are_read_back_to_a_buckets_bound():
    counts = {"5": 50, "25": 40, "250": 9, "inf": 1}

    assert stats._bound(counts, 100, 0.5) == 5.0
    assert stats._bound(counts, 100, 0.9) == 25.0
    assert stats._bound(counts, 100, 0.95) == 250.0
    assert stats._bound(counts, 100, 1.0) == float("inf")
    assert stats._bound({}, 0, 0.5) is None
