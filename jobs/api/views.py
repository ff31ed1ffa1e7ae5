"""DRF views for jobs: read-only, from the database, scoped to the owner."""

import uuid

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from jobs.api.serializers import JobDetailOut, JobErrorOut
from jobs.models import Job


class JobDetailView(APIView):
    """GET /api/jobs/{id}/: a job's state. Another user's job answers 404."""

    @extend_schema(
        summary="A job's state and progress",
        description=(
            "`error` and each attempt's `error_message` are the error code's plain sentence, "
            "the same for every job with that code; what the worker recorded (the exception, "
            "its traceback, the worker's name) is for staff, in the admin."
        ),
        responses={200: JobDetailOut, 404: JobErrorOut},
    )
    def get(self, request: Request, job_id: uuid.UUID) -> Response:
        jobs = Job.objects.prefetch_related("attempt_log")
        job = get_object_or_404(jobs, id=job_id, owner=request.user)
        return Response(JobDetailOut(job).data)
