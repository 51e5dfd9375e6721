"""Merging a room's bookings for the occupancy report."""


def merge_intervals(intervals):
    """Merge overlapping [start, end] ranges into the fewest ranges covering the same times."""
    if not intervals:
        return []
    merged = [list(intervals[0])]
    for start, end in intervals[1:]:
        last = merged[-1]
        if start < last[1]:
            last[1] = end
        else:
            merged.append([start, end])
    return merged


def total_booked(intervals):
    """Minutes covered by at least one booking."""
    return sum(end - start for start, end in merge_intervals(intervals))
