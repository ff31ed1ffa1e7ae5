"""The scale benchmark's database, built small: the proportions the issue asks for hold,
and the COPY column lists still fit the schema the migrations make."""

import json

from tests.bench.scale import build


def test_a_small_build_holds_the_asked_proportions(tmp_path):
    root = tmp_path / "scale"

    assert build.main(["--scale", "0.001", "--chunks", "2000", "--root", str(root)]) == 0

    record = json.loads((root / "built.json").read_text())
    holds = record["holds"]
    assert holds["accounts"] == 10
    assert holds["documents"] == 2000
    assert holds["largest account's documents"] == 200
    assert holds["jobs"] == 3 * holds["documents"]
    assert 0.0095 <= holds["dead letters"] / holds["jobs"] <= 0.0105  # 1 %
    assert 3.3 <= holds["attempts"] / holds["jobs"] <= 3.4  # 20 million of 6 million
    assert holds["chunks"] == 2000
    assert "hnsw index" in record["seconds"]
    # Built once: the same parameters again do nothing.
    assert build.main(["--scale", "0.001", "--chunks", "2000", "--root", str(root)]) == 0
    assert json.loads((root / "built.json").read_text())["built"] == record["built"]
