"""Reading again, by OCR, the documents that failed `no_text` (manage.py reprocess ocr,
alias reocr): the ones read before OCR was turned on, whose current job is retried in
place.

A document qualifies while its current job is failed with `no_text` and a detail that
says OCR never looked at the file (jobs.failures.no_text_kind: read before OCR existed,
or with INGEST_OCR=off). `everything` takes those OCR did read too (after a change of
INGEST_OCR_LANGUAGES or INGEST_OCR_DPI, or to `force`). Each is retried through
jobs.services.retry_jobs, the admin's retry and the one writer of job states: the job
goes back to its lane, whose worker reads the text layer, finds the scanned pages and
hands the job on to the OCR lane.
"""

import uuid
from collections import Counter
from dataclasses import dataclass

from django.db.models import Q, QuerySet

from documents.models import Document
from documents.upkeep.waves import DONE, owners_in_turn
from jobs import failures
from jobs.models import IN_FLIGHT_STATUSES, Job, JobStatus, Lane
from jobs.services import retry_jobs


@dataclass(frozen=True)
class Scope:
    everything: bool = False  # --all: also those OCR read and found nothing on
    owner_id: int | None = None


@dataclass
class Survey:
    failed: int = 0  # documents whose current job failed no_text
    read_by_ocr: int = 0  # of those, the ones OCR already looked at
    to_queue: int = 0


def _read_by_ocr() -> Q:
    """A no_text whose detail says OCR looked at the file."""
    started = Q()
    for start in failures.OCR_READ.values():
        started |= Q(current_job__error_detail__startswith=start)
    return started


def _failed_no_text(scope: Scope) -> QuerySet[Document]:
    documents = Document.objects.filter(
        current_job__status=JobStatus.FAILED, current_job__error_code="no_text"
    )
    if scope.owner_id is not None:
        documents = documents.filter(owner_id=scope.owner_id)
    return documents


def _chosen(scope: Scope) -> QuerySet[Document]:
    documents = _failed_no_text(scope)
    return documents if scope.everything else documents.exclude(_read_by_ocr())


def survey(scope: Scope) -> Survey:
    """Counts of what a run with `scope` would find (nothing changed)."""
    failed = _failed_no_text(scope)
    return Survey(
        failed=failed.count(),
        read_by_ocr=failed.filter(_read_by_ocr()).count(),
        to_queue=_chosen(scope).count(),
    )


def next_candidates(scope: Scope, *, limit: int, skip: set[uuid.UUID]) -> list[uuid.UUID]:
    """Up to `limit` documents to retry next, owners taking turns."""
    return owners_in_turn(_chosen(scope), limit=limit, skip=skip)


def requeue(document_id: uuid.UUID, scope: Scope) -> uuid.UUID | None:
    """Retry the document's current job (queued again, sent after commit); its id, or
    None when it no longer qualifies (deleted, replaced, retried meanwhile) or retry_jobs
    left it failed (OCR turned off since the run began)."""
    job_id = _chosen(scope).filter(id=document_id).values_list("current_job_id", flat=True).first()
    if job_id is None:
        return None
    retried = retry_jobs(job_ids=[job_id])
    return job_id if retried.requeued == [job_id] else None


OCR_OFF = "ocr_off"


class Reocr:
    """The re-processing kind (documents/upkeep/waves.py) that reads documents again by OCR."""

    lane = "OCR"  # the lane its waves fill, as the command names it

    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    @property
    def again(self) -> str:
        return "manage.py reprocess ocr" + (" --all" if self.scope.everything else "")

    def busy(self, pending: set[uuid.UUID]) -> int:
        """The OCR lane's jobs queued or processing, whoever queued them, and this run's
        jobs still on their way to it (reading the text layer)."""
        # One count, so that a job handed from its lane to the OCR lane between two counts
        # is neither missed nor counted twice, and one that ends as the next is queued is
        # not counted beside it.
        return Job.objects.in_flight().filter(Q(lane=Lane.OCR) | Q(id__in=pending)).count()

    def next_candidates(self, *, limit: int, skip: set[uuid.UUID]) -> list[uuid.UUID]:
        return next_candidates(self.scope, limit=limit, skip=skip)

    def requeue(self, document_id: uuid.UUID) -> uuid.UUID | None:
        return requeue(document_id, self.scope)

    def endings(self, job_ids: list[uuid.UUID]) -> dict[uuid.UUID, str]:
        """DONE (succeeded), OCR_OFF (failed no_text saying OCR never looked: the worker
        runs with INGEST_OCR=off), or the error code it failed with ("cancelled" for one
        cancelled)."""
        rows = Job.objects.filter(id__in=job_ids).exclude(status__in=IN_FLIGHT_STATUSES)
        result = {}
        for job_id, status, code, detail in rows.values_list(
            "id", "status", "error_code", "error_detail"
        ):
            if status == JobStatus.SUCCEEDED:
                result[job_id] = DONE
            elif status == JobStatus.CANCELLED:
                result[job_id] = "cancelled"
            elif code == "no_text" and failures.no_text_kind(detail) == "before_ocr":
                result[job_id] = OCR_OFF
            else:
                result[job_id] = code or "failed"
        return result

    def failed(self, ended: Counter[str]) -> int:
        return sum(count for ending, count in ended.items() if ending != DONE)

    def wrong_settings(self, ended: Counter[str]) -> str | None:
        if not ended[OCR_OFF]:
            return None
        return (
            f"{ended[OCR_OFF]} retried documents failed no_text again without OCR looking at "
            "them: the workers run with INGEST_OCR=off. Restart them with OCR on, then run "
            "the command again."
        )

    def summary(self, ended: Counter[str]) -> list[str]:
        failed = {
            ending: count
            for ending, count in sorted(ended.items())
            if ending not in (DONE, OCR_OFF) and count
        }
        if not failed:
            return []
        by_code = ", ".join(f"{count} {code}" for code, count in failed.items())
        return [
            f"Failed again: {by_code}. Their owners see why on their pages; the admin's "
            "dead-letter console lists them."
        ]
