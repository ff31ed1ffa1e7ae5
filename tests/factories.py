"""Things tests make: PDFs written with fpdf2, users, uploads through the real API."""

import csv
import io
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fpdf import FPDF

# Real PDFs from other projects' test suites, with their licences (tests/corpus/README.md).
CORPUS = Path(__file__).resolve().parent / "corpus"

# The creation date the factories write, so that a file's bytes depend on its arguments alone.
MADE_AT = datetime(2026, 1, 1, tzinfo=UTC)

WORDS = [
    "ingestion",
    "pipeline",
    "worker",
    "queue",
    "vector",
    "embedding",
    "chunk",
    "document",
    "page",
    "status",
    "postgres",
    "redis",
    "dramatiq",
    "django",
    "upload",
    "retry",
    "lease",
    "heartbeat",
    "backpressure",
]


def make_pdf(pages: int = 1, words_per_page: int = 200, seed: int = 0) -> bytes:
    """A real text PDF: `pages` pages of deterministic pseudo-prose, the same bytes for
    the same arguments (fpdf2 would stamp the current second into each file)."""
    pdf = FPDF()
    pdf.set_creation_date(MADE_AT + timedelta(seconds=seed))
    pdf.set_font("Helvetica", size=11)
    for number in range(1, pages + 1):
        pdf.add_page()
        words = [WORDS[(seed + number * 7 + i * 3) % len(WORDS)] for i in range(words_per_page)]
        pdf.multi_cell(0, 5, f"Page {number}. " + " ".join(words))
    buffer = io.BytesIO()
    pdf.output(buffer)
    return buffer.getvalue()


def text_pdf(*pages: str) -> bytes:
    """A real text PDF with one page per string, for tests that search for its words."""
    pdf = FPDF()
    pdf.set_creation_date(MADE_AT)
    pdf.set_font("Helvetica", size=11)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 5, text)
    buffer = io.BytesIO()
    pdf.output(buffer)
    return buffer.getvalue()


def scanned_pdf(*pages: str, dpi: int = 150, blank_pages: int = 0) -> bytes:
    """An image-only PDF, as a scanner makes one: each of `pages` typeset as text_pdf does,
    rendered to a greyscale image at `dpi` and wrapped as a page with no text layer; then
    `blank_pages` white ones."""
    import pypdfium2  # type: ignore[import-untyped]
    from PIL import Image

    images = []
    if pages:
        document = pypdfium2.PdfDocument(text_pdf(*pages))
        for page in document:
            images.append(page.render(scale=dpi / 72, grayscale=True).to_pil())
            page.close()
        document.close()
    size = images[0].size if images else (int(8.27 * dpi), int(11.69 * dpi))
    images += [Image.new("L", size, 255) for _ in range(blank_pages)]
    buffer = io.BytesIO()
    images[0].save(buffer, format="PDF", save_all=True, append_images=images[1:], resolution=dpi)
    return buffer.getvalue()


def scanned_image(
    *pages: str,
    form: str = "PNG",
    dpi: int = 150,
    turned: bool = False,
    dark: bool = False,
    transparent: bool = False,
) -> bytes:
    """An image of `pages` typeset as text_pdf does, as a scanner or camera saves one:
    in `form` (PNG, JPEG, TIFF with a page for each, WEBP), its resolution given. With
    `turned`, each page is stored a quarter turn on its side with the EXIF orientation
    that says so, as a phone saves a photograph taken sideways; `dark`, white letters on
    black; `transparent`, black letters on a transparent ground (a PNG)."""
    import pypdfium2  # untyped: mypy reports it once per file, at scanned_pdf's import
    from PIL import Image, ImageOps

    document = pypdfium2.PdfDocument(text_pdf(*pages))
    images = []
    for page in document:
        images.append(page.render(scale=dpi / 72, grayscale=True).to_pil())
        page.close()
    document.close()
    if dark:
        images = [ImageOps.invert(image) for image in images]
    if transparent:  # the letters' darkness as their opacity, on nothing
        images = [
            Image.merge("LA", (Image.new("L", image.size, 0), ImageOps.invert(image)))
            for image in images
        ]
    options: dict = {"format": form, "dpi": (dpi, dpi)}
    if turned:
        # Stored turned a quarter clockwise; orientation 8 says: turn it back the other way.
        images = [image.transpose(Image.Transpose.ROTATE_270) for image in images]
        exif = Image.Exif()
        exif[0x0112] = 8
        options["exif"] = exif.tobytes()
    if len(images) > 1:
        options |= {"save_all": True, "append_images": images[1:]}
    buffer = io.BytesIO()
    images[0].save(buffer, **options)
    return buffer.getvalue()


