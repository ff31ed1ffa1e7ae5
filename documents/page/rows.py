"""What the upload page shows for a document: one row, computed from the database.

The page, its polling fragments and the status websocket all render rows from here, so a
pushed row, a polled row and a reloaded page always agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db.models import QuerySet

from config.common import humanize
from documents.models import Document
from documents.services import retries
from jobs import failures
from jobs.models import Job, JobStatus, Lane, Stage
from jobs.ops import estimate
from jobs.progress import Progress, progress_of

ROW_FIELDS = ("current_job",)
# Below this, a start is "in a moment": a free thread is taking it.
MOMENT_SECONDS = 5


@dataclass(frozen=True)
class Row:
    document: Document
    job: Job | None
    queue_position: int | None = None  # jobs ahead of this one in its lane
    starts_in: str | None = None  # "40 s", from the queue ahead and the free threads

    @property
    def status(self) -> str:
        return self.job.status if self.job else JobStatus.QUEUED

    @property
    def progress(self) -> Progress | None:
        return progress_of(self.job) if self.job else None

    @property
    def percent(self) -> int:
        """How far the current stage is: pages read while extracting or reading scanned
        pages by OCR, chunks embedded while embedding."""
        progress = self.progress
        if progress is None or progress.stage in (Stage.QUEUED, Stage.DONE):
            return 100 if self.status == JobStatus.SUCCEEDED else 0
        done, total = (
            (progress.pages_done, progress.pages_total)
            if progress.stage in (Stage.EXTRACTING, Stage.OCR)
            else (progress.done, progress.total)
        )
        return min(100, round(100 * done / total)) if total else 0

    @property
    def progress_label(self) -> str:
        """What the running job is doing, with its unit: "Reading pages 12 / 117" (or, for
        pages that are scanned images, "Reading scanned pages 3 / 40"), then "Embedding
        chunks 40 / 380"."""
        progress = self.progress
        if progress is None or progress.stage == Stage.EXTRACTING:
            if progress is None or not progress.pages_total:
                return "Opening the file"
            return f"Reading pages {progress.pages_done} / {progress.pages_total}"
        if progress.stage == Stage.OCR:
            if not progress.pages_total:
                return "Finding the scanned pages"
            return f"Reading scanned pages {progress.pages_done} / {progress.pages_total}"
        if progress.stage == Stage.EMBEDDING:
            return f"Embedding chunks {progress.done} / {progress.total}"
        return ""

    @property
    def waiting_label(self) -> str:
        """A queued row's place and start ("3 ahead · starts in 40 s"); a job handed on to
        the OCR lane says it waits to have its scanned pages read."""
        parts = []
        if self.job is not None and self.job.lane == Lane.OCR:
            parts.append("scanned pages wait for OCR")
        if self.queue_position is not None:
            ahead = self.queue_position
            parts.append("next in line" if ahead == 0 else f"{ahead} ahead")
        if self.starts_in:
            parts.append(f"starts in {self.starts_in}")
        return " · ".join(parts)

    @property
    def ready_in(self) -> str | None:
        """How long the document took from upload to ready."""
        if self.job is None or self.status != JobStatus.SUCCEEDED or not self.job.finished_at:
            return None
        return duration(self.job.finished_at - self.job.created_at)

    @property
    def can_retry(self) -> bool:
        """A failed job, unless its cause is in the file and still holds
        (documents.services.retries.retry_refusal, which the retry itself asks)."""
        return retries.retry_refusal(self.job) is None

    @property
    def reason(self) -> str:
        """Why the job failed, in the plain sentence for its code (jobs.failures): the
        stored detail and tracebacks are for staff."""
        return failures.job_sentence(self.job) if self.job else ""


def owned_documents(user_id: int) -> QuerySet[Document]:
    return Document.objects.filter(owner_id=user_id).select_related(*ROW_FIELDS)


def rows_for(documents: list[Document]) -> list[Row]:
    """Rows for documents fetched with `owned_documents`; queued ones get their place and,
    where there is a basis for one, when they may start (jobs.ops.estimate)."""
    lanes: dict[str, estimate.LaneThreads] = {}
    rows = []
    for document in documents:
        job = document.current_job
        if job is None or job.status != JobStatus.QUEUED:
            rows.append(Row(document, job))
            continue
        if job.lane not in lanes:
            lanes[job.lane] = estimate.lane_threads(job.lane)
        ahead = estimate.jobs_ahead(job)
        seconds = estimate.seconds_to_start(job, ahead=ahead, lane=lanes[job.lane])
        rows.append(Row(document, job, ahead, _starts_in(seconds)))
    return rows


def row_for(document: Document) -> Row:
    return rows_for([document])[0]


def _starts_in(seconds: float | None) -> str | None:
    if seconds is None:
        return None  # no live worker, or nothing measured: no honest estimate
    if seconds < MOMENT_SECONDS:
        return "a moment"
    return duration(timedelta(seconds=seconds))


def duration(delta: timedelta) -> str:
    """A person's way of saying how long: "4 s", "about 2 minutes", "about 3 hours"."""
    return humanize.duration(delta.total_seconds())
