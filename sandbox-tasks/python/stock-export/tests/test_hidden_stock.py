import os
import tempfile
import unittest

from inventory.stock import load_stock


class LoadStockTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)

    def export(self, text, encoding="utf-8"):
        path = os.path.join(self.folder.name, "stock.csv")
        with open(path, "w", encoding=encoding, newline="") as export:
            export.write(text)
        return path

    def test_header_and_rows(self):
        path = self.export("sku,name,quantity\nA-1,Bolt,40\nB-2,Nut,15\n")
        self.assertEqual(load_stock(path), {"A-1": 40, "B-2": 15})

    def test_quoted_names_with_commas_and_quotes(self):
        path = self.export('sku,name,quantity\nC-3,"Washer, steel ""M8""",120\n')
        self.assertEqual(load_stock(path), {"C-3": 120})

    def test_quantities_of_a_repeated_sku_add_up(self):
        path = self.export("sku,name,quantity\nA-1,Bolt,40\nB-2,Nut,15\nA-1,Bolt,2\n")
        self.assertEqual(load_stock(path), {"A-1": 42, "B-2": 15})

    def test_blank_lines_skipped(self):
        path = self.export("sku,name,quantity\n\nA-1,Bolt,40\n\n\nB-2,Nut,15\n\n")
        self.assertEqual(load_stock(path), {"A-1": 40, "B-2": 15})

    def test_spaces_around_sku_and_quantity(self):
        path = self.export("sku,name,quantity\n A-1 ,Bolt, 40 \n")
        self.assertEqual(load_stock(path), {"A-1": 40})

    def test_columns_in_any_order_with_others(self):
        path = self.export("location,quantity,name,sku\nShelf 4,7,Hinge,D-4\nShelf 9,3,Hinge,D-4\n")
        self.assertEqual(load_stock(path), {"D-4": 10})

    def test_byte_order_mark_and_windows_line_ends(self):
        path = self.export("sku,name,quantity\r\nA-1,Bolt,40\r\n", encoding="utf-8-sig")
        self.assertEqual(load_stock(path), {"A-1": 40})


if __name__ == "__main__":
    unittest.main()
