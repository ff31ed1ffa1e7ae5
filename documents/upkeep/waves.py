"""Re-processing in waves (manage.py reprocess): the loop every kind of re-run shares.

A kind (re-embedding, re-OCR; re-extraction next) says which documents qualify, how one
is queued again and how its job ended; `Run` queues them a wave at a time, so the lane's
workers (and the embedding API's shared rate limiter) set the pace, reports progress,
stops queuing on the first Ctrl-C and waits for what it queued. Each of its looks at the
lane is `top_up`, which never waits, so a caller that cannot wait (a periodic pass) can
take the same step. A re-run is a new job of the version search already serves: the owner
never sees a new version for it.
"""

import signal
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Protocol

from django.db.models import F, QuerySet, Window
from django.db.models.functions import RowNumber

from documents.models import Document
from jobs import fairness
from jobs.models import Lane

DONE = "done"  # an ending: the job succeeded as the run meant


def batch_wave() -> int:
    """The batch lane's default wave, twice its worker threads: each thread has one job
    waiting behind the one it runs, so the oldest queued job waits about one job's time.
    A longer queue would only age: past INGEST_MAX_QUEUE_AGE_SECONDS admission control
    refuses every upload."""
    return 2 * fairness.lane_threads(Lane.BATCH)


class Kind(Protocol):
    """One kind of re-processing, over the documents its scope takes."""

    @property
    def lane(self) -> str:
        """The lane whose room a wave fills, as the command's lines name it."""
        ...

    @property
    def again(self) -> str:
        """The command line that continues a stopped run."""
        ...

    def busy(self, pending: set[uuid.UUID]) -> int:
        """Jobs in flight that a wave waits on (anyone's), `pending` being this run's."""
        ...

    def next_candidates(self, *, limit: int, skip: set[uuid.UUID]) -> list[uuid.UUID]:
        """Up to `limit` documents to queue next, none of `skip`."""
        ...

    def requeue(self, document_id: uuid.UUID) -> uuid.UUID | None:
        """Queue the document again (its job sent after commit); the job's id, or None
        when, looked at under its lock, it no longer qualifies."""
        ...

    def endings(self, job_ids: list[uuid.UUID]) -> dict[uuid.UUID, str]:
        """How each of these jobs that has ended ended: DONE or the kind's word for it."""
        ...

    def failed(self, ended: Counter[str]) -> int:
        """How many of the ended jobs failed."""
        ...

    def wrong_settings(self, ended: Counter[str]) -> str | None:
        """Why the run must stop, when endings show the workers run with other settings
        than the command; None while they do not."""
        ...

    def summary(self, ended: Counter[str]) -> list[str]:
        """Lines that follow the final counts: what the failures mean, and so on."""
        ...


def owners_in_turn(
    documents: QuerySet[Document], *, limit: int, skip: set[uuid.UUID]
) -> list[uuid.UUID]:
    """Up to `limit` of these documents, none of `skip`: each owner's oldest first, owners
    taking turns, so one account's thousand documents do not hold the lane (jobs/fairness.py
    would let them run only half its threads anyway)."""
    if limit <= 0:
        return []
    turns = (
        documents.exclude(id__in=skip)
        .annotate(
            turn=Window(RowNumber(), partition_by=[F("owner_id")], order_by=F("created_at").asc())
        )
        .order_by("turn", "created_at", "id")
    )
    return list(turns.values_list("id", flat=True)[:limit])


@dataclass
class TopUp:
    """What one look at the lane queued."""

    jobs: list[uuid.UUID] = field(default_factory=list)  # the jobs queued
    # Documents taken: queued, or found no longer qualifying under their lock.
    documents: list[uuid.UUID] = field(default_factory=list)
    exhausted: bool = False  # the lane had room and nothing was left to queue


