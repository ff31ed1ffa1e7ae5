"""A new queued job for a document's current version, made its current job."""

from documents.models import Document
from jobs import services as jobs
from jobs.models import Job, Lane


def queue_new_job(
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
    return queue_new_job(document, lane=lane)
