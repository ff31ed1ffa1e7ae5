"""Completing a direct upload: check the object that arrived (there, of the declared size,
a type read here by its first bytes), move a form's bytes from their staging key to the document's
key on condition of their ETag, record Document and Job in one statement, and keep the
answer every later completion gets. Raises NotArrived while the bytes are not all there."""

import uuid
from typing import Any

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from config.common import metrics
from documents.acceptance import (
    HEAD_BYTES,
    Rejection,
    decide,
    too_large,
)
from documents.direct.bucket import (
    arrival_name,
    error_code,
    is_missing,
    object_key,
    s3,
    staging_name,
)
from documents.direct.starting import part_sizes
from documents.front_door import quotas
from documents.front_door.refusal import Refusal
from documents.models import DirectUpload, DirectUploadStatus, Document
from documents.services.insert import insert_document_with_job
from documents.services.uploads import UNVERIFIED_SHA256, Accepted, duplicate_of
from jobs.models import Job
from search.file_types import FileType


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
        etag, kind = checked
        return _record(upload, etag=etag, kind=kind)


def _check_object(upload: DirectUpload) -> Rejection | tuple[str, FileType]:
    """The object's ETag and type when it is what was declared and a type read here,
    else why not; raises NotArrived."""
    client, bucket = s3()
    key = object_key(arrival_name(upload))
    if upload.multipart_id:
        _finish_multipart(client, bucket, key, upload)
    try:
        head = client.head_object(Bucket=bucket, Key=key)
    except Exception as exc:
        if is_missing(exc):
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
    first = client.get_object(Bucket=bucket, Key=key, Range=f"bytes=0-{HEAD_BYTES - 1}")
    kind = decide(first["Body"].read(), upload.filename, size)
    if isinstance(kind, Rejection):
        return kind
    return str(head["ETag"]), kind


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
        if is_missing(exc):  # completed already (by a completion that then failed): see HEAD
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


def _record(upload: DirectUpload, *, etag: str, kind: FileType) -> tuple[int, dict]:
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
        file_type=kind.code,
        tags=upload.tags,
        metadata=upload.metadata,
    )
    job = insert_document_with_job(
        document=document, webhook_url=upload.webhook_url, public_url=upload.public_url
    )
    if job is not None:
        if not upload.multipart_id:
            _move_into_place(upload, etag=etag, kind=kind)
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


def _move_into_place(upload: DirectUpload, *, etag: str, kind: FileType) -> None:
    """Copy a form's checked bytes from its staging key to the document's (inside the
    bucket), only if they are still the bytes checked; the staging key goes on commit.
    The form could be posted again meanwhile: then NotArrived, and nothing is recorded."""
    client, bucket = s3()
    staging = staging_name(upload.id)
    try:
        client.copy_object(
            Bucket=bucket,
            Key=object_key(upload.storage_key),
            CopySource={"Bucket": bucket, "Key": object_key(staging)},
            CopySourceIfMatch=etag,
            ContentType=kind.media_type,
            MetadataDirective="REPLACE",
        )
    except Exception as exc:
        if is_missing(exc) or error_code(exc) in ("412", "PreconditionFailed"):
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
