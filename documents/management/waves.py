"""What the commands that re-queue documents in waves share (manage.py reembed, reocr):
the pause between looks at the lane, and a Ctrl-C that stops queuing rather than the run.
"""

import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from django.core.management.base import OutputWrapper


class WaveRun:
    """A run of waves: `stopping` once told to stop; `poll` seconds between looks."""

    stopping: bool
    poll: float
    err: OutputWrapper

    def _sleep(self) -> None:
        deadline = time.monotonic() + self.poll
        while not self.stopping and time.monotonic() < deadline:
            time.sleep(min(0.05, self.poll))

    @contextmanager
    def _ctrl_c(self) -> Iterator[None]:
        """The first Ctrl-C stops queuing at the next document (nothing half done: each
        document is queued in one transaction); a second one interrupts as usual."""

        def stop(signum: int, frame: FrameType | None) -> None:
            self.stopping = True
            self.err.write("stopping: no more documents will be queued (Ctrl-C again to quit)")
            signal.signal(signal.SIGINT, previous)

        try:
            previous = signal.signal(signal.SIGINT, stop)
        except ValueError:  # not the main thread: no signal handling to change
            yield
            return
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)
