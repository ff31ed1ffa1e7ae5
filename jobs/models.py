import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class JobStatus(models.TextChoices):
    QUEUED = "queued"
    PROCESSING = "processing"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


TERMINAL_STATUSES = (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED)
IN_FLIGHT_STATUSES = (JobStatus.QUEUED, JobStatus.PROCESSING)


class Job(models.Model):
    """One request to process one version of a document.

    Every change of `status` is a conditional UPDATE made by jobs.services; nothing
    else writes it. The queue only carries this row's id.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    document = models.ForeignKey(
        "documents.Document", on_delete=models.CASCADE, related_name="jobs"
    )
    # The document's owner, copied here so admission control counts a user's jobs in
    # flight from one small partial index instead of joining through documents.
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED)
    attempts = models.PositiveIntegerField(default=0)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    error_code = models.CharField(max_length=64, blank=True)
    error_detail = models.TextField(blank=True)
    worker = models.CharField(max_length=200, blank=True, help_text="Who holds the attempt.")
    created_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(default=timezone.now, help_text="When it last became queued.")
    enqueued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "created_at"]),
            models.Index(fields=["document", "-created_at"]),
            models.Index(fields=["finished_at"], name="job_finished_at"),
            # Admission control reads only jobs in flight: keep that set in small indexes.
            models.Index(
                fields=["queued_at"],
                name="job_in_flight",
                condition=Q(status__in=IN_FLIGHT_STATUSES),
            ),
            models.Index(
                fields=["owner"],
                name="job_owner_in_flight",
                condition=Q(status__in=IN_FLIGHT_STATUSES),
            ),
        ]

    def __str__(self) -> str:
        return f"job {self.id} ({self.status})"

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES
