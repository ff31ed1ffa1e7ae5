"""The dead-letter console: every job, the failed ones on a page of their own, and bulk
retry and cancel.

Read-only on purpose. A job's state changes only through jobs.services (one conditional
UPDATE each); a form save would write back a whole row read moments ago, over whatever a
worker wrote since. So there is no add, change or delete here, and the actions are thin
callers of services.retry_jobs and services.cancel_jobs.
"""

import uuid

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_permission_codename
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

from config.accounts.authentication import signed_in_user
from config.common import humanize
from config.http.pagination import EstimatedCountPaginator
from jobs import services
from jobs.admin.display import (
    breakable,
    left_alone,
    plural,
    preformatted,
    retry_report,
    short_age,
    short_time,
    status_badge,
)
from jobs.admin.filters import ErrorCodeFilter, ReplacedFilter, id_range
from jobs.models import ALL_VERSIONS, DeadLetter, Job, JobAttempt, JobStatus
from jobs.redact import scrub


def has_job_permission(request: HttpRequest, action: str) -> bool:
    """Job's own permission, for the dead-letter page too: one grant covers both."""
    return request.user.has_perm(f"jobs.{get_permission_codename(action, Job._meta)}")


# --------------------------------------------------------------------------- detail page


class JobAttemptInline(admin.TabularInline):
    """What each attempt did, oldest first, with its traceback."""

    model = JobAttempt
    verbose_name = "attempt"
    verbose_name_plural = "attempt history"
    # A tuple: Django takes a list or a tuple for each, and only a tuple (read-only)
    # is typed to serve as both.
    fields = (
        "number",
        "worker",
        "started_at",
        "finished_at",
        "duration",
        "outcome",
        "error_code",
        "error_message",
        "traceback_block",
    )
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_view_permission(self, request: HttpRequest, obj: Job | None = None) -> bool:
        # Attempts belong to their job: whoever may see the job sees its history.
        return has_job_permission(request, "view") or has_job_permission(request, "change")

    def has_add_permission(self, request: HttpRequest, obj: Job | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Job | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Job | None = None) -> bool:
        return False

    @admin.display(description="duration")
    def duration(self, attempt: JobAttempt) -> str | None:
        seconds = attempt.duration_seconds
        return None if seconds is None else humanize.duration(seconds, decimals=1)

    @admin.display(description="traceback")
    def traceback_block(self, attempt: JobAttempt) -> SafeString | None:
        if not attempt.traceback:
            return None
        return format_html(
            "<details><summary>traceback</summary>{}</details>", preformatted(attempt.traceback)
        )


