"""Storage events: the bucket says an object was created, and a direct upload whose client
never completed it is completed here (`POST /api/uploads/events/`).

Two formats are read, whichever the S3 server sends:

- S3's own event records (`{"Records": [{"eventName": "s3:ObjectCreated:Put", "s3":
  {"bucket": {"name"}, "object": {"key", "size", "eTag"}}}]}`), as AWS sends them through
  SNS (its `Notification` envelope is opened; a subscription is confirmed by hand) and as
  MinIO, Ceph and RustFS send them to a webhook;
- SeaweedFS' filer webhook (`{"key": "/buckets/<bucket>/<key>", "event_type": "create",
  "message": {"new_entry": ..., "new_parent_path": ...}}`; `message_data` in later
  releases).

Events come at least once and in any order: each (bucket, key, ETag) is acted on once
(StorageEvent), and completing an upload twice gives the same answer anyway. An object
for an upload that expired is deleted, and so is a form posted again to the staging key
of an upload that ended. Objects of no direct upload (an upload's own bytes, a part of a
multipart upload) are left alone, and a key outside INGEST_S3_PREFIX is refused: it is
none of the service's.
"""

import base64
import json
import logging
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_plus

from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction

from documents.direct import bucket, completion
from documents.front_door.refusal import Refusal
from documents.models import DirectUploadStatus, StorageEvent

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Created:
    bucket: str
    key: str  # the object's key in the bucket
    etag: str


def created_objects(body: Any) -> list[Created]:
    """The object-created events in a request's JSON body (other events: none)."""
    if isinstance(body, dict) and body.get("Type") == "Notification":  # SNS' envelope
        try:
            body = json.loads(body.get("Message") or "")
        except (ValueError, RecursionError):  # RecursionError: nested too deeply
            return []
    if isinstance(body, dict) and isinstance(body.get("Records"), list):
        return [found for record in body["Records"] if (found := _s3_record(record))]
    if isinstance(body, dict) and "event_type" in body:
        found = _seaweedfs(body)
        return [found] if found else []
    return []


def _s3_record(record: Any) -> Created | None:
    if not isinstance(record, dict) or "ObjectCreated" not in str(record.get("eventName", "")):
        return None
    s3 = record.get("s3") or {}
    bucket_name = (s3.get("bucket") or {}).get("name", "")
    obj = s3.get("object") or {}
    if not bucket_name or not obj.get("key"):
        return None
    # S3 writes the key URL-encoded, spaces as +.
    return Created(bucket_name, unquote_plus(obj["key"]), str(obj.get("eTag", "")).strip('"'))


def _seaweedfs(body: dict) -> Created | None:
    if body.get("event_type") not in ("create", "update"):
        return None
    data = body.get("message") or body.get("message_data") or {}
    entry = data.get("new_entry") or {}
    parent = data.get("new_parent_path") or ""
    if entry.get("is_directory") or not parent.startswith("/buckets/"):
        return None
    bucket_name, _, folder = parent[len("/buckets/") :].partition("/")
    key = f"{folder}/{entry.get('name', '')}" if folder else entry.get("name", "")
    attributes = entry.get("attributes") or {}
    md5 = attributes.get("md5") or ""
    try:
        etag = base64.b64decode(md5).hex() if md5 else str(attributes.get("mtime", ""))
    except ValueError:
        etag = str(md5)
    return Created(bucket_name, key, etag) if bucket_name and entry.get("name") else None


def handle(created: Created) -> str:
    """Act on one event, once: what became of it, in a word (for the log and the test)."""
    if not bucket.available() or created.bucket != bucket.bucket_name():
        return "other bucket"
    if not bucket.in_prefix(created.key):
        return "refused: outside_prefix"
    try:
        with transaction.atomic():
            StorageEvent.objects.create(bucket=created.bucket, key=created.key, etag=created.etag)
    except IntegrityError:
        return "seen"
    name = bucket.name_of(created.key)
    upload = bucket.upload_of(name)
    if upload is None:
        return "no upload"
    if upload.status == DirectUploadStatus.EXPIRED:
        bucket.delete_object(upload)
        return "expired: deleted"
    if upload.status != DirectUploadStatus.STARTED and name == bucket.staging_name(upload.id):
        default_storage.delete(name)  # the form posted again after its upload ended
        return "ended: deleted"
    try:
        status, _ = completion.complete(upload.id)
    except completion.NotArrived:
        return "not arrived"  # an event ahead of the object: the sweeper looks again
    except Refusal as refusal:
        return f"refused: {refusal.code}"
    return f"completed: {status}"
