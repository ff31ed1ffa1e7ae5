"""Expired Idempotency-Key rows are deleted by the sweeper's pass, in bounded batches."""

from datetime import timedelta

import pytest
from django.utils import timezone

from documents.front_door.idempotency import forget_expired
from documents.models import IdempotencyKey
from jobs import sweeper

pytestmark = pytest.mark.django_db


def keys(owner, count: int, *, age: timedelta, prefix: str) -> None:
    IdempotencyKey.objects.bulk_create(
        IdempotencyKey(owner=owner, key=f"{prefix}-{n}", fingerprint="f") for n in range(count)
    )
    IdempotencyKey.objects.filter(key__startswith=f"{prefix}-").update(
        created_at=timezone.now() - age
    )


def test_each_sweep_deletes_expired_keys_and_keeps_fresh_ones(alice):
    keys(alice, 3, age=timedelta(hours=25), prefix="old")
    keys(alice, 2, age=timedelta(hours=1), prefix="new")

    sweeper.run_each_pass()

    assert sorted(IdempotencyKey.objects.values_list("key", flat=True)) == ["new-0", "new-1"]


def test_a_backlog_drains_in_bounded_batches(alice):
    keys(alice, 25, age=timedelta(days=3), prefix="old")
    keys(alice, 4, age=timedelta(minutes=5), prefix="new")

    first = forget_expired(batch=10, batches=2)
    second = forget_expired(batch=10, batches=2)
    third = forget_expired(batch=10, batches=2)

    assert (first, second, third) == (20, 5, 0)
    assert IdempotencyKey.objects.count() == 4


def test_the_oldest_keys_go_first(alice):
    keys(alice, 3, age=timedelta(days=2), prefix="older")
    keys(alice, 3, age=timedelta(days=5), prefix="oldest")

    assert forget_expired(batch=3, batches=1) == 3

    assert set(IdempotencyKey.objects.values_list("key", flat=True)) == {
        "older-0",
        "older-1",
        "older-2",
    }
