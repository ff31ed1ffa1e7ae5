"""Which pages of a document's version were read by OCR, for its page's facts."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db.models import Avg

from search.models import Chunk


@dataclass(frozen=True)
class OcrPages:
    pages: list[int]  # 1-based, ascending
    confidence: float | None  # the mean of its chunks' page confidences, 0..1

    @property
    def ranges(self) -> str:
        """The pages as a person writes them: "1-3, 7"."""
        spans: list[list[int]] = []
        for page in self.pages:
            if spans and page == spans[-1][1] + 1:
                spans[-1][1] = page
            else:
                spans.append([page, page])
        return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def ocr_pages(*, document_id: uuid.UUID, version: int) -> OcrPages | None:
    """The pages of `version` whose chunks came from OCR, or None when none did."""
    chunks = Chunk.objects.filter(document_id=document_id, version=version, source="ocr")
    pages = sorted(set(chunks.values_list("page", flat=True)))
    if not pages:
        return None
    mean = chunks.aggregate(mean=Avg("confidence"))["mean"]
    return OcrPages(pages=pages, confidence=None if mean is None else round(mean, 3))
