"""The query's embedding: from Redis when this text was embedded lately, else the provider.

Cached per owner, by provider, model, dimensions and the text's sha256, for
INGEST_SEARCH_CACHE_SECONDS, as float32 bytes. Per owner, because a shared cache would
answer faster for a text someone else searched lately, telling anyone who times it what
others search for. A search waits at most
INGEST_SEARCH_EMBED_MAX_WAIT_SECONDS for the rate limit the workers share (a worker may
wait a minute; a person typing may not) and INGEST_SEARCH_EMBED_TIMEOUT_SECONDS for the
provider. The `hashing` provider takes microseconds and is neither cached nor paced; the
`local` model takes a few milliseconds in this process, and keeps its LOCAL_CACHED latest
query vectors in this process, per owner too.

Any failure raises QueryEmbeddingFailed; the caller answers from text alone.
"""

import functools
import hashlib
import logging
import struct
import time

import redis
from django.conf import settings

from config.common import redis_clients
from search.embedding import hashing_embed, local_provider, openai_provider
from search.embedding.signature import current_signature
from search.pipeline.errors import PipelineError

log = logging.getLogger(__name__)

LOCAL_CACHED = 4096  # about 6 MB of vectors


class QueryEmbeddingFailed(Exception):
    """The query could not be embedded now (provider, rate limit, Redis, configuration)."""


def _redis(url: str) -> redis.Redis:
    return redis_clients.client(url, connect_timeout=1, timeout=1)


def cache_key(text: str, *, owner_id: int) -> str:
    digest = hashlib.sha256(text.encode()).hexdigest()
    return (
        f"ingest:search:qvec:{owner_id}:{settings.INGEST_EMBED_PROVIDER}:"
        f"{settings.INGEST_EMBED_MODEL}:{settings.INGEST_EMBED_DIMENSIONS}:{digest}"
    )


def query_vector(text: str, *, owner_id: int) -> tuple[list[float], float]:
    """(the vector, milliseconds spent asking the provider: 0 from the owner's cache)."""
    if settings.INGEST_EMBED_PROVIDER == "hashing":
        started = time.perf_counter()
        [vector] = hashing_embed([text], settings.INGEST_EMBED_DIMENSIONS)
        return vector, (time.perf_counter() - started) * 1000
    if settings.INGEST_EMBED_PROVIDER == "local":
        started = time.perf_counter()
        hits_before = _local_vector.cache_info().hits
        try:
            vector = list(_local_vector(owner_id, current_signature(), text))
        except Exception as exc:  # a broken model: text search still answers
            raise QueryEmbeddingFailed(f"{type(exc).__name__}: {exc}") from exc
        if _local_vector.cache_info().hits > hits_before:
            return vector, 0.0
        return vector, (time.perf_counter() - started) * 1000
    key = cache_key(text, owner_id=owner_id)
    try:
        cached = _redis(settings.REDIS_URL).get(key)
    except redis.RedisError as exc:
        raise QueryEmbeddingFailed(f"Redis: {exc}") from exc
    dimensions = settings.INGEST_EMBED_DIMENSIONS
    if isinstance(cached, bytes) and len(cached) == 4 * dimensions:
        return list(struct.unpack(f"<{dimensions}f", cached)), 0.0
    started = time.perf_counter()
    vector = _ask_provider(text)
    embed_ms = (time.perf_counter() - started) * 1000
    try:
        _redis(settings.REDIS_URL).set(
            key,
            struct.pack(f"<{dimensions}f", *vector),
            ex=settings.INGEST_SEARCH_CACHE_SECONDS,
        )
    except redis.RedisError:
        log.warning("could not cache a query embedding", exc_info=True)
    return vector, embed_ms


@functools.lru_cache(maxsize=LOCAL_CACHED)
def _local_vector(owner_id: int, signature: str, text: str) -> tuple[float, ...]:
    """The `local` model's vector of `text`, for this owner and embedding (both in the key
    only, so that one owner's searches never answer another's faster)."""
    [vector] = local_provider.embed([text])
    return tuple(vector)


def _ask_provider(text: str) -> list[float]:
    """openai_provider.embed with a search's shorter waits (same errors, same pacing)."""
    timeout = min(
        float(settings.INGEST_SEARCH_EMBED_TIMEOUT_SECONDS),
        float(settings.INGEST_EMBED_TIMEOUT_SECONDS),
    )
    try:
        [vector] = openai_provider.embed(
            [text],
            max_wait=settings.INGEST_SEARCH_EMBED_MAX_WAIT_SECONDS,
            timeout=timeout,
            searching=True,
        )
    except PipelineError as exc:
        raise QueryEmbeddingFailed(f"{exc.code}: {exc.detail}") from exc
    except Exception as exc:  # configuration, a broken answer: text search still answers
        raise QueryEmbeddingFailed(f"{type(exc).__name__}: {exc}") from exc
    return vector
