"""A benchmark rewrites its own generated block of the results page and nothing else."""

import re

from tests.bench.report import END_MARKER, RESULTS, start_marker, write_section

PAGE = f"""# Benchmark results

## Search

Prose that quotes a marker, {start_marker("bench-search", "x")}, is left alone.

{start_marker("bench-search", "python -m tests.bench.search")}
old search table
{END_MARKER}

## Upload acknowledgement

{start_marker("bench", "python -m tests.bench")}
old upload table
{END_MARKER}
"""


def test_a_run_replaces_its_block_and_leaves_the_rest_as_it_was(tmp_path):
    page = tmp_path / "results.md"
    page.write_text(PAGE)

    write_section(page, "bench-search", "new search table\n", by="python -m tests.bench.search")

    assert page.read_text() == PAGE.replace("old search table", "new search table")


def test_a_block_whose_name_begins_another_is_told_apart(tmp_path):
    page = tmp_path / "results.md"
    page.write_text(PAGE)

    write_section(page, "bench", "new upload table\n", by="python -m tests.bench --quick")

    text = page.read_text()
    assert "old search table" in text
    assert "old upload table" not in text
    assert f"{start_marker('bench', 'python -m tests.bench --quick')}\nnew upload table\n" in text


def test_a_block_not_yet_on_the_page_is_added_under_a_heading_of_its_own(tmp_path):
    page = tmp_path / "results.md"
    page.write_text(PAGE)

    write_section(page, "bench-new", "a table\n", by="python -m tests.bench.new")

    assert page.read_text() == (
        PAGE + f"\n## bench-new\n\n{start_marker('bench-new', 'python -m tests.bench.new')}\n"
        f"a table\n{END_MARKER}\n"
    )


def test_the_committed_results_page_is_written_back_unchanged_by_its_own_blocks(tmp_path):
    """Every block of the real page is well formed: rewriting each with what it holds and
    the command its marker names changes nothing."""
    text = RESULTS.read_text()
    page = tmp_path / "results.md"
    page.write_text(text)
    blocks = re.findall(
        r"^<!-- generated: ([a-z0-9-]+), by (.+?): do not edit -->\n(.*?)^<!-- end generated -->$",
        text,
        re.MULTILINE | re.DOTALL,
    )

    assert len(blocks) >= 10
    for section, by, body in blocks:
        write_section(page, section, body, by=by)
    assert page.read_text() == text
