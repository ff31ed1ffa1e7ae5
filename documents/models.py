import uuid

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.db.models import Q

from jobs.models import ALL_VERSIONS
from search import file_types


class Document(models.Model):
    """An uploaded file and who owns it. Its processing state lives on its jobs."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="documents",
        db_index=False,  # (owner, -created_at) and (owner, sha256) below start with it
    )
    filename = models.CharField(max_length=255, help_text="Display name, as uploaded.")
    size = models.PositiveBigIntegerField()
    # Bytes of every version's stored file, this one's included: what the storage quota
    # counts (INGEST_MAX_BYTES_PER_USER).
    stored_bytes = models.PositiveBigIntegerField(default=0)
    sha256 = models.CharField(max_length=64)
    # False for a direct upload's bytes, which no web process read: the worker hashes
    # them, checks a declared sha256 (or sets the real one) and sets this.
    sha256_checked = models.BooleanField(default=True, db_default=True)
    storage_key = models.CharField(max_length=500, help_text="Key in the default storage.")
    version = models.PositiveIntegerField(default=1)
    file_type = models.CharField(
        max_length=16,
        default="pdf",
        db_default="pdf",
        help_text="The newest version's type, told from its bytes (search/file_types.py).",
    )
    parent = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,  # a message deleted leaves its attachments, documents too
        related_name="attachments",
        help_text="The e-mail this document came attached to.",
    )
    current_job = models.ForeignKey(
        "jobs.Job",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The latest job for this document: its status is the document's status.",
    )
    page_count = models.PositiveIntegerField(null=True, blank=True)
    ready_version = models.PositiveIntegerField(
        null=True, blank=True, help_text="The version search serves; None until one is ready."
    )
    ready_embed_model = models.CharField(
        max_length=300,
        blank=True,
        default="",
        db_default="",
        help_text="The embedding that made the ready version's vectors, as its job recorded "
        "it (empty: unknown); the vector side of a search compares only vectors of the "
        "configured embedding.",
    )
    # The owner's labels (documents.labels says what they may hold): set on upload or with
    # PATCH, filtered on by the list and the search (the GIN indexes below), and sent
    # with every webhook event.
    tags = ArrayField(models.CharField(max_length=64), default=list, db_default=[], blank=True)
    metadata = models.JSONField(default=dict, db_default={}, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # Dedupe: identical bytes are one document per owner. Uploads insert with ON
            # CONFLICT on exactly these columns (documents.services.insert).
            models.UniqueConstraint(fields=["owner", "sha256"], name="one_document_per_content")
        ]
        indexes = [
            models.Index(fields=["owner", "-created_at"]),
            models.Index(fields=["storage_key"]),  # cleanup_orphans looks files up by key
            # The admin's list of every document, newest first: partial on a condition
            # every document meets and only the admin states (ALL_VERSIONS), so that an
            # owner's list, ordered the same way, keeps to its own index instead of reading
            # past every other account's newer documents.
            models.Index(
                fields=["created_at", "id"], name="document_created", condition=ALL_VERSIONS
            ),
            # Which embedding made the ready versions' vectors: the sweeper's look for
            # documents a new embedding must catch up (documents/upkeep/embedding_change.py)
            # and a search's count of the caller's (search/retrieval/meaning.py). Each asks
            # for the signatures below and above the configured one, two ranges of these
            # indexes, which are empty once every document is caught up.
            models.Index(
                fields=["ready_embed_model"],
                name="document_ready_embedding",
                condition=Q(ready_version__isnull=False),
            ),
            models.Index(
                fields=["owner", "ready_embed_model"],
                name="document_owner_embedding",
                condition=Q(ready_version__isnull=False),
                include=["id"],  # a search names some of them: read from the index alone
            ),
            # Containment (@>): `tag=` and `metadata.<key>=` filters (documents.labels).
            GinIndex(fields=["tags"], name="document_tags"),
            GinIndex(fields=["metadata"], name="document_metadata", opclasses=["jsonb_path_ops"]),
        ]

    def __str__(self) -> str:
        return self.filename

    @property
    def kind(self) -> file_types.FileType:
        """The newest version's type (a served version's is Content.kind)."""
        return file_types.BY_CODE[self.file_type]


class IdempotencyKey(models.Model):
    """The first answer to a request sent with an Idempotency-Key header, kept 24 h.

    The unique (owner, key) row is inserted in the same transaction as the upload, so a
    racing repeat waits for it and then replays its answer.
    """

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=64, help_text="What the request carried.")
    status_code = models.PositiveSmallIntegerField(null=True)
    body = models.JSONField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "key"], name="idempotency_key_per_owner")
        ]
        indexes = [models.Index(fields=["created_at"])]

    def __str__(self) -> str:
        return f"{self.key} ({self.owner_id})"


class DirectUploadStatus(models.TextChoices):
    STARTED = "started"  # the form or part URLs handed out; the bytes not yet seen
    COMPLETED = "completed"  # the object checked and recorded: a document and its job
    REFUSED = "refused"  # the object was not what was declared (deleted)
    EXPIRED = "expired"  # not completed in time (anything that arrives later is deleted)


class DirectUpload(models.Model):
    """A file its owner sends straight to the bucket (`POST /api/uploads/`,
    documents.direct): what was declared at the start, where the bytes are to go,
    and, once completed (by the client, a storage event or the sweeper), the answer every
    later completion gets."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # The document it becomes: its id names the object's key, so nothing is copied.
    document_id = models.UUIDField(default=uuid.uuid4)
    filename = models.CharField(max_length=255)
    size = models.PositiveBigIntegerField(help_text="Declared; the object must have it.")
    sha256 = models.CharField(
        max_length=64, blank=True, help_text="Declared; the worker checks it."
    )
    webhook_url = models.CharField(max_length=2000, blank=True)
    public_url = models.CharField(max_length=500, blank=True)
    tags = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    storage_key = models.CharField(max_length=500, help_text="Name in the default storage.")
    # S3's UploadId when the bytes come in parts (past INGEST_MULTIPART_THRESHOLD_BYTES).
    multipart_id = models.CharField(max_length=1024, blank=True)
    part_size = models.PositiveBigIntegerField(null=True, blank=True)
    status = models.CharField(
        max_length=16, choices=DirectUploadStatus.choices, default=DirectUploadStatus.STARTED
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    completed_at = models.DateTimeField(null=True, blank=True)
    # When the sweeper last looked for its object (documents.direct.sweep), oldest first.
    checked_at = models.DateTimeField(null=True, blank=True)
    # The completion's answer, given again to every later completion.
    answer_status = models.PositiveSmallIntegerField(null=True, blank=True)
    answer = models.JSONField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["status", "expires_at"]),  # the sweeper's passes
            models.Index(fields=["storage_key"]),  # storage events name the key
        ]

    def __str__(self) -> str:
        return f"{self.filename} ({self.status})"


