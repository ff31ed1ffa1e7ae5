import uuid
from datetime import datetime, timedelta

from django.apps import apps
from django.conf import settings
from django.db import models
from django.db.models import Exists, F, OuterRef, Q, Value
from django.db.models.functions import Concat, Left, Length
from django.utils import timezone


class WorkerProcessQuerySet(models.QuerySet["WorkerProcess"]):
    def dead(self) -> "WorkerProcessQuerySet":
        """Processes another worker found dead (jobs.worker.heartbeat.mark_dead): the one
        definition, read by the heartbeat's take-back and by the Job queryset's stale()."""
        return self.filter(dead_at__isnull=False)


class WorkerProcess(models.Model):
    """A Dramatiq worker process, while it lives: it writes `beat_at` every
    INGEST_WORKER_BEAT_SECONDS (jobs.worker.heartbeat) and deletes its row when it stops.
    A process that dies leaves its row: another worker marks it dead (`dead_at`) once it
    sees the pid gone from their shared process table, or its beat three intervals late."""

    name = models.CharField(max_length=200, primary_key=True, help_text="host:pid")
    host = models.CharField(max_length=150)
    pid = models.PositiveIntegerField()
    threads = models.PositiveIntegerField()
    queues = models.JSONField(default=list)
    started_at = models.DateTimeField()
    beat_at = models.DateTimeField()
    # The process table the pid belongs to (kernel boot and pid namespace); empty where
    # it cannot be told. Only a process in the same one may judge the pid gone.
    pid_space = models.CharField(max_length=100, blank=True, default="", db_default="")
    dead_at = models.DateTimeField(
        null=True, blank=True, help_text="When another worker found this process dead."
    )

    objects = WorkerProcessQuerySet.as_manager()

    class Meta:
        # Made in the ops app, whose table it keeps: the process table is what jobs'
        # core reads to tell a dead worker's jobs (Job's `stale()`).
        db_table = "ops_workerprocess"
        ordering = ["host", "pid"]

    def __str__(self) -> str:
        return self.name


class JobStatus(models.TextChoices):
    QUEUED = "queued"
    PROCESSING = "processing"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


class Stage(models.TextChoices):
    """Where a job is in its processing, as its owner sees it (the API's `progress.stage`):
    waiting for a worker, reading the file's pages, reading scanned pages by OCR, embedding
    its chunks, or over (its status says how it ended). Only the stages of a running
    attempt are stored (`Job.stage`); jobs.progress derives the others from the status."""

    QUEUED = "queued"
    EXTRACTING = "extracting"
    OCR = "ocr"
    EMBEDDING = "embedding"
    DONE = "done"


class Lane(models.TextChoices):
    """Small documents get their own queue so they never wait behind an 80-page document,
    and scans one of their own (`ocr`): a document with pages to read by OCR goes on there
    once its text layer has been read, so OCR never delays a born-digital document."""

    FAST = "fast"
    BATCH = "batch"
    OCR = "ocr"


TERMINAL_STATUSES = (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED)
IN_FLIGHT_STATUSES = (JobStatus.QUEUED, JobStatus.PROCESSING)
# True of every job and every document (versions count from 1). Stated only by the queries
# that may read all of them in order of creation (the admin's lists, retention's walk), so
# that only they can use the partial indexes job_created and document_created.
ALL_VERSIONS = Q(version__gt=0)


def _worker_dead() -> Q:
    """Processing, and its worker's process is known dead: another worker process found
    its pid gone from the process table they share (killed; its replacement starting), or
    its heartbeat stopped (jobs.worker.heartbeat marks it). Known within seconds.
    (Job.worker is "<process name>:<thread>".)"""
    of_dead_process = (
        WorkerProcess.objects.dead()
        .annotate(prefix=Concat("name", Value(":")))
        .filter(prefix=Left(OuterRef("worker"), Length(F("name")) + 1))
    )
    return Q(status=JobStatus.PROCESSING) & Q(Exists(of_dead_process))


def _lease_expired() -> Q:
    """Processing, and its worker stopped renewing the lease: the backstop for what no
    process can see (a hung worker, a machine whose every worker died at once)."""
    cutoff = timezone.now() - timedelta(seconds=settings.INGEST_LEASE_SECONDS)
    return Q(status=JobStatus.PROCESSING, heartbeat_at__lt=cutoff)


def _stale() -> Q:
    """The one definition of a stale job, which `stale()` and `running()` both read: no
    live attempt holds it, because its worker died or hung."""
    return _worker_dead() | _lease_expired()


