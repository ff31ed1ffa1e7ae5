from django.conf import settings
from django.db import models
from pgvector.django import HnswIndex, VectorField


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
