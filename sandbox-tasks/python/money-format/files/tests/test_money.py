import unittest

from invoice import invoice_lines
from money import format_money


class FormatMoneyTest(unittest.TestCase):
    def test_small_amount(self):
        self.assertEqual(format_money(1999), "$19.99")

    def test_invoice(self):
        self.assertEqual(invoice_lines([("Pen", 3, 150)]), ["Pen x3: $4.50", "Total: $4.50"])


if __name__ == "__main__":
    unittest.main()
