"""The read paths of the scale benchmark, timed, with the plans of their statements.

Run in a process whose Django settings point at the scale database's working copy
(tests/bench/scale/__main__.py). Each path is called through Django's test client or as
the sweeper calls it, a few times to warm, then `runs` times; its statements on the large
tables are captured once and explained.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.bench.report import percentile

LARGE_TABLES = re.compile(
    r'"?(jobs_job|jobs_jobattempt|documents_document|search_chunk|webhooks_\w+)"?\b'
)
TARGET_MS = 300.0
CHUNK_PAGE_TARGET_MS = 50.0  # a page of 100 chunks, what an application reads in a loop


@dataclass
class Path:
    name: str
    call: Callable[[], object]
    targeted: bool = True  # held to target_ms; else measured only
    target_ms: float = TARGET_MS
    times_ms: list[float] = field(default_factory=list)
    plans: list[tuple[str, str]] = field(default_factory=list)  # (statement, plan)

    @property
    def p50(self) -> float:
        return percentile(self.times_ms, 50)

    @property
    def p95(self) -> float:
        return percentile(self.times_ms, 95)


def timed(call: Callable[[], object], runs: int, warm: int = 3) -> list[float]:
    for _ in range(warm):
        call()
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        call()
        times.append((time.perf_counter() - began) * 1000)
    return times


def explained(call: Callable[[], object]) -> list[tuple[str, str]]:
    """The statements on the large tables that one call runs, each with its plan (EXPLAIN
    without ANALYZE: writes are planned, not done twice)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        call()
    found = []
    with connection.cursor() as cursor:
        for query in captured.captured_queries:
            sql = query["sql"]
            if not LARGE_TABLES.search(sql) or not sql.lstrip().upper().startswith(
                ("SELECT", "UPDATE", "DELETE", "WITH", "INSERT")
            ):
                continue
            cursor.execute("EXPLAIN " + sql)
            found.append((sql, "\n".join(row[0] for row in cursor.fetchall())))
    return found


def ok(response: object) -> object:
    status = getattr(response, "status_code", 200)
    assert status == 200, f"answered {status}"
    return response


def read_paths(large_owner: str, small_owner: str) -> list[Path]:
    """What a user, an operator, Prometheus and the sweeper read on every visit or pass."""
    from django.contrib.auth import get_user_model
    from django.db.models import Count
    from django.test import Client
    from rest_framework.test import APIClient

    from documents.models import Document
    from jobs import sweeper
    from jobs.sweeper import requeue_stuck
    from search.models import Chunk

    users = get_user_model().objects
    large, small = APIClient(HTTP_HOST="localhost"), APIClient(HTTP_HOST="localhost")
    large.force_authenticate(users.get(username=large_owner))
    small.force_authenticate(users.get(username=small_owner))
    operator = Client(HTTP_HOST="localhost")
    operator.force_login(users.get(username="operator"))
    # Page 1,000 of 50 (a smaller build's large account has fewer: its last page).
    owned = Document.objects.filter(owner__username=large_owner).count()
    page = max(1, min(1000, owned // 50))
    later = page_link(large, page)
    words = iter(range(10**9))

    def search(client: APIClient) -> Callable[[], object]:
        # A new query each time: the query's embedding is not served from the cache.
        return lambda: ok(client.get("/api/search/", {"q": f"quarterly figures {next(words)}"}))

    # The small account's document with the most chunks (make_live gave it a hundred).
    richest = (
        Chunk.objects.filter(document__owner__username=small_owner)
        .values("document_id")
        .annotate(n=Count("id"))
        .order_by("-n")
        .first()
    )
    assert richest, "the small account has no chunks: was make_live run?"
    # Its pages of 100, by following `next`: each read is one of them in turn.
    chunk_pages = [f"/api/documents/{richest['document_id']}/chunks/?page_size=100"]
    while len(chunk_pages) < 10 and (link := small.get(chunk_pages[-1]).json()["next"]):
        chunk_pages.append(link)
    turns = itertools.cycle(chunk_pages)
    middle = Chunk.objects.filter(document_id=richest["document_id"]).order_by("index")
    middle_id = middle[richest["n"] // 2].id

    def sweep() -> None:
        requeue_stuck()
        sweeper.run_each_pass()

    return [
        Path("document list, first page", lambda: ok(large.get("/api/documents/"))),
        Path(f"document list, page {page:,}", lambda: ok(large.get(later))),
        Path(
            "document list, failed only",
            lambda: ok(large.get("/api/documents/", {"status": "failed"})),
        ),
        Path("admin: jobs", lambda: ok(operator.get("/admin/jobs/job/"))),
        Path("admin: dead letters", lambda: ok(operator.get("/admin/jobs/deadletter/"))),
        Path("admin: documents", lambda: ok(operator.get("/admin/documents/document/"))),
        Path("/ops/", lambda: ok(operator.get("/ops/"))),
        Path("/metrics", lambda: ok(Client(HTTP_HOST="localhost").get("/metrics"))),
        Path("one sweeper pass", sweep),
        Path("requeue_stuck", requeue_stuck),
        Path(
            f"chunk list, a page of 100 ({richest['n']:,} chunks)",
            lambda: ok(small.get(next(turns))),
            target_ms=CHUNK_PAGE_TARGET_MS,
        ),
        Path(
            "a chunk with 5 neighbours each side",
            lambda: ok(small.get(f"/api/chunks/{middle_id}/", {"neighbours": 5})),
            target_ms=CHUNK_PAGE_TARGET_MS,
        ),
        Path("search, the large account", search(large), targeted=False),
        Path("search, a small account", search(small), targeted=False),
    ]


def page_link(client: object, page: int) -> str:
    """The link to the `page`th page of the owner's list (50 a page), by following `next`."""
    link = "/api/documents/"
    for _ in range(page - 1):
        link = client.get(link).json()["next"]  # type: ignore[attr-defined]
        assert link, f"the list has fewer than {page} pages"
    return link


def measure(paths: list[Path], runs: int) -> list[Path]:
    for path in paths:
        path.times_ms = timed(path.call, runs)
        path.plans = explained(path.call)
        print(f"  {path.name}: p50 {path.p50:.1f} ms, p95 {path.p95:.1f} ms", flush=True)
    return paths
