"""The standard operations and the rules they carry, run through the kernel's service over the
in-memory store (unit tier): what tests/api checks over HTTP and moto, here at the domain level."""

from __future__ import annotations

from typing import Any

import pytest

from chalicelib.domain.contacts.declarations import COMPANY, CONTACT
from chalicelib.domain.kernel import service, validation
from chalicelib.domain.kernel.basics import CATEGORY, TAG
from chalicelib.domain.kernel.context import Context
from chalicelib.domain.kernel.errors import NotFound, Stale, ValidationError
from chalicelib.domain.kernel.listing import ListQuery, list_documents
from chalicelib.domain.segments import membership
from chalicelib.domain.segments.declarations import SEGMENT
from chalicelib.store import port as store
from devstack.memory import MemoryStore


@pytest.fixture
def ctx(seeded_store: MemoryStore) -> Context:
    """An administrator's request context over the seeded store."""
    admin = next(store.iterate("user"))
    return Context(user=admin, base_url="https://m.example")


def fresh(ctx: Context) -> Context:
    """The context of another request by the same caller (a context caches what it read)."""
    return Context(user=ctx.user, base_url=ctx.base_url)


def new(resource: Any, ctx: Context, **payload: Any) -> dict[str, Any]:
    doc, created = service.create(resource, payload, fresh(ctx))
    assert created
    return doc


def city_segment(ctx: Context, city: str = "Prague", name: str = "Pragueans") -> dict[str, Any]:
    return new(
        SEGMENT,
        ctx,
        name=name,
        filters=[
            {
                "glue": "and",
                "field": "city",
                "object": "lead",
                "type": "text",
                "operator": "=",
                "properties": {"filter": city},
            }
        ],
    )


def listed(resource: Any, ctx: Context, **query: Any) -> list[int]:
    total, docs, _ = list_documents(resource, ListQuery(**query), fresh(ctx))
    assert total >= len(docs)
    return [d["id"] for d in docs]


def errors_of(call: Any, *args: Any) -> dict[str, Any]:
    with pytest.raises(ValidationError) as raised:
        call(*args)
    return dict(raised.value.fields)


# --- create, read, edit, delete ---------------------------------------------------------------


def test_a_created_document_is_stamped_counted_and_read_back(ctx):
    category = new(CATEGORY, ctx, title="News", bundle="global")
    assert category["id"] == 1 and category["_rev"] == 1
    stored = service.load(CATEGORY, category["id"])
    assert stored["title"] == "News" and stored["createdBy"] == ctx.user_id and stored["dateAdded"]
    assert stored["createdByUser"] == "Admin User" and store.count("category") == 1


def test_ids_are_allocated_in_order_per_kind(ctx):
    assert [new(TAG, ctx, tag=f"t{i}")["id"] for i in range(3)] == [1, 2, 3]
    assert new(CATEGORY, ctx, title="News", bundle="global")["id"] == 1


@pytest.mark.parametrize("entity_id", [0, -1, "x", None, 99])
def test_loading_an_unknown_id_is_not_found(ctx, entity_id):
    with pytest.raises(NotFound):
        service.load(TAG, entity_id, ctx)


def test_patch_keeps_what_it_does_not_name_and_put_resets_it(ctx):
    category = new(CATEGORY, ctx, title="News", bundle="global", description="Daily")
    patched, created = service.edit(CATEGORY, category["id"], {"title": "Updates"}, fresh(ctx), replace=False)
    assert not created and patched["description"] == "Daily" and patched["modifiedBy"] == ctx.user_id
    put, _ = service.edit(CATEGORY, category["id"], {"title": "Fresh", "bundle": "global"}, fresh(ctx), replace=True)
    assert put["title"] == "Fresh" and not put.get("description")
    assert put["dateAdded"] == category["dateAdded"] and put["_rev"] == 3


