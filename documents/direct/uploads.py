"""Direct uploads: the client sends the bytes straight to the bucket; the API never sees them.

`start` admits the request as an upload is admitted (documents.front_door.admission, by the view),
records what was declared (DirectUpload) and hands out where to send the bytes: a
presigned POST form whose policy pins the object's key (made from ids only) and its exact
size, or, past INGEST_MULTIPART_THRESHOLD_BYTES, an S3 multipart upload with a presigned
URL per part that signs the part's exact Content-Length (S3 answers 403 to any other
size; a part that failed is sent again alone). `complete` checks the object that arrived
(it exists, has the declared size, starts as a PDF: a ranged GET of its first bytes,
never the whole object), then records Document and Job in one statement as an upload
does, and keeps its answer: completing again (the client, a storage event, the sweeper)
gives the same answer. An object that is not what was declared is deleted and the upload
refused with an upload's own codes.

A form can be posted again for as long as its policy lasts, after the upload ended too.
So a form's bytes arrive at a staging key of the upload's own and are copied to the
document's key at completion, on condition that they are still the bytes checked (their
ETag); the staging key is then deleted, and anything posted there later is deleted by
the sweeper (`sweep_staging`). A multipart upload needs none of this: once completed,
refused or aborted its upload id takes no more parts.
"""

import logging
import math
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files.storage import default_storage
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from config import humanize, locks, metrics
from documents.front_door import quotas
from documents.front_door.refusal import Refusal
from documents.front_door.validation import MAGIC_WINDOW, PDF_MAGIC, Rejection, not_a_pdf, too_large
from documents.models import DirectUpload, DirectUploadStatus, Document
from documents.services.insert import insert_document_with_job
from documents.services.uploads import UNVERIFIED_SHA256, Accepted, duplicate_of, storage_key
from jobs.models import Job

log = logging.getLogger(__name__)

MAX_PARTS = 10_000  # S3's limit on the parts of one multipart upload
# Where forms' bytes arrive (under INGEST_S3_PREFIX), apart from every document's key.
STAGING = "direct-uploads"


@dataclass(frozen=True)
class Declared:
    """What the client says it will send."""

    filename: str
    size: int
    sha256: str = ""
    webhook_url: str = ""
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


def available() -> bool:
    """Whether uploads are stored in a bucket a client can be sent to."""
    return hasattr(default_storage, "bucket_name")


def unavailable() -> Refusal:
    return Refusal(
        http_status=409,
        code="direct_upload_unavailable",
        detail="Direct uploads need uploads stored in an S3 bucket: set INGEST_S3_BUCKET "
        "(docs/running/storage.md). Send the file to POST /api/documents/ instead.",
    )


def _s3() -> tuple[Any, str]:
    """The bucket's boto3 client and name (django-storages' S3Storage)."""
    storage: Any = default_storage
    return storage.connection.meta.client, storage.bucket_name


def bucket_name() -> str:
    return _s3()[1]


def name_of(key: str, storage: Any = default_storage) -> str:
    """The storage's name for an object's key (`object_key` undone)."""
    location: str = getattr(storage, "location", "") or ""
    prefix = location.strip("/") + "/" if location.strip("/") else ""
    return key[len(prefix) :] if prefix and key.startswith(prefix) else key


def staging_name(upload_id: uuid.UUID) -> str:
    """Where a form upload's bytes arrive, until its completion copies them."""
    return f"{STAGING}/{upload_id}.pdf"


def arrival_name(upload: DirectUpload) -> str:
    """Where the client sends the bytes: a form to its staging key, parts to the
    document's own key."""
    return upload.storage_key if upload.multipart_id else staging_name(upload.id)


def upload_of(name: str) -> DirectUpload | None:
    """The direct upload whose bytes arrive at (or were moved to) this storage name."""
    if name.startswith(STAGING + "/"):
        upload_id = staged_upload_id(name)
        return DirectUpload.objects.filter(id=upload_id).first() if upload_id else None
    return DirectUpload.objects.filter(storage_key=name).first()


