"""What the sweeper does for direct uploads on each pass (jobs/sweeper.py, on_each_pass):
uploads whose bytes arrived but were never completed are completed (any S3 will do: no storage event
needed), those past their expiry are expired and their bytes deleted, and old rows go.

Each pass looks at the started uploads it looked at least recently (`checked_at`), at
most RECONCILE_PER_PASS of them: a HEAD for a form upload, the parts listed for a
multipart one. An upload whose bytes arrived is completed within a pass or two.

Each pass also lists the staging keys forms post to, and deletes what lies there for an
upload no longer started: a form posted again after its upload was completed, refused,
expired or erased (its policy lasts until the upload's expiry), so nothing stays parked.
"""

import logging
from datetime import timedelta

from django.core.files.storage import default_storage
from django.db.models import F
from django.utils import timezone

from config.common import metrics
from documents.direct import bucket, completion
from documents.front_door.refusal import Refusal
from documents.models import DirectUpload, DirectUploadStatus, StorageEvent

log = logging.getLogger(__name__)

RECONCILE_PER_PASS = 200
# Rows of ended uploads and events are kept this long: a late completion then hears
# `upload_expired`, and a late event of an expired upload has its object deleted.
KEEP = timedelta(days=1)


def reconcile() -> list:
    """Complete the started uploads whose bytes arrived; the ids completed."""
    if not bucket.available():
        return []
    now = timezone.now()
    started = DirectUpload.objects.filter(status=DirectUploadStatus.STARTED, expires_at__gt=now)
    ids = list(
        started.order_by(F("checked_at").asc(nulls_first=True), "created_at").values_list(
            "id", flat=True
        )[:RECONCILE_PER_PASS]
    )
    DirectUpload.objects.filter(id__in=ids).update(checked_at=now)
    completed = []
    for upload_id in ids:
        try:
            completion.complete(upload_id)
        except completion.NotArrived:
            continue
        except Refusal as refusal:  # a quota reached meanwhile: said at the next look
            log.info("direct upload %s: %s", upload_id, refusal.detail)
            continue
        completed.append(upload_id)
    if completed:
        log.info("completed %d direct uploads whose bytes had arrived", len(completed))
    return completed


def expire() -> list:
    """Started uploads past their expiry: expired, their bytes (parts) deleted; and the
    rows of uploads ended more than KEEP ago removed. The ids expired."""
    if not bucket.available():
        return []
    now = timezone.now()
    expired = []
    for upload in DirectUpload.objects.filter(
        status=DirectUploadStatus.STARTED, expires_at__lte=now
    )[:RECONCILE_PER_PASS]:
        try:  # bytes that arrived in time, since the last pass, are the client's still
            completion.complete(upload.id)
            continue
        except (completion.NotArrived, Refusal):
            pass
        changed = DirectUpload.objects.filter(
            id=upload.id, status=DirectUploadStatus.STARTED
        ).update(status=DirectUploadStatus.EXPIRED, completed_at=now)
        if changed:
            bucket.delete_object(upload)
            metrics.DIRECT_UPLOADS.labels(outcome="expired").inc()
            expired.append(upload.id)
    DirectUpload.objects.exclude(status=DirectUploadStatus.STARTED).filter(
        completed_at__lt=now - KEEP
    ).delete()
    StorageEvent.objects.filter(received_at__lt=now - KEEP).delete()
    return expired


def sweep_staging() -> list[str]:
    """Delete the staged objects of uploads no longer started; the names deleted."""
    if not bucket.available():
        return []
    staged = {name: bucket.staged_upload_id(name) for name in bucket.staged()}
    # Listed first, asked second: an upload started after the listing has nothing listed.
    started = set(
        DirectUpload.objects.filter(
            id__in=[upload_id for upload_id in staged.values() if upload_id],
            status=DirectUploadStatus.STARTED,
        ).values_list("id", flat=True)
    )
    left = [name for name, upload_id in staged.items() if upload_id not in started]
    for name in left:  # rare: a form posted again after its upload ended
        default_storage.delete(name)
    if left:
        log.info("deleted %d objects posted to direct uploads that had ended", len(left))
    return left


def every_pass() -> None:
    """Reconcile, expire, then clear the staging keys of uploads that ended."""
    reconcile()
    expire()
    sweep_staging()
