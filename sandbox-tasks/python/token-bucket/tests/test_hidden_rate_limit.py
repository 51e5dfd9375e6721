import unittest

from rate_limit import TokenBucket


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def drain(bucket):
    """Spends every whole token; returns how many requests went through."""
    allowed = 0
    while bucket.allow() and allowed < 1000:
        allowed += 1
    return allowed


class TokenBucketTest(unittest.TestCase):
    def test_starts_with_capacity_tokens(self):
        bucket = TokenBucket(capacity=3, rate=1, clock=FakeClock())
        self.assertEqual(drain(bucket), 3)

    def test_refills_at_the_rate(self):
        clock = FakeClock()
        bucket = TokenBucket(capacity=5, rate=2, clock=clock)
        drain(bucket)
        clock.now += 1
        self.assertEqual(drain(bucket), 2)

    def test_never_more_than_capacity_after_a_quiet_period(self):
        clock = FakeClock()
        bucket = TokenBucket(capacity=4, rate=1, clock=clock)
        drain(bucket)
        clock.now += 3600
        self.assertEqual(drain(bucket), 4)

    def test_partly_used_bucket_refills_only_to_capacity(self):
        clock = FakeClock()
        bucket = TokenBucket(capacity=3, rate=2, clock=clock)
        self.assertTrue(bucket.allow())
        clock.now += 10
        self.assertEqual(drain(bucket), 3)

    def test_fractions_of_a_token_add_up(self):
        clock = FakeClock()
        bucket = TokenBucket(capacity=1, rate=1, clock=clock)
        drain(bucket)
        clock.now += 0.5
        self.assertFalse(bucket.allow())
        clock.now += 0.5
        self.assertTrue(bucket.allow())

    def test_a_refused_request_spends_nothing(self):
        bucket = TokenBucket(capacity=5, rate=1, clock=FakeClock())
        self.assertEqual([bucket.allow(3), bucket.allow(3), bucket.allow(2)], [True, False, True])


if __name__ == "__main__":
    unittest.main()
