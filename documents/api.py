"""DRF views for documents. Thin: parse, call a service, answer."""

from django.urls import reverse
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from documents import services


class UploadResult(serializers.Serializer):
    filename = serializers.CharField()
    document_id = serializers.UUIDField()
    job_id = serializers.UUIDField()
    status = serializers.CharField()
    status_url = serializers.CharField()


class DocumentUploadView(APIView):
    """POST /api/documents/: accept a PDF in the multipart field `file`; answer 202."""

    parser_classes = [MultiPartParser]

    def post(self, request: Request) -> Response:
        upload = request.FILES.get("file")
        if upload is None:
            raise ValidationError({"file": "Send the PDF in the multipart field 'file'."})
        accepted = services.create_upload(
            owner=request.user, upload=upload, filename=upload.name or "upload.pdf"
        )
        status_url = request.build_absolute_uri(
            reverse("job-detail", kwargs={"job_id": accepted.job.id})
        )
        result = UploadResult(
            {
                "filename": accepted.document.filename,
                "document_id": accepted.document.id,
                "job_id": accepted.job.id,
                "status": accepted.job.status,
                "status_url": status_url,
            }
        ).data
        return Response(
            {"results": [result]}, status=status.HTTP_202_ACCEPTED, headers={"Location": status_url}
        )
