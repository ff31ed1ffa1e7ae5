"""The chosen chunks as Hits: their document, text and an HTML-safe highlight.

The highlight is `ts_headline` over the chunk's text *after* escaping it for HTML (in
SQL, so the headline's fragments are cut from the escaped text): the only markup in it is
the <mark> around matches. `&amp;`-style entities are single tokens to the parser, so a
match never lands inside one. Escaping after the headline would escape the marks too, and
a headline of the raw text drops anything that looks like a tag. A chunk with no lexical
match (found by its vector) is shown by its escaped beginning.
"""

import html
import json
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from django.db import connection

from search.models import Chunk, page_range
from search.pipeline.structured import section_path
from search.retrieval.answer import Hit
from search.retrieval.scope import document_table
from search.retrieval.text import websearch_text
from search.retrieval.text_search import TSQUERY
from search.retrieval.vector import literal

# One fragment of up to 35 words around the best match (fragment mode, MaxFragments > 0,
# drops the words before a match even when the chunk starts there).
HEADLINE_OPTIONS = "StartSel=<mark>, StopSel=</mark>, MaxWords=35, MinWords=15"
LEADING_CHARS = 240  # a highlight without a match: this much of the chunk's beginning

_ESCAPED = (
    "replace(replace(replace(replace(replace(c.text, '&', '&amp;'), '<', '&lt;'), "
    "'>', '&gt;'), '\"', '&quot;'), '''', '&#x27;')"
)


def leading(text: str) -> str:
    """The escaped beginning of `text`, cut at a space, with … when there is more."""
    if len(text) <= LEADING_CHARS:
        return html.escape(text)
    cut = text[:LEADING_CHARS]
    if " " in cut[LEADING_CHARS // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return html.escape(cut) + " …"


def rounded(confidence: float | None) -> float | None:
    """OCR's confidence as results give it: three decimals are more than it means."""
    return None if confidence is None else round(confidence, 3)


def _tidy(headline: str) -> str:
    """Without search_words' separators; a CJK phrase's characters, each marked, in one
    <mark> (nothing separates them once the separators are gone)."""
    return headline.replace("\x1f", "").replace("</mark><mark>", "")


def distinct(best: Sequence[tuple[uuid.UUID, float]]) -> list[tuple[uuid.UUID, float]]:
    """Each passage once: of chunks with the same text (spaces aside), the first. A chunk
    deleted meanwhile (its version was replaced) is left out. Compared by a digest in
    SQL, so that deciding which hits a page shows reads no text."""
    if not best:
        return []
    sql = (
        r"SELECT id, md5(regexp_replace(btrim(text), '\s+', ' ', 'g')) "
        f"FROM {Chunk._meta.db_table} WHERE id = ANY(%(ids)s)"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, {"ids": [chunk_id for chunk_id, _ in best]})
        digests = dict(cursor.fetchall())
    seen: set[str] = set()
    kept = []
    for chunk_id, score in best:
        digest = digests.get(chunk_id)
        if digest is not None and digest not in seen:
            seen.add(digest)
            kept.append((chunk_id, score))
    return kept


def load(
    best: Sequence[tuple[uuid.UUID, float]],
    q: str,
    relevance: Callable[[float], float] | None = None,
    embedding: Sequence[float] | None = None,
) -> list[Hit]:
    """Hits for (chunk id, score) pairs, in their order. A chunk deleted meanwhile (its
    version was replaced) is left out. With `relevance` and the query's `embedding`, each
    hit's relevance is `relevance` of its cosine similarity to the query."""
    if not best:
        return []
    similarity = "1 - (c.embedding <=> %(v)s::vector)" if embedding is not None else "NULL"
    sql = (
        "SELECT c.id, c.document_id, d.filename, c.version, c.page, c.index, c.text, c.source, "
        f"c.confidence, c.section, c.page_end, c.boxes, {similarity}, "
        "CASE WHEN c.search_vector @@ t.query THEN ts_headline('english'::regconfig, "
        f"search_words({_ESCAPED}), t.query, %(options)s) END "
        f"FROM {Chunk._meta.db_table} c JOIN {document_table()} d "
        f"ON d.id = c.document_id CROSS JOIN (SELECT {TSQUERY} AS query) t "
        "WHERE c.id = ANY(%(ids)s)"
    )
    params: dict[str, Any] = {
        "ids": [chunk_id for chunk_id, _ in best],
        "words": websearch_text(q),
        "options": HEADLINE_OPTIONS,
    }
    if embedding is not None:
        params["v"] = literal(embedding)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = {row[0]: row for row in cursor.fetchall()}
    hits = []
    for chunk_id, score in best:
        row = rows.get(chunk_id)
        if row is None:
            continue
        _, document_id, filename, version, page, index, text, source, confidence = row[:9]
        section, page_end, boxes, cosine, headline = row[9:]
        highlight = _tidy(headline) if headline else leading(text)
        hits.append(
            Hit(
                chunk_id=chunk_id,
                document_id=document_id,
                filename=filename,
                version=version,
                page=page,
                index=index,
                score=score,
                text=text,
                highlight=highlight,
                source=source,
                confidence=rounded(confidence),
                section=section_path(section),
                pages=page_range(page, page_end),
                boxes=json.loads(boxes),  # Django leaves raw SQL's jsonb as text
                relevance=(
                    None
                    if relevance is None or cosine is None
                    else round(relevance(float(cosine)), 3)
                ),
            )
        )
    return hits
