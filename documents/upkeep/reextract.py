"""Re-extraction (manage.py reprocess extraction, alias reextract): the ready documents
whose text another reader read, read again by the structure reader as a new job of the
version search serves, so that they gain their structure (search/pipeline/layout).

What read a ready version is the `extracted_by` of the version's latest succeeded job
(search.pipeline.layout.READER, or "flat"); an empty one (a job that ended before it was
recorded: every document processed before the structure existed) is out of date too.
`--all` takes every ready document: after the reader improved without its version
changing.

A document is queued only while the version search serves is its latest one and no job
of it is in flight (documents/upkeep/ready.py). The re-run is a job of that same version
on the batch lane: the owner sees no new version. Search keeps answering from the old
chunks meanwhile: the new ones overwrite them by position as the job writes them, and
those the new reading no longer has go when it succeeds, with the old structure.
"""

import uuid
from collections import Counter
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, F, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from documents.models import Document
from documents.services.queueing import queue_new_job
from documents.upkeep import ready
from documents.upkeep.ready import FAILED, endings_by, queueable, ready_job
from documents.upkeep.waves import owners_in_turn
from jobs.models import IN_FLIGHT_STATUSES, Job, Lane


@dataclass(frozen=True)
class Scope:
    target: str  # the reader the workers run: search.pipeline.layout.READER
    everything: bool = False  # --all: every ready document, whatever read it
    owner_id: int | None = None


@dataclass
class Survey:
    ready: int = 0
    read_by: Counter[str] | None = None  # ready documents per reader ("" unrecorded)
    to_queue: int = 0
    in_flight: int = 0  # out of date, but a job of theirs is queued or processing


def _annotated(scope: Scope) -> QuerySet[Document]:
    documents = Document.objects.filter(ready_version__isnull=False)
    if scope.owner_id is not None:
        documents = documents.filter(owner_id=scope.owner_id)
    return documents.annotate(
        read_by=Coalesce(Subquery(ready_job().values("extracted_by")[:1]), Value(""))
    )


def _out_of_date(scope: Scope) -> QuerySet[Document]:
    documents = _annotated(scope)
    return documents if scope.everything else documents.exclude(Q(read_by=scope.target))


def survey(scope: Scope) -> Survey:
    """Counts of what a run with `scope` would find (nothing changed)."""
    read_by: Counter[str] = Counter()
    for row in _annotated(scope).values(reader=F("read_by")).order_by().annotate(n=Count("id")):
        read_by[row["reader"]] = row["n"]
    stale = _out_of_date(scope)
    return Survey(
        ready=sum(read_by.values()),
        read_by=read_by,
        to_queue=stale.filter(queueable()).count(),
        in_flight=stale.filter(current_job__status__in=IN_FLIGHT_STATUSES).count(),
    )


def requeue(document_id: uuid.UUID, scope: Scope) -> Job | None:
    """Queue a new job of the document's ready version on the batch lane, made its current
    job and sent after commit; None when, under the document's row lock, it no longer
    qualifies (deleted, a new version or a job in flight, or read by the reader now)."""
    with transaction.atomic():
        document = (
            _out_of_date(scope)
            .filter(queueable(), id=document_id)
            .select_for_update(of=("self",))
            .first()
        )
        if document is None:
            return None
        return queue_new_job(document, lane=Lane.BATCH)


class Reextraction:
    """The re-processing kind (documents/upkeep/waves.py) that reads documents again."""

    lane = "batch"

    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    @property
    def again(self) -> str:
        return "manage.py reprocess extraction" + (" --all" if self.scope.everything else "")

    def busy(self, pending: set[uuid.UUID]) -> int:
        """Jobs queued or processing in the batch lane, whoever queued them."""
        return Job.objects.in_flight().filter(lane=Lane.BATCH).count()

    def next_candidates(self, *, limit: int, skip: set[uuid.UUID]) -> list[uuid.UUID]:
        stale = _out_of_date(self.scope).filter(queueable())
        return owners_in_turn(stale, limit=limit, skip=skip)

    def requeue(self, document_id: uuid.UUID) -> uuid.UUID | None:
        job = requeue(document_id, self.scope)
        return None if job is None else job.id

    def endings(self, job_ids: list[uuid.UUID]) -> dict[uuid.UUID, str]:
        """DONE (succeeded, read by the target reader), FAILED (failed or cancelled), or
        what else read it (a worker with other settings)."""
        return endings_by(
            job_ids,
            recorded="extracted_by",
            target=self.scope.target,
            unrecorded="an unrecorded reader",
        )

    def failed(self, ended: Counter[str]) -> int:
        return ended[FAILED]

    def wrong_settings(self, ended: Counter[str]) -> str | None:
        others = ready.others(ended)
        if not others:
            return None
        return (
            f"{sum(others.values())} documents were read again by {', '.join(others)}, not "
            f"{self.scope.target}: the workers run with INGEST_STRUCTURE=off. Restart them "
            "with it on, then run the command again."
        )

    def summary(self, ended: Counter[str]) -> list[str]:
        if not ended[FAILED]:
            return []
        return [
            "A failed re-run leaves search on the old chunks; the admin's dead-letter "
            "console lists them (retry there, or run the command again)."
        ]
