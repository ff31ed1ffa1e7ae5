"""What the jobs API shows a job's owner. Errors are a code and a plain sentence
(jobs.failures); the detail, tracebacks and worker names a job keeps are for staff, in the
admin."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from jobs import failures
from jobs.models import Job, JobAttempt, Stage
from jobs.progress import progress_of


class ProgressOut(serializers.Serializer):
    """Where the job is: its stage, the pages read, then the chunks embedded."""

    stage = serializers.ChoiceField(
        choices=Stage.choices,
        help_text="queued: waiting for a worker. extracting: reading the file's text, page "
        "by page (pages_done / pages_total). ocr: reading its scanned pages by OCR, page by "
        "page (pages_done / pages_total count those pages only). embedding: the text is "
        "split into chunks and they are being embedded (done / total). done: processing is "
        "over; `status` says how it ended.",
    )
    done = serializers.IntegerField(help_text="Chunks embedded so far.")
    total = serializers.IntegerField(help_text="Chunks in all; 0 until the text is split.")
    pages_done = serializers.IntegerField(
        help_text="Pages read so far by this attempt (0 while queued); in the `ocr` stage, "
        "scanned pages read by OCR."
    )
    pages_total = serializers.IntegerField(
        help_text="Pages in the file; 0 until the reader has counted them. In the `ocr` "
        "stage, the pages to read by OCR."
    )


class JobErrorOut(serializers.Serializer):
    code = serializers.CharField(help_text="Stable: act on this.")
    detail = serializers.CharField(help_text="One plain sentence per code, for people.")


class JobOut(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()
    error = serializers.SerializerMethodField(
        help_text="null, or the last error: its code and a plain sentence (the same for "
        "every job with that code)."
    )

    class Meta:
        model = Job
        fields = [
            "id",
            "document_id",
            "version",
            "lane",
            "status",
            "progress",
            "attempts",
            "error",
            "created_at",
            "queued_at",
            "enqueued_at",
            "next_attempt_at",
            "started_at",
            "heartbeat_at",
            "finished_at",
        ]

    @extend_schema_field(ProgressOut)
    def get_progress(self, job: Job) -> dict[str, int | str]:
        return ProgressOut(progress_of(job)).data

    @extend_schema_field(JobErrorOut(allow_null=True))
    def get_error(self, job: Job) -> dict[str, str] | None:
        return failures.public_error(job)


class AttemptOut(serializers.ModelSerializer):
    """One attempt as its owner sees it: no worker name, no traceback, no raw message."""

    duration_seconds = serializers.FloatField(allow_null=True)
    error_message = serializers.SerializerMethodField(
        help_text="The plain sentence for error_code; empty when the attempt had no error."
    )

    class Meta:
        model = JobAttempt
        fields = [
            "number",
            "started_at",
            "finished_at",
            "duration_seconds",
            "outcome",
            "error_code",
            "error_message",
        ]

    def get_error_message(self, attempt: JobAttempt) -> str:
        return failures.sentence(attempt.error_code, attempt.error_message)


class JobDetailOut(JobOut):
    """A job with its attempt history: what each attempt did and how it ended."""

    attempt_history = AttemptOut(source="attempt_log", many=True)

    class Meta(JobOut.Meta):
        fields = [*JobOut.Meta.fields, "attempt_history"]
