"""Writes for documents: accepting an upload."""

import hashlib
import uuid
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from documents.models import Document
from jobs.models import Job
from jobs.queue import send_job_on_commit


@dataclass(frozen=True)
class Accepted:
    document: Document
    job: Job


def storage_key(*, owner_id: int, document_id: uuid.UUID, version: int) -> str:
    """Where a version's bytes live. Built from ids only: never from the user's file name."""
    return f"documents/{owner_id}/{document_id}/v{version}.pdf"


def _sha256(upload: UploadedFile) -> str:
    digest = hashlib.sha256()
    for block in upload.chunks():
        digest.update(block)
    upload.seek(0)
    return digest.hexdigest()


def create_upload(*, owner: AbstractBaseUser, upload: UploadedFile, filename: str) -> Accepted:
    """Store the bytes, then record Document + Job(queued) in one transaction; the job's
    id goes to the broker after commit.

    A failure after the bytes are stored leaves at most an orphan file, never a row
    without its file.
    """
    document_id = uuid.uuid4()
    key = storage_key(owner_id=owner.pk, document_id=document_id, version=1)
    sha256 = _sha256(upload)
    stored_key = default_storage.save(key, upload)
    with transaction.atomic():
        document = Document.objects.create(
            id=document_id, owner=owner, filename=filename, size=upload.size,
            sha256=sha256, storage_key=stored_key, version=1,
        )  # fmt: skip
        job = Job.objects.create(document=document, version=document.version)
        send_job_on_commit(job.id)
    return Accepted(document=document, job=job)
