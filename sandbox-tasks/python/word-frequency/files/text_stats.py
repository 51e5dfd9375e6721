"""Word statistics for the weekly search report."""


def words(text):
    return text.split()


def top_words(text, n):
    """The `n` most frequent words of `text` as (word, count) pairs, most frequent first."""
    counts = {}
    for word in words(text):
        counts[word] = counts.get(word, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: item[1], reverse=True)
    return ranked[:n]
