"""A page's image made ready for OCR: turned straight, and the rules of its tables and
forms taken out.

Tesseract reads a page turned a degree or two poorly, and a table's ruled lines worse: a
row of cells boxed in by rules is often taken for a picture and left unread, or its
rules are read as letters ("|", "l", "I"). A scanner's software straightens pages and
drops rules for the same reason. Both run in the sandboxed child, on the greyscale image
search/pipeline/ocr.py renders; numpy is started there before the walls go up, on one
thread (OPENBLAS_NUM_THREADS=1 in the child's environment).
"""

from typing import Any

import numpy
from PIL import Image
from PIL.Image import Resampling

INK_BELOW = 160  # of 255: darker is ink
WHITE = 255

# Pages turned less than this are read as they are; a page set sideways is a matter of
# orientation, which is left alone: only turns up to MAX_SKEW_DEGREES are looked for.
MIN_SKEW_DEGREES = 0.3
MAX_SKEW_DEGREES = 5.0
SKEW_ROWS = 1000

# A rule: a straight run of ink at least this long (no letter is), and no thicker than
# RULE_THICKNESS (so the stems of large headline letters, and black bars, stay).
RULE_LENGTH_INCHES = 0.4
RULE_THICKNESS_INCHES = 0.02


def straightened(image: Any) -> Any:
    """`image` turned by `skew(image)`, or as it is when that is 0."""
    angle = skew(image)
    if not angle:
        return image
    return image.rotate(angle, resample=Resampling.BILINEAR, expand=True, fillcolor=WHITE)


def skew(image: Any) -> float:
    """The angle, in degrees counter-clockwise, that straightens `image`'s lines of text (0
    for a page within MIN_SKEW_DEGREES, or with no lines to go by).

    The turn at which the ink's row profile is sharpest (lines of text and the gaps
    between them, the greatest variance of ink per row), on the image shrunk to about
    SKEW_ROWS rows, in half degrees up to MAX_SKEW_DEGREES, then in twentieths around the
    best. About 60 ms for an A4 page at 300 dpi.
    """
    factor = max(1, round(image.height / SKEW_ROWS))
    ink = (image.reduce(factor) if factor > 1 else image).point(_ink)
    rows = ink.height

    def sharpness(angle: float) -> float:
        profile = (
            ink.rotate(angle, resample=Resampling.NEAREST)
            .resize((1, rows), Resampling.BOX)
            .tobytes()
        )
        mean = sum(profile) / rows
        return sum((value - mean) ** 2 for value in profile)

    steps = int(2 * MAX_SKEW_DEGREES)
    coarse = max((step / 2 for step in range(-steps, steps + 1)), key=sharpness)
    if sharpness(coarse) == 0:
        return 0.0  # a blank page
    angle = max((coarse + step / 20 for step in range(-10, 11)), key=sharpness)
    return angle if abs(angle) >= MIN_SKEW_DEGREES else 0.0


def _ink(value: int) -> int:
    """A pixel map for Image.point: ink white, paper black (so ink counts in the sums)."""
    return 255 if value < INK_BELOW else 0


def without_rules(image: Any, dpi: float) -> tuple[Any, float]:
    """`image` (greyscale, at `dpi`) with its rules painted white: every straight run of
    ink, across or down, at least RULE_LENGTH_INCHES long and at most
    RULE_THICKNESS_INCHES thick; and the square inches of ink taken out (a table's or a
    form's rules: 0.1 is ten inches of a rule a hundredth of an inch thick). About 0.1 s
    for an A4 page at 300 dpi."""
    pixels = numpy.asarray(image)
    ink = pixels < INK_BELOW
    length = max(2, round(dpi * RULE_LENGTH_INCHES))
    thick = max(2, round(dpi * RULE_THICKNESS_INCHES) + 1)
    rules = _thin_runs(ink, length, thick) | _thin_runs(ink.T, length, thick).T
    area = int(numpy.count_nonzero(rules)) / (dpi * dpi)
    if not area:
        return image, 0.0
    cleaned = pixels.copy()
    cleaned[rules] = WHITE
    return Image.fromarray(cleaned), area


def _thin_runs(ink: numpy.ndarray, length: int, thick: int) -> numpy.ndarray:
    """The cells of `ink` in a run of at least `length` along a row, but not in a stack
    of `thick` or more such cells down a column (a bar, a letter's stem)."""
    along = _runs(ink, length)
    return along & ~_runs(along.T, thick).T


def _runs(mask: numpy.ndarray, length: int) -> numpy.ndarray:
    """The cells of `mask` (2-D, boolean) that lie in a run of at least `length` True
    cells along a row: an erosion by a 1 x `length` line, then a dilation by it, each in
    about log2(length) shifted ANDs or ORs."""
    starts = _sweep(mask, length, numpy.logical_and)  # a run of `length` starts here
    pad = numpy.zeros((mask.shape[0], length - 1), dtype=bool)
    covered = _sweep(numpy.concatenate([pad, starts, pad], axis=1), length, numpy.logical_or)
    return covered[:, : mask.shape[1]]


def _sweep(mask: numpy.ndarray, length: int, join: Any) -> numpy.ndarray:
    """`join` of every `length` consecutive cells along each row (the result is
    `length` - 1 cells narrower)."""
    done = 1
    while done < length:
        step = min(done, length - done)
        mask = join(mask[:, :-step], mask[:, step:])
        done += step
    return mask
