import uuid

from django.conf import settings
from django.db import models


class Document(models.Model):
    """An uploaded file and who owns it. Its processing state lives on its jobs."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="documents"
    )
    filename = models.CharField(max_length=255, help_text="Display name, as uploaded.")
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    storage_key = models.CharField(max_length=500, help_text="Key in the default storage.")
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["owner", "-created_at"]),
            models.Index(fields=["owner", "sha256"]),
        ]

    def __str__(self) -> str:
        return self.filename
