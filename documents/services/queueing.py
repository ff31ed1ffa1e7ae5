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
