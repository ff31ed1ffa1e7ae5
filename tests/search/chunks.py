"""Ready documents with chunks written straight into the table, for search tests."""

import uuid

from django.conf import settings

from documents.models import Document
from search.embedding import hashing_embed
from search.embedding.signature import current_signature
from search.models import Chunk
from search.pipeline.store import chunk_id


def ready_document(
    owner,
    texts: list[str],
    *,
    filename: str = "a.pdf",
    version: int = 1,
    ocr: dict[int, float | None] | None = None,
):
    """A document whose `version` is ready, with one chunk per text (hashing vectors);
    `ocr`: the indexes of the chunks read by OCR, each with its page's confidence."""
    document = Document.objects.create(
        owner=owner,
        filename=filename,
        size=10,
        sha256=uuid.uuid4().hex * 2,
        storage_key="k",
        version=version,
        ready_version=version,
        ready_embed_model=current_signature(),
    )
    add_chunks(document, version, texts, ocr=ocr)
    return document


def add_chunks(
    document, version: int, texts: list[str], *, ocr: dict[int, float | None] | None = None
) -> list[Chunk]:
    ocr = ocr or {}
    vectors = hashing_embed(texts, settings.INGEST_EMBED_DIMENSIONS)
    return Chunk.objects.bulk_create(
        Chunk(
            id=chunk_id(document.id, version, index),
            document=document,
            version=version,
            index=index,
            page=index + 1,
            text=text,
            source="ocr" if index in ocr else "text",
            confidence=ocr.get(index),
            embedding=vector,
        )
        for index, (text, vector) in enumerate(zip(texts, vectors, strict=True))
    )
