"""Writes for documents: accepting uploads, retrying, deleting."""

import hashlib
import logging
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import UploadedFile
from django.db import (
    DatabaseError,
    IntegrityError,
    InterfaceError,
    OperationalError,
    connection,
    transaction,
)
from django.utils import timezone

from documents import admission
from documents.forget import forget_events
from documents.insert import insert_document_with_job
from documents.models import Document
from documents.uploads import display_name
from jobs import failures
from jobs import services as jobs
from jobs.models import IN_FLIGHT_STATUSES, Job, JobStatus, Lane

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Accepted:
    document: Document
    job: Job
    duplicate: bool = False


class NotRetryable(Exception):
    """The document may not be retried; the message says why (retry_refusal)."""


# Document.sha256 of a direct upload's bytes before a worker has hashed them (unique per
# upload, so no duplicate is found in bytes nobody read).
UNVERIFIED_SHA256 = "unverified-"


def storage_key(*, owner_id: int, document_id: uuid.UUID, version: int) -> str:
    """Where a version's bytes live. Built from ids only: never from the user's file name."""
    return f"documents/{owner_id}/{document_id}/v{version}.pdf"


def sha256_of(upload: UploadedFile) -> str:
    """The hash the upload handler computed while streaming, or one computed now."""
    known = getattr(upload, "sha256", None)
    if known:
        return known
    digest = hashlib.sha256()
    for block in upload.chunks():
        digest.update(block)
    upload.seek(0)
    return digest.hexdigest()


def create_upload(
    *,
    owner: User,
    upload: UploadedFile,
    reprocess: bool = False,
    webhook_url: str = "",
    public_url: str = "",
    tags: list[str] | None = None,
    metadata: dict[str, Any] | None = None,
) -> Accepted:
    """Accept one validated file: store the bytes, then record Document + Job(queued) in
    one statement; the job's id is sent after commit. `tags` and `metadata` (checked by
    the caller: documents.labels) label a new document; a duplicate keeps its own.

    Bytes identical to a document the owner already has give that document back
    (`duplicate`), with no new job unless `reprocess` asks for one. A failure after the
    bytes are stored leaves at most an orphan file (see cleanup_orphans), never a row
    without its file. This is the upload hot path: one statement in the common case.
    `webhook_url` (checked by the caller) hears of the new job's end; a duplicate's job is
    the existing one, so it hears nothing unless `reprocess` makes a new job. `public_url`:
    where the request reached the service, kept on the new job (Job.public_url).
    """
    sha256 = sha256_of(upload)
    document_id = uuid.uuid4()
    connection.ensure_connection()  # no database, nothing stored (the API answers 503)
    key = default_storage.save(
        storage_key(owner_id=owner.pk, document_id=document_id, version=1), upload
    )
    assert upload.size is not None  # every upload handler (and SimpleUploadedFile) sets it
    document = Document(
        id=document_id,
        owner=owner,
        filename=display_name(upload.name),
        size=upload.size,
        stored_bytes=upload.size,
        sha256=sha256,
        storage_key=key,
        version=1,
        tags=tags or [],
        metadata=metadata or {},
    )
    try:
        job = insert_document_with_job(
            document=document, webhook_url=webhook_url, public_url=public_url
        )
    except (OperationalError, InterfaceError):
        _discard_unless_recorded(key=key, document_id=document_id)
        raise
    if job is not None:
        return Accepted(document=document, job=job)
    # Duplicates are rare: finding out from the insert, after storing, saves every other
    # upload a round trip. The duplicate's bytes go again once nothing can roll back.
    transaction.on_commit(lambda: default_storage.delete(key))
    return duplicate_of(
        owner_id=owner.pk,
        sha256=sha256,
        reprocess=reprocess,
        webhook_url=webhook_url,
        public_url=public_url,
    )


def duplicate_of(
    *,
    owner_id: int,
    sha256: str,
    reprocess: bool = False,
    webhook_url: str = "",
    public_url: str = "",
) -> Accepted:
    """The owner's document of these bytes, as an upload of them again is answered (a
    new job only with `reprocess`, and only when its job has ended)."""
    existing = Document.objects.select_related("current_job").get(owner_id=owner_id, sha256=sha256)
    return _duplicate(existing, reprocess=reprocess, webhook_url=webhook_url, public_url=public_url)


def _discard_unless_recorded(*, key: str, document_id: uuid.UUID) -> None:
    """The database went away during the insert. Delete the stored bytes unless the row
    made it (the statement may have committed just before the connection died). When
    the database cannot tell, keep them: cleanup_orphans removes a file without a row,
    while deleting the file of a recorded document would break it."""
    connection.close()
    try:
        recorded = Document.objects.filter(id=document_id).exists()
    except DatabaseError:
        log.warning("kept %s for cleanup_orphans: the database cannot say if it is used", key)
        return
    if not recorded:
        default_storage.delete(key)


