"""The ops dashboard's URLs; config/urls.py includes them at the root."""

from django.urls import path

from jobs.ops.dashboard import views

urlpatterns = [
    path("ops/", views.dashboard, name="ops-dashboard"),
    path("ops/panel/", views.panel, name="ops-panel"),
]