def test_put_on_a_missing_id_creates_and_patch_is_not_found(ctx):
    with pytest.raises(NotFound):
        service.edit(TAG, 7, {"tag": "x"}, fresh(ctx), replace=False)
    doc, created = service.edit(TAG, 7, {"tag": "x"}, fresh(ctx), replace=True)
    assert created and service.load(TAG, doc["id"])["tag"] == "x"


def test_delete_returns_the_document_and_forgets_it(ctx):
    tag = new(TAG, ctx, tag="gone")
    assert service.delete(TAG, tag["id"], fresh(ctx))["tag"] == "gone"
    assert store.get("tag", tag["id"]) is None and store.count("tag") == 0
    with pytest.raises(NotFound):
        service.delete(TAG, tag["id"], fresh(ctx))


def test_an_edit_from_a_stale_read_is_refused(ctx):
    category = new(CATEGORY, ctx, title="News", bundle="global")
    first, second = service.load(CATEGORY, category["id"]), service.load(CATEGORY, category["id"])
    service.update(CATEGORY, first, {"title": "One"}, fresh(ctx))
    with pytest.raises(Stale):
        service.update(CATEGORY, second, {"title": "Two"}, fresh(ctx))
    assert service.load(CATEGORY, category["id"])["title"] == "One"


def test_retrying_runs_again_on_a_fresh_read(ctx):
    category = new(CATEGORY, ctx, title="News", bundle="global")
    stale = service.load(CATEGORY, category["id"])
    service.update(CATEGORY, service.load(CATEGORY, category["id"]), {"title": "Other"}, fresh(ctx))
    reads = [stale]

    def edit() -> dict[str, Any]:
        doc = reads.pop() if reads else service.load(CATEGORY, category["id"])
        return service.update(CATEGORY, doc, {"description": "kept"}, fresh(ctx))

    assert service.retrying(edit, ctx)["title"] == "Other"


# --- validation --------------------------------------------------------------------------------


def test_a_body_that_is_not_an_object_is_refused():
    assert validation.payload_object([]) == {} and validation.payload_object(None) == {}
    assert errors_of(validation.payload_object, ["a"]) == {"body": ["The request body should be a JSON object."]}


def test_required_attributes_are_named(ctx):
    assert "tag" in errors_of(service.create, TAG, {}, ctx)
    assert store.count("tag") == 0 and store.last_id("tag") == 0  # validated before any id is allocated


def test_an_unknown_category_is_refused(ctx):
    assert "category" in errors_of(service.create, SEGMENT, {"name": "S", "category": 99}, ctx)


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"field": "nope", "operator": "="}, "filters[0][field]"),
        ({"field": "city", "operator": "zz"}, "filters[0][operator]"),
        ({"field": "city", "operator": "regexp", "properties": {"filter": "("}}, "filters[0][properties][filter]"),
        (
            {"field": "points", "type": "number", "operator": "gt", "properties": {"filter": "many"}},
            "filters[0][properties][filter]",
        ),
        ({"field": "city", "object": "planet", "operator": "="}, "filters[0][object]"),
    ],
)
def test_invalid_segment_filters_are_refused_naming_the_filter(ctx, bad, field):
    payload = {"name": "Bad", "filters": [dict({"glue": "and", "object": "lead"}, **bad)]}
    assert field in errors_of(service.create, SEGMENT, payload, ctx)
    assert store.count("segment") == 0


# --- unique values and contacts ----------------------------------------------------------------


def test_a_unique_value_is_claimed_case_insensitively(ctx):
    new(TAG, ctx, tag="VIP")
    assert store.lookup("tag", "tag", "vip") == 1


def test_a_contact_with_a_known_email_updates_the_holder(ctx):
    ann = new(CONTACT, ctx, email="ann@example.com", firstname="Ann")
    again, created = service.create(CONTACT, {"email": "ANN@example.com", "lastname": "Smith"}, ctx)
    assert not created and again["id"] == ann["id"]
    assert again["values"]["firstname"] == "Ann" and again["values"]["lastname"] == "Smith"
    assert store.count("contact") == 1


