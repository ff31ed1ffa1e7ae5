"""The kinds of block a document's structure holds (search/pipeline/layout/model.py), for
the model's choices as well: a leaf the pipeline and the models both import."""

TITLE, HEADING, PARAGRAPH, LIST_ITEM = "title", "heading", "paragraph", "list_item"
TABLE, CAPTION, FOOTNOTE, FIGURE = "table", "caption", "footnote", "figure"
PAGE_HEADER, PAGE_FOOTER, PAGE_NUMBER = "page_header", "page_footer", "page_number"
LINE_NUMBER, MARK = "line_number", "mark"
# Furniture is kept in the model, and left out of chunks and search.
FURNITURE = frozenset({PAGE_HEADER, PAGE_FOOTER, PAGE_NUMBER, LINE_NUMBER, MARK})
KINDS = (
    TITLE,
    HEADING,
    PARAGRAPH,
    LIST_ITEM,
    TABLE,
    CAPTION,
    FOOTNOTE,
    FIGURE,
    PAGE_HEADER,
    PAGE_FOOTER,
    PAGE_NUMBER,
    LINE_NUMBER,
    MARK,
)