def is_current() -> Exists:
    """The job is its document's current one: EXISTS of a document naming it (an index
    probe a job). Not a join on both the document and its current job, whose two
    conditions the planner takes for one row in millions and answers with a hash join of
    every document (0.3 s at 2 million)."""
    documents = apps.get_model("documents", "Document").objects
    return Exists(documents.filter(current_job_id=OuterRef("id")))


class JobQuerySet(models.QuerySet["Job"]):
    """The states that several readers count, each defined here once: the claim and
    fairness, admission control, the sweeper, the metrics and the ops pages all ask
    these methods, so they never disagree about which jobs are running."""

    def in_flight(self) -> "JobQuerySet":
        """Queued or processing: not ended (stale ones included, they will run again)."""
        return self.filter(status__in=IN_FLIGHT_STATUSES)

    def stale(self) -> "JobQuerySet":
        """Processing, but its attempt is dead: its worker's process is known dead, or
        the worker stopped renewing the lease (killed, out of memory, hung). The sweeper
        takes these back, a claim may take one over, an operator may retry one; none of
        them counts as running."""
        return self.filter(_stale())

    def of_dead_workers(self) -> "JobQuerySet":
        """Stale because the worker's process is known dead: taken back at once by the
        process that found it dead, without waiting for the lease."""
        return self.filter(_worker_dead())

    def resumed_waiting(self, lane: str, *, sent_before: datetime) -> "JobQuerySet":
        """Queued again after an attempt (taken back from a dead worker, retried), due,
        and sent to its resume queue before `sent_before` yet not claimed: its message
        sits in a busy worker's prefetch. Oldest sent first."""
        now = timezone.now()
        return self.filter(
            Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now),
            status=JobStatus.QUEUED,
            attempts__gt=0,
            lane=lane,
            enqueued_at__lt=sent_before,
        ).order_by("enqueued_at")

    def dead_letters(self) -> "JobQuerySet":
        """Failed and still its document's current job: work for an operator. A failed
        job that a retry or a newer version has replaced is history (the admin's
        dead-letter list shows those too, behind its "replaced" filter)."""
        return self.filter(is_current(), status=JobStatus.FAILED)

    def running(self) -> "JobQuerySet":
        """Processing and not stale: attempts alive now, each holding a worker thread and
        a place in its owner's fair share of the lane."""
        return self.filter(status=JobStatus.PROCESSING).exclude(_stale())


