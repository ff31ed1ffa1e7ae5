"""What the ops dashboard's panel shows, read for one poll: the charts of a window's
history, the lanes now, the workers alive and what each holds, the dead letters."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.utils.safestring import SafeString

from config.common import humanize
from jobs.models import Job, JobStatus, Lane, WorkerProcess
from jobs.ops.dashboard.charts import Series, Unit, bar_chart, line_chart
from jobs.ops.dashboard.series import History
from jobs.ops.scaling import LaneNow
from jobs.worker import heartbeat

LANE_COLOURS: dict[str, str] = {Lane.FAST: "#2457d6", Lane.BATCH: "#d9731a", Lane.OCR: "#0e8a5f"}
CODE_COLOURS = ("#b3261e", "#7c3aed", "#0f766e", "#a16207", "#be185d", "#475569", "#15803d")


@dataclass(frozen=True)
class Chart:
    key: str  # the figure's id in the page (tests and links find it by this)
    title: str
    summary: str  # a number or two to read without the chart
    svg: SafeString


def charts(history: History, lanes: dict[str, LaneNow]) -> list[Chart]:
    return [*_queue_charts(history, lanes), *_outcome_charts(history)]


def _by_lane(values: dict[str, list], **kwargs: bool) -> list[Series]:
    return [Series(lane, values[lane], LANE_COLOURS[lane], **kwargs) for lane in Lane.values]


def _queue_charts(history: History, lanes: dict[str, LaneNow]) -> list[Chart]:
    """Sampled by the sweeps (and now): the queue, its age, and the scaling signal."""
    times, step = history.times, history.window.step
    now = " · ".join(f"{lane.lane} {lane.queued}" for lane in lanes.values())
    wanted = " · ".join(f"{lane.lane} {lane.workers_wanted}" for lane in lanes.values())
    queued = Unit("jobs queued and due")
    return [
        Chart(
            "queued",
            "Queue depth",
            f"now: {now}",
            line_chart(times, step, _by_lane(history.queued), queued, empty="none queued"),
        ),
        Chart(
            "oldest",
            "Oldest queued job",
            "how long the oldest due job has waited",
            line_chart(
                times,
                step,
                _by_lane(history.oldest),
                Unit("waiting", "seconds"),
                empty="none waited",
            ),
        ),
        Chart(
            "wanted",
            "Workers wanted",
            f"now: {wanted}",
            line_chart(times, step, _by_lane(history.wanted), Unit("worker threads")),
        ),
    ]


def _outcome_charts(history: History) -> list[Chart]:
    """Counted from the job rows: what ended, how fast, and what went wrong."""
    window, times, step, totals = history.window, history.times, history.window.step, history.totals
    per = "per minute" if window.step_minutes == 1 else f"per {window.step_minutes} minutes"
    rate = "per minute" if window.step_minutes == 1 else "per minute, mean of 15"
    empty, within = f"none in {window.label}", f"in {window.label}"
    ready = []
    for lane in Lane.values:
        ready.append(Series(f"{lane} p95", history.ready_p95[lane], LANE_COLOURS[lane]))
        ready.append(Series(f"{lane} p50", history.ready_p50[lane], LANE_COLOURS[lane], True))
    codes = [
        Series(code, values, CODE_COLOURS[i % len(CODE_COLOURS)])
        for i, (code, values) in enumerate(history.failures.items())
    ]
    retries = [Series("retries", history.retries, "#a16207")]
    ocr = [Series("read by OCR", history.ocr_pages, LANE_COLOURS[Lane.OCR])]
    limited = [Series("429s", history.rate_limited, "#b3261e")]
    waited = [Series("waited", history.waited, "#7c3aed")]
    return [
        Chart(
            "documents",
            "Documents ready",
            f"{totals['documents']:,.0f} {within}",
            bar_chart(
                times,
                step,
                _by_lane(history.documents),
                Unit(f"documents {rate}", "rate"),
                empty=empty,
            ),
        ),
        Chart(
            "pages",
            "Pages ready",
            f"{totals['pages']:,.0f} {within}",
            bar_chart(
                times, step, _by_lane(history.pages), Unit(f"pages {rate}", "rate"), empty=empty
            ),
        ),
        Chart(
            "ocr-pages",
            "OCR pages",
            f"{totals['ocr_pages']:,.0f} read by OCR {within}, "
            f"{_per_second(totals['ocr_pages'], window.span.total_seconds())}",
            bar_chart(times, step, ocr, Unit("pages per second", "rate"), empty=empty),
        ),
        Chart(
            "ready",
            "Time to ready",
            "upload to searchable; solid p95, dashed p50",
            line_chart(times, step, ready, Unit("p50 and p95", "seconds"), empty=empty),
        ),
        Chart(
            "failures",
            "Failures by code",
            f"{totals['failures']:,.0f} {within}",
            bar_chart(times, step, codes, Unit(f"jobs failed {per}"), empty=empty, legend=True),
        ),
        Chart(
            "retries",
            "Retries",
            f"{totals['retries']:,.0f} {within}",
            bar_chart(times, step, retries, Unit(f"attempts retried {per}"), empty=empty),
        ),
        Chart(
            "rate-limited",
            "Embedding 429s",
            f"{totals['rate_limited']:,.0f} {within}",
            bar_chart(times, step, limited, Unit(f"429 answers {per}"), empty=empty),
        ),
        Chart(
            "waited",
            "Limiter waits",
            f"{_waited(totals['waited'])} {within}",
            bar_chart(times, step, waited, Unit(f"time waited {per}", "seconds"), empty=empty),
        ),
    ]


def _per_second(count: float, seconds: float) -> str:
    """A mean rate as the OCR pages' summary gives it: "0 a second", "0.013 a second"."""
    rate = count / seconds
    if rate == 0:
        return "0 a second"
    if rate < 0.001:
        return "under 0.001 a second"
    return f"{rate:.2g} a second"