# --------------------------------------------------------------------------- the job list


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = [
        "short_id",
        "document_link",
        "owner",
        "status_label",
        "lane",
        "attempts_made",
        "error_code_label",
        "age",
        "finished_short",
    ]
    list_display_links = ["short_id"]
    list_select_related = ["document", "owner"]
    list_filter = [
        "status",
        ErrorCodeFilter,
        "lane",
        ReplacedFilter,
        ("created_at", admin.DateFieldListFilter),
    ]
    search_fields = ["document__filename", "owner__username", "owner__email"]
    search_help_text = (
        "A job id (whole, or its first 8 characters), a file name, or an owner's username or email."
    )
    # Counting every job on each page load costs a scan of a table that only grows.
    show_full_result_count = False
    paginator = EstimatedCountPaginator  # nor one for the pages: the planner's estimate
    actions = ["retry_selected", "retry_selected_file_failures_too", "cancel_selected"]
    inlines = [JobAttemptInline]
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "id",
                    "document_link",
                    "owner",
                    "version",
                    "lane",
                    "status_label",
                    "attempts_in_full",
                    "progress",
                ]
            },
        ),
        ("Error", {"fields": ["error_code", "error_detail_block"]}),
        (
            "Worker and times",
            {
                "fields": [
                    "worker",
                    "storage_key",
                    "created_at",
                    "queued_at",
                    "enqueued_at",
                    "next_attempt_at",
                    "started_at",
                    "heartbeat_at",
                    "finished_at",
                ]
            },
        ),
    ]
    readonly_fields = [
        *(field.name for field in Job._meta.fields),
        "document_link",
        "status_label",
        "attempts_in_full",
        "progress",
        "error_detail_block",
    ]

    # ----------------------------------------------------------------- permissions

    def has_view_permission(self, request: HttpRequest, obj: Job | None = None) -> bool:
        return has_job_permission(request, "view") or has_job_permission(request, "change")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # jobs are made by uploads and retries, never by hand

    def has_change_permission(self, request: HttpRequest, obj: Job | None = None) -> bool:
        return False  # see the module docstring: state changes go through the actions

    def has_delete_permission(self, request: HttpRequest, obj: Job | None = None) -> bool:
        return False  # a job goes with its document (documents.services.deletion.delete_document)

    def has_retry_permission(self, request: HttpRequest) -> bool:
        return has_job_permission(request, "change")

    def has_cancel_permission(self, request: HttpRequest) -> bool:
        return has_job_permission(request, "change")

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        # The attempts made are the history's rows: `attempts` counts only those since the
        # last retry (what INGEST_MAX_ATTEMPTS limits). A subquery per listed row, left out
        # of the list's count query (it names no filter).
        made = (
            JobAttempt.objects.filter(job=OuterRef("pk"))
            .order_by()
            .values("job")
            .annotate(n=Count("*"))
            .values("n")
        )
        jobs = super().get_queryset(request).filter(ALL_VERSIONS)  # its index: job_created
        return jobs.annotate(attempts_made=Coalesce(Subquery(made), 0))

    # ----------------------------------------------------------------- search

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet, search_term: str
    ) -> tuple[QuerySet, bool]:
        matches, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        ids = id_range(search_term)
        if ids is not None:
            # `queryset` already carries this page's filters (dead letters: failed only).
            matches |= queryset.filter(id__range=ids)
        return matches, may_have_duplicates

    # ----------------------------------------------------------------- columns

    @admin.display(description="id", ordering="id")
    def short_id(self, job: Job) -> str:
        return str(job.id)[:8]

    @admin.display(description="document", ordering="document__filename")
    def document_link(self, job: Job) -> SafeString:
        url = reverse("admin:documents_document_change", args=[job.document_id])
        return format_html('<a href="{}">{}</a>', url, job.document.filename)

    @admin.display(description="status", ordering="status")
    def status_label(self, job: Job) -> SafeString:
        return status_badge(job.status)

    @admin.display(description="age", ordering="-created_at")
    def age(self, job: Job) -> str:
        return short_age(timezone.now() - job.created_at)

    @admin.display(description="attempts", ordering="attempts_made")
    def attempts_made(self, job: Job) -> str:
        """Every attempt in the history (on the detail page, also those since a retry).
        Never fewer than `attempts`: rows from before the history was kept have none."""
        made = max(getattr(job, "attempts_made", 0), job.attempts)
        return str(made)

    @admin.display(description="attempts")
    def attempts_in_full(self, job: Job) -> str:
        made = self.attempts_made(job)
        if made == str(job.attempts):
            return made
        return (
            f"{made} ({job.attempts} since the last retry, of the "
            f"{settings.INGEST_MAX_ATTEMPTS} a round may use)"
        )

    @admin.display(description="error code", ordering="error_code")
    def error_code_label(self, job: Job) -> SafeString | None:
        return breakable(job.error_code) if job.error_code else None

    @admin.display(description="finished", ordering="finished_at")
    def finished_short(self, job: Job) -> SafeString | str:
        return "" if job.finished_at is None else short_time(job.finished_at)

    @admin.display(description="progress")
    def progress(self, job: Job) -> str:
        return f"{job.progress_done} / {job.progress_total}"

    @admin.display(description="error detail")
    def error_detail_block(self, job: Job) -> SafeString | None:
        return preformatted(job.error_detail)

    # ----------------------------------------------------------------- actions

    @admin.action(description="Retry selected jobs", permissions=["retry"])
    def retry_selected(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._retry(request, queryset, file_failures_too=False)

    @admin.action(
        description="Retry selected jobs, failures of the file too (its stored copy repaired)",
        permissions=["retry"],
    )
    def retry_selected_file_failures_too(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._retry(request, queryset, file_failures_too=True)

    def _retry(self, request: HttpRequest, queryset: QuerySet, *, file_failures_too: bool) -> None:
        selected = list(queryset.values_list("id", flat=True))
        retried = services.retry_jobs(job_ids=selected, file_failures_too=file_failures_too)
        self._log(request, retried.requeued, "Retried: a fresh attempt, sent to the queue.")
        text, complete = retry_report(retried, selected=len(selected))
        self.message_user(request, text, messages.SUCCESS if complete else messages.WARNING)

    @admin.action(description="Cancel selected jobs", permissions=["cancel"])
    def cancel_selected(self, request: HttpRequest, queryset: QuerySet) -> None:
        selected = list(queryset.values_list("id", flat=True))
        cancelled = services.cancel_jobs(job_ids=selected)
        if cancelled:
            self._log(request, cancelled, "Cancelled.")
        self._report(
            request,
            verb="Cancelled",
            done=len(cancelled),
            selected=len(selected),
            eligible="queued or failed",
        )

    def _report(
        self, request: HttpRequest, *, verb: str, done: int, selected: int, eligible: str
    ) -> None:
        """'Cancelled 18 jobs; 2 were not queued or failed and were left alone.'"""
        text = f"{verb} {done} {plural(done, 'job', 'jobs')}"
        left = selected - done
        if left:
            text += f"; {left_alone(left, eligible)}"
        self.message_user(request, f"{text}.", messages.WARNING if left else messages.SUCCESS)

    def _log(self, request: HttpRequest, job_ids: list[uuid.UUID], message: str) -> None:
        """Who retried or cancelled what, in each job's admin history."""
        if job_ids:
            LogEntry.objects.log_actions(
                user_id=signed_in_user(request).pk,
                queryset=Job.objects.filter(id__in=job_ids),
                action_flag=CHANGE,
                change_message=message,
            )


@admin.register(DeadLetter)
class DeadLetterAdmin(JobAdmin):
    """Failed jobs: the dead letters, to retry in bulk once their cause is fixed."""

    list_display = [
        "short_id",
        "document_link",
        "owner",
        "lane",
        "attempts_made",
        "error_code_label",
        "error_summary",
        "age",
        "finished_short",
    ]
    list_filter = [
        ErrorCodeFilter,
        "lane",
        ReplacedFilter,
        ("finished_at", admin.DateFieldListFilter),
        ("created_at", admin.DateFieldListFilter),
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).filter(status=JobStatus.FAILED)

    @admin.display(description="error detail")
    def error_summary(self, job: Job) -> str:
        detail = scrub(job.error_detail).splitlines()[0] if job.error_detail else ""
        return detail if len(detail) <= 100 else f"{detail[:99]}…"
