"""Which content words a paraphrase query shares with its passage's page, for
tests.bench.search.

A query "shares a word" with its page when a word of each, lowercased and cut to its stem
by the Porter stemmer (written out here: no library), is the same and is not a stop-word
(STOP_WORDS: English and German function words, and the words a question is put in:
"how", "which", "does"). Porter's stems join "copies" and "copied", "files" and "file",
"deductible" and "deduct". The benchmark reports recall apart for the queries that share
a word with their page and those that share none: lexical search can find only the
first kind.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+")

_ENGLISH = (  # noqa: SIM905
    """
    a about above across after again against all almost also although always am among an
    and another any anyone anything are around as at away be became because become been
    before being below between both but by can cannot could did do does doing done down
    during each either else enough even ever every for from further get gets getting give
    given go goes going got had has have having he her here hers herself him himself his
    how however i if in into is it its itself just least less let like made make makes
    many may me might more most much must my myself near need needs neither never no nor
    not now of off often on once one ones only onto or other others otherwise our ours
    ourselves out over own per put rather same shall she should since so some someone
    something such than that the their theirs them themselves then there these they this
    those though through thus to too toward towards under until up upon us use used uses
    using very via was way we well were what whatever when where whether which while who
    whom whose why will with within without would yet you your yours yourself yourselves
    unless
    s t d ll m re ve e g eg ie etc vs
    """
).split()
_GERMAN = (  # noqa: SIM905
    """
    aber alle allem allen aller alles als also am an ander andere anderem anderen anderer
    anderes auch auf aus bei bin bis bist da damit dann das dass dem den denn der des die
    dies diese diesem diesen dieser dieses doch dort du durch ein eine einem einen einer
    eines er es etwas für gegen hat hatte hier hin hinter ich ihm ihn ihr ihre im in indem
    ins ist jede jedem jeden jeder jedes jene kann kein keine man mit muss nach nicht nichts
    noch nur ob oder ohne sehr sein seine sich sie sind so soll sondern über um und uns
    unter viel vom von vor wann war warum was weil welche welchem welchen welcher welches
    wenn wer werden wie wieder wird wo wurde zu zum zur zwischen
    """
).split()
STOP_WORDS = frozenset(_ENGLISH + _GERMAN)

# The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980), as
# published: steps 1a to 5b.
_STEP2 = (
    ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"),
    ("izer", "ize"), ("abli", "able"), ("alli", "al"), ("entli", "ent"), ("eli", "e"),
    ("ousli", "ous"), ("ization", "ize"), ("ation", "ate"), ("ator", "ate"),
    ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous"),
    ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"),
)  # fmt: skip
_STEP3 = (
    ("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"),
    ("ful", ""), ("ness", ""),
)  # fmt: skip
_STEP4 = (
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion",
    "ou", "ism", "ate", "iti", "ous", "ive", "ize",
)  # fmt: skip


def _consonant(word: str, i: int) -> bool:
    if word[i] in "aeiou":
        return False
    if word[i] == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """m: how many vowel-consonant runs the stem holds."""
    kinds = "".join("c" if _consonant(stem, i) else "v" for i in range(len(stem)))
    return len(re.findall(r"v+c+", kinds))


def _has_vowel(stem: str) -> bool:
    return any(not _consonant(stem, i) for i in range(len(stem)))


def _double(word: str) -> bool:
    return len(word) > 1 and word[-1] == word[-2] and _consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    return (
        len(word) > 2
        and _consonant(word, len(word) - 3)
        and not _consonant(word, len(word) - 2)
        and _consonant(word, len(word) - 1)
        and word[-1] not in "wxy"
    )


def _replace(word: str, rules: tuple[tuple[str, str], ...], least: int) -> str:
    """The longest ending of `rules` the word has, replaced where the stem's m > least."""
    for suffix, replacement in sorted(rules, key=lambda rule: -len(rule[0])):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            return stem + replacement if _measure(stem) > least else word
    return word


def stem(word: str) -> str:
    """The word lowercased and cut to its Porter stem ("copies", "copied": "copi")."""
    word = word.lower()
    if len(word) <= 2:
        return word
    # Step 1a
    if word.endswith("sses") or word.endswith("ies"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    # Step 1b
    if word.endswith("eed"):
        if _measure(word[:-3]) > 0:
            word = word[:-1]
    else:
        for suffix in ("ed", "ing"):
            if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
                word = word[: -len(suffix)]
                if word.endswith(("at", "bl", "iz")):
                    word += "e"
                elif _double(word) and word[-1] not in "lsz":
                    word = word[:-1]
                elif _measure(word) == 1 and _cvc(word):
                    word += "e"
                break
    # Step 1c
    if word.endswith("y") and _has_vowel(word[:-1]):
        word = word[:-1] + "i"
    word = _replace(word, _STEP2, 0)
    word = _replace(word, _STEP3, 0)
    # Step 4
    for suffix in sorted(_STEP4, key=len, reverse=True):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            if _measure(stem) > 1 and (suffix != "ion" or stem.endswith(("s", "t"))):
                word = stem
            break
    # Step 5
    if word.endswith("e"):
        stem = word[:-1]
        if _measure(stem) > 1 or (_measure(stem) == 1 and not _cvc(stem)):
            word = stem
    if _measure(word) > 1 and _double(word) and word.endswith("l"):
        word = word[:-1]
    return word


def content_stems(text: str) -> set[str]:
    """The stems of the text's words that are not stop-words (nor single letters)."""
    words = (w.lower() for w in _WORD.findall(text))
    return {stem(w) for w in words if w not in STOP_WORDS and len(w) > 1}


def shared_words(query: str, page_text: str) -> set[str]:
    """The stems the query shares with the page, stop-words aside."""
    return content_stems(query) & content_stems(page_text)


def shares_a_word(query: str, page_text: str) -> bool:
    """Whether the query shares a content word (by its stem) with the page."""
    return bool(shared_words(query, page_text))
