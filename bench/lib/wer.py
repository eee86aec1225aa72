"""Word error rate for the Python benchmarks (engine, live, vocabulary): one normalisation, so
their figures compare. Lower case, no punctuation, the references' spellings ("Mr" → "mister"),
numbers up to twenty spelled out and longer digit strings digit by digit (as TIDIGITS reads them)."""
from __future__ import annotations

import re

NUMBERS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()

# Spellings the references write out or spell the American way.
SPELLED = {"mr": "mister", "metres": "meters"}


def words(text: str) -> list:
    """Lower case, no punctuation, small numbers spelled out ("10" and "ten" are one word)."""
    out = [SPELLED.get(w, w) for w in re.sub(r"[^\w' ]+", " ", text.lower()).split()]
    # Longer digit strings digit by digit, as TIDIGITS reads them ("29340", "293-4-0").
    return [x for w in out for x in ([NUMBERS[int(w)]] if w.isdigit() and int(w) < len(NUMBERS) else [NUMBERS[int(d)] for d in w] if w.isdigit() else [w])]


def edit_distance(a: list, b: list) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def wer(reference: str, hypothesis: str) -> float:
    ref = words(reference)
    return edit_distance(ref, words(hypothesis)) / max(1, len(ref))
