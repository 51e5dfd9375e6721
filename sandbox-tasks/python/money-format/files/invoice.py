"""Invoice lines and their total."""
from money import format_money


def line_amount(quantity, unit_cents):
    return quantity * unit_cents


def invoice_lines(items, symbol="$"):
    """(description, quantity, unit_cents) items -> one printable line each, then the total."""
    lines = []
    total = 0
    for description, quantity, unit_cents in items:
        amount = line_amount(quantity, unit_cents)
        total += amount
        lines.append(f"{description} x{quantity}: {format_money(amount, symbol)}")
    lines.append(f"Total: {format_money(total, symbol)}")
    return lines
