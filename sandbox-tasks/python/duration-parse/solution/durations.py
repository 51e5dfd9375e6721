"""Reading durations such as "90s", "1h30m" or "2d 4h" from job schedules into seconds."""
import re

UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
# Largest unit first, each at most once, parts optionally separated by spaces.
DURATION = re.compile(r"(?:([0-9]+)d)? *(?:([0-9]+)h)? *(?:([0-9]+)m)? *(?:([0-9]+)s)?")


def parse_duration(text):
    """The number of seconds `text` stands for; ValueError for anything else."""
    match = DURATION.fullmatch(text.strip())
    if match is None or not any(match.groups()):
        raise ValueError(f"not a duration: {text!r}")
    return sum(int(number) * UNITS[unit] for number, unit in zip(match.groups(), "dhms") if number)
