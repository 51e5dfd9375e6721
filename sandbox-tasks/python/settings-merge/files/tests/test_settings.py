import unittest

from settings import layered, merge


class MergeTest(unittest.TestCase):
    def test_override_wins(self):
        self.assertEqual(merge({"debug": False, "port": 80}, {"debug": True}), {"debug": True, "port": 80})

    def test_layers_in_order(self):
        self.assertEqual(layered({"level": "info"}, {"level": "warn"}, {}), {"level": "warn"})


if __name__ == "__main__":
    unittest.main()
