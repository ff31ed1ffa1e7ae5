"""Idempotency-Key: a repeated request gets the first answer again and creates nothing."""

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from config.common.pruning import in_batches
from documents.models import IdempotencyKey


@dataclass
class Slot:
    """What to do with a request: replay an earlier answer, refuse it, or run it and
    record its answer with `remember`."""

    record: IdempotencyKey
    replay: tuple[int, dict] | None = None
    mismatch: bool = False

    def remember(self, status_code: int, body: dict) -> None:
        self.record.status_code = status_code
        self.record.body = body
        self.record.save(update_fields=["status_code", "body"])


def fingerprint(parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


@contextmanager
def idempotent(*, owner_id: int, key: str, request_fingerprint: str) -> Iterator[Slot]:
    """Run the body once per (owner, key) within the retention period.

    Everything inside runs in one transaction that starts by inserting the key's row: a
    concurrent request with the same key waits on that row until this one commits, then
    replays the stored answer. If the body raises, the row goes with the rollback and a
    later repeat runs afresh.
    """
    with transaction.atomic():
        record, created = IdempotencyKey.objects.get_or_create(
            owner_id=owner_id, key=key, defaults={"fingerprint": request_fingerprint}
        )
        if not created and _expired(record):
            record.delete()
            record = IdempotencyKey.objects.create(
                owner_id=owner_id, key=key, fingerprint=request_fingerprint
            )
            created = True
        slot = Slot(record=record)
        if not created:
            if record.fingerprint != request_fingerprint:
                slot.mismatch = True
            else:
                # A row that another request committed: it recorded its answer in that
                # same transaction (a body that raised took the row with its rollback).
                assert record.status_code is not None
                assert record.body is not None
                slot.replay = (record.status_code, record.body)
        yield slot


def answered(*, owner_id: int, key: str, request_fingerprint: str) -> Slot | None:
    """The answer already recorded under (owner, key), without waiting or locking: a
    Slot to replay (or refuse as a mismatch), or None when there is none yet (`idempotent`
    then decides, under the key's lock)."""
    record = IdempotencyKey.objects.filter(
        owner_id=owner_id, key=key, status_code__isnull=False
    ).first()
    if record is None or _expired(record):
        return None
    if record.fingerprint != request_fingerprint:
        return Slot(record=record, mismatch=True)
    assert record.status_code is not None
    assert record.body is not None
    return Slot(record=record, replay=(record.status_code, record.body))


def _expired(record: IdempotencyKey) -> bool:
    ttl = timedelta(seconds=settings.INGEST_IDEMPOTENCY_TTL_SECONDS)
    return record.created_at < timezone.now() - ttl


# The sweeper prunes on each pass, as it prunes everything (config/common/pruning.py).
PRUNE_BATCH = 1000
PRUNE_BATCHES_PER_PASS = 10


def forget_expired(*, batch: int = PRUNE_BATCH, batches: int = PRUNE_BATCHES_PER_PASS) -> int:
    """Delete keys past the retention period, at most `batch` times `batches` of them, oldest
    first; returns how many. Rows that a request holds are skipped until the next call."""
    cutoff = timezone.now() - timedelta(seconds=settings.INGEST_IDEMPOTENCY_TTL_SECONDS)

    def one_batch() -> int:
        with transaction.atomic():
            ids = list(
                IdempotencyKey.objects.select_for_update(skip_locked=True)
                .filter(created_at__lt=cutoff)
                .order_by("created_at")
                .values_list("id", flat=True)[:batch]
            )
            IdempotencyKey.objects.filter(id__in=ids).delete()
        return len(ids)

    return in_batches(one_batch, batch=batch, batches=batches)
