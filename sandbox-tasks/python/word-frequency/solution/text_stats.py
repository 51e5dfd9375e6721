"""Word statistics for the weekly search report."""
import re

# Letters or digits of any alphabet, with apostrophes only between them.
WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


def words(text):
    return WORD.findall(text.lower())


def top_words(text, n):
    """The `n` most frequent words of `text` as (word, count) pairs, most frequent first."""
    if n <= 0:
        return []
    counts = {}
    for word in words(text):
        counts[word] = counts.get(word, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked[:n]