def staged(*, limit: int = 1000) -> list[str]:
    """The storage names of objects at staging keys, at most `limit` (one listing)."""
    client, bucket = _s3()
    listed = client.list_objects_v2(Bucket=bucket, Prefix=object_key(STAGING + "/"), MaxKeys=limit)
    return [name_of(item["Key"]) for item in listed.get("Contents", [])]


def staged_upload_id(name: str) -> uuid.UUID | None:
    """The upload a staging name belongs to (None for any other name)."""
    if not name.startswith(STAGING + "/"):
        return None
    try:
        return uuid.UUID(name[len(STAGING) + 1 :].removesuffix(".pdf"))
    except ValueError:
        return None


def delete_names(names: list[str]) -> None:
    """Delete these objects, a thousand a request (S3's limit)."""
    client, bucket = _s3()
    for start in range(0, len(names), 1000):
        batch = [{"Key": object_key(name)} for name in names[start : start + 1000]]
        client.delete_objects(Bucket=bucket, Delete={"Objects": batch, "Quiet": True})


def delete_object(upload: DirectUpload) -> None:
    """Whatever of the upload the bucket holds: its object, its unfinished parts."""
    client, bucket = _s3()
    key = object_key(upload.storage_key)
    if upload.multipart_id:
        try:
            client.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload.multipart_id)
        except Exception as exc:
            if not _missing(exc):
                raise
    else:
        client.delete_object(Bucket=bucket, Key=object_key(staging_name(upload.id)))
    client.delete_object(Bucket=bucket, Key=key)


def object_key(name: str, storage: Any = default_storage) -> str:
    """The object's key in the bucket for a name of the storage (the default one: its
    location, INGEST_S3_PREFIX, put before it)."""
    return storage._normalize_name(name)  # django-storages' own mapping of names to keys


def in_prefix(key: str, storage: Any = default_storage) -> bool:
    """Whether a key of the bucket is under the storage's location (INGEST_S3_PREFIX), so
    a name of the service's."""
    location: str = (getattr(storage, "location", "") or "").strip("/")
    return not location or key.startswith(location + "/")


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


def _opened(*, owner: User, declared: Declared, public_url: str) -> DirectUpload:
    document_id = uuid.uuid4()
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
        storage_key=storage_key(owner_id=owner.pk, document_id=document_id, version=1),
        expires_at=timezone.now() + lasts,
    )
    if declared.size > settings.INGEST_MULTIPART_THRESHOLD_BYTES:
        client, bucket = _s3()
        opened = client.create_multipart_upload(
            Bucket=bucket, Key=object_key(upload.storage_key), ContentType="application/pdf"
        )
        upload.multipart_id = opened["UploadId"]
        upload.part_size = part_size(declared.size)
    upload.save()
    return upload


def part_size(size: int) -> int:
    """INGEST_MULTIPART_THRESHOLD_BYTES, or larger where S3's 10,000 parts need it."""
    return max(settings.INGEST_MULTIPART_THRESHOLD_BYTES, math.ceil(size / MAX_PARTS))