class Job(models.Model):
    """One request to process one version of a document.

    Every change of `status` is a conditional UPDATE made by jobs.services; nothing
    else writes it. The queue only carries this row's id.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    document = models.ForeignKey(
        "documents.Document",
        on_delete=models.CASCADE,
        related_name="jobs",
        db_index=False,  # (document, -created_at) below serves every lookup by document
    )
    # The document's owner, copied here so admission control counts a user's jobs in
    # flight from one small partial index instead of joining through documents.
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField()
    storage_key = models.CharField(
        max_length=500, default="", help_text="The bytes this job processes."
    )
    lane = models.CharField(max_length=8, choices=Lane.choices, default=Lane.FAST)
    # db_default too: a writer that does not know the column (older code during a
    # deploy, a bulk SQL load) still inserts.
    webhook_url = models.CharField(
        max_length=2000,
        blank=True,
        default="",
        db_default="",
        help_text="The upload's own webhook (webhook_url), if any.",
    )
    public_url = models.CharField(
        max_length=300,
        blank=True,
        default="",
        db_default="",
        help_text="Where the request that made the job reached the service "
        "(scheme://host[:port]): its webhook events' status_url starts here, as the "
        "request's answer did. Empty for jobs no request made.",
    )
    embed_model = models.CharField(
        max_length=300,
        blank=True,
        default="",
        db_default="",
        help_text="The embedding that made this job's vectors, <provider>:<model>:<dimensions>, "
        "recorded when they became searchable; empty before that, and for jobs that ended "
        "before it was recorded (manage.py reembed counts those as out of date).",
    )
    extracted_by = models.CharField(
        max_length=40,
        blank=True,
        default="",
        db_default="",
        help_text="What read this job's text, recorded with its success: the structure "
        'reader and its version ("layout:1"), or "flat" (INGEST_STRUCTURE=off); empty for '
        "jobs that ended before it was recorded (manage.py reprocess extraction reads it).",
    )
    embed_only = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Embed the version's stored chunks again, reading no file (an embedding "
        "change: documents/upkeep/reembed.py); their ids, texts and structure stay.",
    )
    status = models.CharField(max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED)
    attempts = models.PositiveIntegerField(default=0)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    # What the running attempt is doing, and the pages it has read (jobs.progress).
    stage = models.CharField(max_length=16, blank=True, default="", db_default="")
    pages_done = models.PositiveIntegerField(default=0, db_default=0)
    pages_total = models.PositiveIntegerField(default=0, db_default=0)
    filename = models.CharField(
        max_length=255,
        blank=True,
        default="",
        db_default="",
        help_text="The file's name as uploaded for this version (downloads are named so).",
    )
    error_code = models.CharField(max_length=64, blank=True)
    error_detail = models.TextField(blank=True)
    worker = models.CharField(max_length=200, blank=True, help_text="Who holds the attempt.")
    lease = models.UUIDField(
        null=True,
        blank=True,
        help_text="The attempt's fencing token, new at each claim: every write of the attempt "
        "names it, and the database refuses one that names another (jobs.services._held).",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(default=timezone.now, help_text="When it last became queued.")
    enqueued_at = models.DateTimeField(null=True, blank=True, help_text="When last sent.")
    next_attempt_at = models.DateTimeField(
        null=True, blank=True, help_text="A retry waits until then (backoff, Retry-After)."
    )
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = JobQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "created_at"]),
            models.Index(fields=["document", "-created_at"]),
            models.Index(fields=["finished_at"], name="job_finished_at"),
            models.Index(fields=["storage_key"], name="job_storage_key"),
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
            # Each new job's start asks for resumed jobs left waiting: a tiny set.
            models.Index(
                fields=["lane", "enqueued_at"],
                name="job_resumed_waiting",
                condition=Q(status="queued", attempts__gt=0),
            ),
            # The admin's error-code filter lists the codes there are: the few jobs that
            # have one, not a scan of them all (jobs.admin.filters.ErrorCodeFilter).
            models.Index(fields=["error_code"], name="job_error_code", condition=~Q(error_code="")),
            # The admin's list, newest first, and retention's walk of the newer versions
            # (documents/upkeep/retention.py) read the jobs in order of creation. Partial on a
            # condition every job meets and only those two state (ALL_VERSIONS): a query
            # for one owner's jobs newest first must not pick it, since it would read
            # past every other account's newer jobs (the planner takes the owner's rows
            # to be spread evenly in time; a large old account's are not).
            models.Index(fields=["created_at", "id"], name="job_created", condition=ALL_VERSIONS),
        ]

    def __str__(self) -> str:
        return f"job {self.id} ({self.status})"


class AttemptOutcome(models.TextChoices):
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"  # a permanent error: the job failed
    RETRY = "retry"  # a transient error: the job went back to the queue
    LOST = "lost"  # the worker stopped answering (killed, hung) and its lease expired
    SUPERSEDED = "superseded"  # finished, but a newer version was ready first
    HANDED_ON = "handed_on"  # its pages need OCR: the job went on to the OCR lane


class JobAttempt(models.Model):
    """What happened in one attempt at a job, for the people who have to find out."""

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveIntegerField()
    worker = models.CharField(max_length=200)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(
        max_length=16, choices=AttemptOutcome.choices, default=AttemptOutcome.RUNNING
    )
    error_code = models.CharField(max_length=64, blank=True)
    error_message = models.TextField(blank=True)
    traceback = models.TextField(blank=True)
    # When someone retried the job after this attempt, its last one then (an operator in
    # the admin, or the owner, whose retry is a new job): the ops history counts it among
    # the retries then, as it counts an automatic retry at finished_at.
    retried_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["job", "number"]
        # The scaling signal and the ops history read the attempts that ended lately.
        indexes = [
            models.Index(fields=["finished_at"], name="attempt_finished_at"),
            models.Index(
                fields=["retried_at"],
                name="attempt_retried_at",
                condition=Q(retried_at__isnull=False),
            ),
        ]
        constraints = [
            models.UniqueConstraint(fields=["job", "number"], name="one_record_per_attempt")
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.job_id}: {self.outcome}"

    @property
    def duration_seconds(self) -> float | None:
        if self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()


class DeadLetter(Job):
    """A failed job, as the admin's dead-letter console lists it: a proxy, no table of its own."""

    class Meta:
        proxy = True
        verbose_name = "dead letter"
        verbose_name_plural = "dead letters"
