from django.contrib import admin
from django.urls import path

from config.health import healthz
from documents.api import DocumentUploadView
from jobs.api import JobDetailView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("api/documents/", DocumentUploadView.as_view(), name="document-list"),
    path("api/jobs/<uuid:job_id>/", JobDetailView.as_view(), name="job-detail"),
]
