"""Dramatiq middleware: a worker process checks its embedding set-up before taking work."""

import logging

import dramatiq
from django.core.exceptions import ImproperlyConfigured
from django.db import DatabaseError, connection
from dramatiq.middleware import Middleware, MiddlewareError

log = logging.getLogger(__name__)


class EmbeddingMisconfigured(MiddlewareError):
    """The vectors this worker would make cannot be stored: it must not start."""


class EmbeddingStartupCheck(Middleware):
    """As each worker process boots, before it consumes a job: the chunk column's size
    must be INGEST_EMBED_DIMENSIONS, and so must the provider's vectors (probe_provider).

    It hooks `before_worker_boot` because Dramatiq stops the boot only for a
    MiddlewareError raised there; failures in `after_worker_boot` are logged and ignored,
    which would leave a misconfigured worker failing every job it takes.
    """

    def before_worker_boot(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        # Imported here: the broker (and this middleware) is built while Django is still
        # loading its apps, before models can be imported.
        from search.embedding import probe_provider

        try:
            _verify_column()
            probe_provider()
        except ImproperlyConfigured as exc:
            log.critical("%s", exc)
            raise EmbeddingMisconfigured(str(exc)) from exc


def _verify_column() -> None:
    from search.checks import verify_embedding_column

    try:
        verify_embedding_column()
    except DatabaseError:
        # An unreachable database says nothing about the configuration; jobs will retry.
        log.warning("could not read the chunk column's size at worker start", exc_info=True)
    finally:
        # The boot thread does no other database work; worker threads open their own.
        # Inside a transaction (a test's), closing would break it, so leave that one be.
        if not connection.in_atomic_block:
            connection.close()
