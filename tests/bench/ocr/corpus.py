"""The scanned corpus: a fixed sample of born-digital corpus pages, their text layers as
ground truth, and image-only copies of them as a scanner would make them.

The sample (`sample`), 53 English pages and 7 German ones, all in tests/corpus/:

- i1040nr.pdf (IRS instructions: prose in two and three columns, tables): pages 1 to 32
  but every third one (1, 2, 4, 5, 7, 8, ...), and two pages of its tax table (36, 42);
- f1040nr.pdf (the IRS form: boxes and tables): all 5 pages;
- naacl06-shinyama.pdf (a two-column paper): all 8 pages;
- multicolumn.pdf (LaTeX multicol): all 3 pages;
- pdflatex-4-pages.pdf (one column of prose): all 4 pages;
- one-page prose: crazyones-pdfa.pdf, google-doc-document.pdf, the LibreOffice one;
- pdflatex-outline.pdf (prose): pages 2 to 4; GeoBase_NHNC1_Data_Model_UML_EN.pdf: pages
  3, 8 and 12, a table and prose (not nlp2004slides.pdf: its slides are in Japanese);
- German, GeoTopo-komprimiert.pdf (a script in geometry and topology, the corpus's only
  German document): its pages free of formulas (`prose_pages`): at least 600 non-space
  characters, of which at most 5 are mathematical signs (Unicode's Sm category, Greek
  letters, "=", "<", ">"). A formula's text layer is no fair ground truth: PDFium gives
  "∅ 6= G" for "∅ ≠ G" and sets indices and exponents on lines of their own, and pages of
  prose with formulas in their lines scored 20 to 40 % CER on clean scans for that alone.
  The rule picks pages 2 (the preface), 4 (the contents), 68 (prose on axioms), 109 (prose)
  and 115 to 117 (the index).

Each page is rendered by PDFium (greyscale) and wrapped alone in an image-only PDF (Pillow)
in three variants (`VARIANTS`): "clean-300" and "clean-200" (JPEG quality 95, as a good
scanner's), and "scanned": the 300 dpi image turned by 2° one way or the other, with grey
noise and specks, saved at JPEG quality 50; each page's randomness is seeded by its place
in the sample, so every run builds the same bytes.
"""

import io
import random
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy
import pypdfium2  # type: ignore[import-untyped]
from PIL import Image

# tests/corpus/ (tests.factories.CORPUS; not imported: RapidOCR runs where fpdf2 is not)
CORPUS = Path(__file__).resolve().parents[2] / "corpus"

VARIANTS = ("clean-300", "clean-200", "scanned")
POINTS_PER_INCH = 72

IRS = "pdfminer__pdfminer.six/samples/nonfree/"
ENGLISH: tuple[tuple[str, tuple[int, ...]], ...] = (
    (IRS + "i1040nr.pdf", (*range(1, 33, 3), *range(2, 33, 3), 36, 42)),
    (IRS + "f1040nr.pdf", (1, 2, 3, 4, 5)),
    (IRS + "naacl06-shinyama.pdf", tuple(range(1, 9))),
    ("py-pdf__sample-files/026-latex-multicolumn/multicolumn.pdf", (1, 2, 3)),
    ("py-pdf__sample-files/004-pdflatex-4-pages/pdflatex-4-pages.pdf", (1, 2, 3, 4)),
    ("py-pdf__sample-files/021-pdfa/crazyones-pdfa.pdf", (1,)),
    ("py-pdf__sample-files/011-google-doc-document/google-doc-document.pdf", (1,)),
    (
        "py-pdf__sample-files/002-trivial-libre-office-writer/002-trivial-libre-office-writer.pdf",
        (1,),
    ),
    ("py-pdf__sample-files/006-pdflatex-outline/pdflatex-outline.pdf", (2, 3, 4)),
    ("py-pdf__pypdf/resources/GeoBase_NHNC1_Data_Model_UML_EN.pdf", (3, 8, 12)),
)
GERMAN = "py-pdf__sample-files/009-pdflatex-geotopo/GeoTopo-komprimiert.pdf"
GERMAN_PAGES = 20  # at most: the rule finds 7
MATH = set("=<>")
# The quick run's pages: a column of prose, a two-column page, a form, a German page.
QUICK = (
    (ENGLISH[4][0], 1),
    (ENGLISH[2][0], 2),
    (ENGLISH[1][0], 1),
    (GERMAN, 2),
)


