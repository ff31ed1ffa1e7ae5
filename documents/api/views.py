"""DRF views for documents. Thin: parse, call a service, answer."""

import logging
import uuid
from collections.abc import Callable, Sequence
from typing import Protocol

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpResponseNotModified, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.urls import reverse
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, Throttled, ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from config.accounts.authentication import signed_in_user
from config.http.api_errors import Refused
from config.http.pagination import NewestFirst
from config.http.session_auth import enforce_deferred_csrf
from documents import content as contents
from documents import downloads, labels
from documents.api import chunks as chunk_api
from documents.api import docs, serving
from documents.api.serializers import DocumentDetailOut, DocumentOut, DocumentPatchIn
from documents.filenames import display_name
from documents.front_door import admission, idempotency, intake
from documents.front_door.idempotency import idempotent
from documents.front_door.refusal import Refusal
from documents.front_door.validation import GuardedUploadHandler, ReceivedFile, RejectedFile
from documents.models import Document
from documents.services import deletion, labelling, retries, uploads
from jobs.models import Job, JobStatus
from search.models import Chunk

log = logging.getLogger(__name__)


UPLOADS = ("create", "versions")  # actions that take files: guarded before parsing
# Actions that make jobs: admitted like an upload, before the body is read.
ADMITTED = (*UPLOADS, "retry")


class Staging(Protocol):
    """Work an answer needs done before the Idempotency-Key's lock is taken, and undone
    when the request is answered without it (intake.Staged)."""

    def store(self) -> None: ...

    def discard(self) -> None: ...


def answered_once(
    request: Request,
    request_fingerprint: Callable[[], str],
    answer: Callable[[], Response],
    *,
    replayed_headers: Callable[[dict], dict[str, str]] | None = None,
    staging: Staging | None = None,
) -> Response:
    """`answer()`; with an Idempotency-Key, the first answer given under it to this
    owner, again (with `replayed_headers(body)`), for the same request
    (`request_fingerprint()`, worked out only then); 422 for another request.

    `staging.store()` runs before the key's transaction (an answer already recorded is
    given back without it), so that the transaction, and the pooled database connection
    it holds, last as long as the answer's writes and not its upload to storage; it is
    discarded when the answer is not `answer()`'s."""
    key = request.headers.get("Idempotency-Key")
    if not key:
        return answer()
    if len(key) > 255:
        raise Refused(
            status_code=400,
            code="invalid_idempotency_key",
            detail="Idempotency-Key must be at most 255 characters.",
        )
    owner_id, printed = signed_in_user(request).pk, request_fingerprint()
    if staging is not None:
        # A replay's bytes need not be stored first: look for its answer before.
        earlier = idempotency.answered(owner_id=owner_id, key=key, request_fingerprint=printed)
        if earlier is not None:
            return _given_back(earlier, replayed_headers)
        staging.store()
    try:
        with idempotent(owner_id=owner_id, key=key, request_fingerprint=printed) as slot:
            if slot.mismatch or slot.replay is not None:
                if staging is not None:
                    staging.discard()
                return _given_back(slot, replayed_headers)
            response = answer()
            slot.remember(response.status_code, response.data)
            return response
    except (OperationalError, InterfaceError):
        raise  # the commit's fate unknown: the bytes are left to cleanup_orphans
    except BaseException:  # rolled back: nothing recorded the stored bytes
        if staging is not None:
            staging.discard()
        raise


def _given_back(
    slot: idempotency.Slot, replayed_headers: Callable[[dict], dict[str, str]] | None
) -> Response:
    """An earlier answer under the key again, or 422 for a request that is not the same."""
    if slot.mismatch:
        raise Refused(
            status_code=422,
            code="idempotency_key_reused",
            detail="This Idempotency-Key was used for a different request.",
        )
    assert slot.replay is not None
    status_code, body = slot.replay
    headers = replayed_headers(body) if replayed_headers is not None else None
    return Response(body, status=status_code, headers=headers)


def api_error(refusal: Refusal) -> APIException:
    if refusal.code == "throttled":
        # DRF's own answer, as the API has always given it ("Request was throttled.
        # Expected available in 37 seconds."): clients may read its words.
        return Throttled(wait=refusal.retry_after)
    return Refused(
        status_code=refusal.http_status,
        code=refusal.code,
        detail=refusal.detail,
        retry_after=refusal.retry_after,
    )


