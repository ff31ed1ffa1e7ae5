"""gunicorn settings for the `web` process (Procfile). Threads, not async: docs/running/serving.md.

gunicorn loads this file by path, from the checkout (the Procfile's working directory),
so `config.common.env` imports as it does in Django: a bad value stops gunicorn with its message.
"""

from config.common.env import env_int, env_str
from config.common.proxy_env import (
    gunicorn_forwarded_allow_ips,
    gunicorn_secure_scheme_headers,
    trust_forwarded_proto,
    trusted_proxies,
)
from config.http import gthread

bind = f"{env_str('HOST', '127.0.0.1')}:{env_int('PORT', 8000, minimum=0)}"
workers = env_int("WEB_CONCURRENCY", 2, minimum=1)
# gthread, with uploads on WEB_THREADS and every other request on WEB_SMALL_THREADS of its
# own, so that a small request never waits behind upload bodies (config/http/gthread.py).
worker_class = "config.http.gthread.UploadsApartWorker"
threads = env_int("WEB_THREADS", 8, minimum=1)
small_threads = gthread.small_threads()  # read here too: a bad value stops gunicorn at once
timeout = 60
accesslog = "-" if env_str("WEB_ACCESS_LOG") else None
# gunicorn sets wsgi.url_scheme from forwarded headers before Django's middleware runs, and
# by default believes them from 127.0.0.1 and ::1: any local peer could make a request
# secure. It believes the proxies Django believes (INGEST_TRUSTED_PROXIES, none by
# default), and the one header Django reads, when Django reads it.
forwarded_allow_ips = gunicorn_forwarded_allow_ips(trusted_proxies())
secure_scheme_headers = gunicorn_secure_scheme_headers(trust_forwarded_proto())
# gunicorn 27's control socket lives at one path per user (~/.gunicorn/gunicorn.ctl), so two
# servers on one machine (make run, the benchmark, the browser tests) would fight over it;
# nothing here uses it.
control_socket_disable = True
# No child_exit hook for prometheus_client's mark_process_dead: it only tidies live gauges,
# and config/common/metrics.py has none (a dead worker's counters must keep counting). This
# master never loads Django's settings, so it would not know the directory anyway.


def post_worker_init(worker: object) -> None:
    """Each web process, once it has loaded the app (and with it Django), before its first
    request: it builds its S3 client (config/common/s3.py), which its threads share, and
    the `local` embedding model starts loading on a thread of its own
    (search/embedding/warm.py), so the first search does not wait for it. Here rather than
    in an AppConfig's ready(), which `manage.py` commands and tests run too."""
    from django.core.files.storage import default_storage

    from config.common.s3 import warm as build_s3_client
    from search.embedding import warm

    build_s3_client(default_storage)
    warm.in_background()
