"""The Django floor: the floor's work (bench/floor.py) done by a bare Django view.

It runs the project's own settings (`config.settings`: the same middleware stack, database
connection handling, upload handlers and storage as the real app) with a URLconf of its
own. For `POST /api/documents/` it takes `request.FILES["file"]` from Django's normal
multipart parsing, saves it with `default_storage.save("floor/<uuid>.pdf", file)`, inserts
one row into `floor_job` over Django's database connection, LPUSHes the id to the Redis
list `floor:jobs` and answers 202 with a small JSON body. No authentication, no DRF, no
validation, no ORM model, no CSRF check. `GET /healthz` is the project's health check.

Between the floor and the real app it separates what Django itself costs per request
(WSGI/ASGI handler, middleware, routing, multipart parsing, storage, connection handling)
from the service's own work (authentication, throttling, admission, deduplication, the
document and job rows, the Dramatiq message, DRF's serializers and rendering).

Serve it with the real app's gunicorn settings:
    gunicorn tests.bench.django_floor:application -c config/gunicorn.py
or, on gunicorn's asgi worker, `tests.bench.django_floor:asgi_application`.
"""

from __future__ import annotations

import os
import uuid

import django
import redis
from django.conf import settings
from django.core.asgi import get_asgi_application
from django.core.files.storage import default_storage
from django.core.wsgi import get_wsgi_application
from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from config.http.health import healthz
from tests.bench.floor import QUEUE, create_table

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()
settings.ROOT_URLCONF = __name__

# The same table as the floor's; it may be the only floor of the run (`--apps`).
create_table(settings.DATABASE_URL)
_redis = redis.Redis.from_url(settings.REDIS_URL)


@csrf_exempt
def upload(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    file = request.FILES.get("file")
    if file is None:
        return JsonResponse({"code": "no_file"}, status=400)
    job_id = uuid.uuid4()
    key = default_storage.save(f"floor/{job_id}.pdf", file)
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO floor_job (id, key) VALUES (%s, %s)", [job_id, key])
    _redis.lpush(QUEUE, str(job_id))
    return JsonResponse({"job_id": str(job_id), "status": "queued"}, status=202)


urlpatterns = [
    path("healthz", healthz),
    path("api/documents/", upload),
]

application = get_wsgi_application()


def __getattr__(name: str) -> object:
    """`asgi_application`, built on first use: WSGI workers never need it."""
    if name == "asgi_application":
        globals()[name] = get_asgi_application()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
