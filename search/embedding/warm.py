"""The `local` model loaded as a web process starts, so that its first search does not wait.

Loading the model takes a second or more (several on a busy machine, and more the first
time a machine makes its int8 copy: onnx_prepare.py). A worker loads it at its start-up
probe (search/middleware.py), before it takes a job. A web process would load it at its
first search, inside that request, and the person searching would wait with it. So
gunicorn's `post_worker_init` hook (config/gunicorn.py) calls `in_background` once per web
process, after the app is loaded: a thread of its own loads the model and embeds one text
while the process already answers. A search arriving meanwhile waits for that load (the
provider's lock) and never loads it twice.

Nothing else calls it, not an AppConfig's ready(): `manage.py` commands and tests load
Django too, and most of them never embed.
"""

from __future__ import annotations

import logging
import threading
import time

from django.conf import settings

from search.embedding import local_provider

log = logging.getLogger(__name__)

WARM_TEXT = "warm up"


def in_background() -> threading.Thread | None:
    """Start loading the configured local model on a daemon thread; None (and nothing
    started) when the provider is not `local`."""
    if settings.INGEST_EMBED_PROVIDER != "local":
        return None
    thread = threading.Thread(target=load, name="load-embedding-model", daemon=True)
    thread.start()
    return thread


def load() -> None:
    """Load the model and run it once; a failure is logged, and a search tries again."""
    started = time.monotonic()
    try:
        local_provider.embed([WARM_TEXT])  # the first run sets the session up too
    except Exception:
        log.warning(
            "the local embedding model did not load at start; searches will try again",
            exc_info=True,
        )
        return
    log.info("local embedding model loaded in %.1f s", time.monotonic() - started)
