"""Per-user quotas on what is kept: INGEST_MAX_DOCUMENTS_PER_USER documents and
INGEST_MAX_BYTES_PER_USER bytes (every stored version of each document). Both are off (0)
by default, and then cost nothing.

An upload is checked twice: before its body is read (documents.admission: an account
already at a limit is refused without reading a byte) and once its files are parsed,
against their real sizes, before anything is stored (documents.intake). Two uploads
racing at the edge may both pass: a quota bounds an account's use, it is not a
transaction.
"""

from dataclasses import dataclass

from django.conf import settings
from django.db.models import Count, Sum

from config import humanize
from documents.models import Document
from documents.refusal import Refusal


@dataclass(frozen=True)
class Usage:
    documents: int
    bytes: int


def enabled() -> bool:
    return bool(settings.INGEST_MAX_DOCUMENTS_PER_USER or settings.INGEST_MAX_BYTES_PER_USER)


def usage(user_id: int) -> Usage:
    totals = Document.objects.filter(owner_id=user_id).aggregate(
        n=Count("id"), size=Sum("stored_bytes")
    )
    return Usage(totals["n"], totals["size"] or 0)


def check(
    *, user_id: int, new_documents: int = 0, new_bytes: int = 0, versions: bool = False
) -> Refusal | None:
    """None when the account can take `new_documents` more documents and `new_bytes` more
    bytes (with none, whether it has any room left at all). `versions`: the bytes are new
    versions of documents it has, which add bytes and no document. A refusal has no
    Retry-After: no wait helps, room is made by deleting documents."""
    if not enabled():
        return None
    used = usage(user_id)
    max_documents = settings.INGEST_MAX_DOCUMENTS_PER_USER
    if max_documents and not versions and used.documents + max(new_documents, 1) > max_documents:
        return Refusal(
            http_status=429,
            code="document_quota_exceeded",
            detail=f"Your account keeps {used.documents} documents; the limit is {max_documents}. "
            "Delete some to upload more.",
        )
    max_bytes = settings.INGEST_MAX_BYTES_PER_USER
    if max_bytes and used.bytes + max(new_bytes, 1) > max_bytes:
        return Refusal(
            http_status=413,
            code="storage_quota_exceeded",
            detail=f"Your documents take {humanize.size(used.bytes)}"
            + (f" and this upload {humanize.size(new_bytes)}" if new_bytes else "")
            + f"; the limit is {humanize.size(max_bytes)}. Delete some to upload more.",
        )
    return None
