import unittest

from text_stats import top_words


class TopWordsTest(unittest.TestCase):
    def test_ignores_case(self):
        self.assertEqual(top_words("The cat saw the hat. THE end", 1), [("the", 3)])

    def test_strips_punctuation(self):
        self.assertEqual(top_words("stop, stop! (stop) stop.", 3), [("stop", 4)])

    def test_ties_in_alphabetical_order(self):
        self.assertEqual(top_words("pear fig apple fig pear apple", 3), [("apple", 2), ("fig", 2), ("pear", 2)])

    def test_apostrophe_inside_a_word(self):
        self.assertEqual(top_words("Don't stop, don't 'quote' me", 2), [("don't", 2), ("me", 1)])

    def test_letters_of_any_alphabet_and_digits(self):
        self.assertEqual(top_words("Café café-CAFÉ route 66", 2), [("café", 3), ("66", 1)])

    def test_n_larger_than_the_vocabulary(self):
        self.assertEqual(top_words("one two two", 10), [("two", 2), ("one", 1)])

    def test_n_zero(self):
        self.assertEqual(top_words("one two two", 0), [])

    def test_n_negative(self):
        self.assertEqual(top_words("one two two three", -1), [])


if __name__ == "__main__":
    unittest.main()
