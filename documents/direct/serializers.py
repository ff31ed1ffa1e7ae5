"""What `POST /api/uploads/` takes and what it and its completion answer."""

from rest_framework import serializers

from documents import labels
from documents.api.serializers import UploadResultOut


class DirectUploadIn(serializers.Serializer):
    filename = serializers.CharField(max_length=255, help_text="The file's name, as shown.")
    size = serializers.IntegerField(
        min_value=0, help_text="The file's exact size in bytes: the bucket takes no other."
    )
    sha256 = serializers.RegexField(
        r"^[0-9a-fA-F]{64}$",
        required=False,
        help_text="The file's SHA-256 in hex, if known: identical bytes are then answered as "
        "an upload answers them, and the worker checks it (a mismatch fails the job "
        "`checksum_mismatch`).",
    )
    webhook_url = serializers.CharField(
        required=False, allow_blank=True, help_text="Hears how the job ends (a signed POST)."
    )
    tags = serializers.ListField(
        child=serializers.CharField(allow_blank=True),
        required=False,
        help_text=f"At most {labels.MAX_TAGS} tags of 1 to {labels.MAX_TAG_CHARS} characters.",
    )
    metadata = serializers.DictField(
        required=False, help_text="A flat object of string, number and boolean values."
    )


class PartOut(serializers.Serializer):
    number = serializers.IntegerField()
    size = serializers.IntegerField(help_text="Bytes of the file this part carries.")
    url = serializers.URLField(help_text="PUT the part's bytes here (resend it alone if it fails).")


class DirectUploadOut(serializers.Serializer):
    upload_id = serializers.UUIDField()
    expires_at = serializers.DateTimeField(help_text="Send and complete before this.")
    complete_url = serializers.URLField(help_text="POST here once the bytes are sent.")
    method = serializers.ChoiceField(
        ["POST", "PUT"], help_text="POST: one form upload (`url`, `fields`); PUT: `parts`."
    )
    url = serializers.URLField(
        required=False, help_text="POST a multipart form here: `fields`, then `file` last."
    )
    part_size = serializers.IntegerField(required=False)
    parts = PartOut(many=True, required=False)

    def get_fields(self) -> dict[str, serializers.Field]:
        # `fields` names the form's fields in the answer, but is a Serializer's own
        # attribute: added here, where the schema generator reads the fields.
        declared = super().get_fields()
        declared["fields"] = serializers.DictField(
            child=serializers.CharField(), required=False, help_text="The form's fields, as given."
        )
        return declared


class CompletedOut(UploadResultOut):
    """A completed direct upload: answered as one file of an upload is."""

    upload_id = serializers.UUIDField()
