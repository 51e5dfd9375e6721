"""Reading the warehouse's stock export."""


def load_stock(path):
    """{sku: quantity} for the CSV export at `path`."""
    totals = {}
    with open(path) as export:
        for line in export:
            sku, name, quantity = line.strip().split(",")
            totals[sku] = int(quantity)
    return totals
