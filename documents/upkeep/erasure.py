"""Deleting completely: all of an account's documents, or the account itself (erasure).

In batches of BATCH documents, each its own transaction: a document's rows go together
(its jobs, attempts, chunks and vectors by the foreign keys' cascade, its webhook events
with their deliveries, pending ones included), and its stored files once that commits.
Then, for an account, everything left under its storage prefix (files a crash left
between a batch's commit and their deletion, direct uploads' objects and unfinished
parts), its cached query embeddings in Redis, and the account's own rows (tokens,
webhook endpoints, secrets, Idempotency-Key answers) with the user. Each step finds what
is left: a second run finishes what a crash left.
"""

import logging
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files.storage import default_storage

from config.common import redis_clients
from documents.direct import bucket
from documents.models import DirectUpload, DirectUploadStatus
from documents.services.deletion import erase_documents
from documents.upkeep.orphans import PREFIX
from documents.upkeep.verify import stored_files
from jobs.webhooks.erasure import delete_events_of_owner

log = logging.getLogger(__name__)

BATCH = 200
QUERY_CACHE = "ingest:search:qvec:{owner}:*"  # search/retrieval/query_vector.py's keys of an owner


def erase_user(user_id: int, *, on_batch: Callable[[int], None] | None = None) -> int:
    """Erase the account and all it holds (see the module's text); how many documents went.
    Works on an id whose user is already gone: the storage and the cache are swept again."""
    erased = erase_documents(owner_id=user_id, on_batch=on_batch)
    started = DirectUpload.objects.filter(owner_id=user_id, status=DirectUploadStatus.STARTED)
    for upload in started if bucket.available() else []:
        try:
            bucket.delete_object(upload)  # unfinished parts are no listed objects
        except Exception:
            log.warning("erasure: could not discard direct upload %s", upload.id, exc_info=True)
    for stored in list(stored_files(default_storage, f"{PREFIX}/{user_id}")):
        default_storage.delete(stored.name)
    _forget_query_cache(user_id)
    delete_events_of_owner(user_id, batch=BATCH)  # events of documents deleted before
    get_user_model().objects.filter(id=user_id).delete()  # tokens, endpoints, keys: cascade
    return erased


def _forget_query_cache(user_id: int) -> None:
    client = redis_clients.client(settings.REDIS_URL, connect_timeout=2, timeout=5)
    names = list(client.scan_iter(match=QUERY_CACHE.format(owner=user_id), count=1000))
    for start in range(0, len(names), 500):
        client.delete(*names[start : start + 500])
