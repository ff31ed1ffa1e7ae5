from django.contrib import admin
from django.urls import path
from rest_framework.routers import SimpleRouter

from config.health import healthz
from documents.api import DocumentViewSet
from jobs.api import JobDetailView

router = SimpleRouter()
router.register("api/documents", DocumentViewSet, basename="document")

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("api/jobs/<uuid:job_id>/", JobDetailView.as_view(), name="job-detail"),
    *router.urls,
]