def top_up(
    kind: Kind,
    *,
    wave: int,
    pending: set[uuid.UUID],
    skip: set[uuid.UUID],
    stopping: Callable[[], bool] = lambda: False,
) -> TopUp:
    """Fill the lane's room under `wave` jobs in flight (anyone's) with the kind's next
    documents, none of `skip`, once, without waiting: the step a run repeats. `pending`
    are the jobs the caller queued that have not ended; `stopping` is asked before each
    document (each is queued in its own transaction, so none is half queued)."""
    done = TopUp()
    room = wave - kind.busy(pending)
    if room <= 0:
        return done
    ids = kind.next_candidates(limit=room, skip=skip)
    done.exhausted = not ids
    for document_id in ids:
        if stopping():
            break
        job_id = kind.requeue(document_id)
        done.documents.append(document_id)
        if job_id is not None:
            done.jobs.append(job_id)
    return done


class WrongSettings(Exception):
    """The workers run with other settings than the run: queuing more would be waste."""


class Run:
    """One run's loop: queue while the lane has room, report, stop on Ctrl-C."""

    REPORT_EVERY = 30.0  # seconds between progress lines when nothing changes

    def __init__(
        self,
        kind: Kind,
        *,
        wave: int,
        poll: float,
        total: int,
        say: Callable[[str], None],
        warn: Callable[[str], None],
    ) -> None:
        self.kind, self.wave, self.poll, self.total = kind, wave, poll, total
        self.say, self.warn = say, warn
        self.queued = 0
        self.pending: set[uuid.UUID] = set()  # jobs this run queued that have not ended
        self.ended: Counter[str] = Counter()  # DONE or the kind's word for another end
        # Documents this run queued or found no longer qualifying: never taken twice.
        self.seen: set[uuid.UUID] = set()
        self.stopping = False
        self.last_line, self.last_time = "", 0.0

    def go(self) -> None:
        """Queue every qualifying document and wait for their jobs; raises WrongSettings
        (after the summary) when the workers turned out to run with other settings."""
        with self._ctrl_c():
            self._queue_all()
            self._wait()
        self._summary()
        if reason := self.kind.wrong_settings(self.ended):
            raise WrongSettings(reason)

    def _queue_all(self) -> None:
        while not self._report():
            step = top_up(
                self.kind,
                wave=self.wave,
                pending=self.pending,
                skip=self.seen,
                stopping=lambda: self.stopping,
            )
            self.seen.update(step.documents)
            self.pending.update(step.jobs)
            self.queued += len(step.jobs)
            if step.exhausted or self.stopping:
                return
            self._sleep()

    def _wait(self) -> None:
        """Until the jobs this run queued have ended (Ctrl-C leaves them to the workers)."""
        while not self.stopping and not self._report() and self.pending:
            self._sleep()

    def _update(self) -> None:
        for job_id, ending in self.kind.endings(list(self.pending)).items():
            self.pending.discard(job_id)
            self.ended[ending] += 1

    def _counts(self) -> str:
        return (
            f"queued {self.queued} of {self.total}, done {self.ended[DONE]}, "
            f"failed {self.kind.failed(self.ended)}, in flight {len(self.pending)}"
        )

    def _report(self) -> bool:
        """Print progress when it changed (or now and then); True when the run must stop:
        told to, or the workers run with other settings (go() says why, after the summary)."""
        self._update()
        line = self._counts()
        now = time.monotonic()
        if line != self.last_line or now - self.last_time > self.REPORT_EVERY:
            self.say(line)
            self.last_line, self.last_time = line, now
        if self.kind.wrong_settings(self.ended):
            self.stopping = True
        return self.stopping

    def _summary(self) -> None:
        self._update()
        self.say(f"finished: {self._counts()}")
        for line in self.kind.summary(self.ended):
            self.say(line)
        if self.stopping or self.pending:
            self.say(f"Jobs in flight finish on their own; to continue, run: {self.kind.again}")

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
            self.warn("stopping: no more documents will be queued (Ctrl-C again to quit)")
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
