"""Starting a direct upload: what the client declares, the checks and limits of its start,
and where to send the bytes (a presigned form, or a presigned URL per part signing its
exact size)."""

import math
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from config.common import humanize, locks, metrics
from documents.direct.bucket import arrival_name, available, object_key, s3, unavailable
from documents.front_door import quotas
from documents.front_door.refusal import Refusal
from documents.models import DirectUpload
from documents.services.uploads import storage_key
from search import file_types

MAX_PARTS = 10_000  # S3's limit on the parts of one multipart upload


@dataclass(frozen=True)
class Declared:
    """What the client says it will send."""

    filename: str
    size: int
    sha256: str = ""
    webhook_url: str = ""
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


def start(*, owner: User, declared: Declared, public_url: str) -> DirectUpload:
    """Record the upload and, past the multipart threshold, open its multipart upload.
    Refusals: 413 `too_large` past INGEST_MAX_DIRECT_UPLOAD_BYTES, 400 `empty`, the
    owner's quotas for one more document of this size (uploads started and not ended
    count), and 429 `too_many_in_flight` past their direct uploads in flight. An owner's
    starts take turns (an advisory lock), so a burst of them cannot all pass one check."""
    if not available():
        raise unavailable()
    limit = settings.INGEST_MAX_DIRECT_UPLOAD_BYTES
    if declared.size > limit:
        raise Refusal(
            http_status=413,
            code="too_large",
            detail=f"The file is larger than the limit of {humanize.size(limit)} for direct "
            "uploads.",
        )
    if declared.size < 1:
        raise Refusal(http_status=400, code="empty", detail="The file is empty.")
    with transaction.atomic():
        locks.hold(f"direct-upload-start:{owner.pk}")
        refusal = quotas.check(
            user_id=owner.pk, new_documents=1, new_bytes=declared.size
        ) or quotas.direct_uploads_refusal(user_id=owner.pk, new_bytes=declared.size)
        if refusal:
            raise refusal
        upload = _opened(owner=owner, declared=declared, public_url=public_url)
    metrics.DIRECT_UPLOADS.labels(outcome="started").inc()
    return upload


def _content_type(filename: str) -> str:
    """What the bucket records of the object before its bytes are seen: the declared
    name's type, or plain bytes."""
    named = file_types.by_name(filename)
    return named.media_type if named else "application/octet-stream"


def _opened(*, owner: User, declared: Declared, public_url: str) -> DirectUpload:
    document_id = uuid.uuid4()
    named = file_types.by_name(declared.filename)  # the key's extension, until bytes tell
    lasts = timedelta(seconds=settings.INGEST_DIRECT_UPLOAD_EXPIRES_SECONDS)
    upload = DirectUpload(
        owner=owner,
        document_id=document_id,
        filename=declared.filename,
        size=declared.size,
        sha256=declared.sha256,
        webhook_url=declared.webhook_url,
        public_url=public_url,
        tags=declared.tags,
        metadata=declared.metadata,
        storage_key=storage_key(
            owner_id=owner.pk,
            document_id=document_id,
            version=1,
            extension=named.extension if named else "",
        ),
        expires_at=timezone.now() + lasts,
    )
    if declared.size > settings.INGEST_MULTIPART_THRESHOLD_BYTES:
        client, bucket = s3()
        opened = client.create_multipart_upload(
            Bucket=bucket,
            Key=object_key(upload.storage_key),
            ContentType=_content_type(declared.filename),
        )
        upload.multipart_id = opened["UploadId"]
        upload.part_size = part_size(declared.size)
    upload.save()
    return upload


def part_size(size: int) -> int:
    """INGEST_MULTIPART_THRESHOLD_BYTES, or larger where S3's 10,000 parts need it."""
    return max(settings.INGEST_MULTIPART_THRESHOLD_BYTES, math.ceil(size / MAX_PARTS))


def part_sizes(size: int, part: int) -> dict[int, int]:
    """Each part's number and size: all `part` bytes but the last."""
    count = math.ceil(size / part)
    return {n: min(part, size - (n - 1) * part) for n in range(1, count + 1)}


def where_to_send(upload: DirectUpload) -> dict[str, Any]:
    """The presigned POST form (`url`, `fields`), or the multipart upload's part URLs."""
    client, bucket = s3()
    key = object_key(arrival_name(upload))
    expires = max(1, int((upload.expires_at - timezone.now()).total_seconds()))
    if not upload.multipart_id:
        content_type = _content_type(upload.filename)
        form = client.generate_presigned_post(
            Bucket=bucket,
            Key=key,
            Fields={"Content-Type": content_type},
            Conditions=[
                ["content-length-range", upload.size, upload.size],
                {"Content-Type": content_type},
            ],
            ExpiresIn=expires,
        )
        return {"method": "POST", "url": form["url"], "fields": form["fields"]}
    assert upload.part_size is not None
    parts = [
        {
            "number": number,
            "size": size,
            "url": client.generate_presigned_url(
                "upload_part",
                Params={
                    "Bucket": bucket,
                    "Key": key,
                    "UploadId": upload.multipart_id,
                    "PartNumber": number,
                    # Signed: S3 refuses a part of any other size (a 1 MiB part's URL
                    # took 40 MiB before), so the parts hold no more than was declared.
                    "ContentLength": size,
                },
                ExpiresIn=expires,
            ),
        }
        for number, size in part_sizes(upload.size, upload.part_size).items()
    ]
    return {"method": "PUT", "part_size": upload.part_size, "parts": parts}
