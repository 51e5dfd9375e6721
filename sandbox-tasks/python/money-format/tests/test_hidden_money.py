import unittest

from invoice import invoice_lines
from money import format_money


class FormatMoneyTest(unittest.TestCase):
    def test_zero(self):
        self.assertEqual(format_money(0), "$0.00")

    def test_cents_only(self):
        self.assertEqual(format_money(5), "$0.05")

    def test_below_a_thousand(self):
        self.assertEqual(format_money(99999), "$999.99")

    def test_thousands_separator(self):
        self.assertEqual(format_money(123456), "$1,234.56")

    def test_millions(self):
        self.assertEqual(format_money(100000000), "$1,000,000.00")

    def test_negative_cents(self):
        self.assertEqual(format_money(-5), "-$0.05")

    def test_negative_thousands(self):
        self.assertEqual(format_money(-123456), "-$1,234.56")

    def test_other_symbol(self):
        self.assertEqual(format_money(250, symbol="€"), "€2.50")

    def test_invoice_with_a_refund(self):
        lines = invoice_lines([("Desk", 2, 500000), ("Refund", 1, -1000)])
        self.assertEqual(lines, ["Desk x2: $10,000.00", "Refund x1: -$10.00", "Total: $9,990.00"])


if __name__ == "__main__":
    unittest.main()
