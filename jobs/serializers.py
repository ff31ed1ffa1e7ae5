from rest_framework import serializers

from jobs.models import Job


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
            "status",
            "progress",
            "attempts",
            "error",
            "created_at",
            "queued_at",
            "enqueued_at",
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
