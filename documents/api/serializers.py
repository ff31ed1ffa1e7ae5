"""What the documents API reads and writes. Shapes only: no logic lives here."""

from rest_framework import serializers

from documents import labels
from documents.models import Document
from jobs.api.serializers import JobOut
from search import file_types
from search.serializers import Cited


class ErrorOut(serializers.Serializer):
    code = serializers.CharField()
    detail = serializers.CharField()


class UploadResultOut(serializers.Serializer):
    """One file of an upload: accepted (with ids and where to follow it) or rejected."""

    filename = serializers.CharField()
    status = serializers.CharField(help_text="queued, another job status, or rejected.")
    document_id = serializers.UUIDField(required=False)
    job_id = serializers.UUIDField(required=False)
    status_url = serializers.URLField(required=False)
    duplicate = serializers.BooleanField(required=False)
    version = serializers.IntegerField(required=False)
    error = ErrorOut(required=False)


class UploadOut(serializers.Serializer):
    results = UploadResultOut(many=True)


class RefusalOut(serializers.Serializer):
    code = serializers.CharField()
    detail = serializers.CharField()
    results = UploadResultOut(many=True, required=False)


class VersionIn(serializers.Serializer):
    file = serializers.ListField(
        child=serializers.FileField(), help_text="One or more PDFs (repeat the field)."
    )
    webhook_url = serializers.URLField(
        required=False,
        max_length=2000,
        help_text="Where to POST this upload's document.succeeded or document.failed event, "
        "signed with your signing secret (GET /api/webhooks/signing-secret/). http or https "
        "on a public address; any other is refused (400 invalid_webhook_url) before "
        "anything is stored.",
    )


class UploadIn(VersionIn):
    tags = serializers.ListField(
        child=serializers.CharField(max_length=labels.MAX_TAG_CHARS),
        required=False,
        max_length=labels.MAX_TAGS,
        help_text=f"Labels for every new document of this upload: repeat the field (`-F "
        f"tags=papers -F tags=2024`), at most {labels.MAX_TAGS}, each 1 to "
        f"{labels.MAX_TAG_CHARS} characters. A file you already have keeps its own (change "
        "them with PATCH).",
    )
    metadata = serializers.CharField(
        required=False,
        help_text="One field holding a flat JSON object of string, number and boolean values, "
        f"at most {labels.MAX_METADATA_BYTES // 1024} KiB: "
        """`-F 'metadata={"year": 2024}'`.""",
    )


_CODES = [f"`{kind.code}`" for kind in file_types.TYPES]
_TYPE_CODES = f"{', '.join(_CODES[:-1])} or {_CODES[-1]}"


class DocumentOut(serializers.ModelSerializer):
    status = serializers.CharField(source="current_job.status", default=None)
    job = JobOut(source="current_job", allow_null=True)
    file_type = serializers.CharField(
        help_text=f"What its newest version is, told from its bytes: {_TYPE_CODES}."
    )
    media_type = serializers.SerializerMethodField(help_text="That type's media type.")
    paged = serializers.SerializerMethodField(
        help_text="Whether it has pages a person sees (a PDF, an image, slides). A Word "
        "document, a spreadsheet, a web page, Markdown, text and e-mail have none: their "
        "`page_count` is null, their chunks have no boxes, and every block is on page 1."
    )
    # A field named like Field.parent: the serializer's metaclass takes it off the class.
    parent = serializers.UUIDField(  # type: ignore[assignment]
        source="parent_id",
        allow_null=True,
        help_text="The e-mail this document came attached to; null for one uploaded itself.",
    )

    def get_media_type(self, document: Document) -> str:
        return document.kind.media_type

    def get_paged(self, document: Document) -> bool:
        return document.kind.paged

    class Meta:
        model = Document
        fields = [
            "id",
            "filename",
            "size",
            "sha256",
            "version",
            "ready_version",
            "status",
            "file_type",
            "media_type",
            "paged",
            "page_count",
            "parent",
            "tags",
            "metadata",
            "created_at",
            "updated_at",
            "job",
        ]


class DocumentDetailOut(DocumentOut):
    chunk_count = serializers.IntegerField()

    class Meta(DocumentOut.Meta):
        fields = [*DocumentOut.Meta.fields, "chunk_count"]


class DocumentPatchIn(serializers.Serializer):
    """What PATCH /api/documents/{id}/ changes: each field sent replaces the stored one."""

    tags = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text=f"The document's tags, all of them: at most {labels.MAX_TAGS}, each 1 to "
        f"{labels.MAX_TAG_CHARS} characters; [] removes them.",
    )
    metadata = serializers.DictField(
        required=False,
        help_text="The document's metadata, all of it: a flat object of string, number and "
        f"boolean values, at most {labels.MAX_METADATA_BYTES // 1024} KiB; {{}} removes it.",
    )


class ChunkOut(Cited):
    """A chunk as the chunks endpoints give it (documents/chunks.py builds it)."""

    id = serializers.UUIDField()
    document_id = serializers.UUIDField()
    version = serializers.IntegerField()
    index = serializers.IntegerField(help_text="Its place in the version's reading order, from 0.")
    text = serializers.CharField(help_text="Its text, as embedded (tables as Markdown).")
    # A field named like Field.source: the serializer's metaclass takes it off the class.
    source = serializers.ChoiceField(  # type: ignore[assignment]
        choices=["text", "ocr"], help_text="`text`: the PDF's text layer; `ocr`: read by OCR."
    )
    confidence = serializers.FloatField(
        allow_null=True, help_text="With `source: ocr`, OCR's mean confidence on its page, 0 to 1."
    )
    tokens = serializers.IntegerField(
        help_text="Its length in tokens of the configured embedding: words for `hashing`, "
        "the model's tokenizer for `local`, characters / 4 for `openai`."
    )
    embedding = serializers.ListField(
        child=serializers.FloatField(),
        required=False,
        help_text="With `include=embedding`: its vector.",
    )
    embedding_signature = serializers.CharField(
        required=False,
        help_text="With `include=embedding`: the embedding that made the vector, "
        '"provider:model:dimensions" (empty: unknown).',
    )


class ChunkPageOut(serializers.Serializer):
    next = serializers.URLField(allow_null=True, help_text="The next page; null on the last.")
    previous = serializers.URLField(allow_null=True)
    results = ChunkOut(many=True)


class ChunkWithNeighboursOut(ChunkOut):
    before = ChunkOut(many=True, help_text="With `neighbours=N`: up to N chunks before it.")
    after = ChunkOut(many=True, help_text="With `neighbours=N`: up to N chunks after it.")
