"""The domain rules behind issue 34's round trip (tests/api/test_round_trip.py checks them over HTTP):
a PHP array attribute keeps what was sent, and an automation resent with its real event ids keeps its
graph."""

from __future__ import annotations

from typing import Any

import pytest

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


def test_field_values_sent_back_in_fields_all_count_under_the_top_level_ones() -> None:
    from chalicelib.domain.contacts.custom_values import as_sent

    read = {"city": "Brno", "fields": {"core": {}, "all": {"id": 4, "city": "Prague", "email": "a@example.com"}}}
    assert as_sent(read)["city"] == "Brno" and as_sent(read)["email"] == "a@example.com"
    assert as_sent({"city": "Brno"}) == {"city": "Brno"}
    assert as_sent({"fields": []}) == {"fields": []}


def test_a_contact_put_back_as_read_keeps_its_values_and_tags(ctx: Context) -> None:
    from chalicelib.domain.contacts.declarations import CONTACT

    created, _ = service.create(CONTACT, {"email": "ann@example.com", "city": "Prague", "tags": ["vip"]}, ctx)
    read = {"fields": {"all": dict(created["values"])}, "tags": [{"id": 1, "tag": "vip", "description": None}]}
    edited, _ = service.edit(CONTACT, created["id"], read, Context(user=ctx.user), replace=True)
    assert edited["values"]["city"] == "Prague" and edited["values"]["email"] == "ann@example.com"
    assert [t.get("tag") for t in edited["tags"]] == ["vip"]
