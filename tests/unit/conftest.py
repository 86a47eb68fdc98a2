"""The unit tier's storage: every `unit` test runs over a fresh in-memory store (`devstack/memory.py`)
with its queues recorded in process, never over moto; `seeded_store` starts from the first-start
state (default fields, API settings, the administrator), built once per session and copied."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import pytest

from devstack.memory import MemoryStore
from tests.conftest import ADMIN


class Queues:
    """What the domain queued, by queue name (stands in for `store/queues.send`)."""

    def __init__(self) -> None:
        self.sent: dict[str, list[Any]] = {}

    def send(self, queue: str, bodies: Iterable[Any], delay: int = 0, dead_letter: bool = False) -> None:
        self.sent.setdefault(queue + ("-dlq" if dead_letter else ""), []).extend(bodies)


def _forget_process_state() -> None:
    from chalicelib.auth import core
    from chalicelib.domain.kernel import cached
    from chalicelib.domain.web import public_docs

    cached.forget()
    core.forget_verified()
    public_docs.forget()


def _refuse_aws(service: str) -> Any:
    raise AssertionError(f"a unit test called AWS ({service}); it belongs in the api tier")


@pytest.fixture
def memory_store(monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryStore]:
    """A fresh, empty in-memory store as the active store, queues recorded (`queued`)."""
    yield from _installed(MemoryStore(), monkeypatch)


def _installed(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryStore]:
    from chalicelib import aws
    from chalicelib.store import port, queues

    monkeypatch.setattr(queues, "send", Queues().send)
    monkeypatch.setattr(aws, "client", _refuse_aws)
    previous = port.use(store)
    _forget_process_state()
    try:
        yield store
    finally:
        port.use(previous)
        _forget_process_state()


@pytest.fixture
def queued() -> dict[str, list[Any]]:
    """The messages the test's code queued, by queue name."""
    from chalicelib.store import queues

    sender = queues.send
    owner: Any = getattr(sender, "__self__", None)
    assert isinstance(owner, Queues), "queued needs the unit tier's store"
    return owner.sent


@pytest.fixture(scope="session")
def _first_start() -> MemoryStore:
    """The in-memory store right after a first start, built once."""
    from chalicelib import bootstrap
    from chalicelib.store import port

    store = MemoryStore()
    with pytest.MonkeyPatch.context() as patch:
        for _ in _installed(store, patch):
            bootstrap.first_start()
            bootstrap.ensure_admin(*ADMIN)
    assert port.active() is not store
    return store


@pytest.fixture
def seeded_store(_first_start: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryStore]:
    """A copy of the first-start store as the active store."""
    yield from _installed(_first_start.copy(), monkeypatch)


@pytest.fixture(autouse=True)
def _unit_tier(request: pytest.FixtureRequest) -> None:
    """Every unit test gets an in-memory store (the seeded one if it asks for it)."""
    if request.node.get_closest_marker("unit") and "seeded_store" not in request.fixturenames:
        request.getfixturevalue("memory_store")
