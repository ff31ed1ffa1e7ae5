"""What the upload page shows for a document: one row, computed from the database.

The page, its polling fragments and the status websocket all render rows from here, so a
pushed row, a polled row and a reloaded page always agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db.models import QuerySet

from config import humanize
from documents import admission, services
from documents.models import Document
from jobs import failures
from jobs.models import Job, JobStatus

ROW_FIELDS = ("current_job",)


@dataclass(frozen=True)
class Row:
    document: Document
    job: Job | None
    queue_position: int | None = None  # jobs ahead of this one in its lane
    starts_in: str | None = None  # "about 2 minutes", from the measured drain rate

    @property
    def status(self) -> str:
        return self.job.status if self.job else JobStatus.QUEUED

    @property
    def percent(self) -> int:
        if self.job is None or not self.job.progress_total:
            return 100 if self.status == JobStatus.SUCCEEDED else 0
        return min(100, round(100 * self.job.progress_done / self.job.progress_total))

    @property
    def ready_in(self) -> str | None:
        """How long the document took from upload to ready."""
        if self.job is None or self.status != JobStatus.SUCCEEDED or not self.job.finished_at:
            return None
        return duration(self.job.finished_at - self.job.created_at)

    @property
    def can_retry(self) -> bool:
        """A failed job, unless its cause is in the file and still holds
        (documents.services.retry_refusal, which the retry itself asks)."""
        return services.retry_refusal(self.job) is None

    @property
    def reason(self) -> str:
        """Why the job failed, in the plain sentence for its code (jobs.failures): the
        stored detail and tracebacks are for staff."""
        return failures.job_sentence(self.job) if self.job else ""


def owned_documents(user_id: int) -> QuerySet[Document]:
    return Document.objects.filter(owner_id=user_id).select_related(*ROW_FIELDS)


def rows_for(documents: list[Document]) -> list[Row]:
    """Rows for documents fetched with `owned_documents`; queued ones get their place."""
    drain_rate = None
    rows = []
    for document in documents:
        job = document.current_job
        if job is None or job.status != JobStatus.QUEUED:
            rows.append(Row(document, job))
            continue
        if drain_rate is None:
            drain_rate = admission.backlog().drain_rate
        ahead = _jobs_ahead(job)
        rows.append(Row(document, job, ahead, _starts_in(ahead, drain_rate)))
    return rows


def row_for(document: Document) -> Row:
    return rows_for([document])[0]


def _jobs_ahead(job: Job) -> int:
    """Queued jobs in the same lane that were queued earlier (a small partial index)."""
    return Job.objects.filter(
        status=JobStatus.QUEUED, lane=job.lane, queued_at__lt=job.queued_at
    ).count()


def _starts_in(ahead: int, drain_rate: float) -> str | None:
    if drain_rate <= 0:
        return None  # nothing finished lately: no honest estimate
    return duration(timedelta(seconds=(ahead + 1) / drain_rate))


def duration(delta: timedelta) -> str:
    """A person's way of saying how long: "4 s", "about 2 minutes", "about 3 hours"."""
    return humanize.duration(delta.total_seconds())
