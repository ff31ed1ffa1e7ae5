"""The bucket of direct uploads: its client, how storage names map to its keys (under
INGEST_S3_PREFIX), where a form's bytes arrive (a staging key of the upload's own) and
where a multipart upload's parts go (the document's key), and deleting what an upload
left there."""

import uuid
from typing import Any

from django.core.files.storage import default_storage

from documents.front_door.refusal import Refusal
from documents.models import DirectUpload

# Where forms' bytes arrive (under INGEST_S3_PREFIX), apart from every document's key.
STAGING = "direct-uploads"


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


def s3() -> tuple[Any, str]:
    """The bucket's boto3 client and name (django-storages' S3Storage)."""
    storage: Any = default_storage
    return storage.connection.meta.client, storage.bucket_name


def bucket_name() -> str:
    return s3()[1]


def name_of(key: str, storage: Any = default_storage) -> str:
    """The storage's name for an object's key (`object_key` undone)."""
    location: str = getattr(storage, "location", "") or ""
    prefix = location.strip("/") + "/" if location.strip("/") else ""
    return key[len(prefix) :] if prefix and key.startswith(prefix) else key


def object_key(name: str, storage: Any = default_storage) -> str:
    """The object's key in the bucket for a name of the storage (the default one: its
    location, INGEST_S3_PREFIX, put before it)."""
    return storage._normalize_name(name)  # django-storages' own mapping of names to keys


def in_prefix(key: str, storage: Any = default_storage) -> bool:
    """Whether a key of the bucket is under the storage's location (INGEST_S3_PREFIX), so
    a name of the service's."""
    location: str = (getattr(storage, "location", "") or "").strip("/")
    return not location or key.startswith(location + "/")


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


def staged() -> list[str]:
    """The storage names of the objects at staging keys (the storage's own listing)."""
    _, files = default_storage.listdir(STAGING)
    return [f"{STAGING}/{name}" for name in files]


def staged_upload_id(name: str) -> uuid.UUID | None:
    """The upload a staging name belongs to (None for any other name)."""
    if not name.startswith(STAGING + "/"):
        return None
    try:
        return uuid.UUID(name[len(STAGING) + 1 :].removesuffix(".pdf"))
    except ValueError:
        return None


def delete_object(upload: DirectUpload) -> None:
    """Whatever of the upload the bucket holds: its object, its unfinished parts."""
    client, bucket = s3()
    key = object_key(upload.storage_key)
    if upload.multipart_id:
        try:
            client.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload.multipart_id)
        except Exception as exc:
            if not is_missing(exc):
                raise
    else:
        client.delete_object(Bucket=bucket, Key=object_key(staging_name(upload.id)))
    client.delete_object(Bucket=bucket, Key=key)


def error_code(exc: Exception) -> str:
    """S3's error code in a botocore ClientError ("" for any other exception)."""
    error = getattr(exc, "response", None) or {}
    return str(error.get("Error", {}).get("Code", ""))


def is_missing(exc: Exception) -> bool:
    return error_code(exc) in ("404", "NoSuchKey", "NoSuchUpload")
