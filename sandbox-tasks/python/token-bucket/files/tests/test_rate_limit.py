import unittest

from rate_limit import TokenBucket


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class TokenBucketTest(unittest.TestCase):
    def test_starts_full(self):
        bucket = TokenBucket(capacity=2, rate=1, clock=FakeClock())
        self.assertEqual([bucket.allow(), bucket.allow(), bucket.allow()], [True, True, False])


if __name__ == "__main__":
    unittest.main()