def where_to_send(upload: DirectUpload) -> dict[str, Any]:
    """The presigned POST form (`url`, `fields`), or the multipart upload's part URLs."""
    client, bucket = _s3()
    key = object_key(arrival_name(upload))
    expires = max(1, int((upload.expires_at - timezone.now()).total_seconds()))
    if not upload.multipart_id:
        form = client.generate_presigned_post(
            Bucket=bucket,
            Key=key,
            Fields={"Content-Type": "application/pdf"},
            Conditions=[
                ["content-length-range", upload.size, upload.size],
                {"Content-Type": "application/pdf"},
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


class NotArrived(Exception):
    """The object (or some of its parts) is not in the bucket yet."""


def complete(upload_id: uuid.UUID, *, owner_id: int | None = None) -> tuple[int, dict]:
    """Check the arrived object and make the document and its job; the answer (status,
    body), the same for every later call. Raises DirectUpload.DoesNotExist (another
    owner's id with `owner_id`), NotArrived, or Refusal."""
    uploads = DirectUpload.objects.select_for_update()
    if owner_id is not None:
        uploads = uploads.filter(owner_id=owner_id)
    with transaction.atomic():
        upload = uploads.get(id=upload_id)
        if upload.answer is not None:
            assert upload.answer_status is not None
            return upload.answer_status, upload.answer
        if upload.status == DirectUploadStatus.EXPIRED:
            raise Refusal(
                http_status=410,
                code="upload_expired",
                detail="This direct upload expired before it was completed; start another.",
            )
        checked = _check_object(upload)
        if isinstance(checked, Rejection):
            return _refuse(upload, checked)
        return _record(upload, etag=checked)


def _check_object(upload: DirectUpload) -> Rejection | str:
    """The object's ETag when it is what was declared, else why not; raises NotArrived."""
    client, bucket = _s3()
    key = object_key(arrival_name(upload))
    if upload.multipart_id:
        _finish_multipart(client, bucket, key, upload)
    try:
        head = client.head_object(Bucket=bucket, Key=key)
    except Exception as exc:
        if _missing(exc):
            raise NotArrived("The file has not reached the bucket yet.") from None
        raise
    size = int(head["ContentLength"])
    if size > settings.INGEST_MAX_DIRECT_UPLOAD_BYTES:
        return too_large()
    if size != upload.size:
        return Rejection(
            "size_mismatch",
            f"The file has {size} bytes, not the {upload.size} declared when the upload started.",
            400,
        )
    first = client.get_object(Bucket=bucket, Key=key, Range=f"bytes=0-{MAGIC_WINDOW - 1}")
    head_bytes = first["Body"].read()
    if PDF_MAGIC not in head_bytes:
        return not_a_pdf(head_bytes)
    return str(head["ETag"])


def _finish_multipart(client: Any, bucket: str, key: str, upload: DirectUpload) -> None:
    """Complete the multipart upload once every part is in the bucket at its size, from
    the parts the bucket lists (a part sent twice: the copy of the right size, the
    latest)."""
    assert upload.part_size is not None
    sizes = part_sizes(upload.size, upload.part_size)
    held: dict[int, tuple[str, int]] = {}  # number -> (etag, size)
    try:
        for page in client.get_paginator("list_parts").paginate(
            Bucket=bucket, Key=key, UploadId=upload.multipart_id
        ):
            for part in sorted(page.get("Parts", []), key=lambda p: p.get("LastModified", 0)):
                number, size = part["PartNumber"], int(part["Size"])
                if number not in held or size == sizes.get(number):
                    held[number] = (part["ETag"], size)
    except Exception as exc:
        if _missing(exc):  # completed already (by a completion that then failed): see HEAD
            return
        raise
    missing = [number for number in sizes if number not in held]
    if missing:
        shown = ", ".join(str(number) for number in missing[:10])
        raise NotArrived(f"Parts {shown} of {len(sizes)} have not reached the bucket yet.")
    wrong = [number for number, size in sizes.items() if held[number][1] != size]
    if wrong:
        number = wrong[0]
        raise NotArrived(
            f"Part {number} holds {held[number][1]} bytes, not {sizes[number]}: send it again."
        )
    client.complete_multipart_upload(
        Bucket=bucket,
        Key=key,
        UploadId=upload.multipart_id,
        MultipartUpload={"Parts": [{"PartNumber": n, "ETag": held[n][0]} for n in sizes]},
    )


def part_sizes(size: int, part: int) -> dict[int, int]:
    """Each part's number and size: all `part` bytes but the last."""
    count = math.ceil(size / part)
    return {n: min(part, size - (n - 1) * part) for n in range(1, count + 1)}


def _error_code(exc: Exception) -> str:
    """S3's error code in a botocore ClientError ("" for any other exception)."""
    error = getattr(exc, "response", None) or {}
    return str(error.get("Error", {}).get("Code", ""))


def _missing(exc: Exception) -> bool:
    return _error_code(exc) in ("404", "NoSuchKey", "NoSuchUpload")


def _refuse(upload: DirectUpload, rejection: Rejection) -> tuple[int, dict]:
    body = {
        "upload_id": str(upload.id),
        "filename": upload.filename,
        "status": "rejected",
        "error": {"code": rejection.code, "detail": rejection.detail},
    }
    _remember(upload, DirectUploadStatus.REFUSED, rejection.http_status, body)
    _delete_on_commit(arrival_name(upload))
    return rejection.http_status, body


def _record(upload: DirectUpload, *, etag: str) -> tuple[int, dict]:
    """The document and its job, in one statement (documents.services.insert), a form's
    bytes moved to the document's key; or, for bytes the owner already has (a declared sha256), that
    document again, as an upload answers."""
    refusal = quotas.check(
        user_id=upload.owner_id, new_documents=1, new_bytes=upload.size, completing=upload.id
    )
    if refusal:
        raise refusal
    document = Document(
        id=upload.document_id,
        owner_id=upload.owner_id,
        filename=upload.filename,
        size=upload.size,
        stored_bytes=upload.size,
        # Declared, or not known: the worker reads the bytes and checks or sets it.
        sha256=upload.sha256 or unverified_sha256(upload.id),
        sha256_checked=False,
        storage_key=upload.storage_key,
        version=1,
        tags=upload.tags,
        metadata=upload.metadata,
    )
    job = insert_document_with_job(
        document=document, webhook_url=upload.webhook_url, public_url=upload.public_url
    )
    if job is not None:
        if not upload.multipart_id:
            _move_into_place(upload, etag=etag)
        accepted = Accepted(document=document, job=job)
    else:
        _delete_on_commit(arrival_name(upload))
        accepted = duplicate_of(
            owner_id=upload.owner_id,
            sha256=upload.sha256,
            webhook_url=upload.webhook_url,
            public_url=upload.public_url,
        )
    body = answer_of(upload, accepted)
    _remember(upload, DirectUploadStatus.COMPLETED, 202, body)
    return 202, body


def _move_into_place(upload: DirectUpload, *, etag: str) -> None:
    """Copy a form's checked bytes from its staging key to the document's (inside the
    bucket), only if they are still the bytes checked; the staging key goes on commit.
    The form could be posted again meanwhile: then NotArrived, and nothing is recorded."""
    client, bucket = _s3()
    staging = staging_name(upload.id)
    try:
        client.copy_object(
            Bucket=bucket,
            Key=object_key(upload.storage_key),
            CopySource={"Bucket": bucket, "Key": object_key(staging)},
            CopySourceIfMatch=etag,
            ContentType="application/pdf",
            MetadataDirective="REPLACE",
        )
    except Exception as exc:
        if _missing(exc) or _error_code(exc) in ("412", "PreconditionFailed"):
            raise NotArrived("The file changed while it was being checked.") from None
        raise
    _delete_on_commit(staging)


def _delete_on_commit(name: str) -> None:
    transaction.on_commit(lambda: default_storage.delete(name))


def unverified_sha256(upload_id: uuid.UUID) -> str:
    """Document.sha256 for bytes nobody has hashed yet: unique, so no duplicate is found
    until the worker has read them and set the real one."""
    return f"{UNVERIFIED_SHA256}{upload_id.hex}"


def answer_of(upload: DirectUpload, accepted: Accepted) -> dict[str, Any]:
    job: Job = accepted.job
    body: dict[str, Any] = {
        "upload_id": str(upload.id),
        "filename": accepted.document.filename,
        "document_id": str(accepted.document.id),
        "job_id": str(job.id),
        "status": job.status,
        "status_url": upload.public_url + reverse("job-detail", kwargs={"job_id": job.id}),
    }
    if accepted.duplicate:
        body["duplicate"] = True
    return body


def _remember(upload: DirectUpload, status: str, http_status: int, body: dict) -> None:
    upload.status = status
    upload.completed_at = timezone.now()
    upload.answer_status, upload.answer = http_status, body
    upload.save(update_fields=["status", "completed_at", "answer_status", "answer"])
    transaction.on_commit(lambda: metrics.DIRECT_UPLOADS.labels(outcome=status).inc())
