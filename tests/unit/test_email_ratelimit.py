"""The shared send-rate limiter (store/window_counters.py) with a fake clock: each window lets through
exactly the configured number of messages, the rest wait for the next window."""

import pytest

from chalicelib.store import window_counters

pytestmark = pytest.mark.aws  # about AWS itself: over moto


class FakeTime:
    def __init__(self, start):
        self.now, self.slept = start, []

    def clock(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(round(seconds, 3))
        self.now += seconds


def _take(times, rate, count):
    return [window_counters.acquire("test", rate, sleep=times.sleep, clock=times.clock) for _ in range(count)]


def test_a_window_lets_the_rate_through_then_waits(fresh):
    times = FakeTime(1000.25)
    assert _take(times, 3, 7) == [1000.25, 1000.25, 1000.25, 1001.0, 1001.0, 1001.0, 1002.0]
    assert times.slept == [0.75, 1.0]


def test_slow_rates_use_longer_windows_and_zero_means_unlimited(fresh):
    times = FakeTime(1000.0)
    assert _take(times, 0.5, 2) == [1000.0, 1002.0] and times.slept == [2.0]
    unlimited = FakeTime(5.0)
    assert _take(unlimited, 0, 100) == [5.0] * 100 and unlimited.slept == []
