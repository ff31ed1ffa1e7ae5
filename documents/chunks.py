"""A document's chunks, given back: listed in reading order (GET /api/documents/{id}/chunks/),
one with its neighbours (GET /api/chunks/{id}/), and the same to the MCP tools.

A chunk is what search finds and an application puts in front of a model, so each comes
with what it needs to cite it: its heading path (`section`), the pages it runs over and
the boxes of its parts on them, where its text came from (`source`, `confidence`) and
its length in tokens of the configured embedding (search/embedding/tokens.py says how
each provider counts). Only a document's ready version has chunks to give: a newer one's
are still being written, an older one's went when it was replaced.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from django.db.models import F, QuerySet

from search.embedding.tokens import token_counts
from search.models import Chunk, page_range
from search.pipeline.structured import section_path

MAX_NEIGHBOURS = 20


def of_version(document_id: uuid.UUID, version: int, *, embedding: bool) -> QuerySet[Chunk]:
    """The version's chunks in reading order; their vectors only when asked for (a 384-float
    vector is longer than most chunks' text)."""
    chunks = Chunk.objects.filter(document_id=document_id, version=version).order_by("index")
    return chunks if embedding else chunks.defer("embedding")


def visible(owner_id: int, chunk_id: uuid.UUID) -> Chunk | None:
    """The owner's chunk `chunk_id`, if it belongs to its document's ready version."""
    return (
        Chunk.objects.defer("embedding")
        .select_related("document")
        .filter(
            id=chunk_id,
            document__owner_id=owner_id,
            version=F("document__ready_version"),
        )
        .first()
    )


def neighbours(chunk: Chunk, count: int) -> tuple[list[Chunk], list[Chunk]]:
    """Up to `count` chunks before `chunk` and after it, each list in reading order."""
    if count <= 0:
        return [], []
    around = of_version(chunk.document_id, chunk.version, embedding=False).filter(
        index__gte=chunk.index - count, index__lte=chunk.index + count
    )
    before, after = [], []
    for other in around:
        if other.index < chunk.index:
            before.append(other)
        elif other.index > chunk.index:
            after.append(other)
    return before, after


def described(chunks: Sequence[Chunk], *, embedding_signature: str | None = None) -> list[dict]:
    """The chunks as the API gives them; with `embedding_signature`, their vectors too,
    and the signature of the embedding that made them."""
    tokens = token_counts([chunk.text for chunk in chunks])
    out = []
    for chunk, length in zip(chunks, tokens, strict=True):
        found: dict[str, Any] = {
            "id": str(chunk.id),
            "document_id": str(chunk.document_id),
            "version": chunk.version,
            "index": chunk.index,
            "text": chunk.text,
            "section": section_path(chunk.section),
            "pages": pages(chunk),
            "boxes": chunk.boxes,
            "source": chunk.source,
            "confidence": None if chunk.confidence is None else round(chunk.confidence, 3),
            "tokens": length,
        }
        if embedding_signature is not None:
            found["embedding"] = [float(value) for value in chunk.embedding]
            found["embedding_signature"] = embedding_signature
        out.append(found)
    return out


def pages(chunk: Chunk) -> list[int]:
    """Every page the chunk runs over, first to last."""
    return page_range(chunk.page, chunk.page_end)
