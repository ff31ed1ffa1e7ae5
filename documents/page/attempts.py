"""How a document's page names an attempt's outcome: the word its owner reads on the
attempt's badge, one for every outcome (jobs.models.AttemptOutcome). Most are the stored
word itself; `handed_on` is the workers' word for an attempt that found scanned pages and
passed the job on to the OCR lane, which is no failure and needs saying plainly."""

from __future__ import annotations

from jobs.models import AttemptOutcome

WORDS: dict[str, str] = {
    AttemptOutcome.RUNNING: "running",
    AttemptOutcome.SUCCEEDED: "succeeded",
    AttemptOutcome.FAILED: "failed",
    AttemptOutcome.RETRY: "retry",
    AttemptOutcome.LOST: "lost",
    AttemptOutcome.SUPERSEDED: "superseded",
    AttemptOutcome.HANDED_ON: "sent to OCR",
}


def word(outcome: str) -> str:
    """The badge's word for `outcome`; an outcome this table misses reads with spaces, never
    with an underscore."""
    return WORDS.get(outcome, outcome.replace("_", " "))
