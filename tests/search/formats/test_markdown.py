"""Markdown (search/pipeline/formats/markdown.py)."""

from tests.search.formats.files import kinds, read

DOCUMENT = b"""---
title: Not text
tags: [a, b]
---
# Report

Setext heading
--------------

Some *emphasis* and a [link](http://example.com) and `code`
over two lines.

- first item
  - nested item
- second item

| Name | Cost |
|------|-----:|
| Tea  | 3    |

```python
def f():
    return 1
```

### Deep
"""


def test_headings_keep_their_levels_atx_and_setext():
    headings = [
        (b.text, b.level)
        for b in read(DOCUMENT, "markdown").structure.blocks
        if b.kind == "heading"
    ]

    assert headings == [("Report", 1), ("Setext heading", 2), ("Deep", 3)]


def test_front_matter_is_skipped_and_marks_leave_their_words():
    blocks = kinds(read(DOCUMENT, "markdown"))

    assert ("paragraph", "Some emphasis and a link and code over two lines.") in blocks
    assert not any("Not text" in text for _, text in blocks)


def test_list_items_come_in_order_nested_after_their_parent():
    items = [text for kind, text in kinds(read(DOCUMENT, "markdown")) if kind == "list_item"]

    assert items == ["first item", "nested item", "second item"]


def test_a_table_keeps_its_cells_and_its_header_row():
    table = next(b for b in read(DOCUMENT, "markdown").structure.blocks if b.kind == "table")

    assert table.rows() == [["Name", "Cost"], ["Tea", "3"]]
    assert [c.header for c in table.cells] == [True, True, False, False]


def test_code_keeps_its_line_breaks():
    blocks = kinds(read(DOCUMENT, "markdown"))

    assert ("paragraph", "def f():\n    return 1") in blocks
