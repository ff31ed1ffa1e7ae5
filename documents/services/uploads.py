"""Writes of an upload: a new document with its first job, a new version of one, and the
answer for bytes the owner already has."""

import hashlib
import logging
import uuid
from dataclasses import dataclass
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

from documents.filenames import display_name
from documents.models import Document
from documents.services.insert import insert_document_with_job
from documents.services.queueing import queue_new_job
from jobs.models import IN_FLIGHT_STATUSES, Job
from search import file_types
from search.file_types import FileType

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Accepted:
    document: Document
    job: Job
    duplicate: bool = False


# Document.sha256 of a direct upload's bytes before a worker has hashed them (unique per
# upload, so no duplicate is found in bytes nobody read).
UNVERIFIED_SHA256 = "unverified-"


def storage_key(
    *, owner_id: int, document_id: uuid.UUID, version: int, extension: str = ".pdf"
) -> str:
    """Where a version's bytes live. Built from ids and the type's own extension only:
    never from the user's file name."""
    return f"documents/{owner_id}/{document_id}/v{version}{extension}"


def type_of(upload: UploadedFile) -> FileType:
    """The type the upload handler decided from the first bytes, or (for a file that
    did not come through it) the type its first bytes say; a PDF when they say nothing
    read here: the reader then refuses it with its own reason."""
    known = getattr(upload, "file_type", None)
    if isinstance(known, FileType):
        return known
    head = upload.read(file_types.HEAD_BYTES)
    upload.seek(0)
    found = file_types.detect(head, name=upload.name or "")
    return found if isinstance(found, FileType) else file_types.PDF


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


@dataclass(frozen=True)
class Stored:
    """A file's bytes stored under a new document's key, with no row yet (store_new)."""

    file: UploadedFile
    document_id: uuid.UUID
    key: str
    sha256: str
    kind: FileType = file_types.PDF

    def discard(self) -> None:
        """Delete the bytes: for a file whose document will not be made."""
        default_storage.delete(self.key)


def store_new(*, owner: User, upload: UploadedFile) -> Stored:
    """Store a file's bytes as a new document's first version, before any row is written
    (create_upload records it). Checks the database first: with none, nothing is stored
    (the API answers 503)."""
    sha256 = sha256_of(upload)
    kind = type_of(upload)
    document_id = uuid.uuid4()
    connection.ensure_connection()
    key = default_storage.save(
        storage_key(
            owner_id=owner.pk, document_id=document_id, version=1, extension=kind.extension
        ),
        upload,
    )
    return Stored(file=upload, document_id=document_id, key=key, sha256=sha256, kind=kind)


def create_upload(
    *,
    owner: User,
    upload: UploadedFile | Stored,
    reprocess: bool = False,
    webhook_url: str = "",
    public_url: str = "",
    tags: list[str] | None = None,
    metadata: dict[str, Any] | None = None,
    parent_id: uuid.UUID | None = None,
) -> Accepted:
    """Accept one validated file: store the bytes (unless `upload` is already Stored),
    then record Document + Job(queued) in one statement; the job's id is sent after
    commit. `tags` and `metadata` (checked by
    the caller: documents.labels) label a new document; a duplicate keeps its own.

    Bytes identical to a document the owner already has give that document back
    (`duplicate`), with no new job unless `reprocess` asks for one. A failure after the
    bytes are stored leaves at most an orphan file (see cleanup_orphans), never a row
    without its file. This is the upload hot path: one statement in the common case.
    `webhook_url` (checked by the caller) hears of the new job's end; a duplicate's job is
    the existing one, so it hears nothing unless `reprocess` makes a new job. `public_url`:
    where the request reached the service, kept on the new job (Job.public_url).
    `parent_id`: the message a file came attached to.
    """
    stored = upload if isinstance(upload, Stored) else store_new(owner=owner, upload=upload)
    document_id, key, sha256, file = stored.document_id, stored.key, stored.sha256, stored.file
    assert file.size is not None  # every upload handler (and SimpleUploadedFile) sets it
    document = Document(
        id=document_id,
        owner=owner,
        filename=display_name(file.name),
        size=file.size,
        stored_bytes=file.size,
        sha256=sha256,
        storage_key=key,
        version=1,
        file_type=stored.kind.code,
        parent_id=parent_id,
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
            job = queue_new_job(locked, webhook_url=webhook_url, public_url=public_url)
    # current_job is nullable only for the insert that creates a document with its first
    # job, and a job is deleted only with its document: an existing document has one.
    assert job is not None
    return Accepted(document=document, job=job, duplicate=True)


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
    Bytes the owner already has as a document's current file give that document back
    (`duplicate`, no new version, no new job), as a new upload of them would: this
    document, when they are its own current bytes, or another one; one owner never has two
    documents with the same content. An older version's bytes make a new version (going
    back to an earlier file is a change).
    """
    sha256 = sha256_of(upload)
    kind = type_of(upload)
    with transaction.atomic():
        document = Document.objects.select_for_update(of=("self",)).get(id=document_id, owner=owner)
        if document.sha256 == sha256:
            return _duplicate(document, reprocess=False)
        if (twin := _twin(document, sha256)) is not None:
            return _duplicate(twin, reprocess=False)
        version = document.version + 1
        key = default_storage.save(
            storage_key(
                owner_id=owner.pk,
                document_id=document.id,
                version=version,
                extension=kind.extension,
            ),
            upload,
        )
        document.version = version
        document.storage_key = key
        document.file_type = kind.code
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
        job = queue_new_job(document, webhook_url=webhook_url, public_url=public_url)
    return Accepted(document=document, job=job)


def _twin(document: Document, sha256: str) -> Document | None:
    """Another of the owner's documents whose current bytes are these."""
    return (
        Document.objects.select_related("current_job")
        .filter(owner_id=document.owner_id, sha256=sha256)
        .exclude(id=document.id)
        .first()
    )
