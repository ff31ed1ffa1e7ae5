"""What the documents API reads and writes. Shapes only: no logic lives here."""

from rest_framework import serializers

from documents import labels
from documents.models import Document
from jobs.api.serializers import JobOut


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


class DocumentOut(serializers.ModelSerializer):
    status = serializers.CharField(source="current_job.status", default=None)
    job = JobOut(source="current_job", allow_null=True)

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
            "page_count",
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
