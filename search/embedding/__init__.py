"""Embedding providers behind one function: texts in, vectors out (INGEST_EMBED_PROVIDER).

- `hashing` (hashing.py): deterministic, local, no network; the default without an API key.
- `openai` (openai_provider.py): the official client against OpenAI or any compatible
  server, paced by a rate limiter that all worker processes share (ratelimit.py).
- `local` (local_provider.py): a sentence-transformers model on the CPU, an optional
  install; no key, no network.
"""

import logging
from collections.abc import Sequence

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from search.embedding import local_provider, openai_provider
from search.embedding.hashing import hashing_embed
from search.pipeline.errors import PermanentError, TransientError

__all__ = ["embed", "hashing_embed", "probe_provider"]

log = logging.getLogger(__name__)

PROBE_TEXT = "dimension probe"


def embed(texts: Sequence[str]) -> list[list[float]]:
    """One vector of INGEST_EMBED_DIMENSIONS per text, in order, from the configured provider.

    Raises the errors of search.pipeline.errors (see openai_provider.embed); `hashing`
    never fails.
    """
    if not texts:
        return []
    if settings.INGEST_EMBED_PROVIDER == "openai":
        return openai_provider.embed(texts)
    if settings.INGEST_EMBED_PROVIDER == "local":
        return local_provider.embed(texts)
    return hashing_embed(texts, settings.INGEST_EMBED_DIMENSIONS)


def probe_provider() -> None:
    """Embed one short text and check the provider's vectors fit INGEST_EMBED_DIMENSIONS.

    Raises ImproperlyConfigured when the provider answers with the wrong size or refuses
    the request (key, model). A transient failure (provider down, rate limited) is only
    logged: it says nothing about the configuration, and the jobs retry anyway. A no-op
    for `hashing`, whose vectors always have the configured size.
    """
    if settings.INGEST_EMBED_PROVIDER == "hashing":
        return
    if settings.INGEST_EMBED_PROVIDER == "local":
        size = local_provider.dimensions()  # loads the model: once, here, at the start
        if size != settings.INGEST_EMBED_DIMENSIONS:
            raise ImproperlyConfigured(
                f"INGEST_LOCAL_MODEL {settings.INGEST_LOCAL_MODEL!r} makes {size}-dimensional "
                f"vectors, but INGEST_EMBED_DIMENSIONS is {settings.INGEST_EMBED_DIMENSIONS}."
            )
        return
    try:
        embed([PROBE_TEXT])
    except PermanentError as exc:
        raise ImproperlyConfigured(
            f"Embedding provider {settings.INGEST_EMBED_PROVIDER!r} "
            f"(model {settings.INGEST_EMBED_MODEL!r}) failed its start-up probe: {exc.detail}"
        ) from exc
    except TransientError as exc:
        log.warning("embedding provider probe inconclusive (%s): %s", exc.code, exc.detail)
