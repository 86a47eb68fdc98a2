"""The outages port: whether a failure means a dependency is unavailable for now (throttling, an
outage, a lost connection, past the retries) rather than a bug: answered 503 with Retry-After by the
API, retried by the queue in workers (docs/reliability.md). AWS: `chalicelib/aws.py`'s error codes;
in memory: `devstack/memory/faults.py`'s injected outage, and AWS's codes."""

from typing import Protocol

from chalicelib.ports.slot import Slot


class Outages(Protocol):
    """Classifies failures."""

    def unavailable(self, error: BaseException | None) -> bool:
        """Whether the failure (or one it was raised from) is a dependency unavailable for now."""


slot: Slot[Outages] = Slot("outages")


def unavailable(error: BaseException | None) -> bool:
    """Whether the failure is a dependency unavailable for now."""
    return slot.get().unavailable(error)
