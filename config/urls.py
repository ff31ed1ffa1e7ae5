from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.routers import SimpleRouter

from config.accounts.urls import urlpatterns as accounts_urls
from config.http import csp, redoc
from config.http.api_docs_access import SchemaPermission, docs_page
from config.http.api_fallbacks import NoSuchEndpoint
from config.http.health import healthz
from documents.api.chunks import ChunkViewSet
from documents.api.page_images import PageImageView
from documents.api.search import SearchView
from documents.api.views import DocumentViewSet, DownloadWithoutSlash
from documents.direct.api import DirectUploadViewSet, StorageEventsView
from documents.mcp.view import endpoint as mcp_endpoint
from documents.page import views as page
from jobs.api.views import JobDetailView
from jobs.ops.exporter import metrics
from jobs.webhooks.api import EndpointViewSet, SigningSecretView

# The admin's header and titles (its pages link back to the site: templates/admin/).
admin.site.site_header = "Ingest administration"
admin.site.site_title = "Ingest admin"
admin.site.index_title = "Documents, jobs, webhooks and accounts"
admin.site.site_url = None  # its "View site" is our "Documents page" (admin/base_site.html)

router = SimpleRouter()
router.register("api/documents", DocumentViewSet, basename="document")
router.register("api/webhooks", EndpointViewSet, basename="webhook-endpoint")
router.register("api/uploads", DirectUploadViewSet, basename="direct-upload")
router.register("api/chunks", ChunkViewSet, basename="chunk")

urlpatterns = [
    path("", page.index, name="home"),
    path("accounts/", include(accounts_urls)),
    path("documents/rows/", page.listing, name="page-listing"),
    path("documents/<uuid:document_id>/", page.detail, name="page-detail"),
    path("documents/<uuid:document_id>/row/", page.row, name="page-row"),
    path("documents/<uuid:document_id>/retry/", page.retry, name="page-retry"),
    path("documents/<uuid:document_id>/delete/", page.delete, name="page-delete"),
    path("documents/<uuid:document_id>/labels/", page.relabel, name="page-labels"),
    path("search/", page.search_results, name="page-search"),
    path("admin/", admin.site.urls),
    # Browsers ask for /favicon.ico where a page names no icon (the API's JSON, files).
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg")), name="favicon"),
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics, name="metrics"),
    path("", include("jobs.ops.urls")),  # /ops/: the pipeline dashboard, for staff
    path("api/jobs/<uuid:job_id>/", JobDetailView.as_view(), name="job-detail"),
    path("api/search/", SearchView.as_view(), name="search"),
    # The MCP server (streamable HTTP), for assistants: docs/using/mcp.md.
    path("mcp", mcp_endpoint, name="mcp"),
    path(
        "api/webhooks/signing-secret/", SigningSecretView.as_view(), name="webhook-signing-secret"
    ),
    # Open to anyone, or to signed-in users only: INGEST_API_DOCS_PUBLIC.
    path(
        "api/schema/",
        SpectacularAPIView.as_view(permission_classes=[SchemaPermission]),
        name="schema",
    ),
    path(
        "api/docs/",
        csp.SWAGGER_UI(docs_page(SpectacularSwaggerView.as_view(url_name="schema"))),
        name="api-docs",
    ),
    path(
        "api/redoc/",
        csp.REDOC(docs_page(redoc.RedocView.as_view(url_name="schema"))),
        name="api-redoc",
    ),
    path("api/redoc/redoc.standalone.js", redoc.bundle, name="api-redoc-bundle"),
    path("api/uploads/events/", StorageEventsView.as_view(), name="storage-events"),
    *router.urls,
    path(
        "api/documents/<uuid:pk>/file",
        DownloadWithoutSlash.as_view({"get": "file"}),
        name="document-file-no-slash",
    ),
    path(
        "api/documents/<uuid:pk>/content",
        DownloadWithoutSlash.as_view({"get": "content"}),
        name="document-content-no-slash",
    ),
    path(
        "api/documents/<uuid:pk>/pages/<int:n>.png",
        PageImageView.as_view(),
        name="document-page-image",
    ),
    # Last: any other path under /api/ (an unknown endpoint, an id that is not a UUID, a
    # missing final slash) answers JSON with a code, not Django's HTML page or redirect.
    re_path(r"^api(?:/[\s\S]*)?\Z", NoSuchEndpoint.as_view(), name="api-not-found"),
]

# Errors Django itself answers (while reading a request, or unhandled): JSON under /api/,
# elsewhere pages in the site's style (templates/400.html, 403.html, 404.html, 500.html).
handler400 = "config.http.api_fallbacks.bad_request"
handler403 = "config.http.api_fallbacks.permission_denied"
handler404 = "config.http.api_fallbacks.not_found"
handler500 = "config.http.api_fallbacks.server_error"
