"""Small files of each type, built in the tests with the libraries that write them (and
by hand, with zipfile, for OpenDocument)."""

import io
import zipfile

from search.pipeline.formats import FormatReading, read_file

ODF_NAMESPACES = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
    'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
    'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/" '
    'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"'
)


def read(data: bytes, code: str, *, max_pages: int = 100, on_pages=None) -> FormatReading:
    return read_file(io.BytesIO(data), code, max_pages=max_pages, on_pages=on_pages)


def kinds(reading: FormatReading) -> list[tuple[str, str]]:
    return [(block.kind, block.text) for block in reading.structure.blocks]


def odf(mimetype: str, body: str, *, styles: str = "", meta: str = "", doctype: str = "") -> bytes:
    """An OpenDocument package: its mimetype first and stored, then its XML parts."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("mimetype", mimetype, compress_type=zipfile.ZIP_STORED)
        archive.writestr(
            "content.xml",
            f'<?xml version="1.0"?>{doctype}<office:document-content {ODF_NAMESPACES}>'
            f"<office:body>{body}</office:body></office:document-content>",
        )
        if styles:
            archive.writestr(
                "styles.xml",
                f'<?xml version="1.0"?><office:document-styles {ODF_NAMESPACES}>'
                f"{styles}</office:document-styles>",
            )
        if meta:
            archive.writestr(
                "meta.xml",
                f'<?xml version="1.0"?><office:document-meta {ODF_NAMESPACES}>'
                f"<office:meta>{meta}</office:meta></office:document-meta>",
            )
    return buffer.getvalue()
