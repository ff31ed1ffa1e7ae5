"""What each user uploads: real PDFs from tests/corpus/, every body unique.

The API answers bytes identical to one of the owner's documents with that document and no
new job, so each upload gets a nonce in a PDF comment just before the last %%EOF (after
the cross-reference table, so no offset moves). To compare the acknowledgement of long
documents with short ones like with like, each 50+ page file in the burst is matched by a
1-2 page file padded with comment lines to the same size: same bytes on the wire, a
fraction of the pages.

A few percent of the burst are scans: one-page image-only PDFs at 150 dpi, each a letter
of its own (tests.factories.scanned_pdf), which the fast lane hands on to the OCR lane.
Small ones, so that the short run stays short. They are the only scans: the corpus files
with pages the service would read by OCR (a fax, image-only pages) are left out, or a
sixth of the uploads, up to 10 pages of OCR each, would queue on the one OCR thread.
"""

from __future__ import annotations

import functools
import random
import uuid
from dataclasses import dataclass
from pathlib import Path

import pypdfium2  # type: ignore[import-untyped]

from search.pipeline.ocr import needs_ocr
from tests.bench.loadtest.scenario import FULL_RUN_USERS
from tests.factories import CORPUS, corpus_rows, scanned_pdf

LONG_PAGES = 50  # "documents of 50+ pages"
# Classes of the burst. `long` and `padded` are the like-for-like pair; the rest are
# reported by size.
LONG, PADDED, SMALL, MEDIUM, LARGE, SCAN = (
    "50+ pages",
    "1-2 pages padded",
    "<100 KB",
    "100 KB-1 MB",
    ">1 MB",
    "1-page scan",
)
SCAN_SHARE = 0.03  # of the burst's uploads, at least one
SCAN_DPI = 150
SCAN_SOURCE = f"scan-{SCAN_DPI}dpi"  # the source name of every scan
# A worker thread's time to read one scanned page by OCR at 150 dpi (about 1 s on a
# laptop's core), less the per-job cost that tests/bench/loadtest/drain.py adds.
SCAN_SECONDS = 1.0
_SENTENCES = (
    "The seller delivers the goods within thirty days of the order.",
    "The buyer pays the invoice within sixty days of delivery.",
    "Either party may end this agreement with three months notice.",
    "The warranty covers parts and labour for two years.",
    "Disputes go to the courts of the seller's home town.",
    "Prices are in euros and include the value added tax.",
)


@dataclass(frozen=True)
class CorpusFile:
    path: Path
    bytes: int
    pages: int
    seconds: float  # extraction time measured when the corpus was built

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class Upload:
    """One upload: which file, its class, and the bytes to send (unique per upload)."""

    source: str
    kind: str
    pages: int
    body: bytes

    @property
    def bytes(self) -> int:
        return len(self.body)


def corpus_files() -> list[CorpusFile]:
    """The corpus files that the manifest expects to be processed successfully from their
    text layer alone (no page to read by OCR)."""
    return [
        CorpusFile(
            CORPUS / row["file"], int(row["bytes"]), int(row["pages"]), float(row["seconds"])
        )
        for row in corpus_rows()
        if row["expect"].strip() == "succeeded"
        and (CORPUS / row["file"]).exists()
        and not ocr_pages(CORPUS / row["file"])
    ]


@functools.cache
def ocr_pages(path: Path) -> int:
    """How many pages of `path` the service's `auto` rule reads by OCR
    (search.pipeline.ocr.needs_ocr, over PDFium's text layer); 0 when PDFium cannot open
    it, as the service then keeps the text reader's text. Trusted files: read here,
    outside the sandbox."""
    try:
        pdf = pypdfium2.PdfDocument(str(path))
    except pypdfium2.PdfiumError:
        return 0
    try:
        texts = []
        for index in range(len(pdf)):
            page = pdf[index]
            textpage = page.get_textpage()
            texts.append(textpage.get_text_range())
            textpage.close()
            page.close()
        return len(needs_ocr(pdf, texts))
    finally:
        pdf.close()


