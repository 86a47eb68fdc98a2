"""Issue 34: a parent's lists of children (`kernel/children.py`) stay true when writers race: the
parent is written only at the revision the child's write read, so a parent changed meanwhile makes
that write `Stale` and it runs again on a fresh read; a write run twice lists a child once."""

from __future__ import annotations

import pytest

from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import Stale
from chalicelib.domain.messaging.declarations import EMAIL
from chalicelib.store import port as store
from devstack.memory import MemoryStore


@pytest.fixture
def ctx(seeded_store: MemoryStore) -> Context:
    """An administrator's request context over the seeded store."""
    return Context(user=next(store.iterate("user")), base_url="https://m.example")


def _fresh(ctx: Context) -> Context:
    return Context(user=ctx.user, base_url=ctx.base_url)


def test_a_child_written_over_a_parent_changed_since_its_read_runs_again(ctx: Context) -> None:
    parent, _ = service.create(EMAIL, {"name": "Parent"}, _fresh(ctx))
    racing = _fresh(ctx)
    service.load(EMAIL, parent["id"], racing)  # this request read the parent...
    other, _ = service.create(EMAIL, {"name": "Other", "translationParent": parent["id"]}, _fresh(ctx))  # ...then
    with pytest.raises(Stale):
        service.create(EMAIL, {"name": "Late", "translationParent": parent["id"]}, racing)
    assert store.get("email", parent["id"])["translationChildren"] == [other["id"]]  # nothing of it stored
    tries = []

    def attempt() -> tuple[dict, bool]:
        tries.append(1)
        return service.create(EMAIL, {"name": "Late", "translationParent": parent["id"]}, racing)

    racing.cache.clear()
    service.load(EMAIL, parent["id"], racing)
    service.update(EMAIL, store.get("email", parent["id"]), {"subject": "Edited"}, _fresh(ctx))  # raced again
    late, _ = service.retrying(attempt, racing)
    assert len(tries) == 2
    stored = store.get("email", parent["id"])
    assert stored["translationChildren"] == [other["id"], late["id"]] and stored["subject"] == "Edited"


def test_an_edit_run_again_lists_the_child_once(ctx: Context) -> None:
    parent, _ = service.create(EMAIL, {"name": "Parent"}, _fresh(ctx))
    child, _ = service.create(EMAIL, {"name": "Child"}, _fresh(ctx))
    for _ in range(2):  # a client sending its PATCH again
        service.edit(EMAIL, child["id"], {"variantParent": parent["id"]}, _fresh(ctx), replace=False)
    assert store.get("email", parent["id"])["variantChildren"] == [child["id"]]
    for _ in range(2):
        service.edit(EMAIL, child["id"], {"variantParent": None}, _fresh(ctx), replace=False)
    assert store.get("email", parent["id"])["variantChildren"] == []
