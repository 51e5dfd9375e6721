"""Printing amounts of money, kept as whole cents, on invoices and receipts."""


def format_money(cents, symbol="$"):
    return f"{symbol}{cents // 100}.{cents % 100:02d}"
