"""A document's structure, read from its pages' geometry: blocks in reading order, each a
kind (title, heading, paragraph, list item, table, caption, footnote, figure, or page
furniture), its page and its box.

The steps, one module each:
- glyphs.py: a page's characters, through PDFium, as spans of text on a line with their
  boxes, font size and weight; its rules (drawn lines) and images;
- furniture.py: what repeats at the top and bottom of pages, page numbers, line numbers
  and marks in the margin, across the whole document;
- tables.py: ruled tables (from the rules) and unruled ones (from columns of aligned
  spans) as grids of cells;
- order.py: reading order, column by column (a recursive cut at the page's white gaps);
- blocks.py: lines into paragraphs, list items, headings, captions and footnotes;
- document.py: the whole file, page by page, then what needs the whole document: heading
  levels, paragraphs and tables continued across a page or column break.

Like the readers (search/pipeline/reader.py), this parses untrusted bytes unbounded and
runs only inside the sandboxed child. model.py is a leaf with no PDF library.
"""

# What read a version's text, as its job records it (jobs.models.Job.extracted_by): this
# reader, by its version, raised when a change is worth reading every document again for
# (manage.py reprocess extraction); "flat" with INGEST_STRUCTURE off.
READER = "layout:1"
FLAT = "flat"
