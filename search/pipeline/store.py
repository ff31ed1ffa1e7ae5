"""Write a version's chunks and its structure (pages and blocks) idempotently, or only the
chunks' vectors again (an embedding change), and retire what a finished run no longer has."""

import uuid
from collections.abc import Collection, Sequence

from django.db import connection
from django.db.models import Q

from search.models import Block, Chunk, DocumentPage
from search.pipeline.layout import model as layout
from search.pipeline.layout.model import Structure
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
            section=piece.section,
            page_end=piece.page_end,
            boxes=[list(box) for box in piece.boxes],
        )
        for piece, vector in zip(pieces, vectors, strict=True)
    ]
    Chunk.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["id"],
        update_fields=[
            "text",
            "page",
            "source",
            "confidence",
            "embedding",
            "section",
            "page_end",
            "boxes",
        ],
    )


def stored_chunks(*, document_id: uuid.UUID, version: int) -> list[tuple[uuid.UUID, str]]:
    """A version's chunks as (id, text), in order: the texts their vectors were made of."""
    chunks = Chunk.objects.filter(document_id=document_id, version=version).order_by("index")
    return list(chunks.values_list("id", "text"))


def replace_vectors(*, ids: Sequence[uuid.UUID], vectors: Sequence[list[float]]) -> None:
    """Overwrite these chunks' vectors and nothing else of them: their ids, texts, pages and
    boxes, and so every citation of them, stay as they were."""
    rows = [Chunk(id=i, embedding=vector) for i, vector in zip(ids, vectors, strict=True)]
    Chunk.objects.bulk_update(rows, ["embedding"])


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
    return _delete_versions(Chunk._meta.db_table, versions)


def _delete_versions(table: str, versions: Collection[tuple[uuid.UUID, int]]) -> int:
    """Delete the rows of `table` (search_chunk, search_block, ...) of these (document,
    version) pairs in one statement; how many."""
    if not versions:
        return 0
    documents, numbers = zip(*versions, strict=True)
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {table} t USING unnest(%s::uuid[], %s::int[]) "
            "AS v(document, version) "
            "WHERE t.document_id = v.document AND t.version = v.version",
            [list(documents), list(numbers)],
        )
        return cursor.rowcount


# ----------------------------------------------------------------------- the structure

STRUCTURE_BATCH = 1000
BLOCK_FIELDS = [
    "page",
    "kind",
    "level",
    "text",
    "box",
    "cells",
    "parts",
    "lines",
    "source",
    "confidence",
]


def page_id(document_id: uuid.UUID, version: int, number: int) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"{document_id}:{version}:page:{number}")


def block_id(document_id: uuid.UUID, version: int, index: int) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"{document_id}:{version}:block:{index}")


def upsert_structure(*, document_id: uuid.UUID, version: int, structure: Structure) -> None:
    """Insert or overwrite a version's pages and blocks; running it twice leaves the same
    rows. What an earlier run left past them goes with delete_stale_structure."""
    sources = {block.page: (block.source, block.confidence) for block in structure.blocks}
    pages = [
        DocumentPage(
            id=page_id(document_id, version, number),
            document_id=document_id,
            version=version,
            number=number,
            width=size.width,
            height=size.height,
            source=sources.get(number, ("text", None))[0],
            confidence=sources.get(number, ("text", None))[1],
        )
        for number, size in enumerate(structure.pages, start=1)
    ]
    DocumentPage.objects.bulk_create(
        pages,
        update_conflicts=True,
        unique_fields=["id"],
        update_fields=["width", "height", "source", "confidence"],
        batch_size=STRUCTURE_BATCH,
    )
    blocks = [
        _block_row(document_id, version, index, block)
        for index, block in enumerate(structure.blocks)
    ]
    Block.objects.bulk_create(
        blocks,
        update_conflicts=True,
        unique_fields=["id"],
        update_fields=[
            "page",
            "kind",
            "level",
            "text",
            "box",
            "cells",
            "parts",
            "lines",
            "source",
            "confidence",
        ],
        batch_size=STRUCTURE_BATCH,
    )


def _block_row(document_id: uuid.UUID, version: int, index: int, block: layout.Block) -> Block:
    data = block.as_dict()
    return Block(
        id=block_id(document_id, version, index),
        document_id=document_id,
        version=version,
        index=index,
        page=block.page,
        kind=block.kind,
        level=block.level if block.kind in (layout.TITLE, layout.HEADING) else None,
        text=block.text,
        box=data["box"],
        cells=data.get("cells"),
        parts=data.get("parts"),
        lines=data.get("lines"),
        source=block.source,
        confidence=block.confidence,
    )


def delete_stale_structure(
    *, document_id: uuid.UUID, version: int, pages: int, blocks: int
) -> None:
    """Delete the structure `version`'s finished run replaces: older versions', and this
    version's pages and blocks past those it wrote (none, when it read no structure)."""
    DocumentPage.objects.filter(document_id=document_id).filter(
        Q(version__lt=version) | Q(version=version, number__gt=pages)
    ).delete()
    Block.objects.filter(document_id=document_id).filter(
        Q(version__lt=version) | Q(version=version, index__gte=blocks)
    ).delete()


def delete_structure_of_version(*, document_id: uuid.UUID, version: int) -> None:
    """Discard a version's structure (a newer version became ready first)."""
    DocumentPage.objects.filter(document_id=document_id, version=version).delete()
    Block.objects.filter(document_id=document_id, version=version).delete()


def delete_structure_of_versions(versions: Collection[tuple[uuid.UUID, int]]) -> int:
    """Discard the pages and blocks of these (document, version) pairs (versions
    retention prunes), one statement a table; the blocks deleted."""
    _delete_versions(DocumentPage._meta.db_table, versions)
    return _delete_versions(Block._meta.db_table, versions)
