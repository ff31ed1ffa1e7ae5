"""What a worker records of a document while its job runs: the checked hash of bytes no
web process read, the page count, what the file says of itself, its attachments as
documents of their own, and the version search serves."""

import hashlib
import logging
import uuid
from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import (
    IntegrityError,
    transaction,
)

from documents import labels
from documents.acceptance import EMPTY, decide
from documents.models import Document
from documents.services import uploads
from documents.services.uploads import UNVERIFIED_SHA256
from search import file_types
from search.file_types import FileType
from search.pipeline.page import Attachment

log = logging.getLogger(__name__)


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


def record_page_count(*, document_id: uuid.UUID, version: int, pages: int | None) -> None:
    """What extraction found (None: a type without pages), kept only while that version
    describes the document."""
    Document.objects.filter(id=document_id, version=version).update(page_count=pages)


# What a file may add to its document's metadata: its own keys, each value cut to this.
SAID_VALUE_CHARS = 500


def record_what_it_says(*, document_id: uuid.UUID, version: int, said: dict[str, str]) -> None:
    """What the file says of itself (an e-mail's from, to, date and subject) added to its
    document's metadata, while that version describes the document. The owner's own keys
    win, and nothing is added past the labels' size limit (documents.labels)."""
    if not said:
        return
    with transaction.atomic():
        document = (
            Document.objects.select_for_update(of=("self",))
            .filter(id=document_id, version=version)
            .first()
        )
        if document is None:
            return
        merged = dict(document.metadata)
        for key, value in said.items():
            merged.setdefault(key[: labels.MAX_KEY_CHARS], value[:SAID_VALUE_CHARS])
            if labels.metadata_bytes(merged) > labels.MAX_METADATA_BYTES:
                merged.pop(key[: labels.MAX_KEY_CHARS], None)
                break
        if merged != document.metadata:
            Document.objects.filter(id=document_id).update(metadata=merged)


def add_attachments(*, document_id: uuid.UUID, version: int, attachments: list[Attachment]) -> int:
    """Each attachment of a message made a document of its own, linked to the message
    (`parent`) and read by its own type's job. Safe to repeat: identical bytes are one
    document per owner, so a retry makes none twice. A type the service does not read is
    left out, as the front door would refuse it (documents.acceptance: a type not read, text
    misnamed, text past its own limit). Returns how many are new documents."""
    message = (
        Document.objects.select_related("owner", "current_job")
        .filter(id=document_id, version=version)
        .first()
    )
    if message is None:
        return 0
    made = 0
    for attachment in attachments:
        name = attachment.filename or "attachment"
        data = attachment.data
        found = decide(data[: file_types.HEAD_BYTES], name, len(data)) if data else EMPTY
        if not isinstance(found, FileType):
            log.info("attachment %r of %s left out: %s", name, document_id, found.detail)
            continue
        upload = SimpleUploadedFile(name, data)
        setattr(upload, "file_type", found)  # noqa: B010 - as the upload handler hands it on
        accepted = uploads.create_upload(
            owner=message.owner,
            upload=upload,
            parent_id=message.id,
            tags=list(message.tags),
            public_url=message.current_job.public_url if message.current_job else "",
        )
        made += 0 if accepted.duplicate else 1
    return made


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


def adopt_embed_model(*, document_ids: list[uuid.UUID], embed_model: str) -> None:
    """Record `embed_model` as the maker of these documents' ready vectors where nothing
    was recorded (manage.py reprocess embeddings --adopt-unrecorded): the vector side of
    a search compares them again."""
    Document.objects.filter(id__in=document_ids, ready_embed_model="").update(
        ready_embed_model=embed_model
    )
