"""DRF views for jobs: read-only, from the database, scoped to the owner."""

import uuid

from django.shortcuts import get_object_or_404
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from jobs.models import Job


class JobOut(serializers.ModelSerializer):
    progress = serializers.SerializerMethodField()
    error = serializers.SerializerMethodField()

    class Meta:
        model = Job
        fields = [
            "id", "document_id", "version", "status", "progress", "attempts", "error",
            "created_at", "enqueued_at", "started_at", "heartbeat_at", "finished_at",
        ]  # fmt: skip

    def get_progress(self, job: Job) -> dict[str, int]:
        return {"done": job.progress_done, "total": job.progress_total}

    def get_error(self, job: Job) -> dict[str, str] | None:
        if not job.error_code:
            return None
        return {"code": job.error_code, "detail": job.error_detail}


class JobDetailView(APIView):
    """GET /api/jobs/{id}/: a job's state. Another user's job answers 404."""

    def get(self, request: Request, job_id: uuid.UUID) -> Response:
        job = get_object_or_404(Job, id=job_id, document__owner=request.user)
        return Response(JobOut(job).data)
