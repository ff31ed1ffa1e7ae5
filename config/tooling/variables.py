"""What each environment variable means, for the configuration reference.

config.common.env's readers note what the code reads (the kind of value, the default, its bounds);
this module says what each variable is for and under which topic it is listed, and declares
the variables that no reader reads as the settings load (the Procfile's, the Makefile's, the
tests'). `python -m config.tooling.reference` joins the two into docs/running/configuration.md, and
tests/config/tooling/test_configuration_reference.py fails when the code reads a variable that has
no entry here, or an entry names a variable nothing reads.
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Declared:
    """A variable no config.common.env reader reads as the settings load, and who reads it."""

    kind: str
    default: object
    read_by: str


@dataclass(frozen=True)
class Meaning:
    text: str
    unit: str = ""
    # How the default is written when the value depends on the machine or on another
    # variable (a path under the checkout; "openai if OPENAI_API_KEY is set").
    shown_default: str = ""
    declared: Declared | None = None


@dataclass(frozen=True)
class Topic:
    title: str
    # The page that explains these variables, relative to docs/running/.
    page: str
    variables: dict[str, Meaning] = field(default_factory=dict)


def _m(text: str, unit: str = "", shown: str = "") -> Meaning:
    return Meaning(text, unit, shown)


def _declared(
    kind: str, default: object, read_by: str, text: str, unit: str = "", shown: str = ""
) -> Meaning:
    return Meaning(text, unit, shown, Declared(kind, default, read_by))


SECONDS = "seconds"

TOPICS = [
    Topic(
        "Postgres, Redis and the data directory",
        "services.md",
        {
            "DATABASE_URL": _m(
                "Postgres with the `vector` extension, e.g. "
                "`postgresql://user:pass@host:5432/db`. Unset, `make run` starts a private one.",
                shown="embedded Postgres in `var/pg`",
            ),
            "REDIS_URL": _m(
                "Redis for the Dramatiq broker, the channel layer, the shared rate limits and "
                "caches, e.g. `redis://host:6379/0`. Unset, `make run` starts a private one.",
                shown="embedded Redis in `var/redis`",
            ),
            "INGEST_DATA_DIR": _m(
                "Where the embedded services, uploads, metrics files and the secret key live.",
                shown="`var/` in the checkout",
            ),
            "DATABASE_CONN_MAX_AGE": _m(
                "How long a database connection is reused (0: one per request).", SECONDS
            ),
            "DATABASE_CONN_HEALTH_CHECKS": _m(
                "Check a reused connection (`SELECT 1`) before each request, so a restarted "
                "Postgres costs no failed request."
            ),
            "DATABASE_POOL_MODE": _m(
                "`transaction` when DATABASE_URL is a pooler in transaction mode (PgBouncer's "
                "`pool_mode = transaction`): no server-side prepared statements or cursors. "
                "`session`: Postgres itself, or a pooler in session mode.",
                shown="`session`",
            ),
            "DATABASE_IDLE_TRANSACTION_SECONDS": _m(
                "Postgres ends a transaction whose client has sent nothing for this long "
                "(`idle_in_transaction_session_timeout`), and frees its locks: a worker "
                "machine cut off mid-write does not hold its job past the lease. Keep it "
                "below INGEST_LEASE_SECONDS; 0: off. Not sent through a pooler in "
                "transaction mode: set PgBouncer's `idle_transaction_timeout` there.",
                SECONDS,
            ),
            "WEB_DATABASE_URL": _declared(
                "text",
                "",
                "the settings, in the `web` line's processes",
                "DATABASE_URL for the `web` line: with PgBouncer, a database "
                "name of its own gives the line a pool of its own (many-machines.md).",
                shown="DATABASE_URL",
            ),
            "WS_DATABASE_URL": _declared(
                "text",
                "",
                "the settings, in the `ws` line's processes",
                "DATABASE_URL for the `ws` line: with PgBouncer, a database "
                "name of its own gives the line a pool of its own (many-machines.md).",
                shown="DATABASE_URL",
            ),
            "WORKER_DATABASE_URL": _declared(
                "text",
                "",
                "the settings, in the `worker-*` lines' processes",
                "DATABASE_URL for the `worker-*` lines (every lane's workers and the webhook "
                "deliverers): with PgBouncer, a database name of their own gives them a pool "
                "of their own (many-machines.md).",
                shown="DATABASE_URL",
            ),
            "SWEEPER_DATABASE_URL": _declared(
                "text",
                "",
                "the settings, in the `sweeper` line's processes",
                "DATABASE_URL for the `sweeper` line: with PgBouncer, a database "
                "name of its own gives the line a pool of its own (many-machines.md).",
                shown="DATABASE_URL",
            ),
            "RELEASE_DATABASE_URL": _declared(
                "text",
                "",
                "the settings, in the `release` line's processes",
                "DATABASE_URL for the `release` line: with PgBouncer, a database "
                "name of its own gives the line a pool of its own (many-machines.md).",
                shown="DATABASE_URL",
            ),
            "WS_DATABASE_CONN_HEALTH_CHECKS": _declared(
                "true or false",
                False,
                "the Procfile's `ws`",
                "`DATABASE_CONN_HEALTH_CHECKS` for the `ws` process: off, since a check per "
                "push doubled its SQL; a dead connection closes the socket and the page "
                "reconnects and reads again.",
            ),
        },
    ),
    Topic(
        "Django",
        "security.md",
        {
            "DJANGO_SECRET_KEY": _m(
                "Django's secret key. Set it in production. Unset, `make run` writes one that "
                "every later process reads (Security says how to rotate it).",
                shown="random, kept in `var/secret_key`",
            ),
            "DJANGO_DEBUG": _m("Django's debug mode; never in production."),
            "DJANGO_ALLOWED_HOSTS": _m(
                "Host names the site answers to; any other gets 400 (a page that names this "
                "setting while `DJANGO_DEBUG` is on)."
            ),
            "DJANGO_CSRF_TRUSTED_ORIGINS": _m(
                "Origins trusted for CSRF and by the status socket's origin check, e.g. "
                "`https://ingest.example.com`."
            ),
            "DJANGO_SUPERUSER_PASSWORD": _declared(
                "text",
                "",
                "Django's `createsuperuser --noinput`",
                "The password `createsuperuser --noinput` gives the new user (the quick start).",
            ),
            "DJANGO_USER_PASSWORD": _declared(
                "text",
                "",
                "`manage.py create_user --noinput`",
                "The password `create_user --noinput` gives the new normal (non-staff) user; "
                "unset, the user has none (API tokens work, signing in waits for "
                "`changepassword`).",
            ),
            "DJANGO_SETTINGS_MODULE": _declared(
                "text",
                "config.settings",
                "manage.py, wsgi and asgi",
                "Django's settings module; there is one.",
            ),
        },
    ),
    Topic(
        "Serving",
        "serving.md",
        {
            "PORT": _m(
                "Port of the `web` process (gunicorn). With `INGEST_WS_URL` empty the `ws` "
                "process accepts pages from this port of its host: give it the same `PORT`."
            ),
            "WS_PORT": _m("Port of the `ws` process (daphne, the status websocket)."),
            "HOST": _m("Address `web` and `ws` bind. `0.0.0.0` behind a proxy or in a container."),
            "WEB_CONCURRENCY": _m("gunicorn worker processes: as many as the machine's cores."),
            "WEB_THREADS": _m("Threads per gunicorn process, for uploads."),
            "WEB_SMALL_THREADS": _m(
                "Threads per gunicorn process for every request that is not an upload "
                "(status, search, direct uploads' starts and completions, pages), so that "
                "none waits behind upload bodies; 0: one pool of WEB_THREADS for all."
            ),
            "WEB_ACCESS_LOG": _m("Any value: log each request to stdout.", shown="empty (off)"),
            "INGEST_WS_URL": _m(
                "Where the page opens its status socket; empty: "
                "`ws://<page host>:WS_PORT/ws/status/`. Set `/ws/status/` behind a proxy that "
                "routes `/ws/`."
            ),
        },
    ),
    Topic(
        "HTTPS behind a proxy",
        "serving.md#https-behind-a-proxy",
        {
            "INGEST_HTTPS": _m(
                "The site is served over https (by a proxy): session and CSRF cookies only "
                "over https, HSTS, and https webhook URLs only."
            ),
            "INGEST_TRUST_X_FORWARDED_PROTO": _m(
                "Believe a trusted proxy's `X-Forwarded-Proto`; with `INGEST_HTTPS`, plain "
                "http is redirected to https (not `/healthz`, `/metrics`)."
            ),
            "INGEST_TRUSTED_PROXIES": _m(
                "The proxies (addresses or CIDRs) whose forwarded headers (`X-Forwarded-For`, "
                "`-Proto`, `-Host`) `web` and `ws` believe; from anyone else they are ignored.",
                shown="empty (none)",
            ),
            "INGEST_PROXY_COUNT": _m(
                "With `INGEST_TRUSTED_PROXIES`: the client is this many `X-Forwarded-For` "
                "entries from the right (0: the first that is not a trusted proxy)."
            ),
            "INGEST_HSTS_SECONDS": _m(
                "HSTS `max-age` of https answers under `INGEST_HTTPS` (0: no header). Browsers "
                "remember it: try a short one first.",
                SECONDS,
                "`31536000` (a year)",
            ),
            "INGEST_HSTS_INCLUDE_SUBDOMAINS": _m("HSTS covers every host under the domain."),
            "INGEST_HSTS_PRELOAD": _m("HSTS says the domain may go on browsers' preload lists."),
        },
    ),
    Topic(
        "Sign-in and mail",
        "security.md#sign-in",
        {
            "INGEST_LOGIN_FAILURE_LIMIT": _m(
                "Failed sign-ins for one user name from one address, or from one address for "
                "any names, that lock that address (for that name, or for all)."
            ),
            "INGEST_LOGIN_LOCKOUT_MINUTES": _m(
                "How long a lock lasts after its last failed try.", "minutes"
            ),
            "INGEST_EMAIL_HOST": _m(
                "The SMTP server for password-reset mail; unset, the reset pages answer 404.",
                shown="empty (no mail; password reset off)",
            ),
            "INGEST_EMAIL_PORT": _m("Port of the SMTP server."),
            "INGEST_EMAIL_USER": _m("User name on the SMTP server."),
            "INGEST_EMAIL_PASSWORD": _m("Password on the SMTP server."),
            "INGEST_EMAIL_USE_TLS": _m("Speak STARTTLS to the SMTP server."),
            "INGEST_EMAIL_FROM": _m("Sender of password-reset mail."),
        },
    ),
    Topic(
        "Storage",
        "storage.md",
        {
            "INGEST_MEDIA_ROOT": _m(
                "Where uploaded files are stored on local disk; web and workers must share it.",
                shown="`$INGEST_DATA_DIR/media`",
            ),
            "INGEST_UPLOAD_TEMP_DIR": _m(
                "Where uploads over 2.5 MB are spooled as they arrive; on the media disk, "
                "storing them is a rename.",
                shown="`$INGEST_DATA_DIR/tmp`",
            ),
            "INGEST_S3_BUCKET": _m(
                "Store uploads in this S3 bucket instead of `INGEST_MEDIA_ROOT`.",
                shown="empty (local storage)",
            ),
            "INGEST_S3_ENDPOINT_URL": _m(
                "Endpoint of an S3-compatible server, e.g. `http://minio:9000`.",
                shown="empty (AWS)",
            ),
            "INGEST_S3_REGION": _m(
                "Region of the bucket, e.g. `eu-central-1`.", shown="empty (boto3's default)"
            ),
            "INGEST_S3_ACCESS_KEY_ID": _m(
                "Access key id; set it together with the secret.",
                shown="empty (boto3's credential chain)",
            ),
            "INGEST_S3_SECRET_ACCESS_KEY": _m(
                "Secret access key; set it together with the key id.",
                shown="empty (boto3's credential chain)",
            ),
            "INGEST_S3_PREFIX": _m(
                "Key prefix for every stored object, e.g. `ingest/`, for a shared bucket."
            ),
            "INGEST_S3_DOWNLOAD_REDIRECT_SECONDS": _m(
                "Downloads answer 302 to a signed URL of the bucket, valid this long, so "
                "the bytes skip the web process; clients must reach the S3 endpoint. "
                "`0`: the web streams them.",
                "seconds",
                "`0` (off)",
            ),
            "INGEST_PAGE_IMAGE_CACHE_MB": _m(
                "Page images drawn for `/api/documents/{id}/pages/{n}.png`, kept on each web "
                "host's disk under the data directory up to this much in all, the least "
                "recently used going first; `0` keeps none and draws each page every time.",
                "MB",
            ),
        },
    ),
    Topic(
        "Uploads and the API",
        "../using/api.md",
        {
            "INGEST_MAX_UPLOAD_BYTES": _m(
                "Largest file accepted (413 `too_large`).", "bytes", "`52428800` (50 MiB)"
            ),
            "INGEST_MAX_TEXT_BYTES": _m(
                "Largest web page, Markdown or plain text file accepted (413 `too_large`): "
                "these are read whole ([Formats](../using/formats.md)).",
                "bytes",
                "`16777216` (16 MiB)",
            ),
            "INGEST_MAX_DIRECT_UPLOAD_BYTES": _m(
                "Largest file a direct upload (`POST /api/uploads/`) may declare (413 "
                "`too_large`): the bytes go to the bucket, not through the web.",
                "bytes",
                "`5368709120` (5 GiB)",
            ),
            "INGEST_DIRECT_UPLOAD_EXPIRES_SECONDS": _m(
                "How long a direct upload's signed form or part URLs are valid; an upload "
                "not completed by then expires, and its object is deleted.",
                SECONDS,
            ),
            "INGEST_MAX_DIRECT_UPLOADS_IN_FLIGHT": _m(
                "Direct uploads one user may have started and not yet completed (429 "
                "`too_many_in_flight`); they count against the quotas too."
            ),
            "INGEST_MAX_DIRECT_BYTES_IN_FLIGHT": _m(
                "Declared bytes of one user's direct uploads started and not yet completed, "
                "together (429 `too_many_in_flight`): what one account can park in the bucket.",
                "bytes",
                "`10737418240` (10 GiB)",
            ),
            "INGEST_STORAGE_EVENTS_TOKEN": _m(
                "The secret the bucket's object-created notifications carry (`Authorization: "
                "Bearer <it>`, or `?token=<it>`, which lands in access logs) to `POST "
                "/api/uploads/events/`, which then completes direct uploads their clients did "
                "not; at least 32 characters, or the service does not start. Unset: that "
                "endpoint is off (the sweeper still completes them).",
                shown="unset (off)",
            ),
            "INGEST_MULTIPART_THRESHOLD_BYTES": _m(
                "Direct uploads larger than this are S3 multipart uploads, in parts of this "
                "size, each sent (and resent) on its own.",
                "bytes",
                "`104857600` (100 MiB)",
            ),
            "INGEST_MAX_FILES_PER_REQUEST": _m(
                "Most files in one upload request (400 `too_many_files`)."
            ),
            "INGEST_MAX_BACKLOG": _m(
                "Jobs queued and processing past which uploads get 503 `backlog_full`."
            ),
            "INGEST_MAX_QUEUE_AGE_SECONDS": _m(
                "Age of the oldest queued job past which uploads get 503 `backlog_full`.",
                SECONDS,
            ),
            "INGEST_MAX_INFLIGHT_PER_USER": _m(
                "Unfinished jobs one user may have before uploads get 429 `too_many_in_flight`."
            ),
            "INGEST_UPLOAD_THROTTLE_RATE": _m(
                "Upload and retry requests per user, as `N/s`, `N/min` or `N/hour`."
            ),
            "INGEST_MAX_DOCUMENTS_PER_USER": _m(
                "Documents one user may keep (429 `document_quota_exceeded`).",
                shown="`0` (no limit)",
            ),
            "INGEST_MAX_BYTES_PER_USER": _m(
                "Stored bytes of one user's documents, every version counted (413 "
                "`storage_quota_exceeded`).",
                "bytes",
                "`0` (no limit)",
            ),
            "INGEST_RETAIN_DAYS": _m(
                "Days of history kept: the sweeper then removes, a few batches a pass, the "
                "attempt history of ended jobs, versions replaced that long ago (their jobs, "
                "chunks and files) and ended webhook events. Current versions, ready "
                "documents and dead letters stay ([Growing](growing.md#retention)).",
                "days",
            ),
            "INGEST_IDEMPOTENCY_TTL_SECONDS": _m(
                "How long an `Idempotency-Key`'s answer is kept; the sweeper deletes older keys.",
                SECONDS,
            ),
            "INGEST_TOKEN_CACHE_SECONDS": _m(
                "How long a web process remembers an API token: a revoked token works at most "
                "this long (0: off).",
                SECONDS,
            ),
            "INGEST_API_DOCS_PUBLIC": _m(
                "`/api/schema/`, `/api/docs/` and `/api/redoc/` open to anyone; `false`: to "
                "signed-in users only."
            ),
        },
    ),
    Topic(
        "The page and its socket",
        "../using/page.md",
        {
            "INGEST_PAGE_POLL_SECONDS": _m(
                "How often the page polls its rows while its socket is down.", SECONDS
            ),
            "INGEST_WS_SESSION_CHECK_SECONDS": _m(
                "How often an open socket checks that its session still signs its user in; it "
                "closes (4401) when not.",
                SECONDS,
            ),
            "INGEST_WS_MAX_PER_USER": _m(
                "Open status sockets per user, across all `ws` processes; the next is closed "
                "(4429) and its page polls."
            ),
            "INGEST_WS_MAX_MESSAGE_BYTES": _m(
                "Largest message a client may send on the socket (the page sends none); larger "
                "closes it (1009).",
                "bytes",
            ),
        },
    ),
    Topic(
        "Jobs, lanes and retries",
        "jobs.md",
        {
            "INGEST_FAST_LANE_MAX_BYTES": _m(
                "Files up to this size go to the `fast` lane, larger ones to `batch`.",
                "bytes",
                "`2097152` (2 MiB)",
            ),
            "INGEST_MAX_RUNNING_PER_USER": _m(
                "Jobs one user may have processing in one lane; more wait, queued. Set it when "
                "more machines run workers than `WORKER_<LANE>_*` count.",
                shown="`0`: half the lane's worker threads, at least 1",
            ),
            "INGEST_LEASE_SECONDS": _m(
                "A processing job whose heartbeat is older is taken over (renewed every third "
                "of it).",
                SECONDS,
            ),
            "INGEST_MAX_ATTEMPTS": _m("Attempts before a job fails with `retries_exhausted`."),
            "INGEST_RETRY_BASE_SECONDS": _m(
                "First retry delay; it doubles each attempt, with jitter.", SECONDS
            ),
            "INGEST_RETRY_MAX_SECONDS": _m(
                "Longest retry delay (a provider's `Retry-After` may ask for more).", SECONDS
            ),
            "INGEST_JOB_TIME_LIMIT_SECONDS": _m("Dramatiq's time limit of one attempt.", SECONDS),
            "INGEST_MAX_MESSAGE_AGE_SECONDS": _m(
                "A message older than this fails its job as `expired`.", SECONDS
            ),
            "INGEST_REQUEUE_GRACE_SECONDS": _m(
                "The sweeper re-sends a queued job due this long ago and not picked up.", SECONDS
            ),
            "SWEEPER_INTERVAL": _declared(
                "whole number",
                30,
                "the Procfile's `sweeper`",
                "Time between the sweeper's passes.",
                SECONDS,
            ),
        },
    ),
    Topic(
        "Workers and scaling",
        "scaling.md",
        {
            "WORKER_FAST_PROCESSES": _m("Worker processes of the fast lane (`worker-fast`)."),
            "WORKER_FAST_THREADS": _m("Threads per fast-lane worker process (and its prefetch)."),
            "WORKER_BATCH_PROCESSES": _m("Worker processes of the batch lane (`worker-batch`)."),
            "WORKER_BATCH_THREADS": _m("Threads per batch-lane worker process (and its prefetch)."),
            "WORKER_OCR_PROCESSES": _m("Worker processes of the OCR lane (`worker-ocr`)."),
            "WORKER_OCR_THREADS": _m(
                "Threads per OCR-lane worker process (and its prefetch); each reads one scan "
                "on one core."
            ),
            "WORKER_WEBHOOKS_PROCESSES": _declared(
                "whole number",
                1,
                "the Procfile's `worker-webhooks`",
                "Webhook deliverer processes.",
            ),
            "WORKER_WEBHOOKS_THREADS": _declared(
                "whole number",
                8,
                "the Procfile's `worker-webhooks`",
                "Threads per deliverer process: deliveries under way at once.",
            ),
            "WORKER_NICE": _declared(
                "whole number",
                10,
                "the Procfile's `worker-fast` and `worker-webhooks`",
                "CPU niceness of the fast lane's workers and the deliverer: below `web`.",
            ),
            "WORKER_BATCH_NICE": _declared(
                "whole number",
                15,
                "the Procfile's `worker-batch`",
                "CPU niceness of the batch lane's workers: below the fast lane's.",
            ),
            "WORKER_OCR_NICE": _declared(
                "whole number",
                15,
                "the Procfile's `worker-ocr`",
                "CPU niceness of the OCR lane's workers: below the fast lane's, so scans never "
                "slow a born-digital document.",
            ),
            "INGEST_WORKER_BEAT_SECONDS": _m(
                "How often a worker process writes its heartbeat row; three missed beats count "
                "it dead.",
                SECONDS,
            ),
            "INGEST_TARGET_QUEUE_SECONDS": _m(
                "`ingest_workers_wanted`: the threads that would drain a lane's backlog within "
                "this long.",
                SECONDS,
            ),
            "INGEST_MIN_WORKERS": _m("Lowest `ingest_workers_wanted`."),
            "INGEST_MAX_WORKERS": _m("Highest `ingest_workers_wanted`."),
        },
    ),
    Topic(
        "Embeddings",
        "embeddings.md",
        {
            "INGEST_EMBEDDINGS": _m(
                "The provider, short name of `INGEST_EMBED_PROVIDER` (which wins when set)."
            ),
            "INGEST_EMBED_PROVIDER": _m(
                "`local`: a semantic model run on this machine's CPU (ONNX Runtime, no key, no "
                "network); `openai`: OpenAI or a compatible server; `hashing`: deterministic, "
                "words only, no model.",
                shown="`INGEST_EMBEDDINGS`, else `openai` if `OPENAI_API_KEY` is set, else `local`",
            ),
            "INGEST_LOCAL_MODEL": _m(
                "Model of the `local` provider: `all-MiniLM-L6-v2-int8` (the packaged one) or "
                "a directory holding an ONNX sentence-embedding model (`model.onnx` and "
                "`tokenizer.json`). Never downloaded."
            ),
            "INGEST_LOCAL_PRECISION": _m(
                "`int8`: the `local` model's weight products in 8-bit integers (a copy made "
                "once under `INGEST_DATA_DIR/models/`); `fp32`: in floats, a third slower."
            ),
            "INGEST_LOCAL_THREADS": _m(
                "Threads of the `local` model in each process (its jobs take turns)."
            ),
            "OPENAI_API_KEY": _m(
                "API key of the `openai` provider (any value for a server that needs none)."
            ),
            "OPENAI_BASE_URL": _m(
                "An OpenAI-compatible server's base URL, e.g. `http://vllm:8000/v1`.",
                shown="empty (OpenAI's API)",
            ),
            "INGEST_EMBED_MODEL": _m("Model of the `openai` provider."),
            "INGEST_EMBED_DIMENSIONS": _m(
                "Vector size: the `vector(N)` column is made with it, and workers check column "
                "and provider against it as they start."
            ),
            "INGEST_EMBED_SEND_DIMENSIONS": _m(
                "Send `dimensions` with each request; `false` for servers that refuse it."
            ),
            "INGEST_EMBED_TIMEOUT_SECONDS": _m("Longest wait for one embedding request.", SECONDS),
            "INGEST_EMBED_RPM": _m(
                "Embedding requests a minute, shared by all workers.", "requests per minute"
            ),
            "INGEST_EMBED_TPM": _m(
                "Embedding tokens (characters / 4) a minute, shared by all workers.",
                "tokens per minute",
            ),
            "INGEST_EMBED_MAX_WAIT_SECONDS": _m(
                "Longest a worker waits for a rate-limit slot before the job is retried later.",
                SECONDS,
            ),
            "INGEST_EMBED_BATCH": _m(
                "Chunks embedded in one request and stored together (progress is written per "
                "batch).",
                "chunks",
            ),
            "INGEST_AUTO_REEMBED": _m(
                "When the configured embedding (provider, model or size) is not the one that "
                "made ready documents' vectors, the sweeper re-embeds them in the background, "
                "a wave at a time on the batch lane, then measures the new embedding's floor; "
                "`false`: only `manage.py reprocess embeddings` does "
                "([Changing the model](embeddings.md#changing-the-model))."
            ),
        },
    ),
    Topic(
        "Extraction and chunks",
        "extraction.md",
        {
            "INGEST_EXTRACTOR": _m(
                "What reads a PDF's text: PDFium (its pass reads the structure too; damaged "
                "and scant files go to pdfminer.six), or pdfminer.six for every file (the "
                "structure then costs a second pass: about 1.8 times the processing time)."
            ),
            "INGEST_STRUCTURE": _m(
                "`on`: each version's structure is read (blocks in reading order, with kinds, "
                "pages and boxes; furniture told apart) and its chunks follow it. `off`: "
                "pages as flat text, chunks cut inside each page."
            ),
            "INGEST_MAX_PAGES": _m(
                "Pages a document may have; more fails with `too_many_pages`.", "pages"
            ),
            "INGEST_EXTRACT_TIMEOUT_SECONDS": _m(
                "CPU time one reading of a PDF may use (then `too_complex`). Keep 1.5 times it "
                "below `INGEST_JOB_TIME_LIMIT_SECONDS`.",
                SECONDS,
            ),
            "INGEST_EXTRACT_MEMORY_MB": _m(
                "Address space of the process that reads a PDF; more fails with `too_complex`.",
                "MB",
            ),
            "INGEST_EXTRACT_POOL_SIZE": _m(
                "Reader processes each worker process keeps started (about 40 MB each when "
                "idle); 0: a fresh one per document."
            ),
            "INGEST_EXTRACT_POOL_RECYCLE_AFTER": _m(
                "Documents a reader process reads before it is replaced (and after any failure).",
                "documents",
            ),
            "INGEST_CHUNK_SIZE": _m("Target size of a chunk.", "characters"),
            "INGEST_CHUNK_OVERLAP": _m(
                "What each chunk repeats of the one before; below `INGEST_CHUNK_SIZE`.",
                "characters",
            ),
        },
    ),
    Topic(
        "OCR",
        "ocr.md",
        {
            "INGEST_OCR": _m(
                "`auto`: read by OCR every page whose text layer is missing or thin against "
                "the images on it; `force`: every page; `off`: none (a scan fails `no_text`)."
            ),
            "INGEST_OCR_LANGUAGES": _m(
                "Tesseract's languages, joined with `+` (`eng`, `deu`, `chi_sim`, ...); each "
                "needs its language file (`make ocr` installs eng, deu and chi_sim)."
            ),
            "INGEST_OCR_TESSDATA": _m(
                "Where Tesseract's language files are.",
                shown="`TESSDATA_PREFIX`, else Debian's `/usr/share/tesseract-ocr/5/tessdata`",
            ),
            "INGEST_OCR_DPI": _m("Resolution pages are rendered at for OCR.", "dots per inch"),
            "INGEST_OCR_MAX_PIXELS": _m(
                "Pixels of one page image: a page larger is rendered at a lower resolution, "
                "an embedded image larger fails with `too_complex`.",
                "pixels",
            ),
            "INGEST_OCR_PAGE_SECONDS": _m(
                "CPU time OCR may spend on one page; more fails with `too_complex`.", SECONDS
            ),
            "INGEST_OCR_TIMEOUT_SECONDS": _m(
                "CPU time one reading of a scan (its text layer and OCR) may use; more fails "
                "with `too_complex`.",
                SECONDS,
            ),
            "INGEST_OCR_MAX_PAGES": _m(
                "Pages one document may have to read by OCR; more fails with `too_many_pages`.",
                "pages",
            ),
            "INGEST_OCR_MEMORY_MB": _m(
                "Address space of the process that reads a scan by OCR; more fails with "
                "`too_complex`.",
                "MB",
            ),
        },
    ),
    Topic(
        "Search",
        "../using/search.md",
        {
            "INGEST_SEARCH_EXACT_BELOW": _m(
                "Scopes with at most this many ready chunks are scanned exactly; larger ones go "
                "through the HNSW index.",
                "chunks",
            ),
            "INGEST_SEARCH_EF_SEARCH": _m("`hnsw.ef_search` for larger scopes."),
            "INGEST_SEARCH_MAX_SCAN_TUPLES": _m(
                "`hnsw.max_scan_tuples`: how far an iterative index scan may go."
            ),
            "INGEST_SEARCH_MIN_SIMILARITY": _m(
                "A result found by its vector alone must be more similar (cosine) to the query "
                "than this. Unset: the floor measured for the embedding by `manage.py "
                "calibrate_search_floor` ([Search](../using/search.md#no-noise-the-floor)).",
                shown="measured",
            ),
            "INGEST_SEARCH_CACHE_SECONDS": _m(
                "How long a query's embedding is kept in Redis (per user).", SECONDS
            ),
            "INGEST_SEARCH_THROTTLE_RATE": _m(
                "Searches per user, the API and the page together, as `N/s`, `N/min` or `N/hour`."
            ),
            "INGEST_SEARCH_EMBED_SHARE": _m(
                "Largest share of the embedding rate limit that query embeddings may take."
            ),
            "INGEST_SEARCH_EMBED_MAX_WAIT_SECONDS": _m(
                "Longest a search waits for the shared rate limit before answering degraded.",
                SECONDS,
            ),
            "INGEST_SEARCH_EMBED_TIMEOUT_SECONDS": _m(
                "Longest a search waits for the provider before answering degraded.", SECONDS
            ),
            "INGEST_RERANK_URL": _m(
                "A rerank service's endpoint, whole (`https://api.cohere.com/v2/rerank`, "
                "`http://tei:8080/rerank`): `hybrid` and `vector` searches put their best "
                "candidates in its order. Unset: off "
                "([Re-ranking](../using/search.md#re-ranking))."
            ),
            "INGEST_RERANK_KEY": _m("Sent as `Authorization: Bearer <key>`; unset, none is sent."),
            "INGEST_RERANK_MODEL": _m(
                "Sent as `model` (Cohere and Jina need one, TEI serves its own); unset, none is "
                "sent."
            ),
            "INGEST_RERANK_FORMAT": _m(
                "The request's shape: `cohere` (`documents`: Cohere, Jina, vLLM, Infinity) or "
                "`tei` (`texts`); `auto`, `tei` for a URL whose path is `/rerank`, else `cohere`."
            ),
            "INGEST_RERANK_TOP": _m(
                "How many of a search's best candidates the reranker orders.", "candidates"
            ),
            "INGEST_RERANK_TIMEOUT_MS": _m(
                "Longest a search waits for the reranker before answering in its own order.",
                "milliseconds",
            ),
        },
    ),
    Topic(
        "Webhooks",
        "../using/webhooks.md",
        {
            "INGEST_WEBHOOK_ALLOW_PRIVATE": _m(
                "Let webhooks reach loopback, private, link-local and metadata addresses (a "
                "receiver on your own network, tests)."
            ),
            "INGEST_WEBHOOK_ALLOW_HTTP": _m(
                "With `INGEST_HTTPS`, still accept plain-http webhook URLs."
            ),
            "INGEST_WEBHOOK_MAX_ATTEMPTS": _m(
                "Attempts per delivery (about a day of backoff) before it is left failed."
            ),
            "INGEST_WEBHOOK_MAX_CONCURRENT_PER_USER": _m(
                "One account's deliveries under way at once; the rest wait their turn."
            ),
            "INGEST_MAX_WEBHOOK_ENDPOINTS_PER_USER": _m(
                "Webhook endpoints one account may register (409 `too_many_endpoints`)."
            ),
            "INGEST_WEBHOOK_SECRET_GRACE_SECONDS": _m(
                "After a rotation the old secret keeps signing beside the new one this long.",
                SECONDS,
            ),
            "INGEST_WEBHOOK_DNS_TIMEOUT_SECONDS": _m(
                "How long a webhook URL's host name may take to resolve.", SECONDS
            ),
            "INGEST_DNS_SERVERS": _m(
                "DNS servers for webhook host names, `host` or `host:port`.",
                shown="empty (the system's)",
            ),
        },
    ),
    Topic(
        "Operations",
        "operations.md",
        {
            "PROMETHEUS_MULTIPROC_DIR": _m(
                "Where each process writes its metrics for `/metrics` to add up (`make run` "
                "clears it).",
                shown="`$INGEST_DATA_DIR/prometheus`",
            ),
            "INGEST_METRICS_ALLOW_CIDRS": _m(
                "Addresses or networks that may read `/metrics` besides loopback.",
                shown="empty (loopback only)",
            ),
            "INGEST_METRICS_TOKEN": _m(
                "`Authorization: Bearer <token>` opens `/metrics` from anywhere.",
                shown="empty (no token)",
            ),
            "WORKER_METRICS_PORT": _m(
                "On a machine of workers alone (a worker pod), one worker process serves the "
                "machine's counters at `:<port>/metrics`, under the same rule as the web's "
                "(loopback, `INGEST_METRICS_ALLOW_CIDRS`, the token). `0`: none do; where web "
                "and workers share a machine, the web's `/metrics` has them.",
                shown="`0` (off)",
            ),
            "WORKER_METRICS_HOST": _m(
                "The address `WORKER_METRICS_PORT` listens on.", shown="`0.0.0.0`"
            ),
            "INGEST_OPS_RETENTION_DAYS": _m(
                "How much per-minute history the ops dashboard keeps.", "days"
            ),
            "INGEST_ALERT_WEBHOOK_URL": _m(
                "A Slack-compatible incoming webhook for alerts.", shown="empty (no alerts)"
            ),
            "INGEST_ALERT_QUEUE_AGE_SECONDS": _m(
                "Alert when a lane's oldest due job has waited longer.", SECONDS
            ),
            "INGEST_ALERT_MIN_INTERVAL_SECONDS": _m(
                "At most one alert of each kind this often, across all processes (0: no throttle).",
                SECONDS,
            ),
            "INGEST_PUBLIC_URL": _m(
                "The service's address, e.g. `https://ingest.example.com`, for links made "
                "outside a request (alerts, webhook events). Unset, an alert names the path "
                "only, and an event's `status_url` starts where the upload's request reached "
                "the service, as the upload's answer did (`http://127.0.0.1:PORT` for a job no "
                "request made).",
                shown="empty",
            ),
            "LOG_LEVEL": _m("Level of the root logger."),
        },
    ),
    Topic(
        "Make targets, tests and lint",
        "../working/tests.md",
        {
            "PYTHON": _declared(
                "text", "python3", "the Makefile", "The Python that makes `.venv` (3.11 on)."
            ),
            "PYTEST_ARGS": _declared(
                "text", "", "the Makefile", "Arguments for pytest in `make test` and `make chaos`."
            ),
            "LOADTEST_USERS": _declared(
                "whole number", 500, "the Makefile", "Users of `make loadtest`."
            ),
            "LOADTEST_ARGS": _declared(
                "text",
                "",
                "the Makefile",
                "Arguments for `python -m tests.bench.loadtest` (`--help` lists them).",
            ),
            "BENCH_ARGS": _declared(
                "text", "", "the Makefile", "Arguments for `python -m tests.bench` in `make bench`."
            ),
            "BENCH_WS_ARGS": _declared(
                "text",
                "",
                "the Makefile",
                "Arguments for the websocket benchmark in `make bench` (`--quick`: a short run).",
            ),
            "SCALE_ARGS": _declared(
                "text",
                "",
                "the Makefile",
                "Arguments for `python -m tests.bench.scale.build` in `make scale-data` "
                "(`--scale 0.1`: a tenth; `--rebuild`: start over).",
            ),
            "IMAGE_ARGS": _declared(
                "text",
                "",
                "the Makefile",
                "Arguments for `config/deploy/image.sh` in `make image` (`--no-check`: build "
                "only).",
            ),
            "INGEST_IMAGE_STORAGE_DRIVER": _declared(
                "text",
                "overlay",
                "config/deploy/image.sh",
                "podman's storage driver for `make image` (`vfs` where overlay cannot mount).",
            ),
            "INGEST_IMAGE_BUILD_ARGS": _declared(
                "text",
                "",
                "config/deploy/image.sh",
                "More arguments for `make image`'s `podman build`, e.g. `--no-cache`.",
            ),
            "DEBIAN_MIRROR": _declared(
                "text",
                "",
                "config/deploy/image.sh",
                "The Debian archive `make image`'s debootstrap reads.",
                shown="empty (debootstrap's default)",
            ),
            "DEBIAN_SECURITY_MIRROR": _declared(
                "text",
                "",
                "config/deploy/image.sh",
                "The Debian security archive of `make image`'s base.",
                shown="empty (the archive's URL with `-security`)",
            ),
            "CHAOS_ROUNDS": _declared(
                "whole number",
                5,
                "the Makefile",
                "How often `make chaos` repeats the kill and 429-storm scenarios.",
            ),
            "INGEST_CHAOS_ROUNDS": _declared(
                "whole number",
                1,
                "tests/chaos",
                "Rounds of the kill and 429-storm scenarios (`make chaos` sets it; then the "
                "whole corpus also runs end to end with each extractor).",
            ),
            "PYTEST_WORKERS": _declared(
                "whole number",
                3,
                "the Makefile",
                "Parallel pytest processes of `make test`, each on private services of its "
                "own (`0`: the suite in one process).",
            ),
            "INGEST_SKIP_BROWSER_TESTS": _declared(
                "text",
                "",
                "the Makefile and the browser tests",
                "`1`, `true` or `yes`: skip the browser tests, and installing chromium for them.",
            ),
            "CHROMIUM_PATH": _declared(
                "text",
                "",
                "the Makefile and the browser tests",
                "A Chromium executable for the browser tests.",
                shown="empty (`chromium` on `PATH`)",
            ),
            "INGEST_FUZZ_EXAMPLES": _declared(
                "whole number",
                20,
                "tests/config/test_schema_fuzz.py",
                "Generated cases per API operation in the schema fuzz test.",
            ),
            "INGEST_KEEP_TEST_ROOT": _declared(
                "text",
                "",
                "tests/services.py",
                "Any value: keep the test run's Postgres and Redis directory, to look inside.",
            ),
            "INGEST_SKIP_AUDIT": _declared(
                "text",
                "",
                "requirements/audit.py",
                "`1`, `true` or `yes`: skip the dependency audit in `make lint`.",
            ),
            "INGEST_AUDIT_STRICT": _declared(
                "text",
                "",
                "requirements/audit.py",
                "`1`, `true` or `yes`: fail `make lint` when some requirements went unaudited.",
            ),
        },
    ),
]


def meanings() -> dict[str, Meaning]:
    """Every documented variable, by name (a name listed twice is a mistake: it raises)."""
    found: dict[str, Meaning] = {}
    for topic in TOPICS:
        for name, meaning in topic.variables.items():
            if name in found:
                raise ValueError(f"{name} is listed under two topics")
            found[name] = meaning
    return found
