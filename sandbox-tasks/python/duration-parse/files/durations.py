"""Reading durations such as "90s" or "2h" from job schedules into seconds."""

UNITS = {"s": 1, "m": 60, "h": 3600}


def parse_duration(text):
    """The number of seconds `text` stands for; ValueError for anything else."""
    text = text.strip()
    unit = text[-1:]
    if unit not in UNITS:
        raise ValueError(f"not a duration: {text!r}")
    return int(text[:-1]) * UNITS[unit]
