"""OpenAPI descriptions of the webhooks API: responses, errors and examples.

Kept apart from the views so each view still reads in one screen (as documents/api/docs.py).
"""

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema

from jobs.webhooks.serializers import (
    EndpointCreatedOut,
    EndpointIn,
    EndpointOut,
    SigningSecretOut,
    WebhookRefusalOut,
)

_ENDPOINT = "5d8f0a4e-1c2b-4e3f-9a8b-7c6d5e4f3a21"
_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

CREATED = OpenApiExample(
    "Created",
    status_codes=["201"],
    response_only=True,
    value={
        "id": _ENDPOINT,
        "url": "https://hooks.example.com/ingest",
        "events": ["document.succeeded", "document.failed"],
        "active": True,
        "disabled_reason": "",
        "created_at": "2026-11-30T15:51:19.123456Z",
        "secret": _SECRET,
    },
)
BAD_URL = OpenApiExample(
    "A private address",
    status_codes=["400"],
    response_only=True,
    value={
        "code": "invalid_webhook_url",
        "detail": "The host '10.0.0.5' is not on a public address; webhooks are sent to "
        "public addresses only.",
    },
)
BAD_EVENTS = OpenApiExample(
    "An unknown event type",
    status_codes=["400"],
    response_only=True,
    value={
        "code": "invalid_events",
        "detail": "Unknown event type 'document.deleted': events must be drawn from "
        "document.succeeded, document.failed.",
    },
)
TOO_MANY = OpenApiExample(
    "Over the endpoint limit",
    status_codes=["409"],
    response_only=True,
    value={
        "code": "too_many_endpoints",
        "detail": "You have 10 webhook endpoints, the most one account may have (10). "
        "Delete one you no longer use first.",
    },
)
SECRET = OpenApiExample(
    "The secret",
    response_only=True,
    value={"secret": _SECRET, "previous_valid_until": "2026-12-03T09:14:02.118Z"},
)

create = extend_schema(
    summary="Register a URL to hear of all your documents' events",
    description=(
        "Each `document.succeeded` and `document.failed` event (or only the `events` named) "
        "is POSTed to `url`, signed as Standard Webhooks does (`webhook-id`, "
        "`webhook-timestamp`, `webhook-signature`) with this endpoint's own `secret`, which "
        "this answer alone shows. The URL must be http or https on a public address."
    ),
    request=EndpointIn,
    responses={
        201: OpenApiResponse(EndpointCreatedOut, "Registered; keep the secret."),
        400: OpenApiResponse(
            WebhookRefusalOut,
            "`invalid_webhook_url` (not http(s), unresolvable, or a private address), "
            "`invalid_events`, or `invalid` (a missing url).",
        ),
        409: OpenApiResponse(
            WebhookRefusalOut,
            "`too_many_endpoints` (INGEST_MAX_WEBHOOK_ENDPOINTS_PER_USER, default 10) or "
            "`duplicate_endpoint` (you have one with this URL already).",
        ),
    },
    examples=[CREATED, BAD_URL, BAD_EVENTS, TOO_MANY],
)

listing = extend_schema(
    summary="List your webhook endpoints, newest first",
    description="Secrets are never listed: each was shown once, when its endpoint was made.",
    responses={
        200: EndpointOut(many=True),
        404: OpenApiResponse(WebhookRefusalOut, "A `cursor` this list did not give (`not_found`)."),
    },
)

detail = extend_schema(
    summary="A webhook endpoint (without its secret)",
    responses={200: EndpointOut, 404: WebhookRefusalOut},
)

delete = extend_schema(
    summary="Delete a webhook endpoint",
    description=(
        "Events not yet delivered to it are not sent (their deliveries end `disabled`); "
        "past deliveries stay in the history."
    ),
    responses={204: None, 404: WebhookRefusalOut},
)

signing_secret = extend_schema(
    summary="The secret that signs deliveries to your uploads' webhook_url",
    description=(
        "An upload's own `webhook_url` (a form field of `POST /api/documents/`) is signed "
        "with this secret, made by the first such delivery or by a POST here; a GET never "
        "makes one (404 `no_signing_secret` until then). Verify `webhook-signature` with "
        "it as Standard Webhooks does: HMAC-SHA256, keyed with the bytes the base64 after "
        "`whsec_` encodes, over `id.timestamp.body`."
    ),
    responses={
        200: SigningSecretOut,
        404: OpenApiResponse(WebhookRefusalOut, "`no_signing_secret`: none yet."),
    },
    examples=[SECRET],
)

rotate_signing_secret = extend_schema(
    summary="Make or rotate the signing secret",
    description=(
        "A new secret signs every delivery from now on, retries of older events included; "
        "the old one signs beside it (a second signature) until `previous_valid_until`, "
        "INGEST_WEBHOOK_SECRET_GRACE_SECONDS (a day) from now, so a receiver can switch "
        "without refusing a delivery. With no secret yet, this makes the first."
    ),
    request=None,
    responses={200: SigningSecretOut},
    examples=[SECRET],
)

rotate_endpoint_secret = extend_schema(
    summary="Rotate an endpoint's secret",
    description=(
        "The endpoint's new secret, shown in this answer only. The old one signs beside it "
        "until `previous_valid_until` (INGEST_WEBHOOK_SECRET_GRACE_SECONDS, a day)."
    ),
    request=None,
    responses={200: SigningSecretOut, 404: OpenApiResponse(description="Not your endpoint.")},
    examples=[SECRET],
)
