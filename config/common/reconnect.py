"""Ride out a database restart or failover: try again on a new connection. For the workers'
writes and reads, and for an answer the web is already streaming (which can no longer
turn into a 503)."""

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from django.db import InterfaceError, OperationalError, connection

log = logging.getLogger(__name__)
T = TypeVar("T")

# Seconds between tries. A restart takes a second or two; a failover may take longer, and
# past these the caller's own recovery (a redelivery, the sweeper) takes over.
WAITS = (0.5, 1, 2, 4, 8)
UNREACHABLE = (OperationalError, InterfaceError)


def when_database_answers(call: Callable[[], T], *, waits: tuple[float, ...] = WAITS) -> T:
    """`call()`, tried again after each wait while the database cannot be reached, each
    time on a new connection (the old one died with the server). Raises the last error
    when it stays away. Only for calls that are safe to repeat."""
    for wait in waits:
        try:
            return call()
        except UNREACHABLE as exc:
            log.warning("database unreachable, trying again in %s s: %s", wait, exc)
            connection.close()
            time.sleep(wait)
    try:
        return call()
    except UNREACHABLE:
        connection.close()
        raise
