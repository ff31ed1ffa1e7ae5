"""gunicorn settings for the `web` process (Procfile). Threads, not async: see README."""

import os

bind = f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "gthread"
threads = int(os.environ.get("WEB_THREADS", "8"))
timeout = 60
accesslog = "-" if os.environ.get("WEB_ACCESS_LOG", "") else None
# gunicorn 27's control socket lives at one path per user (~/.gunicorn/gunicorn.ctl), so two
# servers on one machine (make run, the benchmark, the browser tests) would fight over it;
# nothing here uses it.
control_socket_disable = True
