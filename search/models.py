from django.conf import settings
from django.db import models
from pgvector.django import HnswIndex, VectorField

from search import block_kinds


def page_range(page: int, page_end: int | None) -> list[int]:
    """The pages a chunk runs over, first to last, from its `page` and `page_end`."""
    return list(range(page, (page_end or page) + 1))


class Chunk(models.Model):
    """A piece of a document's text and its embedding.

    The id is uuid5(document, version, index), so processing the same version again
    overwrites the same rows instead of adding copies.
    """

    id = models.UUIDField(primary_key=True, editable=False)
    document = models.ForeignKey(
        "documents.Document", on_delete=models.CASCADE, related_name="chunks"
    )
    version = models.PositiveIntegerField()
    index = models.PositiveIntegerField()
    text = models.TextField()
    page = models.PositiveIntegerField(help_text="1-based page the chunk comes from.")
    source = models.CharField(
        max_length=4,
        choices=[("text", "text layer"), ("ocr", "OCR")],
        default="text",
        db_default="text",
        help_text="Where its page's text came from: the PDF's text layer, or OCR.",
    )
    confidence = models.FloatField(
        null=True, blank=True, help_text="The OCR engine's mean confidence on its page, 0 to 1."
    )
    embedding = VectorField(dimensions=settings.INGEST_EMBED_DIMENSIONS)
    section = models.TextField(
        blank=True,
        default="",
        db_default="",
        help_text='Its heading path, "Results > Costs"; empty before the first heading.',
    )
    page_end = models.PositiveIntegerField(
        null=True, blank=True, help_text="The last page it runs onto; empty: `page` alone."
    )
    boxes = models.JSONField(
        default=list,
        db_default=models.Value([], output_field=models.JSONField()),
        blank=True,
        help_text="Where its parts are: [page, x0, y0, x1, y1] each, in points from the "
        "shown page's top-left corner.",
    )

    class Meta:
        ordering = ["document", "version", "index"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "version", "index"], name="chunk_unique_position"
            )
        ]
        indexes = [
            HnswIndex(
                name="chunk_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            )
        ]

    def __str__(self) -> str:
        return f"chunk {self.index} of {self.document_id} v{self.version}"


SOURCES = [("text", "text layer"), ("ocr", "OCR")]


class DocumentPage(models.Model):
    """A page of a document version, as its structure was read: its size as shown, and
    where its text came from. The id is uuid5(document, version, "page", number)."""

    id = models.UUIDField(primary_key=True, editable=False)
    document = models.ForeignKey(
        "documents.Document", on_delete=models.CASCADE, related_name="structure_pages"
    )
    version = models.PositiveIntegerField()
    number = models.PositiveIntegerField(help_text="1-based.")
    width = models.FloatField(help_text="Points, as the page is shown (its rotation applied).")
    height = models.FloatField(help_text="Points, as the page is shown.")
    source = models.CharField(max_length=4, choices=SOURCES, default="text")
    confidence = models.FloatField(null=True, blank=True, help_text="OCR's, 0 to 1.")

    class Meta:
        ordering = ["document", "version", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "version", "number"], name="page_unique_number"
            )
        ]

    def __str__(self) -> str:
        return f"page {self.number} of {self.document_id} v{self.version}"


class Block(models.Model):
    """A block of a document version's structure (search/pipeline/layout/model.py), in
    reading order: a heading, a paragraph, a table with its cells, a piece of page
    furniture... with its page and box. The version's chunks are cut from these, less the
    furniture. The id is uuid5(document, version, "block", index), so a retry overwrites."""

    id = models.UUIDField(primary_key=True, editable=False)
    document = models.ForeignKey(
        "documents.Document", on_delete=models.CASCADE, related_name="blocks"
    )
    version = models.PositiveIntegerField()
    index = models.PositiveIntegerField(help_text="Its place in reading order, from 0.")
    page = models.PositiveIntegerField(help_text="1-based page it starts on.")
    kind = models.CharField(max_length=16, choices=[(kind, kind) for kind in block_kinds.KINDS])
    level = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="A heading's: 1 for a top section; a title's is 0."
    )
    text = models.TextField(blank=True)
    box = models.JSONField(help_text="[x0, y0, x1, y1] in points from the shown page's corner.")
    cells = models.JSONField(null=True, blank=True, help_text="A table's cells.")
    parts = models.JSONField(
        null=True, blank=True, help_text="Where it goes on: [page, [x0, y0, x1, y1]] each."
    )
    lines = models.JSONField(
        null=True,
        blank=True,
        help_text="Its lines: [page, [x0, y0, x1, y1], offset in the text] each.",
    )
    source = models.CharField(max_length=4, choices=SOURCES, default="text")
    confidence = models.FloatField(null=True, blank=True, help_text="OCR's, 0 to 1.")

    class Meta:
        ordering = ["document", "version", "index"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "version", "index"], name="block_unique_position"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.index} of {self.document_id} v{self.version}"


class SimilarityFloor(models.Model):
    """An embedding's measured floor (search/retrieval/floors.py): the least similarity of a chunk
    found by its vector alone, written by `manage.py calibrate_search_floor`."""

    signature = models.CharField(
        max_length=300, unique=True, help_text='The embedding, "<provider>:<model>:<dimensions>".'
    )
    floor = models.FloatField(help_text="Least cosine similarity of a vector-only hit.")
    highest = models.FloatField(
        null=True, help_text="The highest similarity a query that can match nothing reached."
    )
    queries = models.PositiveIntegerField(help_text="How many such queries were measured.")
    chunks = models.PositiveIntegerField(help_text="Ready chunks searched.")
    measured_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.signature}: {self.floor:.2f}"
