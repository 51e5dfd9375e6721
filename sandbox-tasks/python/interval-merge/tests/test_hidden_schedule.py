import copy
import unittest

from schedule import merge_intervals, total_booked


class MergeIntervalsTest(unittest.TestCase):
    def test_empty(self):
        self.assertEqual(merge_intervals([]), [])

    def test_disjoint_stay_apart(self):
        self.assertEqual(merge_intervals([[1, 2], [5, 6]]), [[1, 2], [5, 6]])

    def test_overlapping_merge(self):
        self.assertEqual(merge_intervals([[1, 4], [2, 6]]), [[1, 6]])

    def test_unsorted_input(self):
        self.assertEqual(merge_intervals([[5, 7], [1, 3], [2, 4]]), [[1, 4], [5, 7]])

    def test_touching_merge(self):
        self.assertEqual(merge_intervals([[1, 3], [3, 5], [8, 9]]), [[1, 5], [8, 9]])

    def test_nested_keep_the_outer_end(self):
        self.assertEqual(merge_intervals([[1, 10], [2, 3], [4, 5]]), [[1, 10]])

    def test_input_unchanged(self):
        bookings = [[3, 4], [1, 2], [2, 3]]
        before = copy.deepcopy(bookings)
        merge_intervals(bookings)
        self.assertEqual(bookings, before)

    def test_total_counts_each_minute_once(self):
        self.assertEqual(total_booked([[20, 25], [0, 10], [2, 3]]), 15)


if __name__ == "__main__":
    unittest.main()