class DocumentViewSet(viewsets.GenericViewSet):
    serializer_class = DocumentOut
    pagination_class = NewestFirst
    lookup_value_converter = "uuid"

    def get_queryset(self):  # noqa: ANN201
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Document.objects.none()
        owner = signed_in_user(self.request)
        documents = Document.objects.filter(owner=owner).select_related("current_job")
        wanted = self.request.query_params.get("status")
        if wanted:
            if wanted not in JobStatus.values:
                raise ValidationError({"status": f"Use one of: {', '.join(JobStatus.values)}."})
            documents = documents.filter(current_job__status=wanted)
        if self.action == "list":
            filters = labels.filters_from(self.request.query_params)
            documents = documents.filter(labels.as_q(filters))
        return documents

    def get_parsers(self):  # noqa: ANN201
        # DRF asks before it sets self.action: find the action from the method. (Asking
        # self.action alone let JSON and urlencoded bodies reach the upload actions.)
        action = getattr(self, "action", None)
        if action is None and getattr(self, "request", None) is not None:
            method = self.request.method
            assert method is not None  # set on every request that reaches a view
            action = self.action_map.get(method.lower())
        if action in UPLOADS:
            return [MultiPartParser()]
        return super().get_parsers()

    def initial(self, request: Request, *args: object, **kwargs: object) -> None:
        """Uploads and retries pass documents.front_door.admission before anything reads the body:
        the backlog first, authentication (with the session's CSRF check put off, as
        Django's reads the whole multipart body) only once admission asks who is asking;
        the CSRF check once admitted. Our upload handler enforces the file limits while
        the body streams in."""
        if self.action in UPLOADS:
            request._request.upload_handlers = [GuardedUploadHandler(request._request)]
        if self.action not in ADMITTED:
            super().initial(request, *args, **kwargs)
            return
        request.defer_csrf = True  # type: ignore[attr-defined]
        admission.admit(
            signed_in=lambda: self._signed_in(request, *args, **kwargs),
            quota=self.action in UPLOADS,
            versions=self.action == "versions",
        )
        enforce_deferred_csrf(request)

    def _signed_in(self, request: Request, *args: object, **kwargs: object) -> int:
        """DRF's own checks (authentication, permissions), run when admission asks."""
        super().initial(request, *args, **kwargs)
        return signed_in_user(request).pk

    def perform_content_negotiation(
        self, request: Request, force: bool = False
    ) -> tuple[BaseRenderer, str]:
        # A download answers with the file itself, whatever Accept says (application/pdf
        # names no renderer); its errors are JSON.
        forced = force or self.action in ("file", "content")
        return super().perform_content_negotiation(request, force=forced)

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, Refusal):
            exc = api_error(exc)
        return super().handle_exception(exc)

    # ------------------------------------------------------------------ reads

    @docs.listing
    def list(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(DocumentOut(page, many=True).data)

    @docs.detail
    def retrieve(self, request: Request, pk: uuid.UUID) -> Response:
        document = self.get_object()
        document.chunk_count = Chunk.objects.filter(
            document=document, version=document.version
        ).count()
        return Response(DocumentDetailOut(document).data)

    @docs.download
    @action(detail=True, methods=["get"])
    def file(self, request: Request, pk: uuid.UUID) -> HttpResponseBase:
        document = self.get_object()  # 404 for another owner's document
        try:
            stored = downloads.stored_version(document, serving.asked(request))
            return downloads.answer(stored, request.headers)
        except downloads.NoSuchVersion as exc:
            raise serving.no_such_version(document, exc.args[0]) from exc
        except downloads.VersionPruned as exc:
            raise Refused(
                status_code=410,
                code="version_pruned",
                detail=f"Version {exc.args[0]} was replaced more than "
                f"{settings.INGEST_RETAIN_DAYS} days ago and has been removed "
                "(INGEST_RETAIN_DAYS).",
            ) from exc
        except FileNotFoundError as exc:
            log.warning("document %s: no stored file at %s", document.id, exc)
            raise serving.file_missing() from exc
        except downloads.BadRange as exc:
            raise Refused(
                status_code=400,
                code="invalid_range",
                detail=f"The Range header holds a number of {exc.args[0]} digits; a byte "
                f"position has at most {downloads.MAX_DIGITS}.",
            ) from exc
        except downloads.Unsatisfiable as exc:
            refused = Refused(
                status_code=416,
                code="range_not_satisfiable",
                detail=f"The file has {exc.args[0]} bytes; the Range asked for none of them.",
            )
            refused.content_range = f"bytes */{exc.args[0]}"
            raise refused from exc

    @docs.content
    @action(detail=True, methods=["get"])
    def content(self, request: Request, pk: uuid.UUID) -> HttpResponseBase:
        """The version's content, streamed (documents/content.py)."""
        document = self.get_object()  # 404 for another owner's document
        wanted = request.query_params.get("format") or "markdown"
        if wanted not in contents.FORMATS:
            raise ValidationError({"format": f"Use one of: {', '.join(contents.FORMATS)}."})
        found = serving.content(document, request)
        etag = found.etag(wanted)
        if etag in request.headers.get("If-None-Match", ""):
            answer: HttpResponseBase = HttpResponseNotModified()
        else:
            answer = StreamingHttpResponse(
                contents.stream(found, wanted), content_type=contents.FORMATS[wanted]
            )
        answer["ETag"] = etag
        answer["Cache-Control"] = "private, no-cache"
        return answer

    @chunk_api.listing_docs
    @action(detail=True, methods=["get"])
    def chunks(self, request: Request, pk: uuid.UUID) -> Response:
        """The version's chunks in reading order (documents/api/chunks.py)."""
        return chunk_api.listing(self, request, self.get_object())

    # ------------------------------------------------------------------ writes

    @docs.upload
    def create(self, request: Request) -> Response:
        files: Sequence[ReceivedFile] = request.FILES.getlist("file")
        if not files:
            _refuse_file_as_text(request)
            raise Refused(
                status_code=400,
                code="no_file",
                detail="Send one or more PDFs in the multipart field 'file'.",
            )
        upload = intake.prepare(
            owner=signed_in_user(request),
            files=files,
            webhook_urls=request.POST.getlist("webhook_url"),
            reprocess=request.query_params.get("reprocess", "").lower() in ("1", "true", "yes"),
            public_url=intake.public_url(request),
            labels=_labels(request),
        )
        staged = intake.Staged(upload)
        return answered_once(
            request,
            upload.fingerprint,
            lambda: _upload_answer(request, staged.record()),
            replayed_headers=_location,
            staging=staged,
        )

    @docs.relabel
    def partial_update(self, request: Request, pk: uuid.UUID) -> Response:
        self.get_object()  # 404 for another owner's document
        sent = DocumentPatchIn(data=request.data)
        sent.is_valid(raise_exception=True)
        unknown = sorted(set(request.data) - set(DocumentPatchIn().fields))
        if unknown:
            raise ValidationError(
                {name: ["Only tags and metadata can be changed."] for name in unknown}
            )
        if not sent.validated_data:
            raise ValidationError({"non_field_errors": ["Send tags, metadata or both."]})
        changes = sent.validated_data
        document = labelling.relabel(
            document_id=pk,
            owner_id=signed_in_user(request).pk,
            tags=labels.clean_tags(changes["tags"]) if "tags" in changes else None,
            metadata=labels.clean_metadata(changes["metadata"]) if "metadata" in changes else None,
        )
        return Response(DocumentOut(document).data)

    @docs.delete
    def destroy(self, request: Request, pk: uuid.UUID) -> Response:
        self.get_object()  # 404 for another owner's document
        deletion.delete_document(document_id=pk, owner_id=signed_in_user(request).pk)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @docs.retry
    @action(detail=True, methods=["post"])
    def retry(self, request: Request, pk: uuid.UUID) -> Response:
        document = self.get_object()
        try:
            job = intake.retry(
                document_id=document.id,
                owner_id=signed_in_user(request).pk,
                admitted=True,
                public_url=intake.public_url(request),
            )
        except retries.NotRetryable as exc:
            raise Refused(status_code=409, code="not_retryable", detail=str(exc)) from exc
        result = _accepted_result(request, uploads.Accepted(document=document, job=job))
        return Response(
            result, status=status.HTTP_202_ACCEPTED, headers=_location({"results": [result]})
        )

    @docs.versions
    @action(detail=True, methods=["post"])
    def versions(self, request: Request, pk: uuid.UUID) -> Response:
        self.get_object()  # 404 for another owner's document
        files: Sequence[ReceivedFile] = request.FILES.getlist("file")
        if not files:
            _refuse_file_as_text(request)
        if len(files) != 1:
            raise Refused(
                status_code=400, code="one_file", detail="Send exactly one PDF in the field 'file'."
            )
        if sent := [name for name in ("tags", "metadata") if name in request.POST]:
            raise ValidationError(
                {
                    name: [
                        f"A new version keeps the document's {name}: change them with "
                        f"PATCH /api/documents/{pk}/."
                    ]
                    for name in sent
                }
            )
        upload = intake.prepare(
            owner=signed_in_user(request),
            files=files,
            webhook_urls=request.POST.getlist("webhook_url"),
            document_id=pk,
            public_url=intake.public_url(request),
        )
        [outcome] = intake.accept(upload).results
        if isinstance(outcome, RejectedFile):
            body = {
                "code": outcome.rejection.code,
                "detail": outcome.rejection.detail,
                "results": [_rejected_result(outcome)],
            }
            return Response(body, status=outcome.rejection.http_status)
        result = _accepted_result(request, outcome)
        result["version"] = outcome.document.version
        return Response(
            result, status=status.HTTP_202_ACCEPTED, headers=_location({"results": [result]})
        )


def _labels(request: Request) -> intake.Labels:
    """An upload's `tags` (a repeated form field) and `metadata` (one field, a JSON object),
    checked before anything is stored; 400 `invalid` naming the field otherwise."""
    sent_tags = request.POST.getlist("tags")
    return intake.Labels(
        tags=labels.clean_tags(sent_tags) if sent_tags else [],
        metadata=labels.metadata_from_form(request.POST.getlist("metadata")),
    )


def _upload_answer(request: Request, outcome: intake.Outcome) -> Response:
    """202 with each file's result when one was accepted; else the refusal's status."""
    results = [
        _rejected_result(r) if isinstance(r, RejectedFile) else _accepted_result(request, r)
        for r in outcome.results
    ]
    body: dict[str, object] = {"results": results}
    if outcome.refused_status is None:
        return Response(body, status=status.HTTP_202_ACCEPTED, headers=_location(body))
    body.update(code="rejected", detail="No file was accepted; see each file's error.")
    return Response(body, status=outcome.refused_status)


def _refuse_file_as_text(request: Request) -> None:
    """A `file` field without a file part: curl -F file=report.pdf or -F 'file=<report.pdf'
    send text (a name, or the bytes as a form value), an easy slip worth its own answer."""
    if "file" in request.POST:
        raise Refused(
            status_code=400,
            code="file_not_attached",
            detail="The field 'file' holds text, not a file: send it as a file part "
            "(curl -F file=@report.pdf).",
        )


def _rejected_result(upload: RejectedFile) -> dict:
    return {
        "filename": display_name(upload.name),
        "status": "rejected",
        "error": {"code": upload.rejection.code, "detail": upload.rejection.detail},
    }


def status_url(request: Request, job: Job) -> str:
    return request.build_absolute_uri(reverse("job-detail", kwargs={"job_id": job.id}))


def _accepted_result(request: Request, accepted: uploads.Accepted) -> dict[str, object]:
    result: dict[str, object] = {
        "filename": accepted.document.filename,
        "document_id": str(accepted.document.id),
        "job_id": str(accepted.job.id),
        "status": accepted.job.status,
        "status_url": status_url(request, accepted.job),
    }
    if accepted.duplicate:
        result["duplicate"] = True
    return result


def _location(body: dict) -> dict[str, str]:
    urls = [r["status_url"] for r in body.get("results", []) if "status_url" in r]
    return {"Location": urls[0]} if urls else {}


class DownloadWithoutSlash(DocumentViewSet):
    """`GET /api/documents/{id}/file?version=N` and `.../content` as integrators write
    them: without the router's final slash. Left out of the schema, which lists `file/`
    and `content/`."""

    schema = None
