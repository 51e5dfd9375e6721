"""A token bucket that limits how often each client may call the API."""
import time


class TokenBucket:
    """Holds up to `capacity` tokens and gains `rate` tokens per second; each request spends some."""

    def __init__(self, capacity, rate, clock=time.monotonic):
        self.capacity = capacity
        self.rate = rate
        self.clock = clock
        self.tokens = capacity
        self.updated = clock()

    def _refill(self):
        now = self.clock()
        self.tokens += int((now - self.updated) * self.rate)
        self.updated = now

    def allow(self, cost=1):
        """Spend `cost` tokens if the bucket holds that many; answer whether the request may go ahead."""
        self._refill()
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False
