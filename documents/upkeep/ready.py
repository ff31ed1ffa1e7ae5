"""What the re-processing kinds that re-run ready documents share (re-embedding,
re-extraction): the job that made a document's ready version, and when a document may be
queued again."""

from django.db.models import F, OuterRef, Q, QuerySet

from jobs.models import IN_FLIGHT_STATUSES, Job, JobStatus


def ready_job() -> QuerySet[Job]:
    """The latest succeeded job of the outer document's ready version."""
    return Job.objects.filter(
        document=OuterRef("pk"), version=OuterRef("ready_version"), status=JobStatus.SUCCEEDED
    ).order_by("-finished_at")


def queueable() -> Q:
    """The version search serves is the latest, and nothing of the document is in flight:
    a newer version in flight is read by the workers' settings anyway, and a newer
    version that failed is its owner's to replace or retry."""
    in_flight = Q(current_job__status__in=IN_FLIGHT_STATUSES)
    return Q(version=F("ready_version")) & ~in_flight
