"""DRF views of direct uploads (documents.direct): start one, complete it. Thin: parse,
call the service, answer."""

import secrets
from typing import Any

from django.conf import settings
from django.urls import reverse
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.accounts.authentication import signed_in_user
from config.http.api_errors import Refused
from config.http.session_auth import enforce_deferred_csrf
from documents import labels
from documents.api.views import answered_once, api_error
from documents.direct import api_docs, bucket, completion, events, starting
from documents.direct.serializers import DirectUploadIn
from documents.filenames import display_name
from documents.front_door import admission, intake
from documents.front_door.idempotency import fingerprint
from documents.front_door.refusal import Refusal
from documents.models import DirectUpload


class DirectUploadViewSet(viewsets.GenericViewSet):
    lookup_value_converter = "uuid"
    serializer_class = DirectUploadIn

    def get_queryset(self):  # noqa: ANN201
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return DirectUpload.objects.none()
        return DirectUpload.objects.filter(owner=signed_in_user(self.request))

    def initial(self, request: Request, *args: object, **kwargs: object) -> None:
        """A start is admitted as an upload is (the backlog, the user's rate, jobs in
        flight and quota), before its body is read; a completion counts against the
        user's rate (it reads the bucket)."""
        if self.action != "create":
            super().initial(request, *args, **kwargs)
            if self.action == "complete":
                admission.throttle_request(user_id=signed_in_user(request).pk)
            return
        request.defer_csrf = True  # type: ignore[attr-defined]
        admission.admit(signed_in=lambda: self._signed_in(request, *args, **kwargs), quota=True)
        enforce_deferred_csrf(request)

    def _signed_in(self, request: Request, *args: object, **kwargs: object) -> int:
        super().initial(request, *args, **kwargs)
        return signed_in_user(request).pk

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, Refusal):
            exc = api_error(exc)
        return super().handle_exception(exc)

    @api_docs.start
    def create(self, request: Request) -> Response:
        if not bucket.available():
            raise bucket.unavailable()
        given = DirectUploadIn(data=request.data)
        given.is_valid(raise_exception=True)
        declared = _declared(given.validated_data)
        return answered_once(
            request,
            lambda: fingerprint(["direct", declared]),
            lambda: self._start(request, declared),
        )

    def _start(self, request: Request, declared: starting.Declared) -> Response:
        upload = starting.start(
            owner=signed_in_user(request), declared=declared, public_url=intake.public_url(request)
        )
        complete = reverse("direct-upload-complete", kwargs={"pk": upload.id})
        body: dict[str, Any] = {
            "upload_id": str(upload.id),
            "expires_at": upload.expires_at.isoformat(),
            "complete_url": request.build_absolute_uri(complete),
            **starting.where_to_send(upload),
        }
        return Response(body, status=status.HTTP_201_CREATED)

    @api_docs.complete
    @action(detail=True, methods=["post"])
    def complete(self, request: Request, pk: str) -> Response:
        upload = self.get_object()  # 404 for another owner's, or no such id
        try:
            status_code, body = completion.complete(upload.id)
        except completion.NotArrived as missing:
            raise Refused(
                status_code=409,
                code="upload_incomplete",
                detail=f"{missing} Send the bytes as the upload's answer says, then complete "
                "it again.",
            ) from None
        return Response(body, status=status_code)


def _declared(data: dict[str, Any]) -> starting.Declared:
    """The start's body, its webhook URL, tags and metadata checked as an upload's are."""
    sent = [data["webhook_url"]] if data.get("webhook_url") else []
    webhook_url = intake.checked_webhook_url(sent)
    return starting.Declared(
        filename=display_name(data["filename"]),
        size=data["size"],
        sha256=data.get("sha256", "").lower(),
        webhook_url=webhook_url,
        tags=labels.clean_tags(data["tags"]) if "tags" in data else [],
        metadata=labels.clean_metadata(data["metadata"]) if "metadata" in data else {},
    )


class StorageEventsView(APIView):
    """`POST /api/uploads/events/`: the bucket's object-created notifications
    (documents.direct.events), authenticated by INGEST_STORAGE_EVENTS_TOKEN, not a user.
    Left out of the API's schema: it is the storage server's, not an integrator's."""

    schema = None
    authentication_classes: list = []
    permission_classes: list = []

    def post(self, request: Request) -> Response:
        expected = settings.INGEST_STORAGE_EVENTS_TOKEN
        if not expected:
            raise Refused(status_code=404, code="not_found", detail="Storage events are off.")
        sent = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        sent = sent or request.query_params.get("token", "")
        if not secrets.compare_digest(sent.encode(), expected.encode()):
            raise Refused(status_code=401, code="not_authenticated", detail="Wrong token.")
        handled = [
            {"key": created.key, "outcome": events.handle(created)}
            for created in events.created_objects(request.data)
        ]
        return Response({"handled": handled})
