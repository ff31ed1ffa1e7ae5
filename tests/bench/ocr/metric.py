"""How close OCR's text comes to the page's own text layer: an order-tolerant character
error rate and word recall, both over normalised text.

Normalising (`normalise`): Unicode NFKC (ligatures and full-width forms become plain
letters), every dash and minus sign becomes "-", curly quotes become straight ones, a word
broken by a hyphen at the end of a line is joined again (PDFium marks such a hyphen as
U+0002 or a soft hyphen; OCR reads it as "-" before the line break), dot leaders (three
or more dots in a row, as forms and tables of contents draw them) are dropped, and runs of
spaces collapse to one. Line breaks are kept, because OCR's lines are the unit of matching.

Why not a plain edit distance over the page: a text layer and OCR put the same words in
different orders (a two-column page, a table read across or down), and an edit distance
would count a whole column as deleted and inserted again. So `cer` matches each OCR line
on its own against the part of the reference text it is most like, wherever that is:

1. the reference is the page's text on one line; OCR's lines are matched longest first,
   each against the pieces of the reference no line has taken yet: in each piece,
   rapidfuzz's partial_ratio_alignment finds the span most like the line, and the span
   that needs the fewest edits (Levenshtein) to become the line, of all pieces, is its;
2. a line that needs more than SPLIT_ABOVE of its length in edits there may be cells of
   a table that OCR read along the row while the text layer has them apart: it is cut in
   two at the space nearest its middle, and each half matched on its own (down to halves
   of MIN_PIECE characters);
3. a line (or half) that needs more than MAX_LINE_ERRORS of its length in edits even
   there is not a misread of any reference text: all its characters count as insertions.
   Otherwise its edits count, and its span is taken;
4. the reference's characters that no line took count as deletions (spaces only at the
   seams between taken spans are not counted: they stood where OCR broke its lines).

The errors, divided by the reference's length, are the CER. Reading the columns of a page
in another order costs next to nothing; misread, missing or invented text costs what it
would cost in a plain edit distance.

Word recall: the reference's words (lowercased runs of letters and digits) as a multiset,
and the share of them that OCR's words cover, each counted at most as often as OCR has it.
"""

import heapq
import itertools
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

# A line further than this share of its length (in edits) from any span matches none.
MAX_LINE_ERRORS = 0.4
# A line further than this from its best span is matched in halves, none shorter than this.
SPLIT_ABOVE = 0.1
MIN_PIECE = 12

_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d]")
_QUOTES = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201c": '"'}
    | {"\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"'}
)
# A hyphen at a line's end inside a word: PDFium's U+0002 or a soft hyphen (with or
# without a line break after it), or a plain "-" followed by a line break.
_BROKEN_WORD = re.compile(r"(?<=\w)(?:[\u0002\u00ad]\s*|-[ \t]*\r?\n\s*)(?=\w)")
_LEADERS = re.compile(r"(?:[.\u00b7\u2024\u2026][^\S\n]*){3,}")
_SPACES = re.compile(r"[^\S\n]+")
_WORD = re.compile(r"[^\W_]+")


def normalise(text: str) -> str:
    """`text` as both sides are compared (see the module's docstring); lines kept."""
    text = unicodedata.normalize("NFKC", text).replace("\r\n", "\n").replace("\r", "\n")
    text = _DASHES.sub("-", text).translate(_QUOTES)
    text = _BROKEN_WORD.sub("", text)
    text = text.replace("\u0002", "").replace("\u00ad", "")
    text = _LEADERS.sub(" ", text)
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


@dataclass(frozen=True)
class Errors:
    """What `cer` counted on one page."""

    edits: int  # within the matched spans
    insertions: int  # OCR lines matching nothing
    deletions: int  # reference characters no line took
    reference: int  # characters of the reference

    @property
    def total(self) -> int:
        return self.edits + self.insertions + self.deletions

    @property
    def rate(self) -> float:
        return self.total / self.reference if self.reference else float(self.total > 0)


def cer(ocr: str, reference: str, *, split: bool = True) -> Errors:
    """The order-tolerant character errors of `ocr` against `reference` (both raw).
    `split=False`: lines are never matched in halves, so a line that runs across two
    columns (or along a table's row) counts its misplaced half as errors."""
    truth = normalise(reference).replace("\n", " ")
    # The longest first; ties in the order OCR read them.
    order = itertools.count()
    queue = [(-len(line), next(order), line) for line in normalise(ocr).split("\n") if line]
    heapq.heapify(queue)
    pieces = [truth] if truth else []
    edits = insertions = 0
    while queue:
        _, _, line = heapq.heappop(queue)
        best = _best_span(line, pieces)
        if split and best is not None and best[0] > SPLIT_ABOVE * len(line):
            halves = _halves(line)
            if halves:
                for half in halves:
                    heapq.heappush(queue, (-len(half), next(order), half))
                continue
        if best is None or best[0] > MAX_LINE_ERRORS * len(line):
            insertions += len(line)
            continue
        distance, index, start, end = best
        edits += distance
        piece = pieces.pop(index)
        rest = [piece[:start], piece[end:]]
        pieces[index:index] = [part for part in rest if part.strip()]
    deletions = sum(len(piece.strip()) for piece in pieces)
    return Errors(edits=edits, insertions=insertions, deletions=deletions, reference=len(truth))


def _best_span(line: str, pieces: list[str]) -> tuple[int, int, int, int] | None:
    """(edits, piece, start, end) of the span of `pieces` closest to `line`."""
    best = None
    for index, piece in enumerate(pieces):
        span = fuzz.partial_ratio_alignment(line, piece)
        if span is None:
            continue
        distance = Levenshtein.distance(line, piece[span.dest_start : span.dest_end])
        if best is None or distance < best[0]:
            best = (distance, index, span.dest_start, span.dest_end)
    return best


def _halves(line: str) -> tuple[str, str] | None:
    """`line` cut after the space nearest its middle (the first half keeps it), if both
    halves keep MIN_PIECE characters."""
    middle = len(line) // 2
    cuts = [i for i, c in enumerate(line) if c == " " and MIN_PIECE <= i <= len(line) - MIN_PIECE]
    if not cuts:
        return None
    cut = min(cuts, key=lambda i: abs(i - middle))
    return line[: cut + 1], line[cut + 1 :]


def words(text: str) -> Counter[str]:
    """The lowercased runs of letters and digits of normalised `text`, counted."""
    return Counter(_WORD.findall(normalise(text).lower()))


def word_recall(ocr: str, reference: str) -> tuple[int, int]:
    """(reference words OCR found, reference words): each word counted at most as often
    as OCR has it."""
    truth, found = words(reference), words(ocr)
    return sum(min(count, found[word]) for word, count in truth.items()), sum(truth.values())
