"""A new queued job for a document's current version, made its current job."""

from documents.models import Document
from jobs import services as jobs
from jobs.models import Job, Lane


def queue_new_job(
    document: Document,
    *,
    webhook_url: str = "",
    lane: Lane | None = None,
    public_url: str = "",
    embed_only: bool = False,
) -> Job:
    """A queued job for the (locked) document's current version, made its current job
    (`embed_only`: one that embeds its stored chunks again, jobs.services.queue_new_job)."""
    job = jobs.queue_new_job(
        document=document,
        webhook_url=webhook_url,
        lane=lane,
        public_url=public_url,
        embed_only=embed_only,
    )
    document.current_job = job
    document.save(update_fields=["current_job", "updated_at"])
    return job
