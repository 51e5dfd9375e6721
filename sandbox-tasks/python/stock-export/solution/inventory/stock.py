"""Reading the warehouse's stock export."""
import csv


def load_stock(path):
    """{sku: quantity} for the CSV export at `path`; quantities of a SKU on several lines add up."""
    totals = {}
    # utf-8-sig drops the byte order mark spreadsheet programs write first.
    with open(path, newline="", encoding="utf-8-sig") as export:
        for row in csv.DictReader(export):
            sku = row["sku"].strip()
            totals[sku] = totals.get(sku, 0) + int(row["quantity"].strip())
    return totals