def _duplicate(
    document: Document, *, reprocess: bool, webhook_url: str = "", public_url: str = ""
) -> Accepted:
    job = document.current_job
    if reprocess and (job is None or job.status not in IN_FLIGHT_STATUSES):
        with transaction.atomic():
            locked = Document.objects.select_for_update().get(id=document.id)
            job = _queue_new_job(locked, webhook_url=webhook_url, public_url=public_url)
    # current_job is nullable only for the insert that creates a document with its first
    # job, and a job is deleted only with its document: an existing document has one.
    assert job is not None
    return Accepted(document=document, job=job, duplicate=True)


def check_sha256(*, document_id: uuid.UUID, path: Path) -> str | None:
    """For bytes no web process read (a direct upload, `sha256_checked` false): hash the
    file at `path`. A declared sha256 that differs is returned as a person-readable
    reason (the job fails `checksum_mismatch`); an unknown one is set to the real hash,
    unless the owner already has these bytes (it then stays unverified: one document per
    content is the uploads' rule, and this one is already made). None when all is well."""
    document = Document.objects.filter(id=document_id, sha256_checked=False).first()
    if document is None:
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as stored:
        for block in iter(lambda: stored.read(1024 * 1024), b""):
            digest.update(block)
    real = digest.hexdigest()
    if not document.sha256.startswith(UNVERIFIED_SHA256) and document.sha256 != real:
        return (
            f"The stored file's SHA-256 is {real}, not the {document.sha256} declared when "
            "the direct upload started."
        )
    try:
        with transaction.atomic():
            Document.objects.filter(id=document_id).update(sha256=real, sha256_checked=True)
    except IntegrityError:  # the owner has these bytes in another document
        Document.objects.filter(id=document_id).update(sha256_checked=True)
    return None


def add_version(
    *,
    document_id: uuid.UUID,
    owner: User,
    upload: UploadedFile,
    webhook_url: str = "",
    public_url: str = "",
) -> Accepted:
    """Store a new version of a document (n + 1) and queue a job for it.

    The document now describes the new file; search keeps serving the ready version
    until the new one is processed. Raises Document.DoesNotExist for another owner's
    document. Versions are numbered under a row lock, so two uploads make n + 1 and n + 2.
    Bytes identical to another of the owner's documents give that one back (`duplicate`),
    as a new upload would: one owner never has two documents with the same content.
    """
    sha256 = sha256_of(upload)
    with transaction.atomic():
        document = Document.objects.select_for_update(of=("self",)).get(id=document_id, owner=owner)
        if (twin := _twin(document, sha256)) is not None:
            return _duplicate(twin, reprocess=False)
        version = document.version + 1
        key = default_storage.save(
            storage_key(owner_id=owner.pk, document_id=document.id, version=version), upload
        )
        document.version = version
        document.storage_key = key
        document.filename = display_name(upload.name)
        assert upload.size is not None  # every upload handler (and SimpleUploadedFile) sets it
        document.size = upload.size
        document.stored_bytes += upload.size  # the earlier versions' files stay stored
        document.sha256 = sha256
        document.page_count = None
        try:
            with transaction.atomic():  # a savepoint: a racing upload of these bytes wins
                document.save()
        except IntegrityError:
            transaction.on_commit(lambda: default_storage.delete(key))
            twin = Document.objects.select_related("current_job").get(owner=owner, sha256=sha256)
            return _duplicate(twin, reprocess=False)
        job = _queue_new_job(document, webhook_url=webhook_url, public_url=public_url)
    return Accepted(document=document, job=job)


def _twin(document: Document, sha256: str) -> Document | None:
    """Another of the owner's documents whose current bytes are these."""
    return (
        Document.objects.select_related("current_job")
        .filter(owner_id=document.owner_id, sha256=sha256)
        .exclude(id=document.id)
        .first()
    )


def retry_document(
    *, document_id: uuid.UUID, owner_id: int, admitted: bool, public_url: str = ""
) -> Job:
    """Give a failed document a fresh attempt: a new queued job, sent after commit.

    Locks the document row, so two retries make one job. Raises Document.DoesNotExist for
    another owner's document and NotRetryable when retry_refusal says why it may not be
    retried (this is where that is decided). A caller that has not `admitted` the request
    yet (the page) has it pass documents.admission here, once the document is known to be
    retryable: a document that cannot be is answered so even while the service is busy,
    and a refusal (Refusal) leaves the document as it was.
    """
    with transaction.atomic():
        document = (
            Document.objects.select_for_update(of=("self",))
            .select_related("current_job")
            .get(id=document_id, owner_id=owner_id)
        )
        current = document.current_job
        if refusal := retry_refusal(current):
            raise NotRetryable(refusal)
        assert current is not None  # retry_refusal refuses a document without a job
        if not admitted:
            admission.admit(signed_in=lambda: owner_id)
        # The retry tells the failed upload's own webhook, if it had one, how it ends.
        job = _queue_new_job(
            document,
            webhook_url=current.webhook_url,
            public_url=public_url or current.public_url,
        )
        jobs.record_retry(job_ids=[current.id])
    admission.note_admitted(user_id=owner_id, jobs=1)
    return job