def test_deleting_a_contact_frees_its_email(ctx):
    ann = new(CONTACT, ctx, email="ann@example.com")
    service.delete(CONTACT, ann["id"], fresh(ctx))
    assert store.lookup("contact", "email", "ann@example.com") is None
    assert new(CONTACT, ctx, email="ann@example.com")["id"] == ann["id"] + 1


def test_an_edit_giving_a_contact_anothers_email_merges_them_into_the_older(ctx):
    ann = new(CONTACT, ctx, email="ann@example.com", firstname="Ann", city="Prague")
    other = new(CONTACT, ctx, email="other@example.com", lastname="Smith")
    survivor, created = service.edit(CONTACT, other["id"], {"email": "ann@example.com"}, fresh(ctx), replace=False)
    assert not created and survivor["id"] == ann["id"]
    assert survivor["values"]["firstname"] == "Ann" and survivor["values"]["lastname"] == "Smith"
    assert store.get("contact", other["id"]) is None and store.count("contact") == 1
    assert store.lookup("contact", "email", "ann@example.com") == ann["id"]
    assert store.lookup("contact", "email", "other@example.com") is None


def test_companies_are_listed_by_search(ctx):
    acme, _ = new(COMPANY, ctx, companyname="Acme"), new(COMPANY, ctx, companyname="Globex")
    assert listed(COMPANY, ctx, search="acme") == [acme["id"]]


# --- segments: real-time membership ---------------------------------------------------------------


def test_a_contact_write_updates_membership_in_the_same_transaction(ctx):
    segment = city_segment(ctx)
    ann = new(CONTACT, ctx, email="ann@example.com", city="Prague")
    assert list(membership.contact_segments(ann, ctx)["lists"]) == [str(segment["id"])]
    assert membership.members_of_all([segment["id"]]) == [ann["id"]]
    moved, _ = service.edit(CONTACT, ann["id"], {"city": "Brno"}, fresh(ctx), replace=False)
    assert membership.contact_segments(moved, ctx) == {"total": 0, "lists": {}}
    assert membership.members_of_all([segment["id"]]) == []


def test_segment_searches_list_the_members(ctx):
    segment = city_segment(ctx)
    ann = new(CONTACT, ctx, email="ann@example.com", city="Prague")
    bob = new(CONTACT, ctx, email="bob@example.com", city="Brno")
    assert listed(CONTACT, ctx, search=f"segment:{segment['alias']}") == [ann["id"]]
    assert listed(CONTACT, ctx, search=f"!segment:{segment['alias']}") == [bob["id"]]


def test_a_new_segment_queues_the_rebuild_of_existing_contacts(ctx, queued):
    new(CONTACT, ctx, email="ann@example.com", city="Prague")
    city_segment(ctx)
    assert queued.get("segments"), queued


# --- listing -----------------------------------------------------------------------------------


def test_lists_page_in_id_order_with_the_kinds_count(ctx):
    ids = [new(TAG, ctx, tag=f"t{i}")["id"] for i in range(5)]
    total, docs, after = list_documents(TAG, ListQuery(limit=2), ctx)
    assert total == 5 and [d["id"] for d in docs] == ids[:2] and after == ids[1]
    assert listed(TAG, ctx, limit=2, after=after) == ids[2:4]
    assert listed(TAG, ctx, order_dir="DESC", limit=3) == ids[::-1][:3]


def test_lists_search_order_and_where(ctx):
    for name in ("banana", "apple", "cherry"):
        new(TAG, ctx, tag=name)
    assert listed(TAG, ctx, order_by="tag") == [2, 1, 3]
    assert listed(TAG, ctx, search="an") == [1]
    assert listed(TAG, ctx, search="ids:3,1") == [1, 3]
    assert listed(TAG, ctx, where={"0": {"col": "tag", "expr": "like", "val": "%rr%"}}) == [3]


def test_a_cursor_continues_only_a_key_order_list(ctx):
    new(TAG, ctx, tag="a")
    assert "after" in errors_of(list_documents, TAG, ListQuery(search="a", after=1), ctx)