@dataclass(frozen=True)
class SamplePage:
    file: str  # under tests/corpus/
    number: int  # 1-based
    language: str  # Tesseract's name: "eng", "deu"
    truth: str  # PDFium's text of the born-digital page
    size: tuple[float, float]  # points
    order: int = 0  # its place in the sample

    @property
    def name(self) -> str:
        return f"{Path(self.file).stem} p{self.number}"


def page_text(page: Any) -> str:
    textpage = page.get_textpage()
    try:
        return str(textpage.get_text_bounded())
    finally:
        textpage.close()


def prose_pages(path: Path, count: int) -> list[int]:
    """The first `count` pages of `path` (1-based) by the German sample's rule (see the
    module's docstring)."""
    chosen = []
    pdf = pypdfium2.PdfDocument(path)
    try:
        for index in range(len(pdf)):
            page = pdf[index]
            marks = [c for c in page_text(page) if not c.isspace()]
            page.close()
            if len(marks) >= 600 and sum(map(_mathematical, marks)) <= 5:
                chosen.append(index + 1)
            if len(chosen) == count:
                break
    finally:
        pdf.close()
    return chosen


def _mathematical(char: str) -> bool:
    return unicodedata.category(char) == "Sm" or "\u0370" <= char <= "\u03ff" or char in MATH


def sample(*, quick: bool = False) -> list[SamplePage]:
    """The sample's pages, in a fixed order, with their ground truth."""
    wanted: list[tuple[str, tuple[int, ...]]]
    if quick:
        wanted = [(file, (number,)) for file, number in QUICK]
    else:
        german = tuple(prose_pages(CORPUS / GERMAN, GERMAN_PAGES))
        wanted = [*ENGLISH, (GERMAN, german)]
    pages: list[SamplePage] = []
    for file, numbers in wanted:
        pdf = pypdfium2.PdfDocument(CORPUS / file)
        try:
            for number in numbers:
                page = pdf[number - 1]
                size = page.get_size()
                text, order = page_text(page), len(pages)
                pages.append(SamplePage(file, number, _language(file), text, size, order))
                page.close()
        finally:
            pdf.close()
    return pages


def _language(file: str) -> str:
    return "deu" if file == GERMAN else "eng"


def render(page: SamplePage, dpi: int) -> Image.Image:
    """The born-digital page as a greyscale image at `dpi`."""
    pdf = pypdfium2.PdfDocument(CORPUS / page.file)
    try:
        pdfium_page = pdf[page.number - 1]
        image = pdfium_page.render(scale=dpi / POINTS_PER_INCH, grayscale=True).to_pil()
        pdfium_page.close()
        return image.convert("L")
    finally:
        pdf.close()


def scanned(image: Image.Image, seed: int) -> Image.Image:
    """`image` as a cheap scanner would give it back: turned by ±2°, grey noise (sigma 12
    levels), a few thousand dark specks; JPEG quality comes at saving."""
    rng = random.Random(seed)
    turned = image.rotate(rng.choice((-2.0, 2.0)), resample=Image.Resampling.BICUBIC, fillcolor=255)
    noise = numpy.random.default_rng(seed)
    grey = numpy.asarray(turned, dtype=numpy.float64)
    pixels = grey + noise.normal(0.0, 12.0, grey.shape)
    specks = noise.random(pixels.shape) < 0.0005
    pixels[specks] = noise.uniform(0, 120, int(specks.sum()))
    return Image.fromarray(numpy.clip(pixels, 0, 255).astype(numpy.uint8), mode="L")


def variant_image(page: SamplePage, variant: str, seed: int) -> tuple[Image.Image, int, int]:
    """The page's image in `variant`, its dpi and the JPEG quality to save it at."""
    if variant == "clean-300":
        return render(page, 300), 300, 95
    if variant == "clean-200":
        return render(page, 200), 200, 95
    if variant == "scanned":
        return scanned(render(page, 300), seed), 300, 50
    raise ValueError(f"unknown variant {variant!r}")


def image_pdf(images: list[Image.Image], dpi: int, quality: int) -> bytes:
    """An image-only PDF of `images`, one a page, at `dpi` (JPEG at `quality`)."""
    buffer = io.BytesIO()
    first, *rest = images
    first.save(
        buffer, format="PDF", save_all=True, append_images=rest, resolution=dpi, quality=quality
    )
    return buffer.getvalue()


def build(pages: list[SamplePage], variant: str, directory: Path) -> list[Path]:
    """One image-only PDF per page of `pages` in `variant`, written into `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for seed, page in enumerate(pages):
        image, dpi, quality = variant_image(page, variant, seed)
        path = directory / f"{variant}-{seed:03d}.pdf"
        path.write_bytes(image_pdf([image], dpi, quality))
        paths.append(path)
    return paths
