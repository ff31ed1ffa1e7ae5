"""Hand-built image-only PDFs for the OCR limits: one huge image, or many pages of one.

Written by hand, not rendered: a 40,000 x 40,000 image is 1.6 billion pixels, which no test
could render, yet at one bit per pixel of zeros it deflates to a few hundred kilobytes.
"""

import zlib

from tests.search.handmade import pdf_of


def _zeros_deflated(size: int) -> bytes:
    packer = zlib.compressobj(9)
    block = b"\0" * (1 << 20)
    parts = [packer.compress(block) for _ in range(size // len(block))]
    parts.append(packer.compress(b"\0" * (size % len(block))))
    parts.append(packer.flush())
    return b"".join(parts)


def image_pages_pdf(*, pages: int = 1, width: int = 100, height: int = 100) -> bytes:
    """`pages` A4 pages, each covered by the same one-bit `width` x `height` image."""
    data = _zeros_deflated((width + 7) // 8 * height)
    image = (
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 1 /Filter /FlateDecode /Length %d >>\nstream\n"
        % (width, height, len(data))
        + data
        + b"\nendstream"
    )
    content = b"q 595 0 0 842 0 0 cm /Im0 Do Q"
    stream = b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream"
    first_page = 5
    kids = b" ".join(b"%d 0 R" % (first_page + i) for i in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages),
        image,
        stream,
    ]
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /XObject << /Im0 3 0 R >> >> /Contents 4 0 R >>"
    )
    objects += [page] * pages
    return pdf_of(objects)
