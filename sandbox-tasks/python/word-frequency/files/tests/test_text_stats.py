import unittest

from text_stats import top_words


class TopWordsTest(unittest.TestCase):
    def test_most_frequent_first(self):
        self.assertEqual(top_words("red blue red green red blue", 2), [("red", 3), ("blue", 2)])


if __name__ == "__main__":
    unittest.main()
