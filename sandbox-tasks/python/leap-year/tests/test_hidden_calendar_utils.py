import unittest

from calendar_utils import days_in_month, days_in_year, is_leap


class LeapYearTest(unittest.TestCase):
    def test_1900_is_not_leap(self):
        self.assertFalse(is_leap(1900))

    def test_2000_is_leap(self):
        self.assertTrue(is_leap(2000))

    def test_2024_is_leap(self):
        self.assertTrue(is_leap(2024))

    def test_2023_is_not_leap(self):
        self.assertFalse(is_leap(2023))

    def test_2100_is_not_leap(self):
        self.assertFalse(is_leap(2100))

    def test_2400_is_leap(self):
        self.assertTrue(is_leap(2400))

    def test_february_1900_has_28_days(self):
        self.assertEqual(days_in_month(1900, 2), 28)

    def test_2100_has_365_days(self):
        self.assertEqual(days_in_year(2100), 365)


if __name__ == "__main__":
    unittest.main()
