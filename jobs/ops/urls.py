"""The ops dashboard's URLs; config/urls.py includes them at the root."""

from django.urls import path

from jobs.ops import dashboard

urlpatterns = [
    path("ops/", dashboard.dashboard, name="ops-dashboard"),
    path("ops/panel/", dashboard.panel, name="ops-panel"),
]
