"""The `hashing` provider: a deterministic bag-of-words embedding that needs no network."""

import hashlib
import math
import re
from collections.abc import Sequence

_TOKEN = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> list[str]:
    """The tokens `hashing_embed` hashes: its lower-cased words."""
    return _TOKEN.findall(text.lower())


def hashing_embed(texts: Sequence[str], dimensions: int) -> list[list[float]]:
    """A deterministic bag-of-words embedding (the hashing trick) that needs no network.

    Each lower-cased word adds ±1 to one coordinate chosen by its hash; the result is
    scaled to unit length, so texts sharing words have a high cosine similarity.
    """
    vectors = []
    for text in texts:
        vector = [0.0] * dimensions
        for token in words(text):
            digest = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest())
            sign = 1.0 if digest & 1 else -1.0
            vector[(digest >> 1) % dimensions] += sign
        norm = math.sqrt(sum(value * value for value in vector))
        if norm == 0:
            vector[0] = 1.0  # a text without words still needs a valid, non-zero vector
        else:
            vector = [value / norm for value in vector]
        vectors.append(vector)
    return vectors