class StorageEvent(models.Model):
    """An object-created event of the bucket, acted on once (documents.direct.events):
    events come at least once, and in any order."""

    bucket = models.CharField(max_length=255)
    key = models.CharField(max_length=1024)
    etag = models.CharField(max_length=255, blank=True)
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bucket", "key", "etag"], name="one_storage_event")
        ]
        indexes = [models.Index(fields=["received_at"])]

    def __str__(self) -> str:
        return f"{self.bucket}/{self.key}"


class RetentionMark(models.Model):
    """How far one of retention's walks over the jobs has come (documents/upkeep/retention.py):
    every job up to (`at`, `job_id`) in the walk's order has been looked at, so a pass
    reads only what crossed the cutoff since the last, however many jobs there are."""

    walk = models.CharField(max_length=16, primary_key=True)
    at = models.DateTimeField()
    job_id = models.UUIDField()

    def __str__(self) -> str:
        return f"{self.walk} walked to {self.at:%Y-%m-%d %H:%M}"


class EmbeddingChange(models.Model):
    """The sweeper's catch-up to one embedding (documents/upkeep/embedding_change.py): the
    ready documents another embedding made when it started, re-embedded a wave at a time,
    then the embedding's floor. One row per embedding caught up to, written by the sweeper
    that holds the catch-up's lock; anyone reads where it stands from it."""

    signature = models.CharField(max_length=300, primary_key=True)  # the embedding caught up to
    started_at = models.DateTimeField()
    # Ready documents of other embeddings when it started (raised if more turn up), and how
    # many each made ("" for unrecorded): its first line of output.
    total = models.PositiveIntegerField()
    made_by = models.JSONField(default=dict)
    done = models.PositiveIntegerField(default=0)  # its re-embeds that succeeded
    failed = models.PositiveIntegerField(default=0)  # failed or replaced: left to an operator
    pending = models.JSONField(default=list)  # ids of its jobs not ended yet: a wave at most
    # Why it stopped queuing, and since when: the workers run other settings than it.
    halted = models.TextField(blank=True, default="")
    halted_at = models.DateTimeField(null=True, blank=True)
    reported_at = models.DateTimeField(null=True, blank=True)  # its last progress line
    finished_at = models.DateTimeField(null=True, blank=True)
    # The floor: claimed by one sweeper (a conditional UPDATE), then kept once measured.
    floor_claimed_at = models.DateTimeField(null=True, blank=True)
    floor = models.FloatField(null=True, blank=True)

    def __str__(self) -> str:
        return f"re-embedding for {self.signature}: {self.done} of {self.total}"
