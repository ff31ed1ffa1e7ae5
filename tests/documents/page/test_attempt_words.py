"""The words a document's page shows for an attempt's outcome (documents.page.attempts)."""

from documents.page import attempts
from jobs.models import AttemptOutcome


def test_every_outcome_has_a_word_without_an_underscore():
    assert set(attempts.WORDS) == set(AttemptOutcome.values)
    assert attempts.word(AttemptOutcome.HANDED_ON) == "sent to OCR"
    assert all("_" not in attempts.word(outcome) for outcome in AttemptOutcome.values)
    assert attempts.word("some_new_outcome") == "some new outcome"
