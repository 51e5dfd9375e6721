"""Merging a room's bookings for the occupancy report."""


def merge_intervals(intervals):
    """Merge overlapping or touching [start, end] ranges into the fewest ranges covering the same times."""
    merged = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged


def total_booked(intervals):
    """Minutes covered by at least one booking."""
    return sum(end - start for start, end in merge_intervals(intervals))
