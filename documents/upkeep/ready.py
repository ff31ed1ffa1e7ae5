"""What the re-processing kinds that re-run ready documents share (re-embedding,
re-extraction): the job that made a document's ready version, when a document may be
queued again, and how a re-run ended by what made it."""

import uuid
from collections import Counter

from django.db.models import F, OuterRef, Q, QuerySet

from documents.upkeep.waves import DONE
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


FAILED = "failed"  # an ending: failed, or cancelled (superseded, or by hand)


def endings_by(
    job_ids: list[uuid.UUID], *, recorded: str, target: str, unrecorded: str
) -> dict[uuid.UUID, str]:
    """How each of these jobs that has ended ended: DONE when it succeeded and its
    `recorded` field (what made it: `embed_model`, `extracted_by`) is `target`, FAILED
    when it did not succeed, else what that field names (`unrecorded` when empty: a
    worker running other settings than the command)."""
    rows = Job.objects.filter(id__in=job_ids).exclude(status__in=IN_FLIGHT_STATUSES)
    result = {}
    for job_id, status, made_by in rows.values_list("id", "status", recorded):
        if status != JobStatus.SUCCEEDED:
            result[job_id] = FAILED
        elif made_by == target:
            result[job_id] = DONE
        else:
            result[job_id] = made_by or unrecorded
    return result


def others(ended: Counter[str]) -> dict[str, int]:
    """The endings made by something else than the target, with their counts."""
    return {name: n for name, n in ended.items() if name not in (DONE, FAILED) and n}
