"""The outbox: a job's terminal change writes its event, and one delivery per URL that
should hear of it, in the same transaction. Nothing is sent here; the ids go to the
deliverer after commit (sending/dispatch.py), and the sweeper sends what that missed."""

from collections.abc import Mapping
from typing import TypedDict

from django.conf import settings
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from config.http.links import version_links
from jobs import failures
from jobs.models import Job, JobStatus
from jobs.webhooks.models import Delivery, Endpoint, Event, EventType
from jobs.webhooks.network import addresses
from jobs.webhooks.sending import dispatch, fair_share

EVENT_TYPES: dict[str, EventType] = {
    JobStatus.SUCCEEDED: EventType.SUCCEEDED,
    JobStatus.FAILED: EventType.FAILED,
}


class JobEventData(TypedDict):
    document_id: str
    job_id: str
    version: int
    filename: str
    status: str  # succeeded | failed
    pages: int | None  # None until the PDF was read
    chunks: int  # 0 for a failure
    error: dict[str, str] | None  # {"code", "detail"} of a failure, as the API shows it
    status_url: str  # absolute, as in the upload's answer (status_url below)
    links: dict[str, str] | None  # a success's document, content and chunks; None for a failure
    tags: list[str]  # the document's, as the event was written
    metadata: dict[str, str | int | float | bool]


class JobEventBody(TypedDict):
    """What every delivery of a document.succeeded / document.failed event sends
    (docs/using/webhooks.md): a contract with receivers. Stored as the event's payload and sent as
    signing.body makes it (keys sorted), the same bytes on every redelivery."""

    type: str
    id: str  # also the webhook-id header
    created_at: str  # ISO 8601, UTC, with a Z
    data: JobEventData


def status_url(job: Job) -> str:
    """The job's API address, absolute: from INGEST_PUBLIC_URL when it is set (an operator
    who names the service's address means it for every link), else from where the
    request that made the job reached the service, as that request's answer gave it,
    else (a job no request made: manage.py reprocess) from the web process's own port."""
    return public_base(job) + reverse("job-detail", kwargs={"job_id": job.id})


def public_base(job: Job) -> str:
    """scheme://host[:port] of the links in the job's events (status_url says whence)."""
    return settings.INGEST_PUBLIC_URL or job.public_url or f"http://127.0.0.1:{settings.WEB_PORT}"


def _payload(event: Event, job: Job, status: str, chunks: int, found: Mapping) -> JobEventBody:
    failed = status == JobStatus.FAILED
    return JobEventBody(
        type=event.type,
        id=event.id,
        created_at=event.created_at.isoformat().replace("+00:00", "Z"),
        data=JobEventData(
            document_id=str(job.document_id),
            job_id=str(job.id),
            version=job.version,
            filename=found["filename"],
            status=status,
            pages=found["page_count"],
            chunks=0 if failed else chunks,
            # The code and its plain sentence, as the API shows them (jobs.failures).
            error=failures.public_error(job) if failed else None,
            status_url=status_url(job),
            links=None if failed else version_links(public_base(job), job.document_id, job.version),
            tags=found["tags"],
            metadata=found["metadata"],
        ),
    )


def on_job_changed(
    sender: object, *, job: Job, status: str, chunks: int = 0, **kwargs: object
) -> None:
    """jobs.events' changed_in_transaction: a job changed, in the change's transaction."""
    record(job, status=status, chunks=chunks)


def record(job: Job, *, status: str, chunks: int = 0) -> None:
    """Call inside the transaction that ended the job (succeeded or failed; other states
    have no event). For a failure, `job.error_code` and `error_detail` say why."""
    event_type = EVENT_TYPES.get(status)
    if event_type is None:
        return
    endpoints = list(
        Endpoint.objects.filter(owner_id=job.owner_id, active=True).filter(
            Q(events__contains=[event_type])
        )
    )
    if not endpoints and not job.webhook_url:
        return
    # The document's row lock orders its events as their transactions commit: a failure
    # of version 1 cannot get an earlier created_at than version 2's success yet commit
    # after it (completions take the same lock, documents.services.processing.lock_for_completion).
    # Locked through the job's own foreign key: the webhooks know jobs, not documents.
    fields = ("filename", "page_count", "tags", "metadata")
    locked = (
        Job.objects.filter(id=job.id)
        .select_related("document")
        .select_for_update(of=("document",))
        .only("id", *(f"document__{name}" for name in fields))
        .first()
    )
    found = (
        {name: getattr(locked.document, name) for name in fields}
        if locked
        else {"filename": "", "page_count": None, "tags": [], "metadata": {}}
    )
    event = Event(type=event_type, owner_id=job.owner_id, document_id=job.document_id)
    event.job_id, event.created_at = job.id, timezone.now()
    event.payload = _payload(event, job, status, chunks, found)
    event.save(force_insert=True)
    created = Delivery.objects.bulk_create(_one_per_url(event, endpoints, job.webhook_url))
    dispatch.send_on_commit(fair_share.sendable(job.owner_id, [d.id for d in created]))


def _one_per_url(event: Event, endpoints: list[Endpoint], own_url: str) -> list[Delivery]:
    """A delivery per URL: two endpoints, or an endpoint and the upload's own
    `webhook_url`, that name one address hear the event once (the endpoint's, signed with
    its own secret)."""
    deliveries: dict[str, Delivery] = {}
    owner_id = event.owner_id
    for endpoint in endpoints:
        key = addresses.same_url(endpoint.url)
        deliveries.setdefault(
            key, Delivery(event=event, owner_id=owner_id, endpoint=endpoint, url=endpoint.url)
        )
    if own_url:
        deliveries.setdefault(
            addresses.same_url(own_url), Delivery(event=event, owner_id=owner_id, url=own_url)
        )
    return list(deliveries.values())