def retry_refusal(job: Job | None) -> str | None:
    """Why the document whose current job is `job` may not be retried, or None when it may.

    Only a failed job is retried, and not one that failed because of its file
    (jobs.failures.file_refusal: the rule the admin's bulk retry follows too).
    """
    if job is None or job.status != JobStatus.FAILED:
        state = job.status if job else "without a job"
        return f"Only a failed document can be retried; this one is {state}."
    return failures.file_refusal(job)


def _queue_new_job(
    document: Document, *, webhook_url: str = "", lane: Lane | None = None, public_url: str = ""
) -> Job:
    """A queued job for the (locked) document's current version, made its current job."""
    job = jobs.queue_new_job(
        document=document, webhook_url=webhook_url, lane=lane, public_url=public_url
    )
    document.current_job = job
    document.save(update_fields=["current_job", "updated_at"])
    return job


def queue_same_bytes_again(*, document: Document, lane: Lane) -> Job:
    """Make version n + 1 of the document from the stored file of version n and queue its
    job on `lane`, sent after commit (manage.py reembed: the same bytes, embedded anew).
    Search serves version n until n + 1 is ready. Call inside a transaction holding the
    document's row lock, with a `document` read under it."""
    document.version += 1
    document.save(update_fields=["version", "updated_at"])
    return _queue_new_job(document, lane=lane)


def record_page_count(*, document_id: uuid.UUID, version: int, pages: int) -> None:
    """What extraction found, kept only while that version describes the document."""
    Document.objects.filter(id=document_id, version=version).update(page_count=pages)


def lock_for_completion(*, document_id: uuid.UUID) -> int | None:
    """Lock the document row for a job finishing on it and return its ready version,
    so two versions finishing at once are ordered. Call inside that transaction."""
    document = Document.objects.select_for_update(of=("self",)).get(id=document_id)
    return document.ready_version


def make_ready(*, document_id: uuid.UUID, version: int, embed_model: str) -> None:
    """Make `version` the one search serves, its vectors made by `embed_model` (a
    signature). Call in the transaction of lock_for_completion, after the job's completion."""
    Document.objects.filter(id=document_id).update(
        ready_version=version, ready_embed_model=embed_model
    )


def relabel(
    *,
    document_id: uuid.UUID,
    owner_id: int,
    tags: list[str] | None = None,
    metadata: dict[str, Any] | None = None,
) -> Document:
    """Replace a document's tags and/or metadata (None: leave it); the document as now
    stored. Raises Document.DoesNotExist when it is not the owner's (or is gone)."""
    changes: dict[str, Any] = {}
    if tags is not None:
        changes["tags"] = tags
    if metadata is not None:
        changes["metadata"] = metadata
    mine = Document.objects.filter(id=document_id, owner_id=owner_id)
    if changes and not mine.update(**changes, updated_at=timezone.now()):
        raise Document.DoesNotExist(document_id)
    return mine.select_related("current_job").get()


def delete_document(*, document_id: uuid.UUID, owner_id: int) -> None:
    """Delete a document, its jobs and chunks, its webhook events and their deliveries,
    then (after commit) its stored files.

    A worker still processing it finds its job row gone: its conditional writes change
    nothing and its chunk inserts fail on the document foreign key, so nothing comes
    back. Raises Document.DoesNotExist for another owner's document.
    """
    with transaction.atomic():
        document = (
            Document.objects.select_for_update(of=("self",))
            .select_related("current_job")
            .get(id=document_id, owner_id=owner_id)
        )
        keys = {document.storage_key, *document.jobs.values_list("storage_key", flat=True)}
        current = document.current_job
        forget_events([document.id])  # and their deliveries, pending ones too
        document.delete()
        transaction.on_commit(lambda: delete_files(keys))
        if current is not None:  # the owner's other pages drop the row
            jobs.deleted_with_document(job=current)


def delete_files(keys: set[str]) -> None:
    """Delete each stored file; one that cannot be is logged and left to verify_storage
    (or cleanup_orphans), and a second erasure."""
    for key in keys:
        try:
            default_storage.delete(key)
        except Exception:
            log.warning("could not delete %s; verify_storage --fix will", key, exc_info=True)