def word_document(title: str, *paragraphs: str, table: Sequence[tuple[str, ...]] = ()) -> bytes:
    """A Word file: `title` as a heading, `paragraphs`, then `table` (its first row the
    header) under a heading of its own, as python-docx writes them."""
    import docx

    document = docx.Document()
    document.add_heading(title, level=1)
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    if table:
        document.add_heading("Figures", level=2)
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for row, values in enumerate(table):
            for column, value in enumerate(values):
                grid.cell(row, column).text = value
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def joined_pdf(*parts: bytes) -> bytes:
    """One PDF of the pages of `parts`, in order (PDFium's own page import)."""
    import pypdfium2  # untyped: mypy reports it once per file, at the import above

    joined = pypdfium2.PdfDocument.new()
    for part in parts:
        source = pypdfium2.PdfDocument(part)
        joined.import_pages(source)
        source.close()
    buffer = io.BytesIO()
    joined.save(buffer)
    joined.close()
    return buffer.getvalue()


# The manifest category of the documents only the paraphrase set uses
# (tests/bench/search/paraphrases.py): the search benchmark reads them, and the tests and
# benchmarks that go through the corpus file by file leave them out (tests/corpus/README.md).
SEARCH_SET = "search-set"


def corpus_rows(*, search_set: bool = False) -> list[dict[str, str]]:
    """The corpus manifest: one row per file, with what the service should make of it;
    the paraphrase set's own documents (category SEARCH_SET) only with `search_set`."""
    with open(CORPUS / "manifest.tsv", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return rows if search_set else [row for row in rows if row["category"] != SEARCH_SET]


def make_document(owner, **fields):
    """A document row (no stored file) with a queued current job."""
    # Imported here: the benchmarks import this module before they set Django up.
    from documents.models import Document
    from jobs.models import Job

    values = {"filename": "a.pdf", "size": 10, "sha256": uuid.uuid4().hex * 2, "storage_key": "k"}
    values.update(fields)
    document = Document.objects.create(owner=owner, **values)
    job = Job.objects.create(
        document=document, owner=owner, version=document.version, storage_key=document.storage_key
    )
    document.current_job = job
    document.save(update_fields=["current_job"])
    return document


def stored_files() -> list[Path]:
    """Every file under MEDIA_ROOT (each test has its own: tests/conftest.py)."""
    from django.conf import settings

    root = Path(settings.MEDIA_ROOT)
    return [path for path in root.rglob("*") if path.is_file()] if root.exists() else []


PRIVATE_USE = 0xE000


def private_use_pdf(*pages: str) -> bytes:
    """A PDF whose glyphs draw `pages`' letters while its text layer says private-use
    characters, as a symbol-encoded font does: the font (matplotlib's DejaVu Sans, with
    each character also reachable at PRIVATE_USE + its code) is written with the shifted
    codes, so a reader of the text layer gets U+E0xx and OCR gets the letters."""
    import tempfile
    from pathlib import Path

    import matplotlib
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped]

    source = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    font = TTFont(source)
    for table in font["cmap"].tables:
        if table.isUnicode():
            table.cmap.update(
                {
                    PRIVATE_USE + code: glyph
                    for code, glyph in list(table.cmap.items())
                    if code < 128
                }
            )
    with tempfile.TemporaryDirectory() as folder:
        shifted = Path(folder) / "shifted.ttf"  # fpdf2 reads a font from a file only
        font.save(shifted)
        pdf = FPDF()
        pdf.set_creation_date(MADE_AT)
        pdf.add_font("Shifted", fname=shifted)
        pdf.set_font("Shifted", size=12)
        for text in pages:
            pdf.add_page()
            coded = "".join(ch if ch.isspace() else chr(PRIVATE_USE + ord(ch)) for ch in text)
            pdf.multi_cell(0, 7, coded)
        buffer = io.BytesIO()
        pdf.output(buffer)
    return buffer.getvalue()
