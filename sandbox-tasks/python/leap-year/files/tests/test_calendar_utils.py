import unittest

from calendar_utils import days_in_month, is_leap


class CalendarUtilsTest(unittest.TestCase):
    def test_ordinary_leap_year(self):
        self.assertTrue(is_leap(2024))

    def test_ordinary_common_year(self):
        self.assertFalse(is_leap(2023))

    def test_thirty_day_months(self):
        self.assertEqual(days_in_month(2023, 4), 30)

    def test_month_out_of_range(self):
        with self.assertRaises(ValueError):
            days_in_month(2023, 13)


if __name__ == "__main__":
    unittest.main()
