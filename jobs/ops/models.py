from django.db import models


class Minute(models.Model):
    """One lane's pipeline over one minute, for the ops dashboard's history. Written by
    the sweeper (jobs.ops.dashboard.history); kept INGEST_OPS_RETENTION_DAYS."""

    minute = models.DateTimeField(help_text="The minute's start (UTC).")
    lane = models.CharField(max_length=8)
    # Sampled at the sweep closest to the minute's end.
    queued = models.PositiveIntegerField(default=0)
    processing = models.PositiveIntegerField(default=0)
    oldest_age_seconds = models.FloatField(default=0.0)
    workers_wanted = models.PositiveIntegerField(default=0)
    # What ended in the minute.
    documents_ready = models.PositiveIntegerField(default=0)
    pages_ready = models.PositiveIntegerField(default=0)
    retries = models.PositiveIntegerField(default=0)
    failures = models.JSONField(default=dict, help_text="{error code: jobs failed}")
    ready_p50_seconds = models.FloatField(null=True)
    ready_p95_seconds = models.FloatField(null=True)
    ocr_pages = models.PositiveIntegerField(default=0, db_default=0)  # the OCR lane's
    # The embedding provider's answers and the shared limiter (all lanes: lane "").
    embedding_rate_limited = models.PositiveIntegerField(default=0)
    embedding_wait_seconds = models.FloatField(default=0.0)

    class Meta:
        ordering = ["minute", "lane"]
        constraints = [
            models.UniqueConstraint(fields=["minute", "lane"], name="one_row_per_lane_minute")
        ]

    def __str__(self) -> str:
        return f"{self.lane or 'all'} at {self.minute:%Y-%m-%d %H:%M}"


class JobCount(models.Model):
    """Jobs by state and lane, kept exact by triggers on jobs_job (migration 0002), so
    /metrics never counts a long history. Each statement that adds, deletes or moves jobs
    between states or lanes inserts its net change here, never updating a row, so
    concurrent statements never wait for each other; the sweeper folds the rows into one
    per (status, lane) (jobs.ops.counts). The count is the sum of `n` per pair."""

    id = models.BigAutoField(primary_key=True)
    status = models.CharField(max_length=16)
    lane = models.CharField(max_length=8)
    n = models.BigIntegerField()

    def __str__(self) -> str:
        return f"{self.status}/{self.lane}: {self.n:+d}"
