"""Calendar helpers for billing periods."""


def is_leap(year):
    return year % 4 == 0


def days_in_year(year):
    return 366 if is_leap(year) else 365


def days_in_month(year, month):
    if not 1 <= month <= 12:
        raise ValueError(f"month must be 1..12, got {month}")
    if month == 2:
        return 29 if is_leap(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31
