"""Printing amounts of money, kept as whole cents, on invoices and receipts."""


def format_money(cents, symbol="$"):
    sign = "-" if cents < 0 else ""
    whole, rest = divmod(abs(cents), 100)
    return f"{sign}{symbol}{whole:,}.{rest:02d}"
