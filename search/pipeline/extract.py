"""Text extraction with pdfminer.six, one page at a time, page numbers kept."""

from collections.abc import Iterator
from dataclasses import dataclass
from io import StringIO
from typing import BinaryIO

from pdfminer.converter import TextConverter
from pdfminer.layout import LAParams
from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
from pdfminer.pdfpage import PDFPage
from pdfminer.pdfparser import PDFSyntaxError
from pdfminer.psexceptions import PSException

from search.pipeline.errors import Corrupt, Encrypted, NotAPdf

PDF_MAGIC = b"%PDF-"

# pdfminer raises plain Python errors on some damaged files, not only its own.
_DAMAGE = (
    PSException,
    ValueError,
    TypeError,
    IndexError,
    KeyError,
    AttributeError,
    AssertionError,
    RecursionError,
    UnicodeDecodeError,
    ZeroDivisionError,
)


@dataclass(frozen=True)
class Page:
    number: int  # 1-based
    text: str


def extract_pages(fp: BinaryIO) -> Iterator[Page]:
    """Yield each page's raw text. Raises NotAPdf, Encrypted or Corrupt."""
    head = fp.read(1024)
    if PDF_MAGIC not in head:
        raise NotAPdf("This file is not a PDF (it does not start with %PDF-).")
    fp.seek(0)
    manager = PDFResourceManager()
    buffer = StringIO()
    device = TextConverter(manager, buffer, laparams=LAParams())
    interpreter = PDFPageInterpreter(manager, device)
    try:
        for number, page in enumerate(PDFPage.get_pages(fp), start=1):
            interpreter.process_page(page)
            yield Page(number=number, text=buffer.getvalue())
            buffer.seek(0)
            buffer.truncate()
    except (PDFPasswordIncorrect, PDFEncryptionError) as exc:
        raise Encrypted("The PDF is encrypted and needs a password.") from exc
    except PDFSyntaxError as exc:
        raise Corrupt(f"The PDF is damaged and cannot be read: {exc}.") from exc
    except _DAMAGE as exc:
        raise Corrupt(
            f"The PDF is damaged and cannot be read ({type(exc).__name__}: {exc})."
        ) from exc
    finally:
        device.close()
