"""The domain rules behind issue 34's round trip (tests/api/test_round_trip.py checks them over HTTP):
a PHP array attribute keeps what was sent, and an automation resent with its real event ids keeps its
graph."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.domain import wiring  # noqa: F401  (registers the resources)
from chalicelib.domain.automations.declarations import AUTOMATION
from chalicelib.domain.kernel import attributes as a
from chalicelib.domain.kernel import service
from chalicelib.domain.kernel.context import Context
from chalicelib.store import port as store
from devstack.memory import MemoryStore


@pytest.mark.parametrize("sent", [{"weight": 50, "winnerCriteria": "email.openrate"}, [50, "x"], [], {}])
def test_a_php_array_keeps_its_keys(sent: Any) -> None:
    assert a.php_array("variantSettings").clean(sent) == sent


def test_a_php_array_is_a_list_or_an_object() -> None:
    with pytest.raises(a.Invalid):
        a.php_array("variantSettings").clean("weight=50")


@pytest.fixture
def ctx(seeded_store: MemoryStore) -> Context:
    return Context(user=next(store.iterate("user")), base_url="https://m.example")


def _events(first: Any, second: Any, parent: Any) -> list[dict[str, Any]]:
    return [
        {"id": first, "name": "Tag", "type": "lead.changetags", "eventType": "action", "properties": {}},
        {"id": second, "name": "Score", "type": "lead.changepoints", "eventType": "action", "parent": parent},
    ]


@pytest.mark.parametrize("replace", [True, False], ids=["put", "patch"])
def test_an_automation_resent_with_real_event_ids_keeps_its_links(ctx: Context, replace: bool) -> None:
    created, _ = service.create(AUTOMATION, {"name": "A", "events": _events("new1", "new2", "new1")}, ctx)
    first, second = (event["id"] for event in created["events"])
    resent = {"name": "A", "events": _events(first, second, str(first))}
    edited, _ = service.edit(AUTOMATION, created["id"], resent, Context(user=ctx.user), replace=replace)
    assert [event.get("parent") for event in edited["events"]] == [None, first]
    assert [event.get("parent") for event in store.get("automation", created["id"])["events"]] == [None, first]
