"""Re-ranking: a search's best candidates put in the order of a rerank service, if one is set.

INGEST_RERANK_URL unset: off. Set, a `hybrid` or `vector` search sends its best
INGEST_RERANK_TOP fused candidates (each passage once) to the service and puts them in its
order; the candidates after them keep the fused order. `text` mode is never re-ranked: it
is the mode that asks for the words as written, and it calls no outside service.

Two request shapes, the two that rerank services speak:

    cohere  {"model", "query", "documents": [...], "top_n"}   Cohere, Jina, vLLM, Infinity
    tei     {"query", "texts": [...], "truncate": true}       Hugging Face TEI

INGEST_RERANK_FORMAT picks one; `auto` sends `tei` to a URL whose path is `/rerank` (TEI's
own route, at its server's root) and `cohere` to any other (`/v1/rerank`, `/v2/rerank`).
Either answer is read, whichever was sent: `{"results": [{"index", "relevance_score"}]}`
or a bare list `[{"index", "score"}]`.

A person is waiting, so the service gets INGEST_RERANK_TIMEOUT_MS for the whole call,
connecting included, and one try. Past it, or on any failure (unreachable, a 4xx or 5xx, an
answer that is neither shape), the search answers in its fused order, exactly as without a
reranker, and says why (`Reranking.error`): a search never fails because the reranker did.
The call runs on a small thread pool so that the budget holds whatever the network does;
the request left behind ends by its own timeouts (the budget again) a little later.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import os
import time
import uuid
from collections.abc import Sequence
from concurrent import futures
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx2
from django.conf import settings
from django.db.models.functions import Left

from search import stats
from search.models import Chunk

log = logging.getLogger(__name__)

# About 500 tokens of English: what small cross-encoders read at most (512 tokens); a
# chunk is INGEST_CHUNK_SIZE (1,000) characters, so only an odd one is cut.
DOCUMENT_CHARS = 2000
MAX_ANSWER_BYTES = 1024 * 1024  # Jina sends the documents back unless told not to
THREADS = 4  # calls in flight at once per process; more wait their turn within their budget

RERANKED = "reranked"
TIMEOUT, UNREACHABLE, RATE_LIMITED = "timeout", "unreachable", "rate_limited"
REFUSED, FAILED, MALFORMED = "refused", "failed", "malformed"
ERRORS = (TIMEOUT, UNREACHABLE, RATE_LIMITED, REFUSED, FAILED, MALFORMED)


@dataclass(frozen=True)
class Reranking:
    """Whether the reranker put this page's results in its order, and if it failed, why."""

    reranked: bool = False
    error: str | None = None  # TIMEOUT, UNREACHABLE, ... ; None when reranked or not asked
    ms: float = 0.0  # time spent on it, this search


NOT_ASKED = Reranking()


class RerankFailed(Exception):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


def reach(mode: str) -> int:
    """How many of the best candidates the reranker orders in this mode (0: none). The
    caller keeps at least that many, on every page alike, so each page reorders the same."""
    if not settings.INGEST_RERANK_URL or mode == "text":
        return 0
    return int(settings.INGEST_RERANK_TOP)


def reorder(
    q: str, ranked: Sequence[tuple[uuid.UUID, float]], *, mode: str, offset: int
) -> tuple[list[tuple[uuid.UUID, float]], Reranking]:
    """`ranked` (fused, best first, each passage once) with its first `reach(mode)` in the
    reranker's order. A page that starts past them (`offset`) asks nothing: its results are
    the same either way. Never raises: on failure `ranked` comes back as it was."""
    top = reach(mode)
    if top == 0 or offset >= top or len(ranked) < 2:
        return list(ranked), NOT_ASKED
    started = time.perf_counter()
    head, tail = list(ranked[:top]), list(ranked[top:])
    texts = _texts([chunk_id for chunk_id, _ in head])
    head = [item for item in head if item[0] in texts]  # deleted meanwhile: dropped
    try:
        scores = _scores(q, [texts[chunk_id] for chunk_id, _ in head])
    except RerankFailed as exc:
        stats.note_rerank(exc.reason)
        log.warning("search answers in its fused order: the reranker %s", exc)
        return list(ranked), Reranking(error=exc.reason, ms=_ms(started))
    stats.note_rerank(RERANKED)
    # Equal scores keep the fused order (a stable sort); unscored ones follow the scored.
    order = sorted(range(len(head)), key=lambda n: -scores.get(n, -math.inf))
    return [head[n] for n in order] + tail, Reranking(reranked=True, ms=_ms(started))


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _texts(ids: list[uuid.UUID]) -> dict[uuid.UUID, str]:
    rows = Chunk.objects.filter(id__in=ids).annotate(head=Left("text", DOCUMENT_CHARS + 1))
    return {chunk_id: _cut(text) for chunk_id, text in rows.values_list("id", "head")}


def _cut(text: str) -> str:
    """At most DOCUMENT_CHARS, cut at a space when one is near the end."""
    if len(text) <= DOCUMENT_CHARS:
        return text
    cut = text[:DOCUMENT_CHARS]
    space = cut.rfind(" ", DOCUMENT_CHARS - 200)
    return cut[:space] if space > 0 else cut


