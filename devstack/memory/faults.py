"""Which failures mean "unavailable for now" over the in-memory adapters: an `Outage` a test
injects, and AWS's codes (a test may raise a botocore-shaped error through a memory adapter)."""

from __future__ import annotations

from chalicelib import aws


class Outage(Exception):
    """A dependency that is down for now, injected by a test."""


class MemoryOutages:
    """Classifies failures as the AWS implementation does, an `Outage` included."""

    def unavailable(self, error: BaseException | None) -> bool:
        """Whether the failure (or one it was raised from) is an Outage or AWS being unavailable."""
        seen: set[int] = set()
        current = error
        while current is not None and id(current) not in seen:
            seen.add(id(current))
            if isinstance(current, Outage):
                return True
            current = current.__cause__ or current.__context__
        return aws.unavailable(error)
