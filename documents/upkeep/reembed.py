"""Re-embedding (manage.py reprocess embeddings, alias reembed): the ready documents whose
vectors another embedding made, each embedded again as a new job of the version search
serves.

Which embedding made a ready version's vectors is the document's `ready_embed_model`,
written with the success of the job that made them ("<provider>:<model>:<dimensions>",
search/embedding/signature.py), and indexed. An empty one (a job that ended before it was
recorded) counts as out of date: the most likely reason to run this command is a switch
away from the default `hashing` provider, and treating unknown vectors as current would
skip exactly those. `adopt_unrecorded` records the configured embedding on them instead,
for a deployment that already ran it.

A document is queued only while the version search serves is its latest one and no job
of it is in flight: a newer version in flight will be embedded by the workers' settings
anyway, and a newer version that failed is its owner's to replace or retry. The re-run
is a job of that same version on the batch lane (the owner sees no new version), which
embeds the version's stored chunks again and reads no file: their ids and texts, and so
every citation, stay (jobs/worker/processing.py, _embed_again). Their vectors are
overwritten in place; until it succeeds the document keeps its old
`ready_embed_model`, so the vector side of a search, which compares only vectors of the
configured embedding (search/retrieval/vector.py), leaves the half-done document out and the text
side serves it as before (jobs/worker/processing.py makes the switch in one transaction).
"""

import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.db.models import Count, F, Q, QuerySet, Subquery

from documents.models import Document
from documents.services.processing import adopt_embed_model
from documents.services.queueing import queue_new_job
from documents.upkeep import ready
from documents.upkeep.ready import FAILED, endings_by, queueable, ready_job
from documents.upkeep.waves import owners_in_turn
from jobs.models import IN_FLIGHT_STATUSES, Job, JobStatus, Lane
from jobs.services import record_embed_model

ENDED_BADLY = (JobStatus.FAILED, JobStatus.CANCELLED)


@dataclass(frozen=True)
class Scope:
    """Which ready documents a run considers."""

    target: str  # the configured embedding's signature
    everything: bool = False  # --all: every ready document, whatever made it
    # With --all, only ready versions made before this (the run's start, or --before): one
    # made since was made by the workers' settings, and queueing it again changes nothing.
    before: datetime | None = None
    owner_id: int | None = None
    # Leave documents whose latest job failed or was cancelled: a re-run of theirs that
    # failed is an operator's to retry, not the sweeper's to repeat on every pass.
    leave_failed: bool = False


@dataclass
class Survey:
    """What a run would do, for --dry-run and the command's first lines."""

    ready: int = 0
    made_by: Counter[str] = field(default_factory=Counter)  # ready documents per signature
    to_queue: int = 0
    in_flight: int = 0  # out of date, but a job of theirs is queued or processing
    newer_not_ready: int = 0  # out of date, and their latest version failed


def other_than(signature: str) -> Q:
    """Ready versions made by another embedding than `signature`, or by one unrecorded: the
    signatures below it and above it, two ranges of the index on the record (`<>` would
    read all of it)."""
    return Q(ready_embed_model__lt=signature) | Q(ready_embed_model__gt=signature)


def _ready(scope: Scope) -> QuerySet[Document]:
    documents = Document.objects.filter(ready_version__isnull=False)
    if scope.owner_id is not None:
        documents = documents.filter(owner_id=scope.owner_id)
    return documents


def out_of_date(scope: Scope) -> QuerySet[Document]:
    """The ready documents `scope` takes whose vectors another embedding made (with --all:
    whatever made them), queueable or not."""
    documents = _ready(scope)
    if not scope.everything:
        documents = documents.filter(other_than(scope.target))
    elif scope.before is not None:
        made_at = Subquery(ready_job().values("finished_at")[:1])
        documents = documents.annotate(made_at=made_at).filter(
            Q(made_at__lt=scope.before) | Q(made_at__isnull=True)
        )
    if scope.leave_failed:
        documents = documents.exclude(current_job__status__in=ENDED_BADLY)
    return documents


def made_by(documents: QuerySet[Document]) -> Counter[str]:
    """How many of these documents each embedding made ("" for unrecorded): one grouped
    query on their records."""
    rows = documents.values("ready_embed_model").order_by().annotate(n=Count("id"))
    return Counter({row["ready_embed_model"]: row["n"] for row in rows})