def _scores(q: str, documents: list[str]) -> dict[int, float]:
    """Each document's score by its index, from the service within the budget."""
    budget = settings.INGEST_RERANK_TIMEOUT_MS / 1000
    deadline = time.monotonic() + budget
    call = _pool(os.getpid()).submit(_ask, q, documents, deadline)
    try:
        return call.result(timeout=budget)
    except futures.TimeoutError:
        call.cancel()  # still queued behind other slow calls: it never starts
        raise RerankFailed(TIMEOUT, f"did not answer within {budget * 1000:g} ms") from None
    except RerankFailed:
        raise
    except Exception as exc:  # a bug, or a setting the client refuses: the search answers
        log.exception("the rerank call failed unexpectedly")
        raise RerankFailed(FAILED, f"could not be asked: {type(exc).__name__}: {exc}") from exc


@functools.lru_cache(maxsize=1)
def _pool(pid: int) -> futures.ThreadPoolExecutor:
    """One pool per process: keyed by pid, so a forked child never uses its parent's."""
    return futures.ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="rerank")


@functools.lru_cache(maxsize=1)
def _client(pid: int, url: str, key: str) -> httpx2.Client:
    """One client (its connection pool kept alive) per process and configuration."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx2.Client(headers=headers, follow_redirects=False)


def _ask(q: str, documents: list[str], deadline: float) -> dict[int, float]:
    left = deadline - time.monotonic()
    if left <= 0:  # waited for a thread past its budget: the search has moved on
        raise RerankFailed(TIMEOUT, "had no thread free within the budget")
    url, key = settings.INGEST_RERANK_URL, settings.INGEST_RERANK_KEY
    client = _client(os.getpid(), url, key)
    try:
        with client.stream("POST", url, json=request_body(q, documents), timeout=left) as answer:
            body = _read(answer, deadline)
    except httpx2.TimeoutException:
        raise RerankFailed(TIMEOUT, f"did not answer in time at {_where()}") from None
    except httpx2.TransportError as exc:
        raise RerankFailed(UNREACHABLE, f"could not be reached at {_where()}: {exc}") from None
    if answer.status_code >= 300:
        raise _status_failure(answer.status_code, body, key)
    return scores_from(body, count=len(documents))


def _read(answer: httpx2.Response, deadline: float) -> bytes:
    """The body, at most MAX_ANSWER_BYTES, given up when the budget is spent between parts."""
    parts, size = [], 0
    for part in answer.iter_bytes():
        size += len(part)
        if size > MAX_ANSWER_BYTES:
            raise RerankFailed(MALFORMED, f"answered more than {MAX_ANSWER_BYTES} bytes")
        if time.monotonic() > deadline:
            raise RerankFailed(TIMEOUT, "was still answering when the budget ran out")
        parts.append(part)
    return b"".join(parts)


def _status_failure(status: int, body: bytes, key: str) -> RerankFailed:
    said = body[:300].decode(errors="replace").strip()
    if key:
        said = said.replace(key, "[key]")
    detail = f"answered HTTP {status} at {_where()}" + (f": {said}" if said else "")
    if status == 429:
        return RerankFailed(RATE_LIMITED, detail)
    if status == 408:
        return RerankFailed(TIMEOUT, detail)
    return RerankFailed(FAILED if status >= 500 else REFUSED, detail)


def _where() -> str:
    """The service's address without its query string (where a key might be)."""
    parts = urlsplit(settings.INGEST_RERANK_URL)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def request_format() -> str:
    """`cohere` or `tei`: INGEST_RERANK_FORMAT, or for `auto` the one the URL's path says."""
    if settings.INGEST_RERANK_FORMAT != "auto":
        return str(settings.INGEST_RERANK_FORMAT)
    path = urlsplit(settings.INGEST_RERANK_URL).path.rstrip("/")
    return "tei" if path == "/rerank" else "cohere"


def request_body(q: str, documents: list[str]) -> dict[str, Any]:
    model = {"model": settings.INGEST_RERANK_MODEL} if settings.INGEST_RERANK_MODEL else {}
    if request_format() == "tei":
        # TEI refuses a text longer than its model reads unless told to cut it.
        return {**model, "query": q, "texts": documents, "truncate": True}
    return {**model, "query": q, "documents": documents, "top_n": len(documents)}


def scores_from(body: bytes, *, count: int) -> dict[int, float]:
    """{index: score} from either answer shape; RerankFailed(MALFORMED) for anything else:
    not JSON, an index out of range or twice, a score that is not a finite number."""
    try:
        answer = json.loads(body)
    except ValueError:
        raise RerankFailed(MALFORMED, f"answered something not JSON: {body[:80]!r}") from None
    results = answer.get("results") if isinstance(answer, dict) else answer
    if not isinstance(results, list) or not results:
        raise RerankFailed(MALFORMED, "answered neither {'results': [...]} nor a list")
    scores: dict[int, float] = {}
    for item in results:
        index, score = _index_and_score(item)
        if index is None or score is None or not 0 <= index < count or index in scores:
            raise RerankFailed(MALFORMED, f"answered a result it should not: {item!r:.120}")
        scores[index] = score
    return scores


def _index_and_score(item: object) -> tuple[int | None, float | None]:
    """A result's index and score (Cohere's `relevance_score` or TEI's `score`), each None
    when it is not a whole number or a finite number (a JSON true is neither)."""
    if not isinstance(item, dict):
        return None, None
    index, score = item.get("index"), item.get("relevance_score", item.get("score"))
    if isinstance(index, bool) or not isinstance(index, int):
        index = None
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        score = None
    return index, None if score is None else float(score)
