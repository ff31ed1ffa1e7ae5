from rest_framework import serializers

from jobs.models import Job, JobAttempt


class ProgressOut(serializers.Serializer):
    done = serializers.IntegerField()
    total = serializers.IntegerField()


class JobErrorOut(serializers.Serializer):
    code = serializers.CharField()
    detail = serializers.CharField()


class JobOut(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()
    error = serializers.SerializerMethodField()

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

    def get_progress(self, job: Job) -> dict[str, int]:
        return ProgressOut({"done": job.progress_done, "total": job.progress_total}).data

    def get_error(self, job: Job) -> dict[str, str] | None:
        if not job.error_code:
            return None
        return {"code": job.error_code, "detail": job.error_detail}


class AttemptOut(serializers.ModelSerializer):
    duration_seconds = serializers.FloatField(allow_null=True)

    class Meta:
        model = JobAttempt
        fields = [
            "number",
            "worker",
            "started_at",
            "finished_at",
            "duration_seconds",
            "outcome",
            "error_code",
            "error_message",
            "traceback",
        ]


class JobDetailOut(JobOut):
    """A job with its attempt history: what each attempt did and how it ended."""

    attempt_history = AttemptOut(source="attempt_log", many=True)

    class Meta(JobOut.Meta):
        fields = [*JobOut.Meta.fields, "attempt_history"]
