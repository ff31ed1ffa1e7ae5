"""A large PDF written to disk a block at a time: pages of text, each over a gray image.

The shape of a big scan with its text layer (what people send straight to storage): most
of the file is image data, which neither reader decodes to read text, and every page
carries enough text not to need OCR.
"""

from pathlib import Path

MiB = 1 << 20
LINES = 30


def write_large_pdf(path: Path, *, pages: int, image_bytes: int) -> int:
    """Write a PDF of `pages` pages, each holding a square gray image of about
    `image_bytes` bytes (uncompressed) under thirty lines of text; its size in bytes.
    Page N's first line is "Line 0 of page N: ...", so a test can tell the pages apart."""
    side = int(image_bytes**0.5)
    font, first = 3, 4
    offsets: dict[int, int] = {}
    with open(path, "wb") as out:

        def start(number: int) -> None:
            offsets[number] = out.tell()
            out.write(b"%d 0 obj\n" % number)

        out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        kids = b" ".join(b"%d 0 R" % (first + 3 * page) for page in range(pages))
        start(1)
        out.write(b"<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
        start(2)
        out.write(b"<< /Type /Pages /Kids [%s] /Count %d >>\nendobj\n" % (kids, pages))
        start(font)
        out.write(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>\nendobj\n")
        for page in range(pages):
            number = first + 3 * page
            start(number)
            out.write(
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                b"/Resources << /Font << /F1 %d 0 R >> /XObject << /Im1 %d 0 R >> >> >>"
                b"\nendobj\n" % (number + 1, font, number + 2)
            )
            content = _content(page + 1)
            start(number + 1)
            out.write(
                b"<< /Length %d >>\nstream\n%s\nendstream\nendobj\n" % (len(content), content)
            )
            start(number + 2)
            out.write(
                b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace "
                b"/DeviceGray /BitsPerComponent 8 /Length %d >>\nstream\n"
                % (side, side, side * side)
            )
            left = side * side
            block = bytes([page % 200 + 40]) * MiB
            while left:
                out.write(block[: min(left, MiB)])
                left -= min(left, MiB)
            out.write(b"\nendstream\nendobj\n")
        xref = out.tell()
        count = first + 3 * pages
        out.write(b"xref\n0 %d\n0000000000 65535 f \n" % count)
        for number in range(1, count):
            out.write(b"%010d 00000 n \n" % offsets[number])
        out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (count, xref))
        return out.tell()


def _content(page: int) -> bytes:
    lines = b" ".join(
        b"(Line %d of page %d: a large file, read a page at a time.) '" % (line, page)
        for line in range(LINES)
    )
    # The image at the foot of the page, the text above it.
    return b"q 200 0 0 200 206 40 cm /Im1 Do Q BT /F1 11 Tf 72 720 Td 14 TL " + lines + b" ET"
