import unittest

from schedule import merge_intervals


class MergeIntervalsTest(unittest.TestCase):
    def test_overlapping_bookings(self):
        self.assertEqual(merge_intervals([[60, 120], [90, 150]]), [[60, 150]])

    def test_separate_bookings(self):
        self.assertEqual(merge_intervals([[60, 120], [180, 240]]), [[60, 120], [180, 240]])


if __name__ == "__main__":
    unittest.main()
