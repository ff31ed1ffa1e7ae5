"""API tokens, kept as hashes: the key itself is shown once, when it is made, and never
stored. A leaked database or backup holds nothing that signs anyone in.

A key is 160 random bits, so one round of sha256 is enough to make the stored digest
useless (no dictionary, no brute force reaches it) and cheap enough to compute on every
request; a slow password hash would add milliseconds to each upload for nothing.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class ApiToken(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    # What the owner calls it ("laptop", "ci"), to tell several apart.
    name = models.CharField(max_length=100, blank=True)
    # The key's first characters, to recognise a key without keeping it.
    prefix = models.CharField(max_length=8)
    # sha256 of the key, hex: how a request's key is found.
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    # None: the token works until it is deleted.
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "API token"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.name or 'token'})"

    def has_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()
