"""Where a search hit can be read further and seen, as absolute URLs (the API's and the
MCP server's hits carry them). `base` is where the client reached the service
(documents.front_door.intake.public_url)."""

from urllib.parse import urlencode

from django.urls import reverse

from config.http.links import version_links
from search.retrieval.answer import Hit


def of_hit(base: str, hit: Hit) -> dict[str, str]:
    """The hit's chunk (`neighbours=N` widens it), its document, the version's content and
    chunks, and where to see it: the document's page opened at the hit's page with its
    boxes highlighted, and that page as an image."""
    return {
        "chunk": base + reverse("chunk-detail", args=[hit.chunk_id]),
        **version_links(base, hit.document_id, hit.version),
        "view": f"{base}{reverse('page-detail', args=[hit.document_id])}?"
        + urlencode({"page": hit.page, "chunk": hit.chunk_id}),
        "page_image": base
        + reverse("document-page-image", kwargs={"pk": hit.document_id, "n": hit.page}),
    }
