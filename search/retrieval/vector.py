"""The vector list: cosine distance to the query's embedding, within the caller's scope.

Filtered HNSW loses recall when the scope is a small part of the table: the index walk
finds the nearest vectors of *everyone*, `ef_search` of them, and the owner filter then
keeps the few that are the owner's, often fewer than asked for. Two remedies, by size:

- A scope of at most INGEST_SEARCH_EXACT_BELOW ready chunks (the owner's, or one
  document's) is scanned exactly: the join reaches its chunks through the
  (document, version, index) index and the distances of a few thousand vectors take a
  few milliseconds, with recall 1 by construction. The ORDER BY adds 0 to the distance so
  the planner cannot use the HNSW index for it.
- A larger scope uses the HNSW index with pgvector 0.8's iterative scan
  (`hnsw.iterative_scan = relaxed_order`): when the filter leaves too few rows the scan
  goes on past `ef_search` (INGEST_SEARCH_EF_SEARCH) up to `hnsw.max_scan_tuples`
  (INGEST_SEARCH_MAX_SCAN_TUPLES). A large scope is a large share of the candidates, so
  few are filtered away. Relaxed order may return rows slightly out of order; they are
  sorted again by distance outside the index scan.

Only documents whose ready version the configured embedding made are compared (the
document's `ready_embed_model`): a query's vector and a chunk's vector of another model
measure nothing together, so during `manage.py reprocess embeddings` the documents not yet
re-embedded are found by their text alone.

`sharing` (search/retrieval/floors.py says why the `hashing` provider asks it) keeps only
chunks that share a word with the query, by its 'english' lexemes on the chunk's
`search_vector`: in the exact scan as a condition of the scan, on the index's path after it
(a condition inside the index walk would make a query that shares no word with anything walk
the whole `hnsw.max_scan_tuples`).
"""

import uuid
from collections.abc import Sequence

from django.conf import settings
from django.db import connection, transaction

from search.embedding.signature import current_signature
from search.models import Chunk
from search.retrieval.scope import Scope
from search.retrieval.text import any_word_text

# A chunk sharing a word of %(any_words)s with the query (its 'english' lexemes).
SHARES_A_WORD = "{c}.search_vector @@ websearch_to_tsquery('english'::regconfig, %(any_words)s)"

EF_SEARCH_MAX = 1000


def literal(embedding: Sequence[float]) -> str:
    """pgvector's text form of a vector, for a %s cast to ::vector."""
    return "[" + ",".join(repr(float(value)) for value in embedding) + "]"


def scope_size(scope: Scope, at_most: int) -> int:
    """The scope's ready chunks, counted up to `at_most` + 1 (enough to compare)."""
    tables, condition, params = scope.sql()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM {tables} WHERE {condition} LIMIT %(cap)s) s",
            {**params, "cap": at_most + 1},
        )
        return int(cursor.fetchone()[0])


def nearest(
    scope: Scope,
    embedding: Sequence[float],
    limit: int,
    *,
    exact: bool | None = None,
    sharing: str | None = None,
) -> list[tuple[uuid.UUID, float]]:
    """The `limit` (chunk id, cosine distance) in scope nearest to `embedding`, nearest
    first; with `sharing` (a query's text), only those sharing a word with it. `exact`
    forces one path (for measurements); None chooses by the scope's size."""
    if exact is None:
        threshold = settings.INGEST_SEARCH_EXACT_BELOW
        exact = scope_size(scope, threshold) <= threshold
    tables, condition, params = scope.sql()
    # Only vectors of the configured embedding: during a re-embed, a document whose ready
    # version another model embedded is found by its text alone until its new one is ready.
    condition += " AND d.ready_embed_model = %(signature)s"
    params = {**params, "v": literal(embedding), "limit": limit, "signature": current_signature()}
    if sharing is not None:
        params["any_words"] = any_word_text(sharing)
    if exact:
        shares = " AND " + SHARES_A_WORD.format(c="c") if sharing is not None else ""
        sql = (
            f"SELECT c.id, c.embedding <=> %(v)s::vector AS distance FROM {tables} "
            f"WHERE {condition}{shares} ORDER BY (c.embedding <=> %(v)s::vector) + 0, c.id "
            "LIMIT %(limit)s"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return [(row[0], float(row[1])) for row in cursor.fetchall()]
    sql = (
        "WITH nearest AS MATERIALIZED ("
        f"SELECT c.id, c.embedding <=> %(v)s::vector AS distance FROM {tables} "
        f"WHERE {condition} ORDER BY c.embedding <=> %(v)s::vector LIMIT %(limit)s"
        ") SELECT n.id, n.distance FROM nearest n"
    )
    if sharing is not None:
        sql += f" JOIN {Chunk._meta.db_table} s ON s.id = n.id AND " + SHARES_A_WORD.format(c="s")
    sql += " ORDER BY n.distance, n.id"
    # pgvector takes at most 1000; the iterative scan goes on past it for a deeper limit.
    ef_search = min(max(limit, settings.INGEST_SEARCH_EF_SEARCH), EF_SEARCH_MAX)
    max_tuples = settings.INGEST_SEARCH_MAX_SCAN_TUPLES
    with transaction.atomic(), connection.cursor() as cursor:
        # SET LOCAL: the settings end with this transaction, never leak to the connection.
        cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        cursor.execute(f"SET LOCAL hnsw.ef_search = {int(ef_search)}")
        cursor.execute(f"SET LOCAL hnsw.max_scan_tuples = {int(max_tuples)}")
        cursor.execute(sql, params)
        return [(row[0], float(row[1])) for row in cursor.fetchall()]
