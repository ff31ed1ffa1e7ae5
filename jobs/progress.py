"""A job's progress as its owner reads it: the stage, the pages read, the chunks embedded.

A running attempt stores its stage (extracting, then embedding) and its counts
(jobs.services.record_pages and record_progress); a job that waits or has ended is in the
stage its status says. The API (`progress`), the page's rows and the status websocket all
read it from here.
"""

from dataclasses import dataclass

from jobs.models import Job, JobStatus, Stage


@dataclass(frozen=True)
class Progress:
    stage: str  # a Stage value
    done: int  # chunks embedded (as `progress.done` has always been)
    total: int  # chunks in all; 0 until the text is split
    pages_done: int  # pages read
    pages_total: int  # pages in the file; 0 until the reader has counted them


def progress_of(job: Job) -> Progress:
    """`job`'s progress. A queued job has read no page yet, even if an earlier attempt had:
    the next attempt reads them again."""
    if job.status == JobStatus.QUEUED:
        return Progress(Stage.QUEUED, job.progress_done, job.progress_total, 0, 0)
    running = job.status == JobStatus.PROCESSING
    stage = (job.stage or Stage.EXTRACTING) if running else Stage.DONE
    return Progress(stage, job.progress_done, job.progress_total, job.pages_done, job.pages_total)
