"""What the documents API reads and writes. Shapes only: no logic lives here."""

from rest_framework import serializers

from documents.models import Document
from jobs.serializers import JobOut


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


class UploadIn(serializers.Serializer):
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
            "created_at",
            "updated_at",
            "job",
        ]


class DocumentDetailOut(DocumentOut):
    chunk_count = serializers.IntegerField()

    class Meta(DocumentOut.Meta):
        fields = [*DocumentOut.Meta.fields, "chunk_count"]
