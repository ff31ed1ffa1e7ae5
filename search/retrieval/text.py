"""What the full-text side needs from a query: CJK runs as phrases of characters.

The chunk column (migration 0002, `search_words`) makes every Chinese, Japanese or Korean
character a token of its own, because Postgres's parser would make one token of a whole
run. A query's run becomes a phrase of those characters, so "東京" finds "東京都の人口"
(the characters next to each other, in order) and not every chunk that has 東 and 京
somewhere. Everything else goes to `websearch_to_tsquery` as typed: words, "quoted
phrases", OR, -excluded.
"""

import re

# The same ranges as search_words() in migration 0002: kana, CJK ideographs (and
# extension A, compatibility), Hangul syllables, half-width katakana.
CJK = re.compile(
    r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff66-\uff9f]+"
)


# A word as the `hashing` provider splits text (search/embedding/hashing.py).
WORD = re.compile(r"\w+", re.UNICODE)


def _spaced(run: re.Match[str]) -> str:
    return " " + " ".join(run.group()) + " "


def websearch_text(q: str) -> str:
    """`q` for websearch_to_tsquery, each CJK run a phrase of its characters.

    Outside quotes a run is wrapped in quotes of its own; inside a quoted phrase its
    characters just join the phrase. An unmatched quote runs to the end, as websearch
    reads it.
    """
    parts = q.split('"')
    out = []
    for position, part in enumerate(parts):
        if position % 2:  # inside quotes
            out.append(CJK.sub(_spaced, part))
        else:
            out.append(CJK.sub(lambda run: ' "' + " ".join(run.group()) + '" ', part))
    return '"'.join(out)


def any_word_text(q: str) -> str:
    """`q`'s words for websearch_to_tsquery, ORed: a chunk with any of them matches (a CJK
    run as the phrase of its characters, as `websearch_text` makes it). Words only: quotes,
    minus signs and the query's own OR are not read."""
    words = (word for word in WORD.findall(q) if word.lower() != "or")
    return " or ".join(CJK.sub(lambda run: '"' + " ".join(run.group()) + '"', w) for w in words)
