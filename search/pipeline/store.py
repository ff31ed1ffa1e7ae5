"""Write chunks idempotently and retire the ones a finished run no longer has."""

import uuid
from collections.abc import Collection, Sequence

from django.db import connection
from django.db.models import Q

from search.models import Chunk
from search.pipeline.split import Piece

_NAMESPACE = uuid.UUID("6f1c3a52-2d0e-4c8b-9a57-0e4f51b7c3d1")


def chunk_id(document_id: uuid.UUID, version: int, index: int) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"{document_id}:{version}:{index}")


def upsert_chunks(
    *, document_id: uuid.UUID, version: int, pieces: Sequence[Piece], vectors: Sequence[list[float]]
) -> None:
    """Insert or overwrite one batch; running it twice leaves the same rows."""
    rows = [
        Chunk(
            id=chunk_id(document_id, version, piece.index),
            document_id=document_id,
            version=version,
            index=piece.index,
            page=piece.page,
            text=piece.text,
            source=piece.source,
            confidence=piece.confidence,
            embedding=vector,
        )
        for piece, vector in zip(pieces, vectors, strict=True)
    ]
    Chunk.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["id"],
        update_fields=["text", "page", "source", "confidence", "embedding"],
    )


def delete_stale_chunks(*, document_id: uuid.UUID, version: int, count: int) -> int:
    """Delete what `version`'s finished run replaces: older versions' chunks, and this
    version's chunks past `count` (left by an earlier run that made more). Newer
    versions' chunks, still being written, are kept."""
    stale = Chunk.objects.filter(document_id=document_id).filter(
        Q(version__lt=version) | Q(version=version, index__gte=count)
    )
    deleted, _ = stale.delete()
    return deleted


def delete_chunks_of_version(*, document_id: uuid.UUID, version: int) -> int:
    """Discard a version's chunks (a newer version became ready first)."""
    deleted, _ = Chunk.objects.filter(document_id=document_id, version=version).delete()
    return deleted


def delete_chunks_of_versions(versions: Collection[tuple[uuid.UUID, int]]) -> int:
    """Discard the chunks of these (document, version) pairs (versions retention prunes),
    in one statement however many pairs."""
    if not versions:
        return 0
    documents, numbers = zip(*versions, strict=True)
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM search_chunk c USING unnest(%s::uuid[], %s::int[]) "
            "AS v(document, version) WHERE c.document_id = v.document AND c.version = v.version",
            [list(documents), list(numbers)],
        )
        return cursor.rowcount
