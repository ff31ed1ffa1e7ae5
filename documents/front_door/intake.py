"""What an upload's files become, once the request was admitted (documents.front_door.admission) and
its body read: the one service behind the API's two upload actions, new documents
(`POST /api/documents/`) and a document's new version (`POST .../versions/`).

It checks the request's webhook URL, then (for new documents) the number of files and the
quota against the files' real sizes, so that a request refused as a whole stores nothing;
then each file in turn becomes a new document, a new version, or, for bytes the owner
already has, that document again (`duplicate`). A file the streaming handler rejected is
passed back as it is, with its reason, and never sinks the others.
"""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.http import HttpRequest

from documents.front_door import admission, quotas
from documents.front_door.idempotency import fingerprint
from documents.front_door.refusal import Refusal
from documents.front_door.validation import ReceivedFile, RejectedFile
from documents.services import retries, uploads
from jobs.models import Job
from jobs.webhooks import endpoints
from jobs.webhooks.network.addresses import InvalidWebhookURL


@dataclass(frozen=True)
class Labels:
    """The tags and metadata an upload gives its new documents (checked: documents.labels)."""

    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Upload:
    """An upload request as parsed, its webhook URL checked (made by `prepare`)."""

    owner: User
    files: Sequence[ReceivedFile]
    webhook_url: str
    reprocess: bool
    document_id: uuid.UUID | None  # the document a new version is for; None: new ones
    public_url: str = ""  # where the request reached the service (Job.public_url)
    labels: Labels = field(default_factory=Labels)

    def fingerprint(self) -> str:
        """What an Idempotency-Key is bound to: the same request gives the same print."""
        identity: list[object] = [self.reprocess, [_identity(f) for f in self.files]]
        if self.webhook_url:  # appended only when given: earlier requests' prints hold
            identity.append(self.webhook_url)
        if self.labels.tags or self.labels.metadata:  # likewise
            identity.append({"tags": self.labels.tags, "metadata": self.labels.metadata})
        return fingerprint(identity)


@dataclass(frozen=True)
class Outcome:
    """Each file's fate, in the order sent: accepted (or a duplicate), or rejected."""

    results: list[uploads.Accepted | RejectedFile]

    @property
    def refused_status(self) -> int | None:
        """None when a file was accepted; else the status of the files' one reason for
        refusal, or 400 when they were refused for reasons of different statuses."""
        refused = [r.rejection.http_status for r in self.results if isinstance(r, RejectedFile)]
        if len(refused) < len(self.results):
            return None
        statuses = set(refused)
        return statuses.pop() if len(statuses) == 1 else 400


def public_url(request: HttpRequest) -> str:
    """Where a request reached the service, scheme://host[:port]: the start of the
    status_url in its answer (request.build_absolute_uri), kept on the jobs it makes
    (Job.public_url) so that their webhook events' status_url starts the same."""
    return request.build_absolute_uri("/").rstrip("/")


def prepare(
    *,
    owner: User,
    files: Sequence[ReceivedFile],
    webhook_urls: Sequence[str],
    reprocess: bool = False,
    document_id: uuid.UUID | None = None,
    public_url: str = "",
    labels: Labels | None = None,
) -> Upload:
    """The upload to `accept`. Refusal 400 `invalid_webhook_url` for more than one
    webhook URL, or one a webhook may not be sent to (jobs.webhooks.endpoints.upload_url)."""
    return Upload(
        owner=owner,
        files=files,
        webhook_url=checked_webhook_url(webhook_urls),
        reprocess=reprocess,
        document_id=document_id,
        public_url=public_url,
        labels=labels or Labels(),
    )


def checked_webhook_url(webhook_urls: Sequence[str]) -> str:
    """An upload's one webhook URL ("" for none); Refusal 400 `invalid_webhook_url` for
    more than one, or one a webhook may not be sent to."""
    try:
        return endpoints.upload_url(webhook_urls)
    except InvalidWebhookURL as exc:
        raise Refusal(http_status=400, code=exc.code, detail=str(exc)) from None


def accept(upload: Upload) -> Outcome:
    """Store each accepted file and queue its job (each job is sent after its commit):
    `Staged(upload).record()`."""
    return Staged(upload).record()


