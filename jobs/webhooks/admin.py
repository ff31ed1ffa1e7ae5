"""Webhooks in the admin: users' endpoints (switch on and off, choose events, delete), and
every delivery with its attempt log, to find out why a receiver did not hear of an event
and send it again.

Deliveries are read-only, as jobs are (jobs/admin/console.py): the deliverer changes their rows
with conditional UPDATEs, and a form save would write back a row read moments ago. The
one way to change one here is the bulk action, a thin caller of delivery.redeliver.
Endpoints are made by their owners through the API, which shows the secret once, to
them; so there is no "add" here, and the secret is never shown in full.
"""

from collections.abc import Sequence

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_permission_codename
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from config.accounts.authentication import signed_in_user
from config.http.pagination import EstimatedCountPaginator
from jobs.admin.display import plural
from jobs.webhooks import admin_display as show
from jobs.webhooks import endpoints
from jobs.webhooks.models import Delivery, DeliveryAttempt, Endpoint, EventType
from jobs.webhooks.sending import delivery


class EndpointForm(forms.ModelForm):
    events = forms.MultipleChoiceField(
        choices=EventType.choices,
        widget=forms.CheckboxSelectMultiple,
        help_text="The event types it hears; at least one.",
    )

    class Meta:
        model = Endpoint
        fields = ["events", "active"]


