"""Per-user quotas on what is kept: INGEST_MAX_DOCUMENTS_PER_USER documents and
INGEST_MAX_BYTES_PER_USER bytes (every stored version of each document). Both are off (0)
by default, and then cost nothing.

A direct upload started and not yet ended counts as the document it would become, with
its declared size: its bytes may already be in the bucket. A direct upload's parts hold
no more than was declared (documents.direct.starting signs their sizes), and an account has at
most INGEST_MAX_DIRECT_UPLOADS_IN_FLIGHT of them, of INGEST_MAX_DIRECT_BYTES_IN_FLIGHT
declared bytes together, quotas or none: so nobody parks unbounded bytes in the bucket.

An upload is checked twice: before its body is read (documents.front_door.admission: an account
already at a limit is refused without reading a byte) and once its files are parsed,
against their real sizes, before anything is stored (documents.front_door.intake). Two uploads
racing at the edge may both pass: a quota bounds an account's use, it is not a
transaction. (Direct uploads' starts take turns, so they do not race.)
"""

import math
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Count, Min, QuerySet, Sum
from django.utils import timezone

from config.common import humanize
from documents.front_door.refusal import Refusal
from documents.models import DirectUpload, DirectUploadStatus, Document


@dataclass(frozen=True)
class Usage:
    documents: int
    bytes: int


def enabled() -> bool:
    return bool(settings.INGEST_MAX_DOCUMENTS_PER_USER or settings.INGEST_MAX_BYTES_PER_USER)


def usage(user_id: int, *, completing: uuid.UUID | None = None) -> Usage:
    """The account's documents and their bytes, with its direct uploads in flight but
    `completing` (the one becoming a document, counted by the caller)."""
    kept = Document.objects.filter(owner_id=user_id).aggregate(
        n=Count("id"), size=Sum("stored_bytes")
    )
    flying = direct_uploads_in_flight(user_id, completing=completing)
    return Usage(kept["n"] + flying.documents, (kept["size"] or 0) + flying.bytes)


def direct_uploads_in_flight(user_id: int, *, completing: uuid.UUID | None = None) -> Usage:
    """The account's direct uploads started and not ended, and their declared bytes."""
    started = _started(user_id)
    if completing is not None:
        started = started.exclude(id=completing)
    totals = started.aggregate(n=Count("id"), size=Sum("size"))
    return Usage(totals["n"], totals["size"] or 0)


def _started(user_id: int) -> QuerySet[DirectUpload]:
    return DirectUpload.objects.filter(owner_id=user_id, status=DirectUploadStatus.STARTED)


def direct_uploads_refusal(*, user_id: int, new_bytes: int) -> Refusal | None:
    """None while the account can start one more direct upload of `new_bytes`; else 429
    `too_many_in_flight`, with Retry-After until its oldest upload in flight expires
    (the sweeper then deletes whatever it left)."""
    flying = direct_uploads_in_flight(user_id)
    max_count = settings.INGEST_MAX_DIRECT_UPLOADS_IN_FLIGHT
    max_bytes = settings.INGEST_MAX_DIRECT_BYTES_IN_FLIGHT
    if flying.documents + 1 > max_count:
        held = (
            f"{flying.documents} direct uploads started and not completed; the limit is {max_count}"
        )
    elif flying.bytes + new_bytes > max_bytes:
        held = (
            f"direct uploads of {humanize.size(flying.bytes)} started and not completed, and "
            f"this one declares {humanize.size(new_bytes)}; the limit is "
            f"{humanize.size(max_bytes)} at once"
        )
    else:
        return None
    oldest = _started(user_id).aggregate(at=Min("expires_at"))["at"]
    wait = (oldest - timezone.now()).total_seconds() if oldest else 0
    return Refusal(
        http_status=429,
        code="too_many_in_flight",
        detail=f"You have {held}. Complete them, or wait until they expire.",
        retry_after=max(1, math.ceil(wait)),
    )


def check(
    *,
    user_id: int,
    new_documents: int = 0,
    new_bytes: int = 0,
    versions: bool = False,
    completing: uuid.UUID | None = None,
) -> Refusal | None:
    """None when the account can take `new_documents` more documents and `new_bytes` more
    bytes (with none, whether it has any room left at all). `versions`: the bytes are new
    versions of documents it has, which add bytes and no document. `completing`: the
    direct upload these are, no longer counted as in flight. A refusal has no
    Retry-After: no wait helps, room is made by deleting documents."""
    if not enabled():
        return None
    used = usage(user_id, completing=completing)
    max_documents = settings.INGEST_MAX_DOCUMENTS_PER_USER
    if max_documents and not versions and used.documents + max(new_documents, 1) > max_documents:
        return Refusal(
            http_status=429,
            code="document_quota_exceeded",
            detail=f"Your account keeps {used.documents} documents (uploads in progress "
            f"included); the limit is {max_documents}. Delete some to upload more.",
        )
    max_bytes = settings.INGEST_MAX_BYTES_PER_USER
    if max_bytes and used.bytes + max(new_bytes, 1) > max_bytes:
        return Refusal(
            http_status=413,
            code="storage_quota_exceeded",
            detail=f"Your documents (uploads in progress included) take "
            f"{humanize.size(used.bytes)}"
            + (f" and this upload {humanize.size(new_bytes)}" if new_bytes else "")
            + f"; the limit is {humanize.size(max_bytes)}. Delete some to upload more.",
        )
    return None
