"""DRF views for where webhooks go: a user's endpoints (/api/webhooks/) and the secret
that signs deliveries to their uploads' own URLs (/api/webhooks/signing-secret/). Thin:
parse, call endpoints.py, answer. Everything is scoped to the signed-in owner."""

import uuid

from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.accounts.authentication import signed_in_user
from config.http.api_errors import Refused
from config.http.pagination import NewestFirst
from jobs.webhooks import api_docs, endpoints
from jobs.webhooks.models import Endpoint
from jobs.webhooks.network.addresses import InvalidWebhookURL
from jobs.webhooks.serializers import (
    EndpointCreatedOut,
    EndpointIn,
    EndpointOut,
    SigningSecretOut,
)


def invalid_url(exc: InvalidWebhookURL) -> Refused:
    return Refused(status_code=400, code=exc.code, detail=str(exc))


class EndpointViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = EndpointOut
    pagination_class = NewestFirst
    lookup_value_converter = "uuid"

    def get_queryset(self):  # noqa: ANN201
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Endpoint.objects.none()
        return Endpoint.objects.filter(owner=signed_in_user(self.request))

    @api_docs.listing
    def list(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().list(request, *args, **kwargs)

    @api_docs.detail
    def retrieve(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().retrieve(request, *args, **kwargs)

    @api_docs.create
    def create(self, request: Request) -> Response:
        given = EndpointIn(data=request.data)
        given.is_valid(raise_exception=True)
        try:
            endpoint = endpoints.create(
                owner=signed_in_user(request),
                url=given.validated_data["url"],
                events=given.validated_data.get("events"),
            )
        except InvalidWebhookURL as exc:
            raise invalid_url(exc) from None
        except endpoints.InvalidEvents as exc:
            raise Refused(status_code=400, code="invalid_events", detail=str(exc)) from None
        except endpoints.EndpointConflict as exc:
            raise Refused(status_code=409, code=exc.code, detail=str(exc)) from None
        return Response(EndpointCreatedOut(endpoint).data, status=status.HTTP_201_CREATED)

    @api_docs.delete
    def destroy(self, request: Request, pk: uuid.UUID) -> Response:
        endpoints.delete([self.get_object()])  # 404 for another owner's endpoint
        return Response(status=status.HTTP_204_NO_CONTENT)

    @api_docs.rotate_endpoint_secret
    @action(detail=True, methods=["post"], url_path="rotate-secret")
    def rotate_secret(self, request: Request, pk: uuid.UUID) -> Response:
        rotated = endpoints.rotate_endpoint_secret(self.get_object())  # 404 if not yours
        return Response(SigningSecretOut(rotated).data)


class SigningSecretView(APIView):
    """GET the secret (404 while there is none: a read never makes one); POST to make or
    rotate it."""

    @api_docs.signing_secret
    def get(self, request: Request) -> Response:
        found = endpoints.existing_signing_secret(owner_id=signed_in_user(request).pk)
        if found is None:
            raise Refused(
                status_code=404,
                code="no_signing_secret",
                detail="You have no signing secret yet: POST to this address to make one "
                "(the first delivery to an upload's webhook_url makes one too).",
            )
        return Response(SigningSecretOut(found).data)

    @api_docs.rotate_signing_secret
    def post(self, request: Request) -> Response:
        rotated = endpoints.rotate_signing_secret(owner_id=signed_in_user(request).pk)
        return Response(SigningSecretOut(rotated).data)
