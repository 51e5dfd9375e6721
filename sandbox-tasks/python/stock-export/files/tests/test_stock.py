import os
import tempfile
import unittest

from inventory.stock import load_stock


class LoadStockTest(unittest.TestCase):
    def test_simple_export(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "stock.csv")
            with open(path, "w", encoding="utf-8") as export:
                export.write("sku,name,quantity\nA-1,Bolt,40\nB-2,Nut,15\n")
            self.assertEqual(load_stock(path), {"A-1": 40, "B-2": 15})


if __name__ == "__main__":
    unittest.main()
