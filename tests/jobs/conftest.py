"""Fixtures for the job admin's tests (their helpers are in tests/jobs/admin/admin_console.py)."""

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.jobs.admin.admin_console import logged_in


@pytest.fixture
def operator(db) -> User:
    return User.objects.create_superuser("olivia", "olivia@example.com", "olivia-password")


@pytest.fixture
def operator_client(operator) -> Client:
    return logged_in(operator)
