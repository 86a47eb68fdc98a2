"""The unit tier's storage: every `unit` test runs over a fresh in-memory store (`devstack/memory/`)
and the in-memory adapters of every other port (queues, files, mail... `memory_adapters()`), never
over moto; `seeded_store` starts from the first-start state (default fields, API settings, the
administrator), built once per session and copied."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from devstack.memory import MemoryStore
from tests.conftest import ADMIN


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
    """A fresh, empty in-memory store as the active store, with fresh in-memory adapters (`queued`)."""
    yield from _installed(MemoryStore(), monkeypatch)


def _installed(store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryStore]:
    from chalicelib import aws
    from chalicelib.ports import adapters
    from chalicelib.store import port
    from devstack.memory.adapters import memory_adapters

    monkeypatch.setattr(aws, "client", _refuse_aws)
    previous, previous_adapters = port.use(store), adapters.install(memory_adapters())
    _forget_process_state()
    try:
        yield store
    finally:
        port.use(previous)
        adapters.install(previous_adapters)
        _forget_process_state()


@pytest.fixture
def queued() -> dict[str, list[Any]]:
    """The messages the test's code queued, by queue name (`<name>-dlq` for a dead-letter queue)."""
    from chalicelib.ports import adapters
    from devstack.memory.queues import MemoryQueues

    installed = adapters.active()
    assert installed is not None and isinstance(installed.queues, MemoryQueues), "queued needs the unit tier"
    return installed.queues.sent


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