def with_comment(pdf: bytes, comment: bytes, padding_to: int = 0) -> bytes:
    """`pdf` with a comment line (and padding lines up to `padding_to` bytes) before %%EOF."""
    head, eof, tail = pdf.rpartition(b"%%EOF")
    if not eof:
        head, eof, tail = pdf, b"", b""
    line = b"%" + comment + b"\n"
    missing = padding_to - len(pdf) - len(line)
    pad = b""
    if missing > 0:
        filler = b"%" + b"p" * 1022 + b"\n"
        count, rest = divmod(missing, len(filler))
        pad = filler * count + (b"%" + b"p" * (rest - 2) + b"\n" if rest >= 2 else b"\n" * rest)
    if head and not head.endswith(b"\n"):
        head += b"\n"
    return head + pad + line + eof + tail


def nonce() -> bytes:
    return f"loadtest-{uuid.uuid4().hex}".encode()


def kind_by_size(size: int) -> str:
    return SMALL if size < 100_000 else MEDIUM if size < 1_000_000 else LARGE


def scan(number: int, rng: random.Random) -> Upload:
    """A one-page scan of a short letter, numbered, its sentences drawn by `rng`."""
    letter = f"Letter number {number}. " + " ".join(rng.sample(_SENTENCES, 3))
    body = with_comment(scanned_pdf(letter, dpi=SCAN_DPI), nonce())
    return Upload(SCAN_SOURCE, SCAN, 1, body)


def scan_count(users: int) -> int:
    return max(1, round(users * SCAN_SHARE))


def burst(users: int, files: list[CorpusFile], seed: int = 9, scans: bool = True) -> list[Upload]:
    """One upload per user, shuffled: a few 50+ page files, as many short files padded to
    their sizes, a few scans (SCAN_SHARE), the rest round-robin over every other file the
    corpus expects to succeed."""
    rng = random.Random(seed)
    long_files = sorted((f for f in files if f.pages >= LONG_PAGES), key=lambda f: f.pages)
    short = sorted((f for f in files if f.pages <= 2 and f.bytes < 100_000), key=lambda f: f.bytes)
    others = [f for f in files if f.pages < LONG_PAGES]
    # Five long documents at least (each a worker's seconds of extraction), and in a
    # short run three padded twins for each: the p99 of five is just the slowest one,
    # and a 60-user run with five twins failed the ratio on arrival order alone.
    pairs = max(5, users // 25) if long_files and short else 0
    pairs = min(pairs, users // 2)
    twins = 1 if users >= FULL_RUN_USERS else 3
    uploads: list[Upload] = []
    for number in range(pairs):
        # The shortest long file twice as often: the longest is most of the run's work.
        source = long_files[0] if number % 3 != 2 else long_files[-1]
        data = source.path.read_bytes()
        uploads.append(Upload(source.name, LONG, source.pages, with_comment(data, nonce())))
        for twin in range(twins):
            pad = short[(number * twins + twin) % len(short)]
            body = with_comment(pad.path.read_bytes(), nonce(), padding_to=len(data))
            uploads.append(Upload(pad.name, PADDED, pad.pages, body))
    if scans:
        count = min(scan_count(users), users - len(uploads))
        uploads += [scan(number, rng) for number in range(count)]
    rng.shuffle(others)
    for number in range(users - len(uploads)):
        source = others[number % len(others)]
        body = with_comment(source.path.read_bytes(), nonce())
        uploads.append(Upload(source.name, kind_by_size(len(body)), source.pages, body))
    rng.shuffle(uploads)
    return uploads


def pushed_upload(files: list[CorpusFile], number: int) -> Upload:
    """An upload for the clients that keep pushing after the burst: the burst's mix of
    files under 50 pages in turn, so the backlog they keep full is of the same work."""
    mix = sorted((f for f in files if f.pages < LONG_PAGES), key=lambda f: f.name)
    random.Random(1).shuffle(mix)
    source = mix[number % len(mix)]
    body = with_comment(source.path.read_bytes(), nonce())
    return Upload(source.name, kind_by_size(len(body)), source.pages, body)
