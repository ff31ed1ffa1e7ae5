"""Queries for the search benchmarks, from the ready chunks of one account: what
`tests.bench.search` (speed, filtered recall) and `tests.bench.search.vectors` (the vector
list, path by path) both send."""

from __future__ import annotations

import random
from typing import Any

from tests.bench.search.synthetic import FUNCTION_WORDS


def ready_chunks_sql(columns: str) -> str:
    """SELECT `columns` of one account's ready chunks (`c`, joined to their document `d`);
    the account's id is the one parameter."""
    return (
        f"SELECT {columns} FROM search_chunk c JOIN documents_document d"
        " ON d.id = c.document_id AND c.version = d.ready_version WHERE d.owner_id = %s"
    )


def query_texts(conn: Any, owner_id: int, count: int, rng: random.Random) -> list[str]:
    """`count` new queries of 2-4 content words, each from one random ready chunk."""
    rows = conn.execute(
        ready_chunks_sql("c.text") + " ORDER BY random() LIMIT %s", (owner_id, count * 2)
    ).fetchall()
    return words_of([text for (text,) in rows], count, rng)


def words_of(chunks: list[str], count: int, rng: random.Random) -> list[str]:
    """Up to `count` queries of 2-4 content words, each from one of `chunks`, in order."""
    skip = set(FUNCTION_WORDS)
    texts: list[str] = []
    for text in chunks:
        words = sorted({w for w in text.split() if w not in skip})
        if len(words) >= 4:
            texts.append(" ".join(rng.sample(words, rng.randint(2, 4))))
        if len(texts) == count:
            break
    return texts
