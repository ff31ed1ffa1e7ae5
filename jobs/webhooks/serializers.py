"""What the webhooks API reads and writes. Shapes only: the rules live in endpoints.py."""

from rest_framework import serializers

from jobs.webhooks.models import Endpoint, all_event_types
from jobs.webhooks.network.addresses import MAX_URL_LENGTH

EVENTS_HELP = (
    f"The event types to hear: a non-empty list drawn from {', '.join(all_event_types())}. "
    "All of them when left out."
)


class EndpointIn(serializers.Serializer):
    url = serializers.CharField(
        max_length=MAX_URL_LENGTH,
        help_text="An http:// or https:// URL on a public address.",
    )
    # Checked by endpoints.checked_events, which names an unknown type in its refusal.
    events = serializers.ListField(
        child=serializers.CharField(), required=False, help_text=EVENTS_HELP
    )


class EndpointOut(serializers.ModelSerializer):
    class Meta:
        model = Endpoint
        fields = ["id", "url", "events", "active", "disabled_reason", "created_at"]
        extra_kwargs = {
            "active": {"help_text": "False once it answered 410 Gone or was switched off."},
            "disabled_reason": {"help_text": "Why it was disabled; empty while active."},
        }


class EndpointCreatedOut(EndpointOut):
    secret = serializers.CharField(
        help_text="Verifies this endpoint's signatures. Shown only in this answer: keep it."
    )

    class Meta(EndpointOut.Meta):
        fields = [*EndpointOut.Meta.fields, "secret"]


class SigningSecretOut(serializers.Serializer):
    secret = serializers.CharField(
        help_text="Signs the deliveries (whsec_ and base64): to your uploads' own "
        "webhook_url, or, after an endpoint's rotation, to that endpoint."
    )
    previous_valid_until = serializers.DateTimeField(
        allow_null=True,
        help_text="Until then the secret it replaced signs too, beside it (a second "
        "signature in webhook-signature); null when nothing was replaced.",
    )


class WebhookRefusalOut(serializers.Serializer):
    code = serializers.CharField()
    detail = serializers.CharField()
