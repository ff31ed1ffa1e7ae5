"""What a worker records of a document while its job runs: the checked hash of bytes no
web process read, the page count, and the version search serves."""

import hashlib
import uuid
from pathlib import Path

from django.db import (
    IntegrityError,
    transaction,
)

from documents.models import Document
from documents.services.uploads import UNVERIFIED_SHA256


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


def adopt_embed_model(*, document_ids: list[uuid.UUID], embed_model: str) -> None:
    """Record `embed_model` as the maker of these documents' ready vectors where nothing
    was recorded (manage.py reprocess embeddings --adopt-unrecorded): the vector side of
    a search compares them again."""
    Document.objects.filter(id__in=document_ids, ready_embed_model="").update(
        ready_embed_model=embed_model
    )
