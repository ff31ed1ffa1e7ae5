"""Search over the caller's ready chunks: full text, vectors, or both fused (RRF).

The interface other code builds on (the API view, the page, the benchmark):
`search(owner_id=..., q=..., k=..., mode=..., document_id=..., filters=...)` answers an `Answer` of
`Hit`s, best first. Validation of the input is the caller's (the API's serializer); here it
is assumed valid.

`filters` (search.retrieval.scope.Filters) keep only documents with the tags and metadata asked for.
Only chunks of each document's ready version are candidates (`version = ready_version`):
a new version's chunks, written while it is processed, and the old version's, once the
new one is ready, never are. Each mode:

- `text`: `websearch_to_tsquery` in the 'english' and 'simple' configurations, ORed, on
  the generated `search_vector` column (GIN), ranked by `ts_rank_cd`.
- `vector`: cosine distance to the query's embedding; exact over the owner's chunks when
  they are few (search/retrieval/vector.py says why), else the HNSW index with an iterative scan.
  Only chunks more similar than the embedding's floor, and with the `hashing` provider
  only chunks sharing a word with the query (search/retrieval/floors.py says why): a query that
  matches nothing answers nothing, not its nearest noise.
- `hybrid`: Reciprocal Rank Fusion, score = Σ 1 / (60 + rank), of the two lists' top
  max(k, 50), the vector list kept to the same chunks as `vector`. Without an embedding
  (the provider failed) it answers from text alone, `degraded`; so does `vector`.

With INGEST_RERANK_URL set, `hybrid` and `vector` then put their best INGEST_RERANK_TOP
in a rerank service's order, or keep theirs when it is slow or fails
(search/retrieval/rerank.py).
`vector` and `hybrid` also say which documents in scope their vector side left out because
another embedding made them (`not_searchable_by_meaning`, search/retrieval/meaning.py).

Each hit's `relevance` (search/retrieval/relevance.py) comes from its similarity to the
query, where the configured embedding has fitted weights.

A passage appears once: of chunks with the same text (a file uploaded under two names, a
page repeated), the best ranked stands for all.
"""

import logging
import time
import uuid
from collections.abc import Callable, Sequence

from search import stats
from search.retrieval import floors, hits, meaning, relevance, rerank, text_search, vector
from search.retrieval.answer import Answer, ByWordsOnly, Hit
from search.retrieval.query_vector import QueryEmbeddingFailed, query_vector
from search.retrieval.scope import NO_FILTERS, Filters, Scope

__all__ = ["MODES", "Answer", "Hit", "rrf", "search"]

log = logging.getLogger(__name__)

MODES = ("hybrid", "vector", "text")
RRF_K = 60  # the constant of Cormack et al.'s Reciprocal Rank Fusion
FUSE_DEPTH = 50  # each list's top max(k, FUSE_DEPTH) go into the fusion
SPARE = 10  # candidates past k loaded, to fill the places of repeated passages


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
    filters: Filters = NO_FILTERS,
    offset: int = 0,
) -> Answer:
    """The owner's best `k` chunks for `q` past the first `offset`, from each document's
    ready version only (of the documents `filters` keep)."""
    started = time.perf_counter()
    scope = Scope(owner_id=owner_id, document_id=document_id, filters=filters)
    wanted = offset + k
    # Every page of a reranked query holds the same candidates for the reranker to order.
    reach = max(wanted, rerank.reach(mode))
    depth = reach + SPARE if mode != "hybrid" else max(reach + SPARE, FUSE_DEPTH)
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
    nearest: float | None = None  # the query's best similarity in scope
    if embedding is None or mode == "text":
        lexical = text_search.ranked(scope, q, depth)
        scored = dict(lexical) if mode == "text" else rrf([[i for i, _ in lexical]])
    elif mode == "vector":
        similar, nearest = _similar(scope, q, embedding, depth)
        scored = dict(similar)
    else:
        lexical = text_search.ranked(scope, q, depth)
        similar, nearest = _similar(scope, q, embedding, depth)
        scored = rrf([[i for i, _ in lexical], [i for i, _ in similar]])
    # Documents in scope made by another embedding: the vector side left them out.
    by_words = meaning.by_words_only(scope) if mode != "text" else ByWordsOnly()
    best = sorted(scored.items(), key=lambda item: (-item[1], str(item[0])))[: reach + SPARE]
    kept, reranking = rerank.reorder(q, hits.distinct(best), mode=mode, offset=offset)
    relevant = _relevance(q, nearest)
    results = hits.load(kept[offset:wanted], q, relevant, embedding if relevant else None)
    took_ms = (time.perf_counter() - started) * 1000
    stats.note(mode, took_ms / 1000, degraded=degraded, results=len(results))
    return Answer(
        query=q,
        mode=mode,
        results=results,
        more=len(kept) > wanted,
        degraded=degraded,
        took_ms=took_ms,
        embed_ms=embed_ms,
        reranked=reranking.reranked,
        rerank_error=reranking.error,
        rerank_ms=reranking.ms,
        not_searchable_by_meaning=by_words,
    )


def _similar(
    scope: Scope, q: str, embedding: list[float], depth: int
) -> tuple[list[tuple[uuid.UUID, float]], float | None]:
    """The vector list: (chunk id, cosine similarity), nearest first, more similar than the
    embedding's floor (search/retrieval/floors.py); and the best similarity found, None
    when the query's vector is not compared (or nothing is in scope)."""
    if not floors.trusts_vectors(q):
        return [], None
    sharing = q if floors.needs_shared_word() else None
    floor = floors.floor(q)
    nearest = vector.nearest(scope, embedding, depth, sharing=sharing)
    similar = [(i, 1.0 - distance) for i, distance in nearest if 1.0 - distance > floor]
    return similar, (1.0 - nearest[0][1] if nearest else None)


def _relevance(q: str, nearest: float | None) -> Callable[[float], float] | None:
    """A hit's relevance from its similarity, for this query (search/retrieval/relevance.py)."""
    weights = relevance.weights()
    if weights is None or nearest is None:
        return None
    from search.embedding import local_provider  # FITTED holds the local model alone

    known = local_provider.known_words(q)
    return lambda similarity: weights.relevance(similarity, known, nearest)
