"""Search over the caller's ready chunks: full text, vectors, or both fused (RRF).

The interface other code builds on (the API view, the page, the benchmark):
`search(owner_id=..., q=..., k=..., mode=..., document_id=...)` answers an `Answer` of
`Hit`s, best first. Validation of the input is the caller's (the API's serializer); here it
is assumed valid.

Only chunks of each document's ready version are candidates (`version = ready_version`):
a new version's chunks, written while it is processed, and the old version's, once the
new one is ready, never are. Each mode:

- `text`: `websearch_to_tsquery` in the 'english' and 'simple' configurations, ORed, on
  the generated `search_vector` column (GIN), ranked by `ts_rank_cd`.
- `vector`: cosine distance to the query's embedding; exact over the owner's chunks when
  they are few (search/vector.py says why), else the HNSW index with an iterative scan.
- `hybrid`: Reciprocal Rank Fusion, score = Σ 1 / (60 + rank), of the two lists' top
  max(k, 50). Without an embedding (the provider failed) it answers from text alone,
  `degraded`; so does `vector`.
"""

import logging
import time
import uuid
from collections.abc import Sequence

from django.conf import settings

from search import hits, text_search, vector
from search.answer import Answer, Hit
from search.query_vector import QueryEmbeddingFailed, query_vector
from search.scope import Scope

__all__ = ["MODES", "Answer", "Hit", "rrf", "search"]

log = logging.getLogger(__name__)

MODES = ("hybrid", "vector", "text")
RRF_K = 60  # the constant of Cormack et al.'s Reciprocal Rank Fusion
FUSE_DEPTH = 50  # each list's top max(k, FUSE_DEPTH) go into the fusion


def rrf(lists: Sequence[Sequence[uuid.UUID]], k: int = RRF_K) -> dict[uuid.UUID, float]:
    """Reciprocal Rank Fusion: each id's Σ 1 / (k + rank) over the lists (rank from 1)."""
    scores: dict[uuid.UUID, float] = {}
    for ranked in lists:
        for rank, chunk_id in enumerate(ranked, start=1):
            scores[chunk_id] = scores.get(chunk_id, 0.0) + 1.0 / (k + rank)
    return scores


def search(
    *,
    owner_id: int,
    q: str,
    k: int = 10,
    mode: str = "hybrid",
    document_id: uuid.UUID | None = None,
) -> Answer:
    """The owner's best `k` chunks for `q`, from each document's ready version only."""
    started = time.perf_counter()
    scope = Scope(owner_id=owner_id, document_id=document_id)
    depth = k if mode != "hybrid" else max(k, FUSE_DEPTH)
    embedding: list[float] | None = None
    embed_ms = 0.0
    degraded = False
    if mode in ("hybrid", "vector"):
        try:
            embedding, embed_ms = query_vector(q, owner_id=owner_id)
        except QueryEmbeddingFailed as exc:
            log.warning("search answers from text alone: the query embedding failed (%s)", exc)
            degraded = True
    scored: dict[uuid.UUID, float]
    if embedding is None or mode == "text":
        lexical = text_search.ranked(scope, q, depth if mode == "text" else max(k, FUSE_DEPTH))
        scored = dict(lexical) if mode == "text" else rrf([[i for i, _ in lexical]])
    elif mode == "vector":
        scored = {i: 1.0 - distance for i, distance in vector.nearest(scope, embedding, depth)}
    else:
        lexical = text_search.ranked(scope, q, depth)
        nearest = vector.nearest(scope, embedding, depth)
        floor = 1.0 - settings.INGEST_SEARCH_MIN_SIMILARITY  # as a cosine distance
        similar = [i for i, distance in nearest if distance <= floor]
        scored = rrf([[i for i, _ in lexical], similar])
    best = sorted(scored.items(), key=lambda item: (-item[1], str(item[0])))[:k]
    results = hits.load(best, q)
    took_ms = (time.perf_counter() - started) * 1000
    return Answer(
        query=q, mode=mode, results=results, degraded=degraded, took_ms=took_ms, embed_ms=embed_ms
    )
