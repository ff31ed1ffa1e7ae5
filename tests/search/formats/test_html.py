"""Web pages (search/pipeline/formats/html.py)."""

from tests.search.formats.files import kinds, read

PAGE = """<!doctype html><html><head><title>Page title</title>
<meta charset="windows-1252"><style>p {color: red}</style></head>
<body>
<header>Site banner</header><nav><a href="/">Home</a></nav>
<main>
<h2>Section</h2>
<p>First <b>bold</b> para\u2019s text.</p>
<div>Loose div text<p>inner para</p>tail text</div>
<ul><li>one</li><li>two <ul><li>two.one</li></ul></li></ul>
<pre>line 1
  line 2</pre>
<table><caption>Costs</caption>
<tr><th>Item</th><th colspan="2">Cost</th></tr>
<tr><td rowspan="2">Tea</td><td>1</td><td>2</td></tr>
<tr><td>3</td><td>4</td></tr>
</table>
<figure><img alt="x"><figcaption>A cat</figcaption></figure>
<script>var hidden = 1;</script>
</main>
<aside>Related</aside><footer>Copyright</footer>
</body></html>"""


def test_only_main_is_read_and_what_is_not_text_goes():
    texts = [text for _, text in kinds(read(PAGE.encode("cp1252"), "html"))]

    for gone in ("Site banner", "Home", "Related", "Copyright", "hidden", "color"):
        assert not any(gone in text for text in texts)


def test_the_title_stands_in_for_a_missing_h1_and_headings_keep_their_level():
    blocks = read(PAGE.encode("cp1252"), "html").structure.blocks

    assert (blocks[0].kind, blocks[0].text) == ("title", "Page title")
    assert (blocks[1].kind, blocks[1].text, blocks[1].level) == ("heading", "Section", 2)


def test_paragraphs_list_items_pre_and_captions_in_order():
    blocks = kinds(read(PAGE.encode("cp1252"), "html"))

    assert blocks[2:10] == [
        ("paragraph", "First bold para\u2019s text."),
        ("paragraph", "Loose div text"),
        ("paragraph", "inner para"),
        ("paragraph", "tail text"),
        ("list_item", "one"),
        ("list_item", "two"),
        ("list_item", "two.one"),
        ("paragraph", "line 1\n  line 2"),
    ]
    assert ("caption", "Costs") in blocks
    assert blocks[-1] == ("caption", "A cat")


def test_a_table_keeps_header_cells_and_spans():
    table = next(b for b in read(PAGE.encode(), "html").structure.blocks if b.kind == "table")

    spans = [(c.row, c.column, c.rows, c.columns, c.text, c.header) for c in table.cells]
    assert spans == [
        (0, 0, 1, 1, "Item", True),
        (0, 1, 1, 2, "Cost", True),
        (1, 0, 2, 1, "Tea", False),
        (1, 1, 1, 1, "1", False),
        (1, 2, 1, 1, "2", False),
        (2, 1, 1, 1, "3", False),
        (2, 2, 1, 1, "4", False),
    ]


def test_an_h1_keeps_the_title_out_and_one_article_is_all_that_is_read():
    page = (
        b"<html><head><title>T</title></head><body><p>Outside</p>"
        b"<article><h1>Real</h1><p>Body</p></article></body></html>"
    )

    assert kinds(read(page, "html")) == [("heading", "Real"), ("paragraph", "Body")]


def test_the_meta_charset_decides_the_encoding():
    page = (
        '<html><head><meta charset="iso-8859-7"></head>'
        "<body><p>\u0391\u03b8\u03ae\u03bd\u03b1</p></body></html>"
    )

    assert kinds(read(page.encode("iso-8859-7"), "html")) == [
        ("paragraph", "\u0391\u03b8\u03ae\u03bd\u03b1")
    ]


def test_an_empty_page_reads_as_no_blocks():
    assert read(b"<html></html>", "html").structure.blocks == []


def test_a_form_wrapping_the_content_is_read_but_not_its_controls():
    page = """<html><body><center><form action="next.php" method="POST">
<table><tr><th><a title="Speed: 12750">Large cargo ship</a></th>
<th>19<input type="hidden" name="max" value="19"/></th>
<th><input name="ship" value="0" alt="Large cargo ship 19"/></th></tr>
<tr><th colspan="3"><input type="submit" value="Continue"/></th></tr></table>
<p>Pick a planet <select><option>Alien world</option></select>
<button>Send</button><textarea>typed</textarea></p>
</form></center></body></html>"""

    reading = read(page.encode(), "html")

    assert "Large cargo ship | 19" in reading.texts[0]
    assert ("paragraph", "Pick a planet") in kinds(reading)
    for gone in ("Alien world", "Send", "typed"):
        assert gone not in reading.texts[0]
