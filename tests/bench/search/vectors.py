"""Why vector recall is what it is, for `tests.bench.search`: the vector list alone
(search.retrieval.vector.nearest) for the largest account, path by path.

For short queries (2-4 words, as the speed runs send) and long ones (30 consecutive words
of a chunk), the top 10 of: the exact path, the HNSW path with the service's settings and
with a wider search, and the HNSW index with no owner filter at all (against an exact scan
of the whole table). Recall@10 against the exact answer, and the time of each.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

from tests.bench.report import percentile
from tests.bench.search.queries import query_texts, ready_chunks_sql
from tests.bench.search.synthetic import Corpus

K = 10
LONG_WORDS = 30


def _queries(conn: Any, owner_id: int, count: int, rng: random.Random) -> dict[str, list[str]]:
    rows = conn.execute(
        ready_chunks_sql("c.text") + " ORDER BY random() LIMIT %s", (owner_id, count)
    ).fetchall()
    long = []
    for (text,) in rows:
        words = text.split()
        start = rng.randrange(0, max(1, len(words) - LONG_WORDS))
        long.append(" ".join(words[start : start + LONG_WORDS]))
    return {"short": query_texts(conn, owner_id, count, rng), "long": long}


def _exact(matrix: np.ndarray, ids: list, vector: np.ndarray) -> set:
    distance = 1.0 - matrix @ vector
    tenth = np.partition(distance, K - 1)[K - 1]
    return {ids[n] for n in np.flatnonzero(distance <= tenth + 1e-6)}


def _whole_table(conn: Any, vector: np.ndarray, exact: bool, ef_search: int) -> list:
    with conn.transaction():
        conn.execute(f"SET LOCAL hnsw.ef_search = {ef_search}")
        if exact:
            conn.execute("SET LOCAL enable_indexscan = off")
        rows = conn.execute(
            "SELECT id, embedding <=> %s AS distance FROM search_chunk ORDER BY embedding <=> %s"
            " LIMIT %s",
            (vector, vector, K + 5),
        ).fetchall()
    if not rows:
        return []
    # The exact answer, with ties at the tenth distance.
    tenth = rows[min(K, len(rows)) - 1][1]
    return [r[0] for r in rows if not exact or r[1] <= tenth + 1e-6][: K if not exact else None]


def diagnose(
    database_url: str, corpus: Corpus, queries: int, dimensions: int, seed: int
) -> list[dict[str, Any]]:
    # Imported once Django is set up (tests.bench.search's run()): they load models.
    from django.test import override_settings

    from search.embedding.hashing import hashing_embed
    from search.retrieval.scope import Scope
    from search.retrieval.vector import nearest

    account = corpus.largest
    scope = Scope(owner_id=account.user_id)
    rng = random.Random(seed + 2)
    paths = {
        "exact (forced)": ({}, True),
        "HNSW, the service's settings": ({}, False),
        "HNSW, ef_search 400": ({"INGEST_SEARCH_EF_SEARCH": 400}, False),
        "HNSW, ef_search 1000, max_scan_tuples 100,000": (
            {"INGEST_SEARCH_EF_SEARCH": 1000, "INGEST_SEARCH_MAX_SCAN_TUPLES": 100_000},
            False,
        ),
    }
    rows: list[dict[str, Any]] = []
    with psycopg.connect(database_url, autocommit=True) as conn:
        register_vector(conn)
        conn.execute("SELECT setseed(%s)", (seed / 1000 + 0.25,))
        stored = conn.execute(
            "SELECT c.id, c.embedding FROM search_chunk c JOIN documents_document d"
            " ON d.id = c.document_id AND c.version = d.ready_version WHERE d.owner_id = %s",
            (account.user_id,),
        ).fetchall()
        ids = [row[0] for row in stored]
        matrix = np.array([row[1].to_numpy() for row in stored], dtype=np.float32)
        for kind, texts in _queries(conn, account.user_id, queries, rng).items():
            vectors = [np.array(v, dtype=np.float32) for v in hashing_embed(texts, dimensions)]
            exact = [_exact(matrix, ids, v) for v in vectors]
            for label, (overrides, forced) in paths.items():
                recalls, times = [], []
                with override_settings(**overrides):
                    for vector, right in zip(vectors, exact, strict=True):
                        started = time.perf_counter()
                        found = nearest(scope, vector.tolist(), K, exact=forced)
                        times.append((time.perf_counter() - started) * 1000)
                        recalls.append(sum(1 for i, _ in found if i in right) / K)
                rows.append(
                    _row(f"the largest account ({len(ids):,})", kind, label, recalls, times)
                )
            recalls, times = [], []
            for vector in vectors:
                right = set(_whole_table(conn, vector, True, 100))
                started = time.perf_counter()
                found = _whole_table(conn, vector, False, 100)
                times.append((time.perf_counter() - started) * 1000)
                recalls.append(min(K, sum(1 for i in found if i in right)) / K)
            rows.append(_row(f"no owner filter ({corpus.rows:,})", kind, "HNSW, ef_search 100", recalls, times))  # fmt: skip  # noqa: E501
    return rows


def _row(scope: str, kind: str, path: str, recalls: list[float], times: list[float]) -> dict:
    return {
        "scope": scope,
        "queries": f"{kind} ({len(recalls)})",
        "path": path,
        "recall": sum(recalls) / max(len(recalls), 1),
        "p50": percentile(times, 50),
        "p95": percentile(times, 95),
    }


def report(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "",
        "**The vector list alone** (`search.retrieval.vector.nearest`, k = 10), recall@10 "
        f"against the exact answer: short queries as above, long ones {LONG_WORDS} consecutive "
        "words of a ready chunk. The last row of each kind is the index over the whole table, no "
        "owner filter, against an exact scan of it.",
        "",
        "| chunks searched | queries | path | recall@10 | p50 ms | p95 ms |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['scope']} | {r['queries']} | {r['path']} | {r['recall']:.3f} "
            f"| {r['p50']:.1f} | {r['p95']:.1f} |"
        )
    return lines
