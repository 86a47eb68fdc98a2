"""The in-memory set of adapters (every port but the documents, which `store.py` keeps), built in
one place for the tests, which install it explicitly (`adapters.install`)."""

from __future__ import annotations

from chalicelib.ports.adapters import Adapters
from chalicelib.ports.certificates import Fetcher
from chalicelib.ports.http import Http
from devstack.memory.channels import MemoryFetcher, MemoryHttp, MemoryMail, MemorySms
from devstack.memory.clock import MemoryClock
from devstack.memory.counting import MemoryRecords, MemoryTokens, MemoryWindowCounters
from devstack.memory.faults import MemoryOutages
from devstack.memory.files import MemoryFiles
from devstack.memory.queues import MemoryQueues


class MemoryAdapters(Adapters):
    """Adapters whose parts are the memory classes (typed so a test reads `.queues.sent`...)."""

    queues: MemoryQueues
    files: MemoryFiles
    window_counters: MemoryWindowCounters
    tokens: MemoryTokens
    mail: MemoryMail
    sms: MemorySms
    clock: MemoryClock
    outages: MemoryOutages
    idempotency: MemoryRecords


def memory_adapters(http: Http | None = None, certificates: Fetcher | None = None) -> MemoryAdapters:
    """A fresh in-memory set; `http` and `certificates` the HTTP and SNS fetch adapters (default:
    answered in memory; the API tests pass the real ones, which reach their servers on 127.0.0.1)."""
    return MemoryAdapters(
        queues=MemoryQueues(),
        files=MemoryFiles(),
        window_counters=MemoryWindowCounters(),
        tokens=MemoryTokens(),
        mail=MemoryMail(),
        sms=MemorySms(),
        http=http or MemoryHttp(),
        certificates=certificates or MemoryFetcher(),
        clock=MemoryClock(),
        outages=MemoryOutages(),
        idempotency=MemoryRecords(),
    )