class Staged:
    """An upload in two steps: `store()` checks the request's limits and stores the new
    documents' bytes, with no transaction open; `record()` writes their rows and queues
    their jobs (storing first if `store()` was not called). Under an Idempotency-Key the
    API stores before it takes the key's row lock, so that the lock, and the database
    connection it pins, are held for the inserts and not for the upload to storage;
    `discard()` deletes the stored bytes when the request is answered otherwise (a
    replayed answer, a refusal, an error).

    New documents first pass the request's own limits, each a Refusal before anything is
    stored: 400 `too_many_files` past INGEST_MAX_FILES_PER_REQUEST, and the owner's quota
    on the files' real sizes (429 or 413, documents.front_door.quotas); a new version, the
    storage quota on its size (earlier versions stay stored). A new version's bytes are
    stored by `record()`, under the document's row lock that numbers it, and it raises
    Document.DoesNotExist for a document that is not the owner's. The jobs made count
    towards the admission limits at once (admission.note_admitted).
    """

    def __init__(self, upload: Upload) -> None:
        self.upload = upload
        self.files: list[uploads.Stored | ReceivedFile] | None = None

    def store(self) -> None:
        if self.upload.document_id is None:
            self.files = _stored_new_documents(self.upload)
        else:
            self.files = list(self.upload.files)

    def record(self) -> Outcome:
        if self.files is None:
            self.store()
        assert self.files is not None
        upload = self.upload
        if upload.document_id is None:
            results = [_recorded(upload, f) for f in self.files]
        else:
            results = [_new_version(upload, upload.document_id)]
        self.files = []  # recorded: nothing left to discard
        accepted = sum(1 for r in results if isinstance(r, uploads.Accepted))
        admission.note_admitted(user_id=upload.owner.pk, jobs=accepted)
        return Outcome(results)

    def discard(self) -> None:
        for stored in self.files or []:
            if isinstance(stored, uploads.Stored):
                stored.discard()
        self.files = []


def _stored_new_documents(upload: Upload) -> list[uploads.Stored | ReceivedFile]:
    files = upload.files
    if any(isinstance(f, RejectedFile) and f.rejection.code == "too_many_files" for f in files):
        raise Refusal(
            http_status=400,
            code="too_many_files",
            detail=f"At most {settings.INGEST_MAX_FILES_PER_REQUEST} files can be sent in one "
            f"request; this one has {len(files)}. Nothing was stored.",
        )
    sizes = [f.size or 0 for f in files if not isinstance(f, RejectedFile)]
    if sizes and (
        refusal := quotas.check(
            user_id=upload.owner.pk, new_documents=len(sizes), new_bytes=sum(sizes)
        )
    ):
        raise refusal
    stored: list[uploads.Stored | ReceivedFile] = []
    try:
        for f in files:
            if isinstance(f, RejectedFile):
                stored.append(f)
            else:
                stored.append(uploads.store_new(owner=upload.owner, upload=f))
    except BaseException:  # a request refused as a whole keeps nothing it stored
        for done in stored:
            if isinstance(done, uploads.Stored):
                done.discard()
        raise
    return stored


def _recorded(
    upload: Upload, file: uploads.Stored | ReceivedFile
) -> uploads.Accepted | RejectedFile:
    if isinstance(file, RejectedFile):
        return file
    return uploads.create_upload(
        owner=upload.owner,
        upload=file,
        reprocess=upload.reprocess,
        webhook_url=upload.webhook_url,
        public_url=upload.public_url,
        tags=upload.labels.tags,
        metadata=upload.labels.metadata,
    )


def _new_version(upload: Upload, document_id: uuid.UUID) -> uploads.Accepted | RejectedFile:
    [sent] = upload.files  # the API takes exactly one
    if isinstance(sent, RejectedFile):
        return sent
    # Earlier versions stay stored: a new one adds its bytes to the quota.
    if refusal := quotas.check(user_id=upload.owner.pk, new_bytes=sent.size or 0, versions=True):
        raise refusal
    return uploads.add_version(
        document_id=document_id,
        owner=upload.owner,
        upload=sent,
        webhook_url=upload.webhook_url,
        public_url=upload.public_url,
    )


def _identity(upload: ReceivedFile) -> list[str | None]:
    if isinstance(upload, RejectedFile):
        return [upload.name, upload.rejection.code]
    return [upload.name, uploads.sha256_of(upload)]


def retry(*, document_id: uuid.UUID, owner_id: int, admitted: bool, public_url: str = "") -> Job:
    """A failed document's fresh job (documents.services.retries.retry_document), through
    the front door: a caller that has not `admitted` the request yet (the page) has it
    admitted once the document is known to be retryable, and the job counts towards the
    admission limits at once. Raises what retry_document raises, and Refusal."""
    job = retries.retry_document(
        document_id=document_id,
        owner_id=owner_id,
        admit=None if admitted else (lambda: admission.admit(signed_in=lambda: owner_id)),
        public_url=public_url,
    )
    admission.note_admitted(user_id=owner_id, jobs=1)
    return job
