"""Where a lane's messages go: the actor and queue names, in one place.

jobs/actors.py declares an actor under each of these names and jobs/queue.py sends to
them by name, so sending a job id never imports the actors (and with them the PDF
pipeline and the embedding client). A lane has two routes: new jobs, and jobs that
already waited their turn once (`resumed`), which go to the lane's resume queue.
"""

from typing import NamedTuple


class Route(NamedTuple):
    actor_name: str
    queue_name: str


# Keyed by (lane, resumed); a lane is jobs.models.Lane's value ("fast", "batch", "ocr").
ROUTES: dict[tuple[str, bool], Route] = {
    ("fast", False): Route("process_fast_job", "fast"),
    ("batch", False): Route("process_batch_job", "batch"),
    ("fast", True): Route("resume_fast_job", "fast-resume"),
    ("batch", True): Route("resume_batch_job", "batch-resume"),
    ("ocr", False): Route("process_ocr_job", "ocr"),
    ("ocr", True): Route("resume_ocr_job", "ocr-resume"),
}


def route(lane: str, *, resumed: bool = False) -> Route:
    """The route of `lane` (a Lane or its value); KeyError for an unknown lane."""
    return ROUTES[(str(lane), resumed)]


def lane_queues(lane: str) -> list[str]:
    """The queues a lane's own workers consume (the Procfile's `worker-<lane>`): its new
    jobs' queue and its resume queue."""
    return [route(lane).queue_name, route(lane, resumed=True).queue_name]