@admin.register(Endpoint)
class EndpointAdmin(admin.ModelAdmin):
    form = EndpointForm
    list_display = ["url", "owner", "events_list", "active", "disabled_reason", "created_at"]
    list_select_related = ["owner"]
    list_filter = ["active"]
    search_fields = ["url", "owner__username", "owner__email"]
    fields = [
        "url",
        "owner",
        "events",
        "active",
        "disabled_reason",
        "secret_start",
        "created_at",
    ]
    readonly_fields = ["url", "owner", "disabled_reason", "secret_start", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # owners make endpoints through the API, which shows them the secret

    @admin.display(description="events")
    def events_list(self, endpoint: Endpoint) -> str:
        return ", ".join(endpoint.events)

    @admin.display(description="secret")
    def secret_start(self, endpoint: Endpoint) -> str:
        return show.masked_secret(endpoint.secret)

    def save_model(
        self, request: HttpRequest, obj: Endpoint, form: forms.Form, change: bool
    ) -> None:
        if "active" in form.changed_data:
            # Switched back on, it is no longer disabled for a reason; switched off, say who.
            who = signed_in_user(request).get_username()
            obj.disabled_reason = "" if obj.active else f"Disabled in the admin by {who}."
        super().save_model(request, obj, form, change)

    def delete_model(self, request: HttpRequest, obj: Endpoint) -> None:
        endpoints.delete([obj])  # its pending deliveries end `disabled`, as through the API

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        endpoints.delete(queryset)


# --------------------------------------------------------------------------- deliveries


def has_delivery_permission(request: HttpRequest, action: str) -> bool:
    return request.user.has_perm(f"webhooks.{get_permission_codename(action, Delivery._meta)}")


class AttemptInline(admin.TabularInline):
    """Each try, oldest first: when, what answered, how fast, and the answer's start."""

    model = DeliveryAttempt
    verbose_name = "attempt"
    verbose_name_plural = "attempt log"
    fields = ("number", "started", "status_code", "latency", "error", "answer")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_view_permission(self, request: HttpRequest, obj: Delivery | None = None) -> bool:
        return has_delivery_permission(request, "view") or has_delivery_permission(
            request, "change"
        )

    def has_add_permission(self, request: HttpRequest, obj: Delivery | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Delivery | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Delivery | None = None) -> bool:
        return False

    @admin.display(description="started at")
    def started(self, attempt: DeliveryAttempt) -> str:
        return show.exact(attempt.started_at)  # to the second: retries are minutes apart

    @admin.display(description="latency")
    def latency(self, attempt: DeliveryAttempt) -> str:
        return show.latency(attempt.latency_ms)

    @admin.display(description="answer (first 1 KB)")
    def answer(self, attempt: DeliveryAttempt) -> SafeString | str:
        return show.answer_block(attempt.response_head)


class EventTypeFilter(admin.SimpleListFilter):
    title = "event type"
    parameter_name = "event_type"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> Sequence:
        return EventType.choices

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        return queryset.filter(event__type=self.value()) if self.value() else queryset


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    # The status first, where the eye starts; long ids and URLs cut, whole in tooltips.
    list_display = [
        "short_event_id",
        "status_label",
        "short_event_type",
        "short_url",
        "attempts",
        "last_code",
        "next_attempt",
        "delivered",
    ]
    list_display_links = ["short_event_id"]
    list_select_related = ["event"]
    list_filter = ["status", EventTypeFilter]
    search_fields = ["=event__id", "url", "=event__owner__username", "=event__owner__email"]
    search_help_text = "An event id (msg_…), part of a URL, or an owner's username or email."
    show_full_result_count = False  # a count of a table that only grows, on each page
    paginator = EstimatedCountPaginator  # nor one for the pages: the planner's estimate
    actions = ["redeliver_selected"]
    inlines = [AttemptInline]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "url",
                    "endpoint_link",
                    "status_label",
                    "attempts",
                    "last_status_code",
                    "last_error",
                    "times",
                ]
            },
        ),
        ("Event", {"fields": ["event_id", "event_type", "owner", "links", "payload"]}),
    ]
    readonly_fields = [
        *(field.name for field in Delivery._meta.fields),
        "endpoint_link",
        "status_label",
        "next_attempt",
        "times",
        "event_type",
        "owner",
        "links",
        "payload",
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("event__owner", "endpoint")

    # ----------------------------------------------------------------- permissions

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # deliveries are written by the outbox, with their event

    def has_change_permission(self, request: HttpRequest, obj: Delivery | None = None) -> bool:
        return False  # see the module docstring: the action is the way to change one

    def has_delete_permission(self, request: HttpRequest, obj: Delivery | None = None) -> bool:
        return False  # history: it goes with its event

    def has_redeliver_permission(self, request: HttpRequest) -> bool:
        return has_delivery_permission(request, "change")

    # ----------------------------------------------------------------- columns

    @admin.display(description="event type", ordering="event__type")
    def event_type(self, row: Delivery) -> str:
        return row.event.type

    @admin.display(description="event type", ordering="event__type")
    def short_event_type(self, row: Delivery) -> str:
        return row.event.type.removeprefix("document.")  # every type is a document's

    @admin.display(description="last code", ordering="last_status_code")
    def last_code(self, row: Delivery) -> int | None:
        return row.last_status_code

    @admin.display(description="event", ordering="event_id")
    def short_event_id(self, row: Delivery) -> SafeString:
        return show.shortened(row.event_id, show.EVENT_ID_SHOWN)

    @admin.display(description="url", ordering="url")
    def short_url(self, row: Delivery) -> SafeString:
        return show.shortened(row.url, show.URL_SHOWN)

    @admin.display(description="delivered", ordering="delivered_at")
    def delivered(self, row: Delivery) -> SafeString | str:
        return show.ago(row.delivered_at)

    @admin.display(description="status", ordering="status")
    def status_label(self, row: Delivery) -> SafeString:
        return show.status_badge(row.status)

    @admin.display(description="next attempt", ordering="next_attempt_at")
    def next_attempt(self, row: Delivery) -> str:
        return show.next_attempt(row.status, row.next_attempt_at)

    @admin.display(description="endpoint")
    def endpoint_link(self, row: Delivery) -> SafeString | str:
        if row.endpoint_id is None:
            if endpoints.of_deleted_endpoints([row.id]):
                return "none: a deleted endpoint's (not sent again)"
            return "none: the upload's own webhook_url, signed with the owner's signing secret"
        url = reverse("admin:webhooks_endpoint_change", args=[row.endpoint_id])
        return format_html('a registered endpoint: <a href="{}">{}</a>', url, row.endpoint_id)

    @admin.display(description="times")
    def times(self, row: Delivery) -> SafeString:
        return show.timeline(
            [
                ("created", row.created_at),
                ("last sent to the queue", row.enqueued_at),
                ("next attempt", row.next_attempt_at),
                ("delivered", row.delivered_at),
            ]
        )

    @admin.display(description="owner")
    def owner(self, row: Delivery) -> str:
        return row.event.owner.get_username()

    @admin.display(description="document and job")
    def links(self, row: Delivery) -> SafeString:
        document = reverse("admin:documents_document_change", args=[row.event.document_id])
        job = reverse("admin:jobs_job_change", args=[row.event.job_id])
        return format_html(
            'document <a href="{}">{}</a>, job <a href="{}">{}</a>',
            document,
            row.event.document_id,
            job,
            row.event.job_id,
        )

    @admin.display(description="payload (the body every attempt sends)")
    def payload(self, row: Delivery) -> SafeString:
        return show.payload_block(row.event.payload)

    # ----------------------------------------------------------------- actions

    @admin.action(description="Redeliver selected deliveries", permissions=["redeliver"])
    def redeliver_selected(self, request: HttpRequest, queryset: QuerySet) -> None:
        selected = set(queryset.values_list("id", flat=True))
        # delivery.redeliver leaves those to a disabled endpoint; a deleted one's, here.
        redelivered = delivery.redeliver(
            sorted(selected - endpoints.of_deleted_endpoints(selected))
        )
        if redelivered:
            LogEntry.objects.log_actions(
                user_id=signed_in_user(request).pk,
                queryset=Delivery.objects.filter(id__in=redelivered),
                action_flag=CHANGE,
                change_message="Redelivered: back to pending, attempts from zero, sent again.",
            )
        done, left = len(redelivered), len(selected) - len(redelivered)
        text = f"Redelivered {done} {plural(done, 'delivery', 'deliveries')}"
        if left:
            was = plural(left, "was", "were")
            text += f"; {left} {was} for a disabled or deleted endpoint and {was} left alone"
        self.message_user(request, f"{text}.", messages.WARNING if left else messages.SUCCESS)
