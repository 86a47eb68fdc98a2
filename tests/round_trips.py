"""A latency model of AWS calls for tests and benchmarks: every call waits `delay` seconds before it
runs (as a call to DynamoDB from Lambda waits its round trip), and the calls of one request are
grouped into round trips: a call's depth is one more than the deepest call that ended before it
began, and the request waits on as many round trips as its deepest call (calls sent together are
one, a call waiting for a free connection or thread is one more). The request authorizer's calls
are left out (on AWS it is another function, whose decisions API Gateway caches)."""

import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from unittest import mock

import botocore.client

_original = botocore.client.BaseClient._make_api_call


@dataclass
class Trips:
    """What the requests made inside `modelled` cost: AWS calls, sequential round trips, and the
    calls of each round trip by operation name."""

    calls: int = 0
    rounds: int = 0
    waves: list[list[str]] = field(default_factory=list)
    spans: list[tuple[float, float]] = field(default_factory=list)
    _ended: int = 0  # the deepest depth of the calls ended so far
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def begin(self, operation: str) -> int:
        """Count a call starting now; its depth."""
        with self._lock:
            self.calls += 1
            depth = self._ended + 1
            self.rounds = max(self.rounds, depth)
            while len(self.waves) < depth:
                self.waves.append([])
            self.waves[depth - 1].append(operation)
            return depth

    def end(self, depth: int) -> None:
        with self._lock:
            self._ended = max(self._ended, depth)

    def busy(self, started: float, ended: float) -> None:
        """Note a call's span (time.perf_counter), delay included."""
        with self._lock:
            self.spans.append((started, ended))

    def idle_seconds(self, started: float, ended: float) -> float:
        """The seconds of [started, ended] when no AWS call was in flight: the app's own time on the
        request's path (moto's time inside the calls left out with the modelled delay)."""
        covered, reach = 0.0, started
        for begin, end in sorted(self.spans):
            begin, end = max(begin, reach), min(end, ended)
            if end > begin:
                covered += end - begin
                reach = end
        return (ended - started) - covered


@contextmanager
def api_calls(wrap, with_authorizer=False):
    """Route every botocore call of the API function through `wrap(call, client, operation, params)`;
    the request authorizer's calls go straight through unless `with_authorizer` (on AWS it is
    another function). Over the in-memory adapters nothing calls botocore, so a count would be empty
    and prove nothing: a test counting AWS calls must run over moto (mark it `aws`)."""
    from chalicelib.api import authorizer
    from chalicelib.store import port
    from devstack.memory import MemoryStore

    if isinstance(port.active(), MemoryStore):
        raise AssertionError("counting AWS calls over the in-memory adapters: mark the test `aws`")

    deciding = threading.local()
    decide = authorizer.decide

    def routed(self, operation, params):
        if getattr(deciding, "now", False) and not with_authorizer:
            return _original(self, operation, params)
        return wrap(_original, self, operation, params)

    def marked(event):
        deciding.now = True
        try:
            return decide(event)
        finally:
            deciding.now = False

    with (
        mock.patch.object(botocore.client.BaseClient, "_make_api_call", routed),
        mock.patch.object(authorizer, "decide", marked),
    ):
        yield


@contextmanager
def modelled(delay=0.05):
    """Trips of the AWS calls made inside, each delayed by `delay` seconds (long enough that calls
    started together overlap whatever the machine's load)."""
    trips = Trips()

    def delayed(call, client, operation, params):
        depth = trips.begin(operation)
        started = time.perf_counter()
        try:
            time.sleep(delay)
            return call(client, operation, params)
        finally:
            trips.end(depth)
            trips.busy(started, time.perf_counter())

    with api_calls(delayed):
        yield trips
