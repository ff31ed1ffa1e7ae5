"""Hostile PDFs written byte by byte: what fpdf2 would never produce."""

import zlib


def pdf_with_content(content: bytes, *, filters: bytes = b"") -> bytes:
    """A one-page PDF whose content stream holds `content`, stored as given.

    `filters` names how `content` is encoded (e.g. b"/FlateDecode"); the bytes are not
    checked, which is the point.
    """
    stream_dict = b"<< /Length %d%s >>" % (len(content), b" /Filter " + filters if filters else b"")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        stream_dict + b"\nstream\n" + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    return pdf_of(objects)


def pdf_of(objects: list[bytes]) -> bytes:
    """A PDF of these objects, numbered from 1; the first is the catalog."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def deflate_bomb(gib: int) -> bytes:
    """A valid zlib stream of about gib MB that inflates to `gib` GiB of zeros.

    Made in milliseconds: after a full flush the compressor forgets its history, so every
    MiB of zeros compresses to the same bytes and one block can simply be repeated.
    """
    mib = bytes(1 << 20)
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)  # raw deflate: we add the framing
    block = compressor.compress(mib) + compressor.flush(zlib.Z_FULL_FLUSH)
    size = gib << 30
    adler32 = ((size % 65521) << 16) | 1  # of `size` zero bytes: a stays 1, b counts them
    return b"\x78\xda" + block * (gib << 10) + compressor.flush() + adler32.to_bytes(4, "big")
