"""Absolute URLs of a document version's output, by the routes' names: the links a search
hit (documents/links.py) and a webhook event (jobs.webhooks.outbox) carry. Here, below
both apps, because the routes are config's (config/urls.py) and jobs may not import
documents. `base` is scheme://host[:port], where the client reaches the service."""

import uuid
from urllib.parse import urlencode

from django.urls import reverse


def version_links(base: str, document_id: uuid.UUID | str, version: int) -> dict[str, str]:
    """The document, and its version's content and chunks."""
    query = urlencode({"version": version})
    return {
        "document": base + reverse("document-detail", args=[document_id]),
        "content": f"{base}{reverse('document-content-no-slash', args=[document_id])}?{query}",
        "chunks": f"{base}{reverse('document-chunks', args=[document_id])}?{query}",
    }
