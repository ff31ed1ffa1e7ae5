"""DRF views for documents. Thin: parse, call a service, answer."""

import logging
import uuid
from collections.abc import Sequence

from django.conf import settings
from django.urls import reverse
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from config.api_errors import Refused
from config.auth import signed_in_user
from config.pagination import NewestFirst
from config.session_auth import enforce_deferred_csrf
from documents import api_docs, quotas, services
from documents.idempotency import fingerprint, idempotent
from documents.models import Document
from documents.serializers import DocumentDetailOut, DocumentOut
from documents.throttle import UploadThrottle
from documents.uploads import GuardedUploadHandler, ReceivedFile, RejectedFile, display_name
from jobs import admission
from jobs.models import Job, JobStatus
from jobs.webhooks.api import upload_webhook_url
from search.models import Chunk

log = logging.getLogger(__name__)


UPLOADS = ("create", "versions")  # actions that take files: guarded before parsing
# Actions that make jobs: throttled and admitted like an upload, before the body is read.
ADMITTED = (*UPLOADS, "retry")


def _refuse(refusal: admission.Refusal | quotas.OverQuota) -> Refused:
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

    def get_throttles(self):  # noqa: ANN201
        return [UploadThrottle()] if self.action in ADMITTED else []

    def initial(self, request: Request, *args: object, **kwargs: object) -> None:
        """Uploads and retries are admitted before anything reads the body: the backlog
        first (no user needed), then authentication with the session's CSRF check put off
        (Django's reads the whole multipart body), the throttle, the user's in-flight
        limit and quotas; only then the CSRF check. Our upload handler enforces the file
        limits while the body streams in."""
        admitted = self.action in ADMITTED
        if self.action in UPLOADS:
            request._request.upload_handlers = [GuardedUploadHandler(request._request)]
        if admitted:
            if refusal := admission.check_service():
                raise _refuse(refusal)
            request.defer_csrf = True  # type: ignore[attr-defined]
        super().initial(request, *args, **kwargs)
        if admitted:
            user_id = signed_in_user(request).pk
            if refusal := admission.check_user(user_id=user_id):
                raise _refuse(refusal)
            if self.action == "create" and (over := quotas.check(user_id=user_id)):
                raise _refuse(over)
            enforce_deferred_csrf(request)

    # ------------------------------------------------------------------ reads

    @api_docs.listing
    def list(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(DocumentOut(page, many=True).data)

    @api_docs.detail
    def retrieve(self, request: Request, pk: uuid.UUID) -> Response:
        document = self.get_object()
        document.chunk_count = Chunk.objects.filter(
            document=document, version=document.version
        ).count()
        return Response(DocumentDetailOut(document).data)

    # ------------------------------------------------------------------ writes

    @api_docs.upload
    def create(self, request: Request) -> Response:
        files: Sequence[ReceivedFile] = request.FILES.getlist("file")
        if not files:
            _refuse_file_as_text(request)
            raise Refused(
                status_code=400,
                code="no_file",
                detail="Send one or more PDFs in the multipart field 'file'.",
            )
        webhook_url = upload_webhook_url(request)
        reprocess = request.query_params.get("reprocess", "").lower() in ("1", "true", "yes")
        key = request.headers.get("Idempotency-Key")
        if not key:
            return self._accept(request, files, reprocess, webhook_url)
        if len(key) > 255:
            raise Refused(
                status_code=400,
                code="invalid_idempotency_key",
                detail="Idempotency-Key must be at most 255 characters.",
            )
        identity: list[object] = [reprocess, [_file_identity(f) for f in files]]
        if webhook_url:  # appended only when given: earlier requests' fingerprints hold
            identity.append(webhook_url)
        print_ = fingerprint(identity)
        with idempotent(
            owner_id=signed_in_user(request).pk, key=key, request_fingerprint=print_
        ) as slot:
            if slot.mismatch:
                raise Refused(
                    status_code=422,
                    code="idempotency_key_reused",
                    detail="This Idempotency-Key was used for a different request.",
                )
            if slot.replay is not None:
                status_code, body = slot.replay
                return Response(body, status=status_code, headers=_location(body))
            response = self._accept(request, files, reprocess, webhook_url)
            slot.remember(response.status_code, response.data)
            return response

    def _accept(
        self,
        request: Request,
        files: Sequence[ReceivedFile],
        reprocess: bool,
        webhook_url: str,
    ) -> Response:
        if any(_rejected_for(f, "too_many_files") for f in files):
            limit = settings.INGEST_MAX_FILES_PER_REQUEST
            raise Refused(
                status_code=400,
                code="too_many_files",
                detail=f"At most {limit} files can be sent in one request; "
                f"this one has {len(files)}. Nothing was stored.",
            )
        accepted_sizes = [f.size or 0 for f in files if not isinstance(f, RejectedFile)]
        if accepted_sizes and (
            over := quotas.check(
                user_id=signed_in_user(request).pk,
                new_documents=len(accepted_sizes),
                new_bytes=sum(accepted_sizes),
            )
        ):
            raise _refuse(over)
        results, refusals = [], set()
        for upload in files:
            if isinstance(upload, RejectedFile):
                results.append(_rejected_result(upload))
                refusals.add(upload.rejection.http_status)
                continue
            accepted = services.create_upload(
                owner=signed_in_user(request),
                upload=upload,
                reprocess=reprocess,
                webhook_url=webhook_url,
            )
            results.append(_accepted_result(request, accepted))
        body: dict[str, object] = {"results": results}
        admission.note_admitted(
            user_id=signed_in_user(request).pk, jobs=len(results) - len(refusals)
        )
        if len(refusals) < len(results) or not refusals:
            return Response(body, status=status.HTTP_202_ACCEPTED, headers=_location(body))
        body.update(code="rejected", detail="No file was accepted; see each file's error.")
        return Response(body, status=refusals.pop() if len(refusals) == 1 else 400)

    @api_docs.delete
    def destroy(self, request: Request, pk: uuid.UUID) -> Response:
        self.get_object()  # 404 for another owner's document
        services.delete_document(document_id=pk, owner_id=signed_in_user(request).pk)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @api_docs.retry
    @action(detail=True, methods=["post"])
    def retry(self, request: Request, pk: uuid.UUID) -> Response:
        document = self.get_object()
        try:
            job = services.retry_document(
                document_id=document.id, owner_id=signed_in_user(request).pk
            )
        except services.NotRetryable as exc:
            raise Refused(status_code=409, code="not_retryable", detail=str(exc)) from exc
        admission.note_admitted(user_id=signed_in_user(request).pk, jobs=1)
        result = _accepted_result(request, services.Accepted(document=document, job=job))
        return Response(
            result, status=status.HTTP_202_ACCEPTED, headers=_location({"results": [result]})
        )

    @api_docs.versions
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
        [upload] = files
        webhook_url = upload_webhook_url(request)
        if isinstance(upload, RejectedFile):
            body = {
                "code": upload.rejection.code,
                "detail": upload.rejection.detail,
                "results": [_rejected_result(upload)],
            }
            return Response(body, status=upload.rejection.http_status)
        accepted = services.add_version(
            document_id=pk, owner=signed_in_user(request), upload=upload, webhook_url=webhook_url
        )
        result = _accepted_result(request, accepted)
        result["version"] = accepted.document.version
        return Response(
            result, status=status.HTTP_202_ACCEPTED, headers=_location({"results": [result]})
        )


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


def _file_identity(upload: ReceivedFile) -> list[str | None]:
    if isinstance(upload, RejectedFile):
        return [upload.name, upload.rejection.code]
    return [upload.name, services.sha256_of(upload)]


def _rejected_for(upload: object, code: str) -> bool:
    return isinstance(upload, RejectedFile) and upload.rejection.code == code


def _rejected_result(upload: RejectedFile) -> dict:
    return {
        "filename": display_name(upload.name),
        "status": "rejected",
        "error": {"code": upload.rejection.code, "detail": upload.rejection.detail},
    }


def status_url(request: Request, job: Job) -> str:
    return request.build_absolute_uri(reverse("job-detail", kwargs={"job_id": job.id}))


def _accepted_result(request: Request, accepted: services.Accepted) -> dict[str, object]:
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
