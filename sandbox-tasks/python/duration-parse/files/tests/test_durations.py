import unittest

from durations import parse_duration


class ParseDurationTest(unittest.TestCase):
    def test_minutes(self):
        self.assertEqual(parse_duration("15m"), 900)

    def test_unknown_unit(self):
        with self.assertRaises(ValueError):
            parse_duration("5w")


if __name__ == "__main__":
    unittest.main()