def _waited(seconds: float) -> str:
    """Seconds as the limiter's waits add up: "0 s", "12.5 s", then config/humanize's."""
    if seconds < 60:
        return f"{seconds:.1f}".removesuffix(".0") + " s"
    return humanize.duration(seconds)


@dataclass
class Held:
    job: Job
    since: datetime | None  # when this attempt claimed it
    heartbeat: datetime | None


@dataclass
class WorkerNow:
    process: WorkerProcess
    held: list[Held] = field(default_factory=list)

    @property
    def busy(self) -> int:
        return len(self.held)


@dataclass
class Workers:
    alive: list[WorkerNow]
    orphans: list[Held]  # processing, held by no live process: the sweeper takes them back

    @property
    def threads(self) -> int:
        return sum(w.process.threads for w in self.alive)

    @property
    def busy(self) -> int:
        return sum(w.busy for w in self.alive)


def workers() -> Workers:
    """Worker processes with a fresh beat, and the jobs each holds now: the processing
    jobs whose `worker` ("host:pid:thread") starts with the process's "host:pid:"."""
    alive = [WorkerNow(process) for process in heartbeat.alive()]
    processing = (
        Job.objects.filter(status=JobStatus.PROCESSING)
        .select_related("document")
        .only("id", "worker", "lane", "started_at", "heartbeat_at", "document__filename")
        .order_by("started_at")
    )
    orphans: list[Held] = []
    for job in processing:
        held = Held(job, job.started_at, job.heartbeat_at)
        owner = next((w for w in alive if job.worker.startswith(f"{w.process.name}:")), None)
        (owner.held if owner else orphans).append(held)
    return Workers(alive, orphans)


# Dead letters are counted up to this many; past it the panel says "10,000+": an exact
# count joins every failed job to its document (0.4 s at 60,000, on each refresh).
DEAD_LETTERS_COUNTED = 10_000


def dead_letters() -> str:
    count = Job.objects.dead_letters().order_by()[: DEAD_LETTERS_COUNTED + 1].count()
    if count > DEAD_LETTERS_COUNTED:
        return f"{DEAD_LETTERS_COUNTED:,}+"
    return f"{count:,}"