def survey(scope: Scope) -> Survey:
    """Counts of what a run with `scope` would find (a few queries, nothing changed)."""
    result = Survey(made_by=made_by(_ready(scope)))
    result.ready = sum(result.made_by.values())
    stale = out_of_date(scope)
    result.to_queue = stale.filter(queueable()).count()
    result.in_flight = stale.filter(current_job__status__in=IN_FLIGHT_STATUSES).count()
    result.newer_not_ready = (
        stale.exclude(current_job__status__in=IN_FLIGHT_STATUSES)
        .exclude(version=F("ready_version"))
        .count()
    )
    return result


def next_candidates(scope: Scope, *, limit: int, skip: set[uuid.UUID]) -> list[uuid.UUID]:
    """Up to `limit` documents to queue next, owners taking turns."""
    return owners_in_turn(out_of_date(scope).filter(queueable()), limit=limit, skip=skip)


def requeue(document_id: uuid.UUID, scope: Scope) -> Job | None:
    """Queue a new job of the document's ready version on the batch lane (never in the way
    of uploads) that embeds its stored chunks again (Job.embed_only: no file read, the
    chunks' ids and texts kept), made its current job and sent after commit. None (nothing
    changed) when,
    under the document's row lock, it no longer qualifies: deleted, a new version or a job
    in flight, or now up to date."""
    with transaction.atomic():
        document = (
            out_of_date(scope)
            .filter(queueable(), id=document_id)
            .select_for_update(of=("self",))
            .first()
        )
        if document is None:
            return None
        return queue_new_job(document, lane=Lane.BATCH, embed_only=True)


def adopt_unrecorded(scope: Scope) -> int:
    """Record the configured embedding as the maker of ready versions that have no record
    (their jobs ended before it was kept). For a deployment that ran this embedding all
    along and does not want them embedded again. Returns how many jobs were updated."""
    unrecorded = _ready(scope).filter(ready_embed_model="")
    latest = Subquery(ready_job().filter(embed_model="").values("id")[:1])
    with transaction.atomic():
        documents = list(unrecorded.values_list("id", flat=True))
        ids = unrecorded.annotate(job_id=latest).values("job_id")
        adopted = record_embed_model(job_ids=ids, signature=scope.target)
        # The vector side of a search compares these documents' vectors again.
        adopt_embed_model(document_ids=documents, embed_model=scope.target)
    return adopted


class Reembedding:
    """The re-processing kind (documents/upkeep/waves.py) that embeds documents again."""

    lane = "batch"  # the lane its waves fill, as the command names it

    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    @property
    def again(self) -> str:
        command = "manage.py reprocess embeddings"
        if self.scope.everything and self.scope.before is not None:
            command += f" --all --before {self.scope.before.isoformat(timespec='microseconds')}"
        return command

    def busy(self, pending: set[uuid.UUID]) -> int:
        """Jobs queued or processing in the batch lane, whoever queued them."""
        return Job.objects.in_flight().filter(lane=Lane.BATCH).count()

    def next_candidates(self, *, limit: int, skip: set[uuid.UUID]) -> list[uuid.UUID]:
        return next_candidates(self.scope, limit=limit, skip=skip)

    def requeue(self, document_id: uuid.UUID) -> uuid.UUID | None:
        job = requeue(document_id, self.scope)
        return None if job is None else job.id

    def endings(self, job_ids: list[uuid.UUID]) -> dict[uuid.UUID, str]:
        """DONE (succeeded, made by the configured embedding), FAILED (failed, or
        cancelled: superseded by a newer upload, or by hand), or the signature of the
        other embedding that made it (a worker with other settings)."""
        return endings_by(
            job_ids,
            recorded="embed_model",
            target=self.scope.target,
            unrecorded="an unrecorded embedding",
        )

    def failed(self, ended: Counter[str]) -> int:
        return ended[FAILED]

    def wrong_settings(self, ended: Counter[str]) -> str | None:
        others = ready.others(ended)
        if not others:
            return None
        return (
            f"{sum(others.values())} documents were embedded again by {', '.join(others)}, "
            f"not {self.scope.target}: the workers run with other settings than this "
            "command. Restart them with the new settings, then run the command again."
        )

    def summary(self, ended: Counter[str]) -> list[str]:
        lines = []
        if others := sum(ready.others(ended).values()):
            lines.append(f"embedded with other settings: {others}")
        if ended[FAILED]:
            lines.append(
                "A failed re-run leaves search on the old vectors; the admin's dead-letter "
                "console lists them (retry there, or run the command again)."
            )
        return lines
