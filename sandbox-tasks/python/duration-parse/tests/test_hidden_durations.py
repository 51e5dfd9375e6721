import unittest

from durations import parse_duration


class ParseDurationTest(unittest.TestCase):
    def assertRefused(self, *texts):
        for text in texts:
            with self.assertRaises(ValueError, msg=f"parse_duration({text!r})"):
                parse_duration(text)

    def test_single_units(self):
        self.assertEqual([parse_duration("45s"), parse_duration("15m"), parse_duration("2h")], [45, 900, 7200])

    def test_zero_and_several_digits(self):
        self.assertEqual([parse_duration("0s"), parse_duration("120m")], [0, 7200])

    def test_days(self):
        self.assertEqual(parse_duration("3d"), 259200)

    def test_combined_parts(self):
        self.assertEqual([parse_duration("1h30m"), parse_duration("2d4h")], [5400, 187200])

    def test_spaces_between_and_around_parts(self):
        self.assertEqual([parse_duration("1h 30m 15s"), parse_duration("  5m ")], [5415, 300])

    def test_refuses_what_is_not_a_duration(self):
        self.assertRefused("", "   ", "h", "10", "5x", "5 m")

    def test_refuses_parts_out_of_order_or_repeated(self):
        self.assertRefused("30m1h", "1h1h", "1s2m")

    def test_refuses_signs_and_fractions(self):
        self.assertRefused("-5m", "+5m", "1.5h")


if __name__ == "__main__":
    unittest.main()
